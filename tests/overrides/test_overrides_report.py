"""``overrides report`` from clean records: hits, agreement and verdict per override."""

from __future__ import annotations

import datetime as dt

from consumer.overrides import Verdict, format_report, parse_overrides, report_from_records

from overrides_samples import document, entry

CONFIG = parse_overrides(document(
    entry(host="cdn.example.com", review_by="2027-01-31"),
    entry(host="'*.example.jp'", encoding="shift_jis", mode="fallback", review_by="2027-12-31"),
))
TODAY = dt.date(2027, 3, 1)


def applied(host: str, encoding: str, mode: str, agrees: bool | None, **extra) -> dict:
    return {"url": f"https://{host}/", "override": {
        "host": host, "encoding": encoding, "mode": mode, "reason": "r", "review_by": "2027-01-31",
        "owner": "o", "shadow_encoding": "UTF-8", "shadow_agrees": agrees, **extra}}


def rows(records, **kwargs):
    return {row.host: row for row in report_from_records(CONFIG, records, TODAY, **kwargs)}


def test_rows_per_override_with_verdicts():
    records = (
        [applied("cdn.example.com", "UTF-8", "force", True)] * 10
        + [applied("*.example.jp", "Shift_JIS", "fallback", False)] * 8
        + [applied("*.example.jp", "Shift_JIS", "fallback", True)] * 2
        + [{"url": "https://other.example/", "override": None}] * 5
    )
    report = rows(records, min_hits=10)
    cdn, jp = report["cdn.example.com"], report["*.example.jp"]
    assert (cdn.hits, cdn.agreement, cdn.verdict, cdn.overdue) == (10, 1.0, Verdict.NO_LONGER_NEEDED, True)
    assert (jp.hits, jp.agreement, jp.verdict, jp.overdue) == (10, 0.2, Verdict.STILL_NEEDED, False)
    assert set(report) == {"cdn.example.com", "*.example.jp"}


def test_every_configured_override_has_a_row_even_without_hits():
    report = report_from_records(CONFIG, [], TODAY)
    assert [(row.host, row.hits, row.verdict) for row in report] == [
        ("cdn.example.com", 0, Verdict.UNKNOWN), ("*.example.jp", 0, Verdict.UNKNOWN)]


def test_too_few_hits_is_unknown():
    assert rows([applied("cdn.example.com", "UTF-8", "force", True)] * 5, min_hits=10)["cdn.example.com"].verdict \
        is Verdict.UNKNOWN


def test_records_without_a_shadow_check_count_as_hits_only():
    report = rows([applied("cdn.example.com", "UTF-8", "force", None)] * 3
                  + [applied("cdn.example.com", "UTF-8", "force", False)], min_hits=1)
    cdn = report["cdn.example.com"]
    assert (cdn.hits, cdn.agreements, cdn.disagreements, cdn.verdict) == (4, 0, 1, Verdict.STILL_NEEDED)


def test_records_of_an_earlier_definition_are_not_counted_for_the_current_one():
    report = report_from_records(CONFIG, [applied("cdn.example.com", "windows-1252", "force", True)], TODAY)
    assert report[0].hits == 0
    stale = report[2]
    assert (stale.host, stale.encoding, stale.in_config, stale.hits) == ("cdn.example.com", "windows-1252", False, 1)
    assert stale.review_by == dt.date(2027, 1, 31) and stale.overdue


def test_avro_json_union_form_is_understood():
    record = applied("cdn.example.com", "UTF-8", "force", True)
    record["override"] = {"crawl_decoder.Override": record["override"]}
    assert rows([record])["cdn.example.com"].hits == 1


def test_format_report():
    text = format_report(report_from_records(CONFIG, [applied("cdn.example.com", "UTF-8", "force", True)] * 2,
                                             TODAY, min_hits=2))
    header, cdn, jp = text.splitlines()
    assert header.split() == ["HOST", "ENCODING", "MODE", "REVIEW_BY", "OVERDUE", "HITS", "AGREEMENT", "VERDICT"]
    assert cdn.split() == ["cdn.example.com", "UTF-8", "force", "2027-01-31", "OVERDUE", "2", "100.0%", "of", "2",
                           "no", "longer", "needed"]
    assert jp.split() == ["*.example.jp", "Shift_JIS", "fallback", "2027-12-31", "no", "0", "-", "unknown"]
