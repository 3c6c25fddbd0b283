"""Every pointer of every index of the standard, decoded through the byte
sequence the standard's pointer arithmetic gives (expectations from the
standard's files, not from the package's generated data)."""

from __future__ import annotations

import unicodedata

import pytest

from consumer.decoding.codecs import decode_bytes

from whatwg_reference import (
    gb18030_four_bytes,
    gb18030_ranges_code_point,
    read_index,
    single_byte_encodings,
)

ERROR = ("\ufffd", 1)


def expect_two_bytes(code_point: int | None, trail: int) -> tuple[str, int]:
    """A two-byte sequence's result: the code point, or an error that gives an
    ASCII trail back to the stream."""
    if code_point is not None:
        return chr(code_point), 0
    return ("\ufffd" + chr(trail), 1) if trail < 0x80 else ERROR


def check_all(encoding: str, cases: dict[bytes, tuple[str, int]]) -> None:
    wrong = {
        data.hex(): (got, want)
        for data, want in cases.items()
        if (got := decode_bytes(encoding, data)) != want
    }
    assert not wrong, f"{len(wrong)} wrong, e.g. {list(wrong.items())[:5]}"


@pytest.mark.parametrize("encoding", single_byte_encodings())
def test_single_byte_index(encoding: str) -> None:
    name = "iso-8859-8" if encoding == "ISO-8859-8-I" else encoding.lower()
    index = read_index(name)
    cases = {bytes((p + 0x80,)): (chr(index[p]), 0) if p in index else ERROR for p in range(128)}
    check_all(encoding, cases)
    ascii_bytes = bytes(range(0x80))
    assert decode_bytes(encoding, ascii_bytes) == (ascii_bytes.decode("ascii"), 0)


def test_x_user_defined_every_byte() -> None:
    check_all("x-user-defined", {bytes((b,)): (chr(b if b < 0x80 else 0xF780 + b - 0x80), 0) for b in range(256)})


def test_jis0208_via_shift_jis() -> None:
    index = read_index("jis0208")
    cases = {}
    for pointer in range(188 * 60):  # leads 0x81..0x9F and 0xE0..0xFC
        lead, trail = divmod(pointer, 188)
        lead += 0x81 if lead < 0x1F else 0xC1
        trail += 0x40 if trail < 0x3F else 0x41
        if 8836 <= pointer <= 10715:  # EUDC: private use, whatever the index says
            cases[bytes((lead, trail))] = (chr(0xE000 - 8836 + pointer), 0)
        else:
            cases[bytes((lead, trail))] = expect_two_bytes(index.get(pointer), trail)
    check_all("Shift_JIS", cases)


def test_jis0208_via_euc_jp_and_iso_2022_jp() -> None:
    index = read_index("jis0208")
    euc, iso = {}, {}
    for pointer in range(94 * 94):
        row, cell = divmod(pointer, 94)
        code_point = index.get(pointer)
        euc[bytes((row + 0xA1, cell + 0xA1))] = (chr(code_point), 0) if code_point else ERROR
        iso[b"\x1b$B" + bytes((row + 0x21, cell + 0x21))] = (chr(code_point), 0) if code_point else ERROR
    check_all("EUC-JP", euc)
    check_all("ISO-2022-JP", iso)


def test_jis0212_via_euc_jp() -> None:
    index = read_index("jis0212")
    cases = {}
    for pointer in range(94 * 94):
        row, cell = divmod(pointer, 94)
        code_point = index.get(pointer)
        cases[bytes((0x8F, row + 0xA1, cell + 0xA1))] = (chr(code_point), 0) if code_point else ERROR
    check_all("EUC-JP", cases)


def test_katakana_via_euc_jp_and_iso_2022_jp() -> None:
    # The decoders map byte n to halfwidth U+FF61 + n; index iso-2022-jp-katakana
    # (used by the encoder) gives each its fullwidth compatibility equivalent
    # (NFKC turns the two spacing voiced sound marks into " " + combining mark).
    index = read_index("iso-2022-jp-katakana")
    assert sorted(index) == list(range(63))
    for pointer, fullwidth in index.items():
        halfwidth = chr(0xFF61 + pointer)
        assert unicodedata.normalize("NFKC", halfwidth) == unicodedata.normalize("NFKC", chr(fullwidth)).strip()
        assert decode_bytes("EUC-JP", bytes((0x8E, 0xA1 + pointer))) == (halfwidth, 0)
        assert decode_bytes("ISO-2022-JP", b"\x1b(I" + bytes((0x21 + pointer,))) == (halfwidth, 0)


def test_euc_kr_index() -> None:
    index = read_index("euc-kr")
    cases = {}
    for pointer in range(126 * 190):
        lead, trail = divmod(pointer, 190)
        cases[bytes((lead + 0x81, trail + 0x41))] = expect_two_bytes(index.get(pointer), trail + 0x41)
    check_all("EUC-KR", cases)


BIG5_TWO_CODE_POINTS = {1133: "\u00ca\u0304", 1135: "\u00ca\u030c", 1164: "\u00ea\u0304", 1166: "\u00ea\u030c"}


def test_big5_index() -> None:
    index = read_index("big5")
    cases = {}
    for pointer in range(126 * 157):
        lead, trail = divmod(pointer, 157)
        lead += 0x81
        trail += 0x40 if trail < 0x3F else 0x62
        if pointer in BIG5_TWO_CODE_POINTS:
            cases[bytes((lead, trail))] = (BIG5_TWO_CODE_POINTS[pointer], 0)
        else:
            cases[bytes((lead, trail))] = expect_two_bytes(index.get(pointer), trail)
    check_all("Big5", cases)


@pytest.mark.parametrize("encoding", ["gb18030", "GBK"])
def test_gb18030_two_byte_index(encoding: str) -> None:
    index = read_index("gb18030")
    cases = {}
    for pointer in range(126 * 190):
        lead, trail = divmod(pointer, 190)
        lead += 0x81
        trail += 0x40 if trail < 0x3F else 0x41
        cases[bytes((lead, trail))] = expect_two_bytes(index.get(pointer), trail)
    check_all(encoding, cases)


def gb18030_range_pointers() -> list[int]:
    """Both ends of every range, one pointer inside it, and the null gaps' ends."""
    starts = sorted(read_index("gb18030-ranges"))
    ends = [following - 1 for following in starts[1:]] + [1237575]
    pointers = {7456, 7457, 7458, 39419, 39420, 188999, 189000, 1237575, 1237576, 1237577}
    for start, end in zip(starts, ends, strict=True):
        pointers |= {start, end, (start + end) // 2}
    # The first pointer whose four bytes exceed the lead 0xFE.
    return sorted(p for p in pointers if p < 126 * 12600)


@pytest.mark.parametrize("encoding", ["gb18030", "GBK"])
def test_gb18030_four_byte_ranges(encoding: str) -> None:
    cases = {}
    for pointer in gb18030_range_pointers():
        code_point = gb18030_ranges_code_point(pointer)
        cases[gb18030_four_bytes(pointer)] = (chr(code_point), 0) if code_point is not None else ERROR
    check_all(encoding, cases)


def test_gb18030_supplementary_planes_every_4096th() -> None:
    cases = {}
    for pointer in range(189000, 1237576, 4096):
        cases[gb18030_four_bytes(pointer)] = (chr(0x10000 + pointer - 189000), 0)
    check_all("gb18030", cases)
