"""Review dates: due, overdue, and whether expired overrides keep applying."""

from __future__ import annotations

import datetime as dt

import pytest

from consumer.overrides import active_table, due, overdue, parse_overrides

from overrides_samples import document, entry

TODAY = dt.date(2027, 3, 15)
ENTRIES = (
    entry(host="late.example", review_by="2027-03-01"),
    entry(host="today.example", review_by="2027-03-15"),
    entry(host="soon.example", review_by="2027-04-10"),
    entry(host="edge.example", review_by="2027-04-14"),  # TODAY + 30 days
    entry(host="later.example", review_by="2027-04-15"),
    entry(host="older.example", review_by="2026-12-31"),
)


def config(policy: str = "apply"):
    return parse_overrides(document(*ENTRIES, settings=f"settings:\n  expired: {policy}\n"))


def hosts(overrides) -> list[str]:
    return [override.host for override in overrides]


def test_overdue_oldest_first():
    # On its review date an override is due, not yet overdue.
    assert hosts(overdue(config(), TODAY)) == ["older.example", "late.example"]


def test_due_within_window_soonest_first():
    assert hosts(due(config(), TODAY, dt.timedelta(days=30))) == ["today.example", "soon.example", "edge.example"]


def test_due_with_an_empty_window_is_only_today():
    assert hosts(due(config(), TODAY, dt.timedelta(0))) == ["today.example"]


def test_nothing_due_or_overdue_long_before():
    assert due(config(), dt.date(2026, 1, 1), dt.timedelta(days=30)) == []
    assert overdue(config(), dt.date(2026, 1, 1)) == []


def test_expired_apply_keeps_overdue_overrides():
    applied = config("apply")
    assert active_table(applied, TODAY) is applied.table
    assert active_table(applied, TODAY).lookup("late.example") is not None


def test_expired_ignore_drops_overdue_overrides():
    ignoring = config("ignore")
    table = active_table(ignoring, TODAY)
    assert table.lookup("late.example") is None
    assert table.lookup("older.example") is None
    assert table.lookup("today.example").host == "today.example"
    assert len(table) == 4
    assert len(ignoring.table) == 6  # the config itself is not changed


def test_expired_ignore_with_nothing_overdue_uses_the_table_itself():
    ignoring = config("ignore")
    assert active_table(ignoring, dt.date(2026, 6, 1)) is ignoring.table


@pytest.mark.parametrize("day, expected", [(dt.date(2027, 3, 1), True), (dt.date(2027, 3, 2), False)])
def test_expired_ignore_takes_effect_the_day_after_review_by(day, expected):
    assert (active_table(config("ignore"), day).lookup("late.example") is not None) is expected
