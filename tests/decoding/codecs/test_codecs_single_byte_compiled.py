"""The compiled single-byte decoder (``_native/single_byte.c``) gives exactly the reference's answer
(``codecs.charmap_decode`` over the standard's index) and the standard's (its index files read
here independently), in both error modes: every byte of every single-byte encoding alone and
between ASCII, generated inputs, and long ones where the GIL is released and the ASCII fast path
meets non-ASCII at every alignment."""

from __future__ import annotations

import shutil
import sysconfig

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding.codecs import decode_bytes, decode_strict, single_byte
from tests.decoding.codecs.whatwg_reference import read_index, single_byte_encodings

ENCODINGS = [*single_byte_encodings(), "x-user-defined"]


def spec_decode(encoding: str, data: bytes) -> tuple[str, int]:
    """The standard's single-byte (or x-user-defined) decoder over the index file, with its error count."""
    if encoding == "x-user-defined":
        return "".join(chr(b) if b < 0x80 else chr(0xF780 + b - 0x80) for b in data), 0
    # ISO-8859-8-I decodes with ISO-8859-8's index (the standard gives it no file of its own).
    index = read_index("iso-8859-8" if encoding == "ISO-8859-8-I" else encoding.lower())
    chars = [chr(b) if b < 0x80 else chr(index[b - 0x80]) if b - 0x80 in index else "\ufffd" for b in data]
    return "".join(chars), sum(b >= 0x80 and b - 0x80 not in index for b in data)


def assert_agree(encoding: str, data: bytes) -> None:
    table = single_byte.TABLES[encoding]
    expected = single_byte.reference_decode(table, data)
    assert decode_bytes(encoding, data) == expected
    assert decode_strict(encoding, data) == single_byte.reference_decode_strict(table, data)
    assert decode_strict(encoding, data) == (expected[0] if expected[1] == 0 else None)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_every_byte_alone_and_between_ascii(encoding: str) -> None:
    for byte in range(256):
        for data in (bytes([byte]), b"abcdefgh" + bytes([byte]) + b"ijklmnopq", bytes([byte]) * 17):
            assert_agree(encoding, data)
            assert decode_bytes(encoding, data) == spec_decode(encoding, data)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_all_256_bytes_at_once(encoding: str) -> None:
    data = bytes(range(256))
    assert decode_bytes(encoding, data) == spec_decode(encoding, data)
    assert_agree(encoding, data)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_long_inputs_release_the_gil_and_stay_equal(encoding: str) -> None:
    # Above 64 KiB the GIL is released; non-ASCII at every offset mod 16 crosses the ASCII blocks.
    ascii_run = b"<p>plain ascii text</p>\n" * 4000
    for offset in range(17):
        data = ascii_run[:offset] + bytes(range(0x80, 0x100)) + ascii_run
        assert_agree(encoding, data)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_high_bytes_at_every_place_of_a_block(encoding: str) -> None:
    # The decoder reads 16 bytes a step: an ASCII block is copied (or widened) as it is; a Latin-1 text's blocks
    # are copied and their high bytes looked up, one by one; other blocks are looked up byte by byte.
    for byte in (0x80, 0xA0, 0xC0, 0xE9, 0xFF):
        for at in range(40):
            data = bytearray(b"x" * 40)
            data[at] = byte
            assert_agree(encoding, bytes(data))
            data[(at * 7 + 3) % 40] = 0xE4
            data[(at * 11 + 5) % 40] = 0xD5
            assert_agree(encoding, bytes(data))


@settings(max_examples=300)
@given(encoding=st.sampled_from(ENCODINGS), data=st.binary(max_size=200))
def test_generated_bytes(encoding: str, data: bytes) -> None:
    assert_agree(encoding, data)


@settings(max_examples=200)
@given(
    encoding=st.sampled_from(ENCODINGS),
    chunks=st.lists(st.one_of(st.binary(max_size=20), st.text(alphabet=st.characters(max_codepoint=0x7F))), max_size=20),
)
def test_generated_ascii_with_bytes_between(encoding: str, chunks: list[bytes | str]) -> None:
    data = b"".join(c.encode("ascii") if isinstance(c, str) else c for c in chunks)
    assert_agree(encoding, data)


def test_a_bytes_like_input_is_read_through_the_buffer_protocol() -> None:
    assert decode_bytes("windows-1252", memoryview(b"caf\xe9")) == ("café", 0)  # type: ignore[arg-type]


def test_compiled_wherever_a_compiler_is() -> None:
    compiler = (sysconfig.get_config_var("CC") or "").split()
    if not compiler or shutil.which(compiler[0]) is None:
        pytest.skip("no C compiler here: charmap_decode decodes")
    assert single_byte.COMPILED
