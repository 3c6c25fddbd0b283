"""``HostAlarms``: alarm semantics, and Space-Saving's bounded memory and guarantees."""

from __future__ import annotations

import random
import threading
from collections import Counter

import pytest

from consumer.exceptions import ConfigError
from consumer.observability.host_alarms import Alarm, HostAlarms, MojibakeAlarm, MojibakeAlarms


def internal_sizes(alarms: HostAlarms | MojibakeAlarms) -> tuple[int, int, int]:
    """(tracked counters, count groups, hosts across groups): all must stay <= capacity."""
    groups = alarms._table.by_count
    return len(alarms._table.slots), len(groups), sum(len(group) for group in groups.values())


class TestAlarms:
    def test_no_alarm_before_min_records(self):
        alarms = HostAlarms(capacity=16, min_records=20, ratio=0.2)
        results = [alarms.observe("bad.example", True, 3) for _ in range(19)]
        assert results == [None] * 19
        alarm = alarms.observe("bad.example", True, 3)
        assert alarm == Alarm("bad.example", records=20, lossy=20, replacements=60, ratio=1.0)

    def test_the_ratio_is_of_lossy_records(self):
        alarms = HostAlarms(capacity=16, min_records=10, ratio=0.2)
        for _ in range(8):
            assert alarms.observe("h.example", False, 0) is None
        assert alarms.observe("h.example", True, 1) is None  # 1/9, below min_records
        assert alarms.observe("h.example", True, 1) == Alarm("h.example", 10, 2, 2, 0.2)

    def test_clean_hosts_never_alarm(self):
        alarms = HostAlarms(capacity=16, min_records=5, ratio=0.2)
        assert all(alarms.observe("fine.example", False, 0) is None for _ in range(1000))

    def test_an_alarm_fires_once_then_rearms_below_half_the_ratio(self):
        alarms = HostAlarms(capacity=16, min_records=10, ratio=0.5)
        fired = [alarms.observe("flaky.example", True, 1) for _ in range(10)]
        assert fired[-1] is not None and fired[:-1] == [None] * 9
        # Still lossy: the same episode, no new alarm.
        assert all(alarms.observe("flaky.example", True, 1) is None for _ in range(100))
        # 110 lossy records: the ratio drops below 0.25 after 330 clean ones more.
        assert all(alarms.observe("flaky.example", False, 0) is None for _ in range(400))
        assert not alarms.top(1)[0].alarmed
        # A new episode: enough lossy records to bring the ratio back to 0.5.
        second = [alarms.observe("flaky.example", True, 1) for _ in range(400)]
        fired_again = [alarm for alarm in second if alarm is not None]
        assert len(fired_again) == 1
        assert fired_again[0].ratio >= 0.5

    def test_between_half_and_full_ratio_no_new_alarm(self):
        alarms = HostAlarms(capacity=16, min_records=10, ratio=0.4)
        for _ in range(10):
            alarms.observe("h.example", True, 1)
        # Dilute to ~0.3 (above 0.2: still in the episode), then climb back over 0.4.
        for _ in range(23):
            alarms.observe("h.example", False, 0)
        assert alarms.top(1)[0].alarmed
        assert all(alarms.observe("h.example", True, 1) is None for _ in range(50))

    def test_host_names_are_compared_case_insensitively_without_trailing_dot(self):
        alarms = HostAlarms(capacity=16, min_records=3, ratio=0.5)
        alarms.observe("WWW.Example.JP", True, 1)
        alarms.observe("www.example.jp.", True, 1)
        alarm = alarms.observe("www.example.jp", True, 1)
        assert alarm is not None and alarm.host == "www.example.jp" and alarm.records == 3
        assert len(alarms) == 1

    @pytest.mark.parametrize(
        "kwargs", [{"capacity": 0}, {"min_records": 0}, {"ratio": 0}, {"ratio": 1.5}, {"ratio": -0.1}]
    )
    def test_invalid_parameters(self, kwargs):
        with pytest.raises(ConfigError):
            HostAlarms(**kwargs)


class TestTop:
    def test_ranked_by_lossy_records_then_records(self):
        alarms = HostAlarms(capacity=16, min_records=1000, ratio=0.5)
        for host, records, lossy in [("a", 50, 1), ("b", 10, 5), ("c", 30, 5), ("d", 5, 0)]:
            for i in range(records):
                alarms.observe(host, i < lossy, 2 if i < lossy else 0)
        top = alarms.top(3)
        assert [stats.host for stats in top] == ["c", "b", "a"]
        assert (top[0].records, top[0].lossy, top[0].replacements) == (30, 5, 10)
        assert top[0].ratio == pytest.approx(5 / 30)
        assert top[0].estimated_records == 30  # no eviction happened: the counts are exact
        assert len(alarms.top(100)) == 4

    def test_as_dict_is_json_ready(self):
        alarms = HostAlarms(capacity=4)
        alarms.observe("x.example", True, 1)
        assert alarms.top(1)[0].as_dict() == {
            "host": "x.example", "records": 1, "lossy": 1, "replacements": 1, "ratio": 1.0,
            "estimated_records": 1, "alarmed": False,
        }


