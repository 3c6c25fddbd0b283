"""The CPython codec closest to each Encoding Standard encoding that has one: the one table of them.

Python's codecs stand in for the standard in three places: the UTF-16 decoders (``utf16``, exact),
detection's scoring of candidates (``..detection``) and re-encoding a clean record's text
(``consumer.overrides.recheck``, which keeps a result only when the recorded SHA-256 confirms it).
Each difference from the standard is named once below; the CJK decoders never use these codecs
(``multibyte``), and tests/decoding/codecs/test_codecs_python_differences.py names each difference
in a test.
The single-byte encodings have no entry: their tables come from the standard's indexes
(``single_byte``), as no CPython codec matches all of them (cp1252 leaves 0x81 undefined, the
standard maps it to U+0081).
"""

from __future__ import annotations

from .multibyte import DECODER_OF

# Each CJK decoder of the standard (multibyte.DECODER_OF) -> the CPython codec closest to it.
_CJK: dict[str, str] = {
    # Windows-31J, which the standard's Shift_JIS is; cp932 reads 0xA0 and 0xFD..0xFF as
    # U+F8F0..U+F8F3 where the standard errors.
    "shift_jis": "cp932",
    # euc_jp reads a few symbols otherwise (0xA1C1 as U+301C, the standard U+FF5E) and lacks the
    # NEC/IBM rows.
    "euc_jp": "euc_jp",
    # The _ext variant reads half-width katakana (ESC ( I) as the standard does, but also JIS X 0212
    # (ESC $ ( D), which the standard refuses, and lacks the standard's rule against an escape
    # right after an escape: detection scores with it.
    "iso_2022_jp": "iso2022_jp_ext",
    # The standard's EUC-KR is windows-949 (Unified Hangul Code): identical on every unit cp949 accepts.
    "euc_kr": "cp949",
    # The standard's Big5 includes HKSCS; big5hkscs reads 11 cells otherwise (0xA145 as U+2022,
    # the standard U+2027) and lacks leads 0x81..0x86.
    "big5": "big5hkscs",
    # Python's is GB18030-2005, the standard's the 2022 edition (21 cells differ) and Python
    # rejects 0x80 (the standard's U+20AC).
    "gb18030": "gb18030",
}

#: WHATWG encoding name -> the CPython codec that decodes it most like the standard.
DECODERS: dict[str, str] = {
    "UTF-8": "utf-8",  # exact (tests/decoding/codecs/test_codecs_utf.py)
    "UTF-16LE": "utf-16-le",  # exact with "replace"; utf16 counts the U+FFFD it introduced
    "UTF-16BE": "utf-16-be",
    **{encoding: _CJK[decoder] for encoding, decoder in DECODER_OF.items()},
}

#: WHATWG encoding name -> the CPython codec that encodes it most like the standard.  As
#: ``DECODERS`` but GBK, whose encoder in the standard is gb18030's without four-byte sequences:
#: Python's gbk.  It still cannot encode U+20AC, which the standard's GBK writes as 0x80, so such
#: a text fails to encode (recheck reports the record unrebuildable, never rebuilds it wrong).
ENCODERS: dict[str, str] = {**DECODERS, "GBK": "gbk"}
