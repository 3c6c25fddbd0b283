"""Per-host alarms on lossy decoding, in memory bounded by *capacity* whatever the crawl.

A crawl sees millions of hosts, so per-host state cannot be kept for all of
them, and a host must never become a metric label.  ``HostAlarms`` tracks the
heaviest hosts with the Space-Saving algorithm (Metwally, Agrawal, El Abbadi,
"Efficient Computation of Frequent and Top-k Elements in Data Streams", ICDT
2005): at most *capacity* counters; an untracked host takes over the counter
with the smallest count ``m``, starting at ``m + 1`` with an error bound of
``m``.  Any host with more than ``N / capacity`` of the ``N`` records seen is
guaranteed to be tracked, which is what matters: a host worth an alarm is one
that produces many records.

Alarm decisions use only what was observed while the host was tracked
(``records = count - error``, with its lossy records and replacements), never
the inherited estimate, so noise hosts that churn through the table never
reach *min_records* and never alarm.  Counts are cumulative while tracked;
eviction forgets a host.

Why Space-Saving rather than a count-min sketch with a top-k heap: it keeps the
per-host lossy and replacement counts next to the record count in one bounded
table, needs no hashing parameters, and its minimum is found in O(1) below.
"""

from __future__ import annotations

import heapq
import json
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass

from .exceptions import ObservabilityConfigError

# DNS names are at most 253 characters; anything longer is cut so that memory per
# counter stays bounded too.
_MAX_HOST = 253


@dataclass(frozen=True, slots=True)
class Alarm:
    """A host whose share of lossy records crossed the ratio (logged; counted without the host)."""

    host: str
    records: int
    lossy: int
    replacements: int
    ratio: float


@dataclass(frozen=True, slots=True)
class HostStats:
    """What is known of one tracked host.

    *records*, *lossy* and *replacements* are exact since the host was last
    admitted; *estimated_records* is the Space-Saving estimate of all its
    records (an over-estimate by at most the count it inherited).
    """

    host: str
    records: int
    lossy: int
    replacements: int
    ratio: float
    estimated_records: int
    alarmed: bool

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


class _Counter:
    __slots__ = ("alarmed", "count", "error", "lossy", "replacements")

    def __init__(self, count: int, error: int) -> None:
        self.count = count
        self.error = error
        self.lossy = 0
        self.replacements = 0
        self.alarmed = False

    @property
    def records(self) -> int:
        return self.count - self.error

    @property
    def ratio(self) -> float:
        return self.lossy / self.records


class HostAlarms:
    """Raise an ``Alarm`` when a tracked host's lossy-record ratio crosses *ratio*.

    An alarm fires once per episode: after it, the host is quiet until its
    ratio falls below ``ratio / 2`` (hysteresis), and may alarm again after
    that.  *min_records* observed records are needed before a ratio counts.
    Thread-safe: the loop calls ``observe`` while a scrape calls ``top``.
    """

    def __init__(self, capacity: int = 1024, min_records: int = 20, ratio: float = 0.2) -> None:
        if capacity < 1:
            raise ObservabilityConfigError(f"host alarm capacity must be positive, got {capacity}")
        if min_records < 1:
            raise ObservabilityConfigError(f"host alarm min_records must be positive, got {min_records}")
        if not 0 < ratio <= 1:
            raise ObservabilityConfigError(f"host alarm ratio must be in (0, 1], got {ratio}")
        self.capacity = capacity
        self.min_records = min_records
        self.ratio = ratio
        self._counters: dict[str, _Counter] = {}
        # Stream-Summary: hosts grouped by count, each group insertion-ordered so the
        # evicted host is the one that has held the minimum longest.
        self._by_count: dict[int, dict[str, None]] = {}
        self._min_count = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._counters)

    def observe(self, host: str, lossy: bool, replacements: int) -> Alarm | None:
        """Count one record of *host*; return an Alarm if this record starts an alarm episode."""
        host = host.lower().rstrip(".")[:_MAX_HOST]
        with self._lock:
            counter = self._counters.get(host)
            if counter is None:
                counter = self._admit(host)
            else:
                self._increment(host, counter)
            counter.lossy += bool(lossy)
            counter.replacements += replacements
            return self._check(host, counter)

    def _admit(self, host: str) -> _Counter:
        if len(self._counters) < self.capacity:
            counter = _Counter(count=1, error=0)
            self._min_count = 1
        else:
            floor = self._min_count
            group = self._by_count[floor]
            evicted = next(iter(group))
            del group[evicted], self._counters[evicted]
            if not group:
                del self._by_count[floor]
                # The newcomer lands at floor + 1, so that group is now the minimum.
                self._min_count = floor + 1
            counter = _Counter(count=floor + 1, error=floor)
        self._counters[host] = counter
        self._by_count.setdefault(counter.count, {})[host] = None
        return counter

    def _increment(self, host: str, counter: _Counter) -> None:
        count = counter.count
        group = self._by_count[count]
        del group[host]
        if not group:
            del self._by_count[count]
            if count == self._min_count:
                # The host moves to count + 1, so that group is non-empty and minimal.
                self._min_count = count + 1
        counter.count = count + 1
        self._by_count.setdefault(count + 1, {})[host] = None

    def _check(self, host: str, counter: _Counter) -> Alarm | None:
        ratio = counter.ratio
        if counter.alarmed:
            if ratio < self.ratio / 2:
                counter.alarmed = False
            return None
        if counter.records >= self.min_records and ratio >= self.ratio:
            counter.alarmed = True
            return Alarm(host, counter.records, counter.lossy, counter.replacements, ratio)
        return None

    def top(self, n: int) -> list[HostStats]:
        """The *n* tracked hosts with the most lossy records (then the most records)."""
        with self._lock:
            best = heapq.nlargest(
                n, self._counters.items(), key=lambda item: (item[1].lossy, item[1].records)
            )
            return [
                HostStats(host, c.records, c.lossy, c.replacements, c.ratio, c.count, c.alarmed)
                for host, c in best
            ]


def alarms_route(alarms: HostAlarms, n: int = 100) -> Callable[[], tuple[int, str, bytes]]:
    """A ``HealthServer`` extra route serving ``top(n)`` as JSON (mount it at ``/alarms``)."""

    def route() -> tuple[int, str, bytes]:
        body = {
            "capacity": alarms.capacity,
            "min_records": alarms.min_records,
            "ratio": alarms.ratio,
            "hosts": [stats.as_dict() for stats in alarms.top(n)],
        }
        return 200, "application/json", json.dumps(body).encode()

    return route
