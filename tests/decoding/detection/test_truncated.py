"""Undeclared multi-byte pages cut anywhere, mid-character included (crawlers truncate bodies at a size
limit), are detected as their encoding: a character cut at the end of the examined bytes is no evidence
against it.  Decoded, such a page is its encoding with the cut character's U+FFFD counted (lossy, so
quarantined), never another encoding's text published as clean."""

from __future__ import annotations

import pytest

from consumer.decoding import decode
from consumer.decoding.codecs import decode_bytes
from consumer.decoding.detection import detect

from corpus import LOCALES, page

MULTI_BYTE = [
    (locale, encoding)
    for locale, (_, encodings, _) in LOCALES.items()
    for encoding in encodings
    if encoding in ("Shift_JIS", "EUC-JP", "EUC-KR", "GBK", "gb18030", "Big5")
]
#: Cut points: about 3 KB (the whole body inside the scored window) and 55 KiB (the body ends inside the
#: examined 64 KiB, past the window), each followed by the next three bytes, so that every page is cut
#: both between characters and inside one (gb18030's four-byte sequences included).
CUTS = [base + offset for base in (3000, 55 * 1024) for offset in range(4)]
#: The WHATWG decodes GBK with the gb18030 decoder: either name gives the page's text.
ALIKE = {"GBK": {"GBK", "gb18030"}, "gb18030": {"GBK", "gb18030"}}


def test_the_corpus_has_every_multi_byte_encoding() -> None:
    assert {encoding for _, encoding in MULTI_BYTE} == {"Shift_JIS", "EUC-JP", "EUC-KR", "GBK", "gb18030", "Big5"}


@pytest.mark.parametrize("seed", [7, 11])
@pytest.mark.parametrize(("locale", "encoding"), MULTI_BYTE)
def test_a_truncated_undeclared_page_is_its_encoding_and_lossy_only_when_cut_mid_character(
    locale: str, encoding: str, seed: int
) -> None:
    made = page(locale, encoding, 3 * 55 * 1024, seed)
    assert made is not None and len(made.body) > max(CUTS)
    accepted = ALIKE.get(encoding, {encoding})
    cut_mid_character = 0
    for cut in CUTS:
        body = made.body[:cut]
        expected, replacements = decode_bytes(encoding, body)
        assert replacements <= 1  # a cut leaves at most one incomplete character
        cut_mid_character += replacements
        assert detect(body).encoding in accepted, cut
        assert detect(body, made.tld).encoding in accepted, cut
        decoded = decode(body, "text/html", "http://example.com/")
        assert (decoded.encoding in accepted, decoded.source) == (True, "detector"), (cut, decoded.conflicts)
        assert (decoded.text, decoded.replacements, decoded.lossy) == (expected, replacements, replacements > 0)
        assert decoded.confidence is not None and decoded.confidence > 0.5
    assert cut_mid_character, "no cut fell inside a character: the test would not see the bug"
