"""``overrides suggest``'s decision on records in hand (on the real broker: test_overrides_suggest.py)."""

from __future__ import annotations

import datetime as dt

from consumer.decoding import decode
from consumer.overrides.suggest import collect, suggest

TODAY = dt.date(2026, 12, 5)
GERMAN = "Grüße aus München, schöne Straße, Käse und Brötchen für alle. ".encode()


def lossy(url: str, body: bytes, content_type: str = "text/html; charset=utf-8") -> dict:
    return {"reason": "lossy", "raw": {"url": url, "body": body,
                                       "headers": [{"name": "Content-Type", "value": content_type}]}}


def test_damaged_utf8_is_never_suggested_a_legacy_encoding():
    records = [lossy(f"https://www.example.de/{i}", b"<p>" + GERMAN + b"\xff" * (i + 1) + b"</p>") for i in range(3)]
    for record in records:  # a legacy single-byte encoding reads these bytes without an error
        assert not decode(record["raw"]["body"], "text/html; charset=windows-1250").lossy
    (found,) = suggest(collect(records, 1 << 20), TODAY)
    assert found.chosen is None and found.entry is None
    assert "damaged UTF-8" in found.why_none


def test_records_that_are_not_lossy_are_counted_apart():
    collected = collect([{"reason": "not-text", "raw": None}, {"reason": "unreadable-record", "raw": None},
                         lossy("not a url", b"\xff")], 1 << 20)
    assert not collected.hosts
    assert collected.skipped == {"not-text": 1, "unreadable-record": 1, "no host in url": 1}


def test_min_share_decides_between_most_and_all():
    cyrillic = [lossy(f"https://news.example.org/{i}", f"<title>{t}</title>".encode("cp1251"))
                for i, t in enumerate(["Лес", "Юг", "Ель", "Хлеб"])]
    # A fifth page of damaged UTF-8, which no legacy encoding counts as clean: 4 of 5 are.
    cyrillic.append(lossy("https://news.example.org/x", b"<p>" + GERMAN + b"\xff</p>"))
    for record in cyrillic:  # each is quarantined lossy by the processor
        assert decode(record["raw"]["body"], "text/html; charset=utf-8", record["raw"]["url"]).lossy
    (most,) = suggest(collect(cyrillic, 1 << 20), TODAY, min_share=0.8)
    assert (most.chosen.encoding, most.chosen.clean, most.records) == ("windows-1251", 4, 5)
    (every,) = suggest(collect(cyrillic, 1 << 20), TODAY, min_share=1.0)
    assert every.chosen is None  # 4 of 5 is the best any candidate does
