"""The compiled CJK decoders (``_native/multibyte.c``) give exactly the readable reference decoders'
answer, in both error modes: every one- and two-byte sequence alone and between ASCII, every
EUC-JP three-byte sequence after 0x8E and 0x8F, gb18030's four-byte sequences at every lead,
ISO-2022-JP's escapes followed by sampled bytes and every JIS X 0208 pair, random bytes, and
valid text with bytes flipped, inserted and deleted; long inputs too, where the GIL is released
and Big5/gb18030 widen their output mid-way."""

from __future__ import annotations

import itertools
import os
import shutil
import sysconfig
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding.codecs import (
    big5,
    decode_bytes,
    decode_strict,
    euc_jp,
    euc_kr,
    gb18030,
    iso_2022_jp,
    multibyte,
    shift_jis,
)
from consumer.decoding.codecs.cpython import ENCODERS  # close to each encoding: valid text to mutate

REFERENCES = {
    "Shift_JIS": shift_jis,
    "EUC-JP": euc_jp,
    "EUC-KR": euc_kr,
    "Big5": big5,
    "gb18030": gb18030,
    "GBK": gb18030,
    "ISO-2022-JP": iso_2022_jp,
}

needs_compiled = pytest.mark.skipif(
    not multibyte.COMPILED, reason="the _native.multibyte extension was not built (no C compiler at install)"
)


def test_built_wherever_a_compiler_is() -> None:
    """The extension is optional (an install without a compiler still works), so a build that fails
    where a compiler exists would go unnoticed but for this test."""
    compiler = (sysconfig.get_config_var("CC") or "").split()
    if not compiler or shutil.which(compiler[0]) is None:
        pytest.skip("no C compiler here: the readable decoders run")
    assert multibyte.COMPILED


def expected(encoding: str, data: bytes) -> tuple[tuple[str, int], str | None]:
    module = REFERENCES[encoding]
    strict = module.decode(data, True)
    return module.decode(data), None if strict is None else strict[0]


def check(encoding: str, inputs) -> None:
    """Each input decodes as the reference does, lossy and strict, through the public functions."""
    wrong = []
    for data in inputs:
        got = (decode_bytes(encoding, data), decode_strict(encoding, data))
        want = expected(encoding, data)
        if got != want:
            wrong.append((data.hex(" "), got, want))
            if len(wrong) == 5:
                break
    assert not wrong, wrong


@needs_compiled
def test_the_compiled_decoders_run() -> None:
    for encoding in REFERENCES:
        assert decode_bytes(encoding, b"\x1b$B0!\x1b(B" if encoding == "ISO-2022-JP" else b"\x81") == (
            multibyte.decoders(encoding)[0](b"\x1b$B0!\x1b(B" if encoding == "ISO-2022-JP" else b"\x81")
        )
    assert multibyte._multibyte is not None


@needs_compiled
@pytest.mark.parametrize("encoding", sorted(REFERENCES))
def test_every_one_and_two_byte_sequence(encoding: str) -> None:
    check(encoding, (bytes((b,)) for b in range(256)))
    pairs = [bytes(pair) for pair in itertools.product(range(256), repeat=2)]
    check(encoding, pairs)
    # Between ASCII: a prepended byte is decoded afresh, and a lead needs its trail not the end.
    check(encoding, (b"a" + pair + b"z" for pair in pairs))


@needs_compiled
def test_euc_jp_every_three_byte_sequence_after_8e_and_8f() -> None:
    check("EUC-JP", (bytes((lead, b, c)) for lead in (0x8E, 0x8F) for b in range(256) for c in range(256)))


@needs_compiled
@pytest.mark.parametrize("first", range(0x81, 0xFF))
def test_gb18030_four_byte_sequences(first: int) -> None:
    """Every pointer of every lead, one run of 12,600 sequences per lead (each sequence a unit, so
    the run checks each in context), and the sequences whose third or fourth byte is out of range."""
    run = bytes(
        byte
        for second in range(0x30, 0x3A)
        for third in range(0x81, 0xFF)
        for fourth in range(0x30, 0x3A)
        for byte in (first, second, third, fourth)
    )
    assert decode_bytes("gb18030", run) == gb18030.decode(run)
    assert decode_strict("gb18030", run) == expected("gb18030", run)[1]
    check("gb18030", (bytes((first, 0x30 + s, c, d)) for s in (0, 9) for c in range(256) for d in (0x2F, 0x30, 0x39, 0x3A, 0x81)))
    check("gb18030", (bytes((first, 0x35, 0x81))[:length] for length in (2, 3)))


