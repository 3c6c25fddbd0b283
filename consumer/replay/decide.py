"""Replay's decision on one quarantined message: release it, write it again, or carry it forward.

``ReplayDecider`` is what the batch engine asks for each quarantine message.
The record goes through the processor's own ``Router`` (current decoder,
overrides and threshold), so replay decides exactly as the processor would
today.  The ``Decision``'s note is the ``Outcome`` the run's summary counts
once the batch is committed; see the package docstring for each kind.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from confluent_kafka import Message

from ..decoding import OverrideTable
from ..engine import Decision, Output
from ..observability.logging import get_logger
from ..processor.records import Origin
from ..processor.route import CLEAN, QUARANTINE, Routed, Router
from ..serialization.exceptions import SerializationError
from ..serialization.serde import Serde
from .selection import Selection, record_host
from .tally import RELEASED, SKIPPED_BY_FILTER, SKIPPED_BY_MAX_REPLAYS, STILL_LOSSY, STILL_UNREADABLE, Outcome


class ReplayDecider:
    """Decides quarantined records under one run's filters and options."""

    def __init__(
        self,
        *,
        serde: Serde,
        router: Router,
        overrides: OverrideTable,
        selection: Selection,
        max_replays: int | None,
        dry_run: bool,
        clean_topic: str,
        quarantine_topic: str,
        message_limit: int,
    ) -> None:
        self.serde = serde
        self.router = router
        self.overrides = overrides
        self.selection = selection
        self.max_replays = max_replays
        self.dry_run = dry_run
        self.clean_topic = clean_topic
        self.quarantine_topic = quarantine_topic
        self.message_limit = message_limit
        self.log = get_logger(component="replay")

    def __call__(self, message: Message) -> Decision[Outcome]:
        """What to do with one quarantine message."""
        try:
            record = self.serde.deserialize_quarantine(message.value() or b"")  # None: empty, CorruptRecordError
        except SerializationError as exc:
            if exc.reason is None:
                raise  # the registry is down: not this record's fault, do not move past it
            self.log.warning("unreadable quarantine record left in place", offset=message.offset(), error=str(exc))
            return Decision((), Outcome(STILL_UNREADABLE, reason="unreadable-quarantine-record"))
        raw, failure = self._raw(record)
        host = record_host(raw)
        partition, offset = message.partition(), message.offset()
        assert partition is not None and offset is not None  # a consumed message has them
        if not self.selection.selects(record, raw, partition, offset):
            return _carried(message, self.quarantine_topic, Outcome(SKIPPED_BY_FILTER, host, carried=True))
        if self.max_replays is not None and record["replay_count"] >= self.max_replays:
            # Not decided again, but never left behind the cursor either: a later run with a higher
            # --max-replays (or none) still finds it.
            return _carried(message, self.quarantine_topic, Outcome(SKIPPED_BY_MAX_REPLAYS, host, carried=True))
        if raw is None:
            return self._still(self._unreadable(record, failure), STILL_UNREADABLE, host, record)
        return self._decoded(record, raw, host)

    def _decoded(self, record: dict[str, Any], raw: dict[str, Any], host: str | None) -> Decision[Outcome]:
        routed = self.router.route(
            raw,
            _origin(record["origin"]),
            key=record["raw_key"],
            kafka_headers=_headers(record),
            overrides=self.overrides,
            replay_count=record["replay_count"] + 1,
        )
        if routed.destination != CLEAN:
            return self._still(routed, STILL_LOSSY, host, record)
        assert routed.record is not None  # a clean route has its record
        value = self.serde.serialize_clean(routed.record, utf8_text=routed.text_utf8)
        if len(value) > self.message_limit:
            return self._still(self._too_large(record, len(value)), STILL_LOSSY, host, record)
        outcome = Outcome(RELEASED, host, _attempt(record["attempt"]), _described(routed))
        return Decision((Output(self.clean_topic, record["raw_key"], value, _headers(record) or None),), outcome)

    def _raw(self, record: dict[str, Any]) -> tuple[dict[str, Any] | None, SerializationError | None]:
        """The raw response; for one quarantined unreadable, its bytes are read again (a schema may have come)."""
        if record["raw"] is not None:
            return record["raw"], None
        if record["raw_value"] is None:
            return None, None
        try:
            return self.serde.deserialize_raw(record["raw_value"]), None
        except SerializationError as exc:
            if exc.reason is None:
                raise
            return None, exc

    def _still(self, routed: Routed, kind: str, host: str | None, record: dict[str, Any]) -> Decision[Outcome]:
        outcome = Outcome(
            kind,
            host,
            _attempt(record["attempt"]),
            _described(routed),
            requarantined=True,
            reason=routed.reason,
        )
        # Written again in the transaction that moves the cursor past the original: a record still
        # quarantined always has exactly one copy ahead of the cursor, so the next run sees it.
        assert routed.record is not None  # replay's router quarantines non-text, never skips
        value = self.serde.serialize_quarantine(routed.record)
        return Decision((Output(self.quarantine_topic, record["raw_key"], value, _headers(record) or None),), outcome)

    def _unreadable(self, record: dict[str, Any], failure: SerializationError | None) -> Routed:
        reason = failure.reason if failure is not None else record["reason"]
        assert reason is not None  # _raw keeps only failures with a reason; a quarantine record has one
        routed = self.router.unreadable(
            reason,
            str(failure) if failure is not None else (record["error"] or "the message had no value"),
            _origin(record["origin"]),
            key=record["raw_key"],
            value=record["raw_value"],
            kafka_headers=_headers(record),
        )
        assert routed.record is not None  # unreadable always builds one
        routed.record["replay_count"] = record["replay_count"] + 1
        return routed

    def _too_large(self, record: dict[str, Any], size: int) -> Routed:
        again = dict(
            record,
            reason="too-large",
            error=f"the decoded record ({size} bytes) exceeds the message limit ({self.message_limit})",
            quarantined_at=self.router.clock_ms(),
            replay_count=record["replay_count"] + 1,
        )
        return Routed(QUARANTINE, again, reason="too-large")


def _carried(message: Message, topic: str, outcome: Outcome) -> Decision[Outcome]:
    """The quarantine message written again byte for byte: the cursor moves past it, a later run finds the copy.

    A dry run counts it too (its policy writes nothing): what the real run would copy.
    """
    # A consumed message's headers are a list of (str, bytes | None); the stub's type is also set_headers' dict.
    copy = Output(topic, message.key(), message.value(), message.headers())  # type: ignore[arg-type]
    return Decision((copy,), outcome)


def _origin(origin: Mapping[str, Any]) -> Origin:
    stamp = origin.get("timestamp")
    if isinstance(stamp, dt.datetime):
        stamp = int(stamp.timestamp() * 1000)
    return Origin(origin["topic"], origin["partition"], origin["offset"], stamp)


def _headers(record: Mapping[str, Any]) -> list[tuple[str, bytes | None]]:
    return [(header["key"], header["value"]) for header in record["raw_headers"]]


def _attempt(attempt: Mapping[str, Any] | None) -> str:
    return f"{attempt['encoding']}/{attempt['source']}" if attempt else "-"


def _described(routed: Routed) -> str:
    decoded = routed.decoded
    return f"{decoded.encoding}/{decoded.source}" if decoded is not None else "-"