class TestBoundedMemory:
    def test_two_hundred_thousand_distinct_hosts_stay_within_capacity(self):
        capacity = 256
        alarms = HostAlarms(capacity=capacity, min_records=20, ratio=0.2)
        rng = random.Random(7)
        for i in range(200_000):
            alarms.observe(f"h{rng.getrandbits(64):016x}.example", rng.random() < 0.5, 1)
            if i % 997 == 0:
                assert max(internal_sizes(alarms)) <= capacity
        tracked, groups, grouped = internal_sizes(alarms)
        assert tracked == grouped == capacity
        assert groups <= capacity

    def test_a_heavy_lossy_host_among_noise_is_reported(self):
        alarms = HostAlarms(capacity=256, min_records=20, ratio=0.2)
        rng = random.Random(11)
        reported: list[Alarm] = []
        for _ in range(200_000):
            if rng.random() < 0.01:  # 1% of the traffic, well above N / capacity (0.4%)
                alarm = alarms.observe("mojibake.example.cn", rng.random() < 0.5, 3)
            else:
                # Noise: fresh hosts, every one lossy, that must not alarm on inherited counts.
                alarm = alarms.observe(f"n{rng.getrandbits(64):016x}.example", True, 1)
            if alarm is not None:
                reported.append(alarm)
        assert [alarm.host for alarm in reported] == ["mojibake.example.cn"]
        assert reported[0].records >= 20 and reported[0].ratio >= 0.2
        assert alarms.top(1)[0].host == "mojibake.example.cn"

    def test_space_saving_bounds_hold(self):
        # Metwally et al., Lemma 3.4 and Theorem 3.5: for every tracked host the
        # observed count is a lower bound and the estimate an upper bound of the true
        # count, and every host above N / capacity is tracked.
        capacity = 64
        alarms = HostAlarms(capacity=capacity)
        rng = random.Random(3)
        truth: Counter[str] = Counter()
        hosts = [f"h{i}.example" for i in range(5000)]
        weights = [1 / (rank + 1) for rank in range(len(hosts))]  # Zipf-like, as crawl traffic is
        stream = rng.choices(hosts, weights, k=50_000)
        for host in stream:
            truth[host] += 1
            alarms.observe(host, False, 0)
        tracked = {stats.host: stats for stats in alarms.top(capacity)}
        assert len(tracked) == capacity
        for host, stats in tracked.items():
            assert stats.records <= truth[host] <= stats.estimated_records
        frequent = {host for host, count in truth.items() if count > len(stream) / capacity}
        assert frequent and frequent <= tracked.keys()


class TestConcurrency:
    def test_reading_top_while_observing(self):
        alarms = HostAlarms(capacity=128, min_records=5, ratio=0.5)
        done = threading.Event()
        errors: list[BaseException] = []

        def read() -> None:
            try:
                while not done.is_set():
                    for stats in alarms.top(10):
                        assert stats.records <= stats.estimated_records
            except BaseException as exc:  # noqa: BLE001 - surfaced by the assertion below
                errors.append(exc)

        reader = threading.Thread(target=read)
        reader.start()
        rng = random.Random(5)
        try:
            for i in range(30_000):
                alarms.observe(f"h{rng.randrange(1000)}.example", i % 3 == 0, 1)
        finally:
            done.set()
            reader.join()
        assert errors == []
        assert max(internal_sizes(alarms)) <= 128


