"""UTF-8 and UTF-16 (Python's codecs, and _native/utf16.c for UTF-16 without
surrogates) against literal transcriptions of the standard's decoders,
exhaustively over short sequences of telling bytes."""

from __future__ import annotations

import itertools
import shutil
import sysconfig

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding.codecs import decode_bytes, decode_strict, utf16

from whatwg_reference import spec_utf8_decode, spec_utf16_decode

# Every byte class the UTF-8 decoder distinguishes, at its boundaries.
UTF8_BYTES = bytes(
    [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF]
    + [0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
)

# Fewer, for four-byte sequences: one byte per class boundary that matters there.
UTF8_BYTES_SHORT = bytes([0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF])


def check_utf8(data: bytes) -> None:
    expected = spec_utf8_decode(data)
    assert decode_bytes("UTF-8", data) == expected, data.hex()
    assert decode_strict("UTF-8", data) == (expected[0] if expected[1] == 0 else None), data.hex()


def test_utf8_every_one_and_two_byte_sequence() -> None:
    for pair in itertools.product(range(256), repeat=2):
        check_utf8(bytes(pair))
    for byte in range(256):
        check_utf8(bytes((byte,)))


def test_utf8_sequences_of_telling_bytes() -> None:
    for sequence in itertools.product(UTF8_BYTES, repeat=3):
        check_utf8(bytes(sequence))
    for sequence in itertools.product(UTF8_BYTES_SHORT, repeat=4):
        check_utf8(bytes(sequence))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_utf8_random(data: bytes) -> None:
    check_utf8(data)


UNITS = [0x0041, 0x00D8, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xFFFD, 0xFEFF]


@pytest.mark.parametrize("encoding", ["UTF-16LE", "UTF-16BE"])
def test_utf16_units_and_odd_tails(encoding: str) -> None:
    big_endian = encoding == "UTF-16BE"
    order = "big" if big_endian else "little"
    for count in range(4):
        for units in itertools.product(UNITS, repeat=count):
            body = b"".join(unit.to_bytes(2, order) for unit in units)
            for tail in (b"", b"\x41", b"\xd8", b"\xdc"):
                data = body + tail
                expected = spec_utf16_decode(data, big_endian)
                assert decode_bytes(encoding, data) == expected, data.hex()
                strict = expected[0] if expected[1] == 0 else None
                assert decode_strict(encoding, data) == strict, data.hex()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([0x00, 0x41, 0xD8, 0xDB, 0xDC, 0xDF, 0xFD, 0xFF]), max_size=24))
def test_utf16_random(byte_list: list[int]) -> None:
    data = bytes(byte_list)
    for encoding, big_endian in (("UTF-16LE", False), ("UTF-16BE", True)):
        assert decode_bytes(encoding, data) == spec_utf16_decode(data, big_endian)


@pytest.mark.parametrize("encoding", ["UTF-16LE", "UTF-16BE"])
def test_utf16_every_code_unit(encoding: str) -> None:
    """Each code unit alone (the str's kind follows from it: ASCII, Latin-1, UCS-2) and all of
    them in one input longer than 64 KiB (decoded without the GIL)."""
    big_endian = encoding == "UTF-16BE"
    order = "big" if big_endian else "little"
    for unit in itertools.chain(range(0x200), range(0xD700, 0xE100), range(0xFF00, 0x10000)):
        data = unit.to_bytes(2, order)
        assert decode_bytes(encoding, data) == spec_utf16_decode(data, big_endian), hex(unit)
    everything = b"".join(unit.to_bytes(2, order) for unit in range(0x10000) if not 0xD800 <= unit <= 0xDFFF)
    for data in (everything, everything[: 2 * 0xD800], "a".encode(encoding) * 40000, "é".encode(encoding) * 40000):
        expected = spec_utf16_decode(data, big_endian)
        assert decode_bytes(encoding, data) == expected
        assert decode_strict(encoding, data) == expected[0]


@pytest.mark.skipif(not utf16.COMPILED, reason="the _native.utf16 extension was not built (no C compiler at install)")
def test_utf16_compiled_path_declines_surrogates_and_odd_lengths() -> None:
    """Where the standard has surrogate pairs or errors, the compiled path answers None and Python's
    codec (checked above against the standard) decodes."""
    assert utf16.decode_bmp(b"\x41\x00\x3d\xd8\x00\xde", False) is None
    assert utf16.decode_bmp(b"\x00\xdc", False) is None
    assert utf16.decode_bmp(b"\x41\x00\x41", False) is None
    assert utf16.decode_bmp(b"\x30\x42\x00\x41", True) == "\u3042\x41"
    assert utf16.decode_bmp(bytearray(b"\xe9\x00"), False) == "\xe9"


def test_utf16_compiled_wherever_a_compiler_is() -> None:
    compiler = (sysconfig.get_config_var("CC") or "").split()
    if not compiler or shutil.which(compiler[0]) is None:
        pytest.skip("no C compiler here: Python's codec decodes all UTF-16")
    assert utf16.COMPILED


@pytest.mark.skipif(not utf16.COMPILED, reason="the _native.utf16 extension was not built")
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([0x00, 0x41, 0xD8, 0xDB, 0xDC, 0xDF, 0xFD, 0xFF, 0x3D, 0xDE]), max_size=40))
def test_utf16_compiled_errors_path_equals_pythons_codec(byte_list: list[int]) -> None:
    """The compiled decoder of surrogates and errors gives the answer of Python's codec, which runs
    without a compiler (both checked against the standard above)."""
    data = bytes(byte_list)
    for codec in ("utf-16-le", "utf-16-be"):
        assert utf16.decode(codec, data) == utf16.reference_decode(codec, data)


@pytest.mark.parametrize("encoding", ["UTF-16LE", "UTF-16BE"])
def test_utf16_long_inputs_with_pairs_and_lone_surrogates(encoding: str) -> None:
    """Longer than 64 KiB (decoded without the GIL): astral text, and text full of lone surrogates."""
    big_endian = encoding == "UTF-16BE"
    order = "big" if big_endian else "little"
    lone = b"".join(unit.to_bytes(2, order) for unit in (0x41, 0xD800, 0x42, 0xDC00, 0xD83D, 0xDE00, 0xDBFF))
    for data in ("a😀é".encode(encoding) * 20000, lone * 10000, lone * 10000 + b"\x41"):
        expected = spec_utf16_decode(data, big_endian)
        assert decode_bytes(encoding, data) == expected
        assert decode_strict(encoding, data) == (expected[0] if expected[1] == 0 else None)
