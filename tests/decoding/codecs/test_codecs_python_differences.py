"""Where Python's own codecs differ from the standard, one named test each:
our decoders must give the standard's answer."""

from __future__ import annotations

import pytest

from consumer.decoding.codecs import decode_bytes, decode_strict

F = "\ufffd"

# (difference, encoding, bytes, the standard's text, errors)
DIFFERENCES = [
    ("cp1252 rejects 0x81, the standard maps it to U+0081", "windows-1252", b"\x81", "\x81", 0),
    ("cp1252 rejects 0x8D", "windows-1252", b"\x8d", "\x8d", 0),
    ("cp1252 rejects 0x8F", "windows-1252", b"\x8f", "\x8f", 0),
    ("cp1252 rejects 0x90", "windows-1252", b"\x90", "\x90", 0),
    ("cp1252 rejects 0x9D", "windows-1252", b"\x9d", "\x9d", 0),
    ("koi8_u 0xAE is U+255D, the standard U+045E", "KOI8-U", b"\xae", "\u045e", 0),
    ("koi8_u 0xBE is U+256C, the standard U+040E", "KOI8-U", b"\xbe", "\u040e", 0),
    ("shift_jis 0x8160 is U+301C, the standard U+FF5E", "Shift_JIS", b"\x81\x60", "\uff5e", 0),
    ("cp932 0xA0 is U+F8F0, the standard an error", "Shift_JIS", b"\xa0", F, 1),
    ("cp932 0xFD is U+F8F1, the standard an error", "Shift_JIS", b"\xfd", F, 1),
    ("shift_jis rejects 0x80, the standard U+0080", "Shift_JIS", b"\x80", "\x80", 0),
    ("euc_jp 0xA1C1 is U+301C, the standard U+FF5E", "EUC-JP", b"\xa1\xc1", "\uff5e", 0),
    ("euc_jp 0xA1DD is U+2212, the standard U+FF0D", "EUC-JP", b"\xa1\xdd", "\uff0d", 0),
    ("euc_jp 0x8FA2B7 is '~', the standard U+FF5E", "EUC-JP", b"\x8f\xa2\xb7", "\uff5e", 0),
    ("euc_jp rejects NEC row 13, the standard has it", "EUC-JP", b"\xad\xa1", "\u2460", 0),
    ("big5hkscs 0xA145 is U+2022, the standard U+2027", "Big5", b"\xa1\x45", "\u2027", 0),
    ("big5hkscs 0xA1C2 is U+203E, the standard U+00AF", "Big5", b"\xa1\xc2", "\u00af", 0),
    ("gb18030 rejects 0x80, the standard U+20AC", "gb18030", b"\x80", "\u20ac", 0),
    ("gbk rejects 0x80, the standard U+20AC", "GBK", b"\x80", "\u20ac", 0),
    ("gb18030 0xA3A0 is U+E5E5, the standard U+3000", "gb18030", b"\xa3\xa0", "\u3000", 0),
    ("gb18030 0xA8BC is U+E7C7 (2005), the standard U+1E3F (2022)", "gb18030", b"\xa8\xbc", "\u1e3f", 0),
    ("gb18030 0xA6D9 is PUA (2005), the standard U+FE10 (2022)", "gb18030", b"\xa6\xd9", "\ufe10", 0),
    ("gb18030 0xFE59 is PUA (2005), the standard U+9FB4 (2022)", "gb18030", b"\xfe\x59", "\u9fb4", 0),
    ("gb18030 0x8135F437 is U+1E3F, the standard U+E7C7", "gb18030", b"\x81\x35\xf4\x37", "\ue7c7", 0),
]


@pytest.mark.parametrize("case", DIFFERENCES, ids=lambda case: case[0])
def test_standard_wins(case: tuple) -> None:
    _, encoding, data, text, errors = case
    assert decode_bytes(encoding, data) == (text, errors)
    assert decode_strict(encoding, data) == (text if errors == 0 else None)
    # Also inside a longer run, where the fast paths take over.
    long = b"ab" * 50 + data + b"cd" * 50
    assert decode_bytes(encoding, long) == ("ab" * 50 + text + "cd" * 50, errors)


def test_utf16_no_bom_sniffing() -> None:
    # Python's "utf-16" would take FF FE as a BOM; the caller has removed the
    # BOM already, so a remaining FF FE is U+FEFF (ZERO WIDTH NO-BREAK SPACE).
    assert decode_bytes("UTF-16LE", b"\xff\xfea\x00") == ("\ufeffa", 0)
    assert decode_bytes("UTF-16BE", b"\xfe\xff\x00a") == ("\ufeffa", 0)
