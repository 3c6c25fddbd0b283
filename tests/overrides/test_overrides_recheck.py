"""``overrides recheck``'s pure parts: which records a HOST names, and rebuilding a clean record's bytes."""

from __future__ import annotations

import hashlib
import re

import pytest

from consumer.cli.overrides import format_recheck
from consumer.decoding import decode
from consumer.overrides import parse_overrides
from consumer.overrides.recheck import (
    NONE,
    SOURCE_ONLY,
    TEXT,
    RecheckCounts,
    body_of_clean,
    host_matcher,
    recheck,
)
from consumer.processor import records
from consumer.processor.records import header_value

from overrides_samples import document, entry


@pytest.mark.parametrize(
    ("pattern", "url", "expected"),
    [
        ("static.cdn.example.com", "https://static.cdn.example.com/a.css", True),
        ("*.example.com", "https://static.cdn.example.com:8443/", True),
        ("*.example.com", "https://example.com/", False),
        # Written as in the overrides file, in any spelling: an IDN or a trailing dot used to match nothing.
        ("Bücher.example", "https://xn--bcher-kva.example/", True),
        ("bücher.example", "https://BÜCHER.example/", True),
        ("example.jp.", "http://example.jp/", True),
        ("example.jp", "not a url", False),
    ],
)
def test_host_matcher_matches_as_overrides_do(pattern, url, expected):
    assert host_matcher(pattern)(url) is expected


@pytest.mark.parametrize(("pattern", "message"), [("*.jp", "top-level domain"), ("example.jp:8080", "port")])
def test_host_matcher_refuses_what_the_overrides_file_refuses(pattern, message):
    with pytest.raises(ValueError, match=message):
        host_matcher(pattern)


def clean_record(body: bytes, content_type: str) -> dict:
    decoded = decode(body, content_type)
    return {"encoding": decoded.encoding, "source": decoded.source, "text": decoded.text,
            "body_sha256": hashlib.sha256(body).hexdigest()}  # fmt: skip


def test_a_clean_record_is_rebuilt_when_its_hash_confirms_it():
    body = "<p>日本語のページ、ﾊﾝｶｸ</p>".encode("iso2022_jp_ext")  # half-width katakana: ESC ( I
    record = clean_record(body, "text/html; charset=iso-2022-jp")
    assert record["encoding"] == "ISO-2022-JP"
    assert body_of_clean(record) == body  # was None: Python's iso2022_jp cannot encode half-width katakana


def test_a_clean_record_python_cannot_rebuild_is_said_so():
    # The standard's GBK reads 0x80 as U+20AC; Python's gbk encoder refuses U+20AC (codecs/cpython.py).
    record = clean_record(b"<p>\x80 5</p>", "text/html; charset=gbk")
    assert (record["encoding"], record["text"]) == ("GBK", "<p>€ 5</p>")
    assert body_of_clean(record) is None


# -- what would change: the text, or only the encoding/source ------------------------------------------------

HOST = "www.example.com"


def raw_page(path: str, body: bytes, content_type: str | None) -> dict:
    headers = [] if content_type is None else [{"name": "Content-Type", "value": content_type}]
    return {"url": f"https://{HOST}/{path}", "fetched_at": 0, "status": 200, "headers": headers, "body": body}


def table(encoding: str = "utf-8"):
    return parse_overrides(document(entry(host=HOST, encoding=encoding))).table


def clean(raw: dict, overrides) -> tuple[str, dict]:
    """The clean record the processor writes for *raw* under *overrides*."""
    return "clean", records.clean_record(raw, decode(raw["body"], header_value(raw["headers"], "content-type"),
                                                     raw["url"], overrides), decoded_at_ms=0)


def quarantined(raw: dict, overrides, reason: str = "lossy") -> tuple[str, dict]:
    decoded = decode(raw["body"], header_value(raw["headers"], "content-type"), raw["url"], overrides)
    return "quarantine", records.quarantine_record(
        reason=reason, origin=records.Origin("landing", 0, 0, None), quarantined_at_ms=0, raw=raw, decoded=decoded)


#: Armenian "yes": its windows-1252 reading lacks the mojibake signature, its three multi-byte sequences are
#: fewer than the four that make a body UTF-8 under a legacy declaration without it (German "Grüße" is read as
#: UTF-8 without an override now: utf-8-over-declaration), and its 6 non-ASCII bytes are too few to doubt the
#: declaration: the override is still what reads it right.
UTF8_PAGE = "<p>Այո</p>".encode()
#: The header lies, the page is UTF-8: without the override the text is mojibake.
STALE_HEADER = raw_page("stale", UTF8_PAGE, "text/html; charset=iso-8859-1")
#: The site fixed its header since: the override gives what the page says anyway.
FIXED = raw_page("fixed", UTF8_PAGE, "text/html; charset=utf-8")
#: Plain ASCII: any ASCII-compatible encoding gives the same text.
ASCII = raw_page("ascii", b"<p>plain</p>", "text/html")


