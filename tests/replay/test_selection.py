"""The pure parts of replay: filters, argument parsing, summary and progress rendering."""

from __future__ import annotations

import datetime as dt
import io

import pytest

from consumer.replay import Outcome, Selection, Summary, format_hosts, format_summary, parse_offset, parse_time
from consumer.replay.progress import Progress
from consumer.replay.selection import record_host

UTC = dt.UTC


def record(reason="lossy", origin_ms=None, quarantined_ms=1_000):
    stamp = None if origin_ms is None else dt.datetime.fromtimestamp(origin_ms / 1000, UTC)
    return {"reason": reason, "origin": {"timestamp": stamp}, "quarantined_at": dt.datetime.fromtimestamp(quarantined_ms / 1000, UTC)}


# How hosts and patterns are spelt and matched: tests/decoding/test_hosts.py.
def test_hosts_are_matched_as_overrides_match_them():
    assert record_host({"url": "https://WWW.Bücher.example./x"}) == "www.xn--bcher-kva.example"
    selection = Selection(hosts=("*.BÜCHER.example",))
    assert selection.hosts == ("*.xn--bcher-kva.example",)
    assert selection.selects(record(), {"url": "https://www.bücher.example/"}, 0, 0)
    assert not selection.selects(record(), {"url": "https://bücher.example/"}, 0, 0), "sub-domains only"
    assert record_host(None) is None and record_host({"url": "not a url"}) is None


def test_a_host_an_override_file_would_refuse_is_refused():
    with pytest.raises(ValueError, match="covers a whole top-level domain"):
        Selection(hosts=("*.jp",))


def test_unreadable_records_have_no_host_and_are_not_selected_by_a_host_filter():
    assert not Selection(hosts=("*.example.jp",)).selects(record(), None, 0, 0)
    assert Selection().selects(record(), None, 0, 0)


def test_reasons_and_offsets():
    selection = Selection(reasons=frozenset({"lossy"}), from_offsets={None: 10, 1: 3})
    assert selection.selects(record(), None, 0, 10) and not selection.selects(record(), None, 0, 9)
    assert selection.selects(record(), None, 1, 3), "a partition's own offset beats the one for all"
    assert not selection.selects(record("too-large"), None, 0, 10)


def test_time_window_uses_the_landing_timestamp_else_quarantined_at():
    selection = Selection(since_ms=1_000, until_ms=2_000)
    assert selection.selects(record(origin_ms=1_000, quarantined_ms=5_000), None, 0, 0), "since is inclusive"
    assert not selection.selects(record(origin_ms=2_000, quarantined_ms=1_500), None, 0, 0), "until is exclusive"
    assert selection.selects(record(origin_ms=None, quarantined_ms=1_500), None, 0, 0)


def test_parse_time_and_offsets():
    assert parse_time("2026-12-01T08:00:00Z") == parse_time("2026-12-01T09:00:00+01:00") == parse_time("2026-12-01T08:00")
    assert parse_time("2026-12-01") == int(dt.datetime(2026, 12, 1, tzinfo=UTC).timestamp() * 1000)
    assert parse_offset("42") == (None, 42) and parse_offset("3:42") == (3, 42)
    for bad in ("x", "-1", "1:-2", "a:1"):
        with pytest.raises(ValueError):
            parse_offset(bad)
    with pytest.raises(ValueError):
        parse_time("yesterday")


def test_summary_counts_and_per_host_table():
    summary = Summary()
    for _ in range(3):
        summary.add(Outcome("released", "a.example", "UTF-8/meta-prescan", "GBK/override"))
    summary.add(Outcome("still_lossy", "a.example", "UTF-8/meta-prescan", "UTF-8/meta-prescan", requarantined=True, reason="lossy"))
    summary.add(Outcome("skipped_by_filter", "b.example", carried=True))
    assert summary.counts() == {
        "read": 5, "released": 3, "still_lossy": 1, "still_unreadable": 0, "skipped_by_filter": 1,
        "skipped_by_max_replays": 0, "requarantined": 1, "carried_forward": 1,
    }
    table = format_hosts(summary).splitlines()
    assert table[1].split()[:3] == ["a.example", "3", "1"]
    assert table[1].endswith("UTF-8/meta-prescan -> GBK/override (3)")
    assert len(table) == 2, "a host with only skipped records has nothing to show"
    assert "would be released: 3" in format_summary(summary, dry_run=True)
    assert "released: 3" in format_summary(summary, dry_run=False)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_one_rewritten_line_on_a_terminal():
    stream = Terminal()
    progress = Progress(10, stream=stream, clock=iter(range(0, 100, 1)).__next__)
    summary = Summary()
    summary.add(Outcome("released", "a.example"))
    progress.update(summary, done=4)
    assert " 40% of 10 offsets: 1 read, 1 released" in stream.getvalue()
    progress.close(summary, done=10)
    assert stream.getvalue().count("\r") == 2 and stream.getvalue().endswith("\n")
    # The offsets reach the end though fewer records were read: the rest were transaction markers.
    assert stream.getvalue().rstrip("\n").rpartition("\r")[2].startswith("[" + "#" * 30 + "] 100% of 10 offsets: 1 read")


def test_summary_of_a_dry_run_says_what_would_be_written():
    summary = Summary()
    summary.add(Outcome("skipped_by_filter", "b.example", carried=True))
    summary.add(Outcome("still_lossy", "a.example", requarantined=True, reason="lossy"))
    dry = format_summary(summary, dry_run=True).splitlines()
    assert "would be carried forward: 1" in dry and "would be requarantined: 1" in dry
    real = format_summary(summary, dry_run=False).splitlines()
    assert "carried forward: 1" in real and "requarantined: 1" in real
