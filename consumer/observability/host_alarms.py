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

``MojibakeAlarms`` keeps a second such table over clean records only: a host
whose share of records published with mojibake suspected
(``Decoded.mojibake_suspected``) jumps.  Its share is over a window, not since
the host was admitted: a host crawled clean for days whose pages turn to
mojibake after a migration must alarm within the window, not once the bad
pages outnumber days of good ones.
"""

from __future__ import annotations

import heapq
import json
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Generic, TypeVar

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


class _Slot:
    """One counter of the Space-Saving table: the host's count (an estimate) and the error it inherited."""

    __slots__ = ("count", "error")

    def __init__(self, count: int, error: int) -> None:
        self.count = count
        self.error = error

    @property
    def records(self) -> int:
        """Records observed since the host was admitted (exact, unlike ``count``)."""
        return self.count - self.error


_S = TypeVar("_S", bound=_Slot)


class _SpaceSaving(Generic[_S]):
    """The Space-Saving table: at most *capacity* slots, made by *slot(count, error)*.

    Not locked: the tracker that owns it holds its own lock around every call.
    """

    def __init__(self, capacity: int, slot: Callable[[int, int], _S]) -> None:
        self.capacity = capacity
        self._slot = slot
        self.slots: dict[str, _S] = {}
        # Stream-Summary: hosts grouped by count, each group insertion-ordered so the
        # evicted host is the one that has held the minimum longest.
        self.by_count: dict[int, dict[str, None]] = {}
        self._min_count = 0

    def count(self, host: str) -> tuple[_S, _S | None]:
        """Count one record of *host*: its slot, and the slot evicted to make room for it (if any)."""
        slot = self.slots.get(host)
        if slot is None:
            return self._admit(host)
        self._increment(host, slot)
        return slot, None

    def _admit(self, host: str) -> tuple[_S, _S | None]:
        evicted_slot = None
        if len(self.slots) < self.capacity:
            slot = self._slot(1, 0)
            self._min_count = 1
        else:
            floor = self._min_count
            group = self.by_count[floor]
            evicted = next(iter(group))
            evicted_slot = self.slots.pop(evicted)
            del group[evicted]
            if not group:
                del self.by_count[floor]
                # The newcomer lands at floor + 1, so that group is now the minimum.
                self._min_count = floor + 1
            slot = self._slot(floor + 1, floor)
        self.slots[host] = slot
        self.by_count.setdefault(slot.count, {})[host] = None
        return slot, evicted_slot

    def _increment(self, host: str, slot: _S) -> None:
        count = slot.count
        group = self.by_count[count]
        del group[host]
        if not group:
            del self.by_count[count]
            if count == self._min_count:
                # The host moves to count + 1, so that group is non-empty and minimal.
                self._min_count = count + 1
        slot.count = count + 1
        self.by_count.setdefault(count + 1, {})[host] = None


def _host_key(host: str) -> str:
    return host.lower().rstrip(".")[:_MAX_HOST]


class _Counter(_Slot):
    __slots__ = ("alarmed", "lossy", "replacements")

    def __init__(self, count: int, error: int) -> None:
        super().__init__(count, error)
        self.lossy = 0
        self.replacements = 0
        self.alarmed = False

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
        self._table: _SpaceSaving[_Counter] = _SpaceSaving(capacity, _Counter)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._table.slots)

    def observe(self, host: str, lossy: bool, replacements: int) -> Alarm | None:
        """Count one record of *host*; return an Alarm if this record starts an alarm episode."""
        host = _host_key(host)
        with self._lock:
            counter, _ = self._table.count(host)
            counter.lossy += bool(lossy)
            counter.replacements += replacements
            return self._check(host, counter)

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
                n, self._table.slots.items(), key=lambda item: (item[1].lossy, item[1].records)
            )
            return [
                HostStats(host, c.records, c.lossy, c.replacements, c.ratio, c.count, c.alarmed)
                for host, c in best
            ]


@dataclass(frozen=True, slots=True)
class MojibakeAlarm:
    """A host whose share of clean records published with mojibake suspected crossed the ratio over the
    window (logged; counted without the host)."""

    host: str
    #: Clean records of the host in the window, and those among them with mojibake suspected.
    records: int
    mojibake: int
    ratio: float


@dataclass(frozen=True, slots=True)
class MojibakeStats:
    """What is known of one host ``MojibakeAlarms`` tracks.

    *records*, *mojibake* and *ratio* are over the window (the current and the
    previous ``window_s`` interval); *total_records* and *total_mojibake* since
    the host was last admitted; *estimated_records* is the Space-Saving estimate
    of all its clean records.
    """

    host: str
    records: int
    mojibake: int
    ratio: float
    total_records: int
    total_mojibake: int
    estimated_records: int
    alarmed: bool

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


