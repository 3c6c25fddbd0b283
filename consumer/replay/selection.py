"""Which quarantined records a replay run selects: host, reason, time, offsets.

A ``Selection`` is a pure predicate over one quarantined record and where it
sits in the quarantine topic.  What happens to records it does not select
(they are carried forward, so a later replay still sees them) is the
replayer's business, see ``consumer.replay``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..decoding.hosts import HostPatterns, host_of, parse_host_pattern


@dataclass(frozen=True, slots=True)
class Selection:
    """Filters of one run; an empty field selects everything.

    *hosts*: exact hosts or ``*.suffix`` patterns, matched as overrides match
    (``decoding.hosts``: a pattern covers sub-domains only).  *reasons*: quarantine reasons.
    *since_ms* (inclusive) / *until_ms* (exclusive): the landing message's
    Kafka timestamp (``origin.timestamp``, which re-quarantining keeps), or
    ``quarantined_at`` when the origin had none.  *from_offsets*: per
    quarantine partition, records below that offset are not selected
    (key ``None``: every partition).
    """

    hosts: tuple[str, ...] = ()
    reasons: frozenset[str] = frozenset()
    since_ms: int | None = None
    until_ms: int | None = None
    from_offsets: Mapping[int | None, int] = field(default_factory=dict)

    _patterns: HostPatterns[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        hosts = tuple(parse_host_pattern(h) for h in self.hosts)
        object.__setattr__(self, "hosts", hosts)
        object.__setattr__(self, "_patterns", HostPatterns((h, h) for h in hosts))

    def selects(self, record: Mapping[str, Any], raw: Mapping[str, Any] | None, partition: int, offset: int) -> bool:
        return (
            self._offset_selected(partition, offset)
            and (not self.reasons or record["reason"] in self.reasons)
            and self._time_selected(record)
            and (not self.hosts or self._host_selected(raw))
        )

    def _offset_selected(self, partition: int, offset: int) -> bool:
        start = self.from_offsets.get(partition, self.from_offsets.get(None))
        return start is None or offset >= start

    def _time_selected(self, record: Mapping[str, Any]) -> bool:
        stamp = record["origin"].get("timestamp")
        if stamp is None:
            stamp = record["quarantined_at"]
        stamp = _millis(stamp)
        if self.since_ms is not None and stamp < self.since_ms:
            return False
        return self.until_ms is None or stamp < self.until_ms

    def _host_selected(self, raw: Mapping[str, Any] | None) -> bool:
        return self._patterns.lookup(record_host(raw)) is not None


def record_host(raw: Mapping[str, Any] | None) -> str | None:
    """The host of a raw response's URL as the processor reads it (``decoding.hosts.host_of``)."""
    return host_of(raw.get("url")) if raw else None


def parse_time(text: str) -> int:
    """An ISO 8601 date or date-time as epoch milliseconds; without a zone it is UTC."""
    try:
        moment = dt.datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise ValueError(f"{text!r} is not an ISO 8601 date-time (e.g. 2026-12-01T08:00:00Z)") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return int(moment.timestamp() * 1000)


def parse_offset(text: str) -> tuple[int | None, int]:
    """``OFFSET`` (every partition) or ``PARTITION:OFFSET``."""
    partition, _, offset = text.strip().rpartition(":")
    try:
        value = int(offset)
        where = int(partition) if partition else None
    except ValueError as exc:
        raise ValueError(f"{text!r} is not OFFSET or PARTITION:OFFSET") from exc
    if value < 0 or (where is not None and where < 0):
        raise ValueError(f"{text!r}: offsets and partitions are not negative")
    return where, value


def _millis(stamp: int | dt.datetime) -> int:
    # fastavro reads timestamp-millis as an aware datetime.
    if isinstance(stamp, dt.datetime):
        return int(stamp.timestamp() * 1000)
    return int(stamp)
