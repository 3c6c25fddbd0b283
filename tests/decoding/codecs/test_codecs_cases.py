"""Hand-picked cases per codec, each labelled; expectations derived from the
standard's algorithm text (https://encoding.spec.whatwg.org/), including where
a byte is prepended back to the stream."""

from __future__ import annotations

import pytest

from consumer.decoding.codecs import SUPPORTED, decode_bytes, decode_strict

F = "\ufffd"

# (encoding, label, bytes, text, errors)
CASES = [
    # --- UTF-8
    ("UTF-8", "empty", b"", "", 0),
    ("UTF-8", "ASCII", b"abc\x00\x7f", "abc\x00\x7f", 0),
    ("UTF-8", "edge: the four lengths", b"\x7f\xc2\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf", "\x7f\x80\uffff\U0010ffff", 0),
    ("UTF-8", "edge: encoded U+FFFD is no error", b"\xef\xbf\xbd", F, 0),
    ("UTF-8", "surrogate ED A0 80: upper boundary 9F", b"\xed\xa0\x80", F * 3, 3),
    ("UTF-8", "overlong C0 AF", b"\xc0\xaf", F * 2, 2),
    ("UTF-8", "overlong E0 80 AF: lower boundary A0", b"\xe0\x80\xaf", F * 3, 3),
    ("UTF-8", "overlong F0 80 80 AF", b"\xf0\x80\x80\xaf", F * 4, 4),
    ("UTF-8", "above U+10FFFF: F4 90", b"\xf4\x90\x80\x80", F * 4, 4),
    ("UTF-8", "F5 and FF", b"\xf5\xff", F * 2, 2),
    ("UTF-8", "maximal subpart then ASCII", b"a\xe2\x82b", f"a{F}b", 1),
    ("UTF-8", "end mid-sequence", b"a\xf0\x9f\x98", f"a{F}", 1),
    ("UTF-8", "lone continuations", b"\x80\xbf", F * 2, 2),
    # --- UTF-16
    ("UTF-16LE", "empty", b"", "", 0),
    ("UTF-16LE", "ASCII", b"a\x00b\x00", "ab", 0),
    ("UTF-16LE", "edge: surrogate pair", b"\x00\xd8\x00\xdc", "\U00010000", 0),
    ("UTF-16LE", "edge: code unit FFFD is no error", b"\xfd\xff", F, 0),
    ("UTF-16LE", "odd trailing byte", b"a\x00b", f"a{F}", 1),
    ("UTF-16LE", "lone lead surrogate at end", b"a\x00\x00\xd8", f"a{F}", 1),
    ("UTF-16LE", "lead surrogate then odd byte: one error", b"\x00\xd8a", F, 1),
    ("UTF-16LE", "lead surrogate then non-trail unit (prepended back)", b"\x00\xd8a\x00", f"{F}a", 1),
    ("UTF-16LE", "two lead surrogates then trail", b"\x00\xd8\x00\xd8\x00\xdc", f"{F}\U00010000", 1),
    ("UTF-16LE", "lone trail surrogate surrounded", b"a\x00\x00\xdcb\x00", f"a{F}b", 1),
    ("UTF-16BE", "edge: surrogate pair", b"\xd8\x00\xdc\x00", "\U00010000", 0),
    ("UTF-16BE", "odd trailing byte", b"\x00a\x00", f"a{F}", 1),
    ("UTF-16BE", "lead surrogate then non-trail unit", b"\xd8\x00\x00a", f"{F}a", 1),
    # --- single-byte and x-user-defined
    ("windows-1252", "empty", b"", "", 0),
    ("windows-1252", "edge: 0x80 euro, 0xFF", b"\x80\xff", "\u20ac\u00ff", 0),
    ("windows-874", "edge: unmapped 0xDB surrounded", b"a\xdbb", f"a{F}b", 1),
    ("ISO-8859-8-I", "same index as ISO-8859-8", b"\xe0", "\u05d0", 0),
    ("x-user-defined", "edge", b"a\x80\xff", "a\uf780\uf7ff", 0),
    # --- replacement
    ("replacement", "empty", b"", "", 0),
    ("replacement", "anything", b"abc\xff", F, 1),
    # --- Shift_JIS
    ("Shift_JIS", "empty", b"", "", 0),
    ("Shift_JIS", "ASCII", b"abc\\~", "abc\\~", 0),
    ("Shift_JIS", "edge: 0x80 is U+0080", b"\x80", "\x80", 0),
    ("Shift_JIS", "edge: halfwidth katakana A1 and DF", b"\xa1\xdf", "\uff61\uff9f", 0),
    ("Shift_JIS", "edge: first and last EUDC", b"\xf0\x40\xf9\xfc", "\ue000\ue757", 0),
    ("Shift_JIS", "edge surrounded by ASCII", b"a\x81\x40b", "a\u3000b", 0),
    ("Shift_JIS", "A0 and FD..FF are errors", b"\xa0\xfd\xfe\xff", F * 4, 4),
    ("Shift_JIS", "ASCII trail is prepended back", b"\x81\x20", f"{F} ", 1),
    ("Shift_JIS", "0x7F trail is prepended back", b"\x81\x7f", f"{F}\x7f", 1),
    ("Shift_JIS", "non-ASCII bad trail is consumed", b"\x81\xfdA", f"{F}A", 1),
    ("Shift_JIS", "pointer the index lacks, ASCII trail", b"\x85\x40", f"{F}@", 1),
    ("Shift_JIS", "end mid-sequence", b"a\x81", f"a{F}", 1),
    # --- EUC-JP
    ("EUC-JP", "empty", b"", "", 0),
    ("EUC-JP", "ASCII", b"abc", "abc", 0),
    ("EUC-JP", "edge: 8E katakana A1 and DF", b"\x8e\xa1\x8e\xdf", "\uff61\uff9f", 0),
    ("EUC-JP", "edge: 8F JIS X 0212 (breve)", b"\x8f\xa2\xaf", "\u02d8", 0),
    ("EUC-JP", "edge surrounded by ASCII", b"a\xa4\xa2b", "a\u3042b", 0),
    ("EUC-JP", "8E with E0: both consumed", b"\x8e\xe0", F, 1),
    ("EUC-JP", "8E with ASCII: prepended back", b"\x8eA", f"{F}A", 1),
    ("EUC-JP", "8F with ASCII: prepended back", b"\x8fA", f"{F}A", 1),
    ("EUC-JP", "8F A1 with ASCII: A1 consumed, ASCII back", b"\x8f\xa1A", f"{F}A", 1),
    ("EUC-JP", "8F, pointer jis0212 lacks", b"\x8f\xa1\xa1", F, 1),
    ("EUC-JP", "end after 8F A1", b"\x8f\xa1", F, 1),
    ("EUC-JP", "end after lead", b"a\xa4", f"a{F}", 1),
    ("EUC-JP", "lead with A0: consumed", b"\xa4\xa0", F, 1),
    ("EUC-JP", "80, A0 and FF are errors", b"\x80\xa0\xff", F * 3, 3),
    # --- ISO-2022-JP
    ("ISO-2022-JP", "empty", b"", "", 0),
    ("ISO-2022-JP", "ASCII", b"abc\n", "abc\n", 0),
    ("ISO-2022-JP", "edge: JIS X 0208 then back to ASCII", b"\x1b$B\x30\x21\x1b(Ba", "\u4e9ca", 0),
    ("ISO-2022-JP", "edge: ESC $ @ is JIS X 0208 too", b"\x1b$@\x30\x21", "\u4e9c", 0),
    ("ISO-2022-JP", "edge: Roman 5C and 7E", b"\x1b(J\\~a", "\u00a5\u203ea", 0),
    ("ISO-2022-JP", "edge: katakana 21 and 5F", b"\x1b(I\x21\x5f", "\uff61\uff9f", 0),
    ("ISO-2022-JP", "edge surrounded by ASCII", b"a\x1b$B\x30\x21\x1b(Bb", "a\u4e9cb", 0),
    ("ISO-2022-JP", "escape alone at the start is no error", b"\x1b(Ba", "a", 0),
    ("ISO-2022-JP", "two escapes in a row: output flag error", b"\x1b(B\x1b(Ba", f"{F}a", 1),
    ("ISO-2022-JP", "escape into JIS then out with nothing between", b"\x1b$B\x1b(B", F, 1),
    ("ISO-2022-JP", "SO, SI and 0x80 are errors", b"\x0e\x0f\x80", F * 3, 3),
    ("ISO-2022-JP", "katakana out of range", b"\x1b(I\x60", F, 1),
    ("ISO-2022-JP", "lead byte state: newline is an error", b"\x1b$B\n", F, 1),
    ("ISO-2022-JP", "trail byte state: newline consumed", b"\x1b$B\x30\n\x1b(Ba", f"{F}a", 1),
    ("ISO-2022-JP", "a lone lead byte at the end is an error", b"\x1b$B\x30\na", F * 2, 2),
    ("ISO-2022-JP", "trail byte ESC: error, escape still read", b"\x1b$B\x30\x1b(Ba", f"{F}a", 1),
    ("ISO-2022-JP", "end in trail byte state", b"\x1b$B\x30", F, 1),
    ("ISO-2022-JP", "pointer jis0208 lacks", b"\x1b$B\x22\x2f", F, 1),
    ("ISO-2022-JP", "bad escape: ( and X prepended back", b"\x1b(Xa", f"{F}(Xa", 1),
    ("ISO-2022-JP", "ESC at the end", b"a\x1b", f"a{F}", 1),
    ("ISO-2022-JP", "ESC $ at the end: $ prepended back", b"\x1b$", f"{F}$", 1),
    ("ISO-2022-JP", "bad escape returns to the output state", b"\x1b(J\x1bx\\", f"{F}x\u00a5", 1),
    # --- EUC-KR
    ("EUC-KR", "empty", b"", "", 0),
    ("EUC-KR", "ASCII", b"abc", "abc", 0),
    ("EUC-KR", "edge: KS X 1001 and UHC extension", b"\xb0\xa1\x81\x41", "\uac00\uac02", 0),
    ("EUC-KR", "edge surrounded by ASCII", b"a\xb0\xa1b", "a\uac00b", 0),
    ("EUC-KR", "trail 0x40 is prepended back", b"\x81\x40", f"{F}@", 1),
    ("EUC-KR", "trail FF is consumed", b"\x81\xffa", f"{F}a", 1),
    ("EUC-KR", "80 and FF are errors", b"\x80\xff", F * 2, 2),
    ("EUC-KR", "end mid-sequence", b"a\xb0", f"a{F}", 1),
    # --- Big5
    ("Big5", "empty", b"", "", 0),
    ("Big5", "ASCII", b"abc", "abc", 0),
    ("Big5", "edge: first hanzi", b"\xa4\x40", "\u4e00", 0),
    ("Big5", "edge: pointer 1133 is two code points", b"\x88\x62", "\u00ca\u0304", 0),
    ("Big5", "edge: pointer 1135", b"\x88\x64", "\u00ca\u030c", 0),
    ("Big5", "edge: pointer 1164", b"\x88\xa3", "\u00ea\u0304", 0),
    ("Big5", "edge: pointer 1166", b"\x88\xa5", "\u00ea\u030c", 0),
    ("Big5", "edge surrounded by ASCII", b"a\x88\x62b", "a\u00ca\u0304b", 0),
    ("Big5", "0x7F trail prepended back", b"\xa1\x7f", f"{F}\x7f", 1),
    ("Big5", "A0 trail consumed", b"\xa4\xa0", F, 1),
    ("Big5", "pointer the index lacks, ASCII trail", b"\x81\x40", f"{F}@", 1),
    ("Big5", "80 and FF are errors", b"\x80\xff", F * 2, 2),
    ("Big5", "end mid-sequence", b"a\xa4", f"a{F}", 1),
    # --- gb18030 (GBK shares the decoder; see test_gbk_is_gb18030)
    ("gb18030", "empty", b"", "", 0),
    ("gb18030", "ASCII", b"abc", "abc", 0),
    ("gb18030", "edge: 0x80 is the euro sign", b"\x80", "\u20ac", 0),
    ("gb18030", "edge: first four-byte pointer", b"\x81\x30\x81\x30", "\x80", 0),
    ("gb18030", "edge: pointer 7457 is U+E7C7", b"\x81\x35\xf4\x37", "\ue7c7", 0),
    ("gb18030", "edge: last BMP pointer 39419", b"\x84\x31\xa4\x39", "\uffff", 0),
    ("gb18030", "edge: first and last supplementary", b"\x90\x30\x81\x30\xe3\x32\x9a\x35", "\U00010000\U0010ffff", 0),
    ("gb18030", "edge surrounded by ASCII", b"a\xd6\xd0b", "a\u4e2db", 0),
    ("gb18030", "pointer 39420 is null: one error, four bytes", b"\x84\x31\xa5\x30a", f"{F}a", 1),
    ("gb18030", "past U+10FFFF is null", b"\xe3\x32\x9a\x36", F, 1),
    ("gb18030", "FF is an error", b"\xff", F, 1),
    ("gb18030", "0x7F second byte prepended back", b"\x81\x7f", f"{F}\x7f", 1),
    ("gb18030", "FF second byte consumed", b"\x81\xff", F, 1),
    ("gb18030", "bad third byte: second and third prepended back", b"\x81\x30 ", f"{F}0 ", 1),
    ("gb18030", "bad fourth byte: second, third, fourth prepended back", b"\x81\x30\x81 ", f"{F}0{F} ", 2),
    ("gb18030", "end after two bytes", b"\x81\x30", F, 1),
    ("gb18030", "end after three bytes", b"a\x81\x30\x81", f"a{F}", 1),
    ("gb18030", "end after lead", b"\x81", F, 1),
]


def case_id(case: tuple) -> str:
    return f"{case[0]}: {case[1]}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case(case: tuple) -> None:
    encoding, _, data, text, errors = case
    assert decode_bytes(encoding, data) == (text, errors)
    assert decode_strict(encoding, data) == (text if errors == 0 else None)


def test_every_encoding_has_cases_or_an_index_test() -> None:
    covered = {case[0] for case in CASES}
    assert {"UTF-8", "UTF-16LE", "UTF-16BE", "replacement", "x-user-defined"} <= covered
    assert {"Shift_JIS", "EUC-JP", "ISO-2022-JP", "EUC-KR", "Big5", "gb18030"} <= covered


@pytest.mark.parametrize("data", [case[2] for case in CASES if case[0] == "gb18030"])
def test_gbk_is_gb18030(data: bytes) -> None:
    assert decode_bytes("GBK", data) == decode_bytes("gb18030", data)


def test_unknown_encoding_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        decode_bytes("latin1", b"a")
    with pytest.raises(KeyError):
        decode_strict("utf8", b"a")


def test_supported_is_every_encoding_of_the_standard() -> None:
    from whatwg_reference import all_encodings

    assert all_encodings() == SUPPORTED
    assert len(SUPPORTED) == 40