class _MojibakeCounter(_Slot):
    # Two tumbling intervals of window_s: "now" (interval number `interval`) and the one before it.
    __slots__ = ("alarmed", "interval", "last_mojibake", "last_records", "now_mojibake", "now_records",
                 "total_mojibake")

    def __init__(self, count: int, error: int) -> None:
        super().__init__(count, error)
        self.interval = 0
        self.now_records = self.now_mojibake = 0
        self.last_records = self.last_mojibake = 0
        self.total_mojibake = 0
        self.alarmed = False

    def window(self, interval: int) -> tuple[int, int]:
        """(records, mojibake) over *interval* and the one before it."""
        if interval == self.interval:
            return self.now_records + self.last_records, self.now_mojibake + self.last_mojibake
        if interval == self.interval + 1:
            return self.now_records, self.now_mojibake
        return 0, 0

    def roll(self, interval: int) -> None:
        if interval != self.interval:
            self.last_records, self.last_mojibake = self.window(interval)
            self.now_records = self.now_mojibake = 0
            self.interval = interval


class MojibakeAlarms:
    """Raise a ``MojibakeAlarm`` when a tracked host's share of mojibake-suspected clean records crosses
    *ratio* over the window, on at least *min_records* clean records in it.

    The window is the current and the previous interval of *window_s* seconds
    (two tumbling intervals: between one and two *window_s* of records), so the
    share follows what the host serves now.  An alarm fires once per episode;
    the episode ends when the share falls below ``ratio / 2`` on at least
    *min_records* records, or when the window holds none of the host's records
    (it went quiet: nothing left to alarm about).  Only clean records are
    observed: a quarantined record was not published, and ``HostAlarms``
    counts it.  Thread-safe, like ``HostAlarms``.
    """

    def __init__(
        self,
        capacity: int = 1024,
        min_records: int = 20,
        ratio: float = 0.2,
        window_s: float = 900.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if capacity < 1:
            raise ObservabilityConfigError(f"mojibake alarm capacity must be positive, got {capacity}")
        if min_records < 1:
            raise ObservabilityConfigError(f"mojibake alarm min_records must be positive, got {min_records}")
        if not 0 < ratio <= 1:
            raise ObservabilityConfigError(f"mojibake alarm ratio must be in (0, 1], got {ratio}")
        if window_s <= 0:
            raise ObservabilityConfigError(f"mojibake alarm window_s must be positive, got {window_s}")
        self.capacity = capacity
        self.min_records = min_records
        self.ratio = ratio
        self.window_s = window_s
        self._clock = clock
        self._table: _SpaceSaving[_MojibakeCounter] = _SpaceSaving(capacity, _MojibakeCounter)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._table.slots)

    def _interval(self) -> int:
        return int(self._clock() // self.window_s)

    def observe(self, host: str, mojibake: bool) -> MojibakeAlarm | None:
        """Count one clean record of *host*; return an alarm if this record starts an episode."""
        host = _host_key(host)
        interval = self._interval()
        with self._lock:
            counter, _ = self._table.count(host)
            counter.roll(interval)
            counter.now_records += 1
            counter.now_mojibake += bool(mojibake)
            counter.total_mojibake += bool(mojibake)
            records, suspected = counter.window(interval)
            ratio = suspected / records
            if counter.alarmed:
                if records >= self.min_records and ratio < self.ratio / 2:
                    counter.alarmed = False
                return None
            if records >= self.min_records and ratio >= self.ratio:
                counter.alarmed = True
                return MojibakeAlarm(host, records, suspected, ratio)
            return None

    def alarmed(self) -> int:
        """Tracked hosts in an episode now: alarmed, with records in the window (a host gone quiet is not)."""
        interval = self._interval()
        with self._lock:
            return sum(1 for c in self._table.slots.values() if c.alarmed and c.window(interval)[0])

    def top(self, n: int) -> list[MojibakeStats]:
        """The *n* tracked hosts with the most mojibake-suspected records in the window (then since admitted,
        then the most records)."""
        interval = self._interval()
        with self._lock:
            rows = []
            for host, c in self._table.slots.items():
                records, suspected = c.window(interval)
                rows.append(MojibakeStats(
                    host, records, suspected, suspected / records if records else 0.0, c.records, c.total_mojibake,
                    c.count, c.alarmed and records > 0,
                ))  # fmt: skip
        return heapq.nlargest(n, rows, key=lambda r: (r.mojibake, r.total_mojibake, r.records))


def alarms_route(
    alarms: HostAlarms, n: int = 100, mojibake: MojibakeAlarms | None = None
) -> Callable[[], tuple[int, str, bytes]]:
    """A ``HealthServer`` extra route serving ``top(n)`` as JSON (mount it at ``/alarms``); with *mojibake*,
    its ``top(n)`` too, under ``"mojibake"``."""

    def route() -> tuple[int, str, bytes]:
        body: dict[str, object] = {
            "capacity": alarms.capacity,
            "min_records": alarms.min_records,
            "ratio": alarms.ratio,
            "hosts": [stats.as_dict() for stats in alarms.top(n)],
        }
        if mojibake is not None:
            body["mojibake"] = {
                "capacity": mojibake.capacity,
                "min_records": mojibake.min_records,
                "ratio": mojibake.ratio,
                "window_s": mojibake.window_s,
                "hosts": [stats.as_dict() for stats in mojibake.top(n)],
            }
        return 200, "application/json", json.dumps(body).encode()

    return route
