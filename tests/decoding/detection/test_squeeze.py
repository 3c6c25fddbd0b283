"""Multi-byte candidates decode the window squeezed (each ASCII run cut to its first two bytes but at the end): it must
decode without error exactly when the window does, to the same non-ASCII characters, with the same
gb18030 four-byte sequences, under every scoring codec (``detection._likelihoods`` says why)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding import detection
from consumer.decoding.detection import loops, reference

from corpus import corpus

_ASCII = re.compile("[\x00-\x7f]+")
# Bytes that make the codecs' cases: ASCII trail bytes (0x30-0x39 gb18030's, 0x40-0x7E the others'),
# leads and trails of every codec, EUC-JP's 0x8E/0x8F, bytes no codec takes.
TELLING = [0x20, 0x30, 0x39, 0x3F, 0x40, 0x5C, 0x7E, 0x7F, 0x80, 0x81, 0x8E, 0x8F, 0xA0, 0xA1, 0xB0, 0xC8, 0xDF, 0xE0, 0xFC, 0xFE, 0xFF]


def assert_squeezes_alike(window: bytes) -> None:
    squeezed = loops.squeeze(window)
    assert squeezed == reference.reference_squeeze(window)
    four_byte = reference._FOUR_BYTE_GB18030
    assert (four_byte in window.translate(reference._GB18030_CLASSES)) == (
        four_byte in squeezed.translate(reference._GB18030_CLASSES)
    )
    for encoding in detection._MULTI_BYTE:
        whole, short = detection._decodes(window, encoding), detection._decodes(squeezed, encoding)
        assert (whole is None) == (short is None), (encoding, window.hex())
        if whole is not None and short is not None:
            assert _ASCII.sub("", whole) == _ASCII.sub("", short), (encoding, window.hex())


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(TELLING) | st.integers(0, 255), max_size=24))
def test_generated_windows(values: list[int]) -> None:
    assert_squeezes_alike(bytes(values))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"ab", b"a", b"1", b"12", b"\x81", b"\xa4", b"\xa4@", b"\x810\x810"]), max_size=30))
def test_generated_runs(chunks: list[bytes]) -> None:
    assert_squeezes_alike(b"".join(chunks))


def test_corpus_windows() -> None:
    for made in corpus(1, 12):
        assert_squeezes_alike(made.body[: detection.MAX_EXAMINED])
