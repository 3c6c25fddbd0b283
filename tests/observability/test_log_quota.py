"""LogQuota: at most N lines a host in a fixed minute, the rest counted into one summary, none lost."""

from __future__ import annotations

from consumer.observability.log_quota import OTHER_HOSTS, WINDOW_S, LogQuota


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_each_host_gets_its_quota_and_the_rest_is_counted():
    clock = Clock()
    quota = LogQuota(3, clock=clock)
    assert [quota.admit("a.example") for _ in range(5)] == [True, True, True, False, False]
    assert quota.admit("b.example"), "another host has its own quota"
    assert quota.summary() is None, "no summary before the minute is over"
    clock.now += WINDOW_S
    assert quota.summary() == {
        "suppressed": 2, "hosts": 1, "by_host": {"a.example": 2}, "window_s": WINDOW_S, "per_host_per_window": 3,
    }
    assert quota.summary() is None, "a summary is handed over once"
    assert quota.admit("a.example"), "a new minute, a new quota"


def test_a_quiet_minute_writes_no_summary():
    clock = Clock()
    quota = LogQuota(3, clock=clock)
    quota.admit("a.example")
    clock.now += WINDOW_S
    assert quota.summary() is None


def test_the_final_summary_ends_the_minute_early():
    quota = LogQuota(1, clock=Clock())
    quota.admit("a.example")
    quota.admit("a.example")
    assert quota.summary(final=True)["suppressed"] == 1


def test_an_unread_summary_is_added_to_not_lost():
    clock = Clock()
    quota = LogQuota(0, clock=clock)
    quota.admit("a.example")
    clock.now += WINDOW_S
    quota.admit("a.example")  # rolls the first window over; nobody asked for its summary yet
    clock.now += WINDOW_S
    assert quota.summary()["suppressed"] == 2


def test_hosts_past_the_bound_are_counted_together():
    quota = LogQuota(5, max_keys=2, clock=Clock())
    assert quota.admit("a") and quota.admit("b")
    assert not quota.admit("c") and not quota.admit("d")
    assert quota.summary(final=True)["by_host"] == {OTHER_HOSTS: 2}