class Clock:
    """A clock the test moves (MojibakeAlarms reads it for its window)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def mojibake_alarms(**kwargs) -> tuple[MojibakeAlarms, Clock]:
    clock = Clock()
    return MojibakeAlarms(**{"capacity": 16, "min_records": 20, "ratio": 0.2, "window_s": 900, **kwargs},
                          clock=clock), clock


class TestMojibakeAlarms:
    def test_a_share_over_the_ratio_alarms_once_it_has_min_records(self):
        alarms, _ = mojibake_alarms()
        # 1 in 4 mojibake: 25%, above 20%, but only at the 20th record is there enough to judge.
        fired = [alarms.observe("shop.example.fr", i % 4 == 0) for i in range(19)]
        assert fired == [None] * 19
        assert alarms.observe("shop.example.fr", False) == MojibakeAlarm("shop.example.fr", 20, 5, 0.25)
        assert alarms.alarmed() == 1

    def test_a_share_under_the_ratio_never_alarms(self):
        alarms, _ = mojibake_alarms()
        # 1 in 10: a page quoting mojibake now and then is not an episode.
        assert all(alarms.observe("blog.example.com", i % 10 == 0) is None for i in range(1000))
        assert alarms.alarmed() == 0

    def test_a_jump_after_days_of_clean_pages_alarms_within_the_window(self):
        alarms, clock = mojibake_alarms()
        for minute in range(3 * 24 * 60):  # three days of clean pages, 7 a minute
            clock.now = minute * 60.0
            assert all(alarms.observe("migrated.example.fr", False) is None for _ in range(7))
        clock.now = 72 * 3600.0  # the migration: every page mojibake from now
        fired = [alarms.observe("migrated.example.fr", True) for _ in range(30)]
        # The window holds the last interval's records (15 minutes, 105 clean) and these: n / (105 + n)
        # reaches 20% at n = 27. A share since admission would need 7,560 bad pages (30,240 clean ones).
        assert [i for i, alarm in enumerate(fired) if alarm is not None] == [26]
        assert fired[26] == MojibakeAlarm("migrated.example.fr", 132, 27, 27 / 132)

    def test_the_episode_ends_below_half_the_ratio_and_a_new_one_alarms_again(self):
        alarms, clock = mojibake_alarms()
        assert [alarms.observe("h.example", True) for _ in range(20)][-1] is not None
        # Still bad: the same episode.
        assert all(alarms.observe("h.example", True) is None for _ in range(50))
        # Two intervals later the window holds only what comes now: clean pages end the episode.
        clock.now = 2 * 900.0
        assert all(alarms.observe("h.example", False) is None for _ in range(20))
        assert alarms.alarmed() == 0 and not alarms.top(1)[0].alarmed
        clock.now = 4 * 900.0
        again = [alarms.observe("h.example", True) for _ in range(20)]
        assert [alarm is not None for alarm in again] == [False] * 19 + [True]

    def test_between_half_and_the_full_ratio_the_episode_goes_on(self):
        alarms, _ = mojibake_alarms(ratio=0.4)
        for _ in range(20):
            alarms.observe("h.example", True)
        for _ in range(40):  # 20 of 60: a third, above 0.2
            alarms.observe("h.example", False)
        assert alarms.alarmed() == 1
        assert all(alarms.observe("h.example", True) is None for _ in range(50))

    def test_a_host_gone_quiet_for_a_whole_window_is_no_longer_counted_as_alarmed(self):
        alarms, clock = mojibake_alarms()
        for _ in range(20):
            alarms.observe("h.example", True)
        assert alarms.alarmed() == 1
        clock.now = 1800.0  # two intervals on: nothing of the host in the window
        assert alarms.alarmed() == 0
        (stats,) = alarms.top(1)
        assert (stats.records, stats.mojibake, stats.total_records, stats.total_mojibake) == (0, 0, 20, 20)
        assert not stats.alarmed

    def test_top_ranks_by_mojibake_in_the_window(self):
        alarms, clock = mojibake_alarms(min_records=1000)
        for host, records, bad in [("a.example", 50, 2), ("b.example", 10, 8), ("c.example", 30, 5)]:
            for i in range(records):
                alarms.observe(host, i < bad)
        top = alarms.top(2)
        assert [stats.host for stats in top] == ["b.example", "c.example"]
        assert top[0].as_dict() == {
            "host": "b.example", "records": 10, "mojibake": 8, "ratio": 0.8, "total_records": 10,
            "total_mojibake": 8, "estimated_records": 10, "alarmed": False,
        }
        clock.now = 900.0  # one interval on: the last one still counts
        assert alarms.top(1)[0].records == 10

    def test_memory_stays_within_capacity_and_noise_never_alarms(self):
        alarms, _ = mojibake_alarms(capacity=64)
        rng = random.Random(13)
        reported = []
        for _ in range(100_000):
            if rng.random() < 0.05:
                alarm = alarms.observe("double.example.com", rng.random() < 0.5)
            else:  # fresh hosts, every page mojibake, that must not alarm on inherited counts
                alarm = alarms.observe(f"n{rng.getrandbits(64):016x}.example", True)
            if alarm is not None:
                reported.append(alarm.host)
        assert reported == ["double.example.com"]
        assert max(internal_sizes(alarms)) <= 64

    @pytest.mark.parametrize(
        "kwargs",
        [{"capacity": 0}, {"min_records": 0}, {"ratio": 0}, {"ratio": 1.5}, {"window_s": 0}, {"window_s": -1}],
    )
    def test_invalid_parameters(self, kwargs):
        with pytest.raises(ConfigError):
            MojibakeAlarms(**kwargs)