ESCAPES = [b"\x1b(B", b"\x1b(J", b"\x1b(I", b"\x1b$@", b"\x1b$B", b"\x1b(", b"\x1b$", b"\x1b", b"\x1b(A", b"\x1b$A", b"\x1bN"]
TELLING_JP = bytes(
    [0x00, 0x0A, 0x0E, 0x0F, 0x1B, 0x20, 0x21, 0x24, 0x28, 0x30, 0x40, 0x41, 0x42, 0x49, 0x4A, 0x5C, 0x5F]
    + [0x60, 0x74, 0x7E, 0x7F, 0x80, 0xA1, 0xFF]
)


@needs_compiled
def test_iso_2022_jp_escapes_followed_by_sampled_bytes() -> None:
    """Each escape (valid, truncated, unknown) after each state's escape, then every telling byte pair."""
    tails = [bytes(pair) for pair in itertools.product(TELLING_JP, repeat=2)] + [b""]
    for state, escape in itertools.product([b""] + ESCAPES[:5], ESCAPES):
        check("ISO-2022-JP", (state + b"x" + escape + tail for tail in tails))
        # Escape right after escape: the output flag's error.
        check("ISO-2022-JP", (state + escape + tail for tail in tails))


@needs_compiled
@pytest.mark.parametrize("escape", [b"\x1b$@", b"\x1b$B"])
def test_iso_2022_jp_every_jis0208_pair(escape: bytes) -> None:
    pairs = [bytes(pair) for pair in itertools.product(range(256), repeat=2)]
    check("ISO-2022-JP", (escape + pair for pair in pairs))
    check("ISO-2022-JP", (b"a" + escape + pair + b"\x1b(Bz" for pair in pairs))


TELLING = bytes(
    [0x00, 0x1B, 0x24, 0x28, 0x30, 0x39, 0x40, 0x41, 0x42, 0x5C, 0x7E, 0x7F, 0x80, 0x81, 0x84, 0x87, 0x8E]
    + [0x8F, 0x90, 0xA0, 0xA1, 0xA2, 0xAD, 0xC6, 0xDF, 0xE0, 0xE3, 0xEF, 0xF0, 0xF9, 0xFC, 0xFD, 0xFE, 0xFF]
)
BYTES = st.one_of(st.binary(max_size=64), st.lists(st.sampled_from(TELLING), max_size=64).map(bytes))


@needs_compiled
@pytest.mark.parametrize("encoding", sorted(REFERENCES))
@settings(max_examples=300, deadline=None)
@given(data=BYTES)
def test_random_bytes(encoding: str, data: bytes) -> None:
    assert (decode_bytes(encoding, data), decode_strict(encoding, data)) == expected(encoding, data)


@needs_compiled
@pytest.mark.parametrize("encoding", sorted(REFERENCES))
@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=60), edits=st.data())
def test_mutated_valid_text(encoding: str, text: str, edits: st.DataObject) -> None:
    """Valid text with a byte flipped, one inserted and one deleted at drawn positions."""
    data = bytearray(text.encode(ENCODERS[encoding], "ignore"))
    assert (decode_bytes(encoding, bytes(data)), decode_strict(encoding, bytes(data))) == expected(encoding, bytes(data))
    for edit in edits.draw(st.lists(st.sampled_from(["flip", "insert", "delete"]), min_size=1, max_size=3)):
        at = edits.draw(st.integers(0, len(data)))
        byte = edits.draw(st.sampled_from(TELLING) | st.integers(0, 255))
        if edit == "insert":
            data.insert(at, byte)
        elif at < len(data):
            if edit == "flip":
                data[at] ^= 1 << edits.draw(st.integers(0, 7))
            else:
                del data[at]
    assert (decode_bytes(encoding, bytes(data)), decode_strict(encoding, bytes(data))) == expected(encoding, bytes(data))


