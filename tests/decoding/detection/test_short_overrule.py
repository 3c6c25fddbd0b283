"""A declaration that fails strictly gives way to detection only on enough evidence: a short text
under a false charset (a CDN saying UTF-8 over a windows-1251 title), fewer than
``OVERRULING_EVIDENCE`` non-ASCII bytes, is kept lossy under its declaration (quarantined, as a
browser shows it), never published as another encoding's text, however sure the detector is (it
was sure of wrong ones at 0.95 and above).  Words of every single-byte locale of the evaluation
corpus, 1 to 4 of them, under a UTF-8 header."""

from __future__ import annotations

import itertools

import pytest

from consumer.decoding import decode
from consumer.decoding.data.whatwg import SINGLE_BYTE as SINGLE_BYTE_TABLES
from consumer.decoding.resolve import OVERRULING_EVIDENCE

from corpus import LOCALES, encode, sentences

SINGLE_BYTE = [(locale, encoding) for locale, (_, encodings, _) in LOCALES.items() for encoding in encodings
               if encoding in SINGLE_BYTE_TABLES]  # fmt: skip


def short_texts(locale: str) -> list[str]:
    words = [w for s in itertools.islice(sentences(locale, 5, "eval"), 40) for w in s.split() if not w.isascii()]
    return [" ".join(words[i : i + n]) for n in (1, 2, 3, 4) for i in range(0, 40, 4)]


@pytest.mark.parametrize(("locale", "encoding"), SINGLE_BYTE, ids=lambda v: str(v))
def test_a_short_text_under_a_false_utf8_header_stays_lossy_utf8(locale: str, encoding: str) -> None:
    overruled = []
    for text in short_texts(locale):
        body = encode(f"<title>{text}</title>", encoding)
        if body is None or body.isascii() or sum(byte >= 0x80 for byte in body) >= OVERRULING_EVIDENCE:
            continue
        decoded = decode(body, "text/html; charset=utf-8", "http://example.com/")
        if (decoded.encoding, decoded.source) != ("UTF-8", "http-header") or not decoded.lossy:
            overruled.append((text, decoded.encoding, decoded.confidence))
    assert overruled == []


def test_the_three_letters_that_read_as_windows_1250_stay_lossy_utf8() -> None:
    # Once guessed windows-1250 at 0.51; now windows-1251 at a confidence too low to overrule anything.
    decoded = decode("<p>Шум</p>".encode("cp1251"), "text/html; charset=utf-8", "http://example.com/")
    assert (decoded.encoding, decoded.source, decoded.replacements) == ("UTF-8", "http-header", 3)
    assert "low confidence" in decoded.conflicts[-1] and decoded.conflicts[-1].endswith("not used")


def test_a_confident_guess_on_six_letters_stays_lossy_utf8() -> None:
    # Sure, and right, but on fewer than OVERRULING_EVIDENCE non-ASCII bytes: the declaration stays.
    decoded = decode("<p>Москва</p>".encode("cp1251"), "text/html; charset=utf-8", "http://example.com/")
    assert (decoded.encoding, decoded.source, decoded.replacements) == ("UTF-8", "http-header", 6)
    assert "from 6 non-ASCII bytes, too few" in decoded.conflicts[-1]


def test_enough_evidence_still_overrules_a_false_header() -> None:
    text = "<title>Привет мир, как дела</title>"
    decoded = decode(text.encode("cp1251"), "text/html; charset=utf-8", "http://example.com/")
    assert (decoded.text, decoded.encoding, decoded.source) == (text, "windows-1251", "detector")


def test_nothing_declared_is_detected_however_short() -> None:
    # The rule guards declarations only: with nothing declared there is nothing to keep.
    decoded = decode("<p>Шум</p>".encode("cp1251"), "text/html", "http://example.ru/")
    assert decoded.source == "detector" and not decoded.lossy