def only(results):
    [result] = results
    return result


def test_the_text_would_change_where_the_override_is_still_needed():
    result = only(recheck([clean(STALE_HEADER, table())], host_matcher(HOST), table()))
    assert (result.before, result.after) == ("UTF-8/override", "windows-1252/http-header")
    assert result.same_text is False
    assert result.change == TEXT and result.changes


def test_only_the_source_would_change_where_the_override_is_no_longer_needed():
    result = only(recheck([clean(FIXED, table())], host_matcher(HOST), table()))
    assert (result.before, result.after) == ("UTF-8/override", "UTF-8/http-header")
    assert result.same_text is True
    assert result.change == SOURCE_ONLY and result.changes


def test_another_encoding_with_the_same_text_is_not_a_text_change():
    result = only(recheck([clean(ASCII, table("shift_jis"))], host_matcher(HOST), table("shift_jis")))
    assert result.before == "Shift_JIS/override" and result.after.split("/")[0] != "Shift_JIS"
    assert result.change == SOURCE_ONLY


def test_a_record_decoded_without_override_would_not_change():
    result = only(recheck([clean(FIXED, None)], host_matcher(HOST), table()))
    assert result.before == result.after == "UTF-8/http-header"
    assert result.change == NONE and not result.changes


def test_a_record_not_rebuilt_is_not_counted_as_a_change():
    where, record = clean(FIXED, table())
    record["body_sha256"] = "0" * 64
    result = only(recheck([(where, record)], host_matcher(HOST), table()))
    assert result.after is None and result.change is None and not result.changes


def test_a_quarantined_record_is_judged_by_what_the_current_overrides_give():
    # Its RECORDED column holds the quarantine reason, never equal to a source: that alone used to count as a change.
    matches = host_matcher(HOST)
    unchanged = only(recheck([quarantined(FIXED, None)], matches, None))
    assert unchanged.before == "UTF-8/lossy" and unchanged.change == NONE
    needed = only(recheck([quarantined(STALE_HEADER, None)], matches, table()))
    assert (needed.now, needed.after) == ("UTF-8/override", "windows-1252/http-header")
    assert needed.change == TEXT
    no_longer = only(recheck([quarantined(FIXED, None)], matches, table()))
    assert (no_longer.now, no_longer.after) == ("UTF-8/override", "UTF-8/http-header")
    assert no_longer.change == SOURCE_ONLY


def test_the_summary_counts_text_changes_apart_from_source_only_ones():
    broken = clean(FIXED, table())
    broken[1]["body_sha256"] = "0" * 64
    results = recheck(
        [clean(STALE_HEADER, table()), quarantined(STALE_HEADER, None), clean(FIXED, table()),
         clean(ASCII, None), broken, clean(raw_page("x", b"x", None) | {"url": "https://other.example/"}, None)],
        host_matcher(HOST), table())
    counts = RecheckCounts.of(results)
    assert counts == RecheckCounts(records=5, text=2, source_only=1, unchanged=1, unrebuildable=1)
    out = format_recheck(results, HOST).splitlines()
    assert _cells(out[0]) == ["WHERE", "URL", "RECORDED", "WITH OVERRIDES", "WITHOUT OVERRIDES", "CHANGE", "LOSSY"]
    rows = [_cells(line) for line in out[1:6]]
    assert [row[0] for row in rows] == ["clean", "quarantine", "clean", "clean", "clean"]
    assert rows[1][2:5] == ["windows-1252/lossy", "UTF-8/override", "windows-1252/http-header"]
    assert rows[4][3:5] == ["-", "bytes not rebuildable"]
    assert [row[5:] for row in rows] == [[TEXT, "no"], [TEXT, "no"], [SOURCE_ONLY, "no"], [NONE, "no"], ["-", "-"]]
    assert out[6] == ""
    assert out[7] == (f"5 record(s) of {HOST}: 3 would change without overrides (2 their text, 1 only their "
                      "encoding/source with the same text), 1 would not, 1 could not be rebuilt")


def _cells(line: str) -> list[str]:
    """A table row's cells: columns are separated by two spaces or more."""
    return re.split(r"\s{2,}", line.strip())