# Units of every kind each encoding has (ASCII, single-byte, pairs, JIS X 0212 triples, four-byte
# sequences, the index's user-defined area and extension rows), as bytes: Python's codecs cannot
# write all of them.
UNITS = {
    "Shift_JIS": "価格".encode("cp932") + b"\xb1\xb2\x87\x40\xf0\x40\x80",
    "EUC-JP": "価格".encode("euc_jp") + b"\x8e\xb1\xad\xa1\x8f\xb0\xa1\xa1\xc1",
    "EUC-KR": "가격".encode("cp949") + b"\x81\x41\xa1\xa1",
    # 0x8745 is U+27267; 0x8862 is U+00CA U+0304.
    "Big5": "價格".encode("big5") + b"\x87\x45\x88\x62\xa1\x45",
    # U+10000, U+10FFFF and U+FFFE as four bytes; 0x80 is U+20AC.
    "gb18030": "价格".encode("gb18030") + b"\x90\x30\x81\x30\xe3\x32\x9a\x35\x84\x31\xa4\x38\x80",
    "GBK": "价格".encode("gbk") + b"\x80\x81\x40",
    "ISO-2022-JP": b"x\x1b$B2A3J\x1b(I12\x1b(J\x5c\x7e\x1b(B",
}


@needs_compiled
@pytest.mark.parametrize("encoding", sorted(REFERENCES))
def test_ascii_runs_of_every_length_around_a_high_byte_or_an_escape(encoding: str) -> None:
    """An all-ASCII input is handed to CPython's ASCII decoder after a skip of eight bytes a test (a byte at a
    time for ISO-2022-JP, whose ESC, SO and SI are ASCII): every length across the words, and inputs whose one
    byte that is not plain ASCII (a lead, a trail, ESC, SO, SI) sits at every position of them."""
    check(encoding, (b"x" * length for length in range(40)))
    odd = [b"\x80", b"\xa4", b"\xff", b"\x1b", b"\x0e", b"\x0f", b"\x1b$B", b"\xa4\x40"]
    check(encoding, (b"a" * before + byte + b"z" * after for byte in odd for before in range(20) for after in range(20)))


def long_input(encoding: str) -> bytes:
    """150-500 KB: ASCII markup around runs of every kind of unit."""
    return (b"<p>" + UNITS[encoding] * 40 + b"</p>\n") * 400


@needs_compiled
@pytest.mark.parametrize("encoding", sorted(REFERENCES))
def test_long_inputs_valid_and_damaged(encoding: str) -> None:
    """Inputs past the size where the GIL is released; Big5 and gb18030 meet their supplementary
    characters after many BMP ones (the output widens mid-way)."""
    data = long_input(encoding)
    assert len(data) > 65536 and expected(encoding, data)[1] is not None
    if encoding in ("Big5", "gb18030"):
        assert max(decode_bytes(encoding, data)[0]) > "\uffff"
    damaged = bytes(b ^ 0x40 if k % 997 == 0 else b for k, b in enumerate(data))
    check(encoding, [data, data[: len(data) // 2 + 1], damaged, b"\xa4" * 70_000 + data])
    check(encoding, [os.urandom(200_000)])


@needs_compiled
def test_result_kinds_are_canonical() -> None:
    """A str's kind is the smallest that holds it (CPython compares kinds first: a UCS-2 str of
    ASCII text would not equal the same text)."""
    assert decode_bytes("ISO-2022-JP", b"\x1b(Babc") == ("abc", 0)  # no output flag error: ASCII state
    assert decode_bytes("Shift_JIS", b"\x80abc") == ("\x80abc", 0)
    assert decode_bytes("Big5", b"\x88\x62") == ("\u00ca\u0304", 0)
    assert decode_bytes("Big5", b"\x87\x40" * 3 + b"\xa4\x40")[0] == big5.decode(b"\x87\x40" * 3 + b"\xa4\x40")[0]
    assert decode_strict("gb18030", b"a\x81\x30\x81\x30") == "a\x80"


@needs_compiled
def test_any_bytes_like_object_is_read() -> None:
    data = "価格".encode("cp932")
    assert decode_bytes("Shift_JIS", bytearray(data)) == decode_bytes("Shift_JIS", memoryview(data)) == ("価格", 0)
    with pytest.raises(TypeError):
        decode_bytes("Shift_JIS", "価格")  # type: ignore[arg-type]


@needs_compiled
def test_threads_decode_at_once() -> None:
    """Large inputs decode without the GIL: threads running at once all get the right text."""
    data = long_input("Big5") * 2
    want = decode_bytes("Big5", data)
    results: list[tuple[str, int]] = []

    def work() -> None:
        for _ in range(5):
            results.append(decode_bytes("Big5", data))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 20 and all(result == want for result in results)
