"""``overrides suggest``'s decision on records in hand (on the real broker: test_overrides_suggest.py)."""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib

from consumer.decoding import Override, OverrideMode, OverrideTable, decode
from consumer.decoding.codecs import decode_strict
from consumer.decoding.data.whatwg import NO_CODE_POINT, SINGLE_BYTE
from consumer.overrides.recheck import encode_as
from consumer.overrides.suggest import clean_body, collect, format_suggestions, suggest

TODAY = dt.date(2026, 12, 5)
GERMAN = "Grüße aus München, schöne Straße, Käse und Brötchen für alle. ".encode()


def lossy(url: str, body: bytes, content_type: str = "text/html; charset=utf-8") -> dict:
    return {"reason": "lossy", "raw": {"url": url, "body": body,
                                       "headers": [{"name": "Content-Type", "value": content_type}]}}


def test_damaged_utf8_is_never_suggested_a_legacy_encoding():
    records = [lossy(f"https://www.example.de/{i}", b"<p>" + GERMAN + b"\xff" * (i + 1) + b"</p>") for i in range(3)]
    for record in records:  # a legacy single-byte encoding reads these bytes without an error...
        assert decode_strict("windows-1250", record["raw"]["body"]) is not None
        # ... though under its label the body is read as the damaged UTF-8 it is (contradiction.py), not as that
        decoded = decode(record["raw"]["body"], "text/html; charset=windows-1250")
        assert (decoded.source, decoded.lossy) == ("utf-8-over-declaration", True)
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


# -- clean records published with mojibake suspected ----------------------------------------------------------

FRENCH = "<p>Café crème brûlée, déjà vu à la carte, naïve façade</p>".encode()


def published(url: str, body: bytes, encoding: str, content_type: str = "text/html; charset=iso-8859-1",
              **headers: str) -> dict:
    """A clean record as the processor writes it: the text, the encoding it was read with, the raw body's hash."""
    raw_body = headers.pop("raw_body", body)
    listed = [{"name": "Content-Type", "value": content_type}]
    listed += [{"name": name.replace("_", "-"), "value": value} for name, value in headers.items()]
    # The body read as *encoding*, as a processor wrote it before UTF-8 under a left-over legacy declaration
    # was read as UTF-8 (the clean topic keeps such records).
    host = url.split("/")[2]
    forced = OverrideTable([Override(host, encoding, OverrideMode.FORCE, "as it was read", dt.date.max)])
    text = decode(body, content_type, url, forced).text
    return {"url": url, "headers": listed, "text": text, "encoding": encoding, "source": "http-header",
            "replacements": 0, "mojibake_suspected": True, "body_sha256": hashlib.sha256(raw_body).hexdigest()}


def test_a_single_byte_decode_is_one_to_one_so_the_text_gives_the_body_back():
    # What clean_body relies on when the hash cannot check (a content-coded body): no two bytes of a
    # single-byte encoding decode to the same character, so encoding the text again is the body.
    for encoding, table in SINGLE_BYTE.items():
        defined = [char for char in table if char != NO_CODE_POINT]
        assert len(set(defined)) == len(defined), encoding
        assert not set(defined) & {chr(i) for i in range(0x80)}, encoding
        # Every byte the encoding defines, after printable ASCII (a body of control bytes is not text).
        body = bytes(range(0x20, 0x7F)) + bytes(0x80 + i for i, char in enumerate(table) if char != NO_CODE_POINT)
        decoded = decode(body, f"text/plain; charset={encoding}")
        assert (decoded.encoding, decoded.lossy) == (encoding, False)
        assert encode_as(decoded.text, encoding) == body, encoding


def test_clean_body_is_the_hashed_body_or_nothing():
    record = published("https://shop.example.fr/1", FRENCH, "windows-1252")
    assert clean_body(record) == FRENCH
    assert clean_body({**record, "body_sha256": hashlib.sha256(b"other").hexdigest()}) is None


def test_a_content_coded_body_is_rebuilt_only_where_the_decode_is_one_to_one():
    coded = gzip.compress(FRENCH)
    record = published("https://gz.example.fr/1", FRENCH, "windows-1252", Content_Encoding="gzip", raw_body=coded)
    assert clean_body(record) == FRENCH
    assert clean_body({**record, "replacements": 1}) is None  # the text holds U+FFFD of the decode
    japanese = "東京の天気".encode("shift_jis")
    sjis = published("https://gz.example.jp/1", japanese, "Shift_JIS", Content_Encoding="gzip",
                     raw_body=gzip.compress(japanese))
    assert clean_body(sjis) is None  # Shift_JIS has characters two byte sequences decode to
    assert clean_body({**record, "headers": record["headers"][:1]}) is None  # nothing coded: the hash decides


def test_mojibake_records_get_utf8_and_never_a_legacy_encoding_that_reads_utf8_bytes():
    records = [published(f"https://shop.example.fr/{i}", FRENCH + str(i).encode(), "windows-1252")
               for i in range(4)]
    (found,) = suggest(collect([], 1 << 20, records), TODAY)
    assert (found.chosen.encoding, found.chosen.clean, found.records) == ("UTF-8", 4, 4)
    assert dict(found.kinds) == {"mojibake": 4}
    for trial in found.trials:  # EUC-KR, GBK... decode these bytes without an error: still not clean
        assert trial.encoding == "UTF-8" or trial.clean == 0, trial


def test_clean_records_without_mojibake_are_read_not_tried():
    record = {**published("https://fine.example.fr/1", b"<p>ok</p>", "windows-1252"), "mojibake_suspected": False}
    collected = collect([], 1 << 20, [record, record])
    assert (collected.clean_read, collected.clean_suspected, collected.hosts) == (2, 0, {})


def test_the_hosts_other_clean_pages_are_checked_and_those_read_differently_counted():
    records = [published(f"https://shop.example.fr/{i}", FRENCH + str(i).encode(), "windows-1252")
               for i in range(4)]
    # A true windows-1252 page: a forced UTF-8 does not decode it strictly and gives way, its text stays.
    latin = {**published("https://shop.example.fr/old", "<p>Caf\xe9 cr\xe8me</p>".encode("cp1252"), "windows-1252"),
             "mojibake_suspected": False}
    # A UTF-8 page the mojibake check missed: UTF-8 reads it differently (rightly, here; a person looks).
    missed = {**published("https://shop.example.fr/new", FRENCH, "windows-1252"), "mojibake_suspected": False}
    elsewhere = {**latin, "url": "https://other.example.fr/old"}  # no suggestion to check it against
    collected = collect([], 1 << 20, [*records, latin, missed, elsewhere])
    assert list(collected.controls) == ["shop.example.fr"]
    (found,) = suggest(collected, TODAY)
    assert (found.chosen.encoding, found.controls, found.chosen.changes) == ("UTF-8", 2, 1)
    assert "2 other clean record(s) read (no mojibake suspected), 1 would read differently" in format_suggestions(
        [found], collected)
