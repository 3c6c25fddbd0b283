"""The replay loop: read a range of the quarantine topic, decide each record, deliver per batch.

Each record goes through the processor's own ``Router`` (current decoder,
overrides and threshold), so replay decides exactly as the processor would
today.  Delivery is the processor's ``ExactlyOnce``: one transaction per
batch holding the clean records, the re-written quarantine records and the
replay group's cursors.  See the package docstring for what happens to each
kind of record and why.
"""

from __future__ import annotations

import datetime as dt
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

from confluent_kafka import Consumer, KafkaError, KafkaException, Message, TopicPartition

from ..serialization.serde import Serde
from ..decoding import OverrideTable
from ..kafka.clients import MESSAGE_LIMIT_BYTES, make_consumer, make_producer
from ..kafka.config import KafkaConnection
from ..observability.logging import get_logger
from ..processor.delivery import BatchAborted, ExactlyOnce, Output
from ..processor.records import Origin
from ..processor.route import CLEAN, Routed, Router
from ..serialization.exceptions import SerializationError
from ..settings import Settings
from .cursor import CursorView, PartitionRange
from .exceptions import ReplayError
from .progress import Progress
from .selection import Selection, record_host
from .tally import (
    RELEASED,
    SKIPPED_BY_FILTER,
    SKIPPED_BY_MAX_REPLAYS,
    STILL_LOSSY,
    STILL_UNREADABLE,
    Outcome,
    Summary,
)

DEFAULT_MAX_REPLAYS = 3


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """One run.  *to_offsets*: per quarantine partition (``None``: all) the offset reading stops at."""

    group_id: str
    transactional_id: str
    selection: Selection = field(default_factory=Selection)
    to_offsets: Mapping[int | None, int] = field(default_factory=dict)
    max_records: int | None = None
    max_replays: int = DEFAULT_MAX_REPLAYS
    requarantine: bool = False
    dry_run: bool = False
    batch_size: int = 500


class Replayer:
    """Replays the quarantine topic once, from the group's cursor to the end captured at start."""

    def __init__(
        self,
        settings: Settings,
        connection: KafkaConnection,
        options: ReplayOptions,
        *,
        serde: Serde,
        router: Router,
        overrides: OverrideTable,
        progress: Progress | None = None,
    ) -> None:
        self.settings = settings
        self.connection = connection
        self.options = options
        self.serde = serde
        self.router = router
        self.overrides = overrides
        self.progress = progress
        self.summary = Summary()
        self.log = get_logger(component="replay", group=options.group_id, dry_run=options.dry_run)
        self._stop = threading.Event()
        self._interrupted = False

    def stop(self, *_signal_args) -> None:
        """Finish the current batch, then end the run (safe from a signal handler)."""
        self._stop.set()

    @property
    def interrupted(self) -> bool:
        """The run was stopped before its end; the next run goes on from the committed cursor."""
        return self._interrupted

    def run(self) -> Summary:
        consumer = self._consumer()
        delivery = None
        try:
            if not self.options.dry_run:
                # Fence first: init_transactions aborts a transaction a killed predecessor left
                # open, whose offsets would otherwise keep the committed cursor unstable, and
                # reading it (_ranges) waiting, until the transaction timeout.
                delivery = ExactlyOnce(
                    self._producer(), timeout=self.settings.shutdown_timeout_s, renew=self._producer
                )
                delivery.start()
            ranges = self._ranges(consumer)
            self.progress = self.progress or Progress(sum(r.remaining for r in ranges.values()))
            self.log.info("replay starting", partitions={p: (r.start, r.stop) for p, r in ranges.items()})
            if not ranges:
                return self.summary
            consumer.assign([r.topic_partition() for r in ranges.values()])
            self._loop(consumer, delivery, ranges)
        finally:
            consumer.close()
            if delivery is not None:
                delivery.close(self.settings.shutdown_timeout_s)
            if self.progress is not None:
                self.progress.close(self.summary)
        self.log.info("replay finished", **self.summary.counts())
        return self.summary

    # -- the loop ------------------------------------------------------------------

    def _loop(self, consumer: Consumer, delivery: ExactlyOnce | None, ranges: dict[int, PartitionRange]) -> None:
        view = CursorView(consumer, ranges)
        timeout = self.settings.batch_timeout_ms / 1000
        while not all(r.done for r in ranges.values()):
            if self._stop.is_set():
                self._interrupted = True
                self.log.warning("replay stopped before the end; run it again to go on", **self.summary.counts())
                return
            messages = consumer.consume(self.options.batch_size, timeout)
            batch, outputs, moved = Summary(), [], False
            for message in messages:
                found = ranges.get(message.partition())
                if found is None or self._is_end(message, found):
                    continue
                if not found.wants(message.offset()):
                    continue  # past the stop offset, or read again after a rewind seek
                outcome, output = self.decide(message)
                found.handled(message.offset())
                batch.add(outcome)
                moved = True
                if output is not None:
                    outputs.append(output)
                if self._max_reached(batch):
                    for other in ranges.values():
                        other.closed = True
            if moved and not self._deliver(consumer, view, delivery, outputs, ranges):
                continue
            self.summary.merge(batch)
            consumer.pause([r.topic_partition() for r in ranges.values() if r.done])
            self.progress.update(self.summary)

    def _deliver(self, consumer, view, delivery, outputs, ranges) -> bool:
        if delivery is None:
            return True
        try:
            delivery.deliver(view, outputs)
        except BatchAborted as exc:
            self.log.warning("batch aborted, reading it again", reason=str(exc))
            consumer.resume([r.topic_partition() for r in ranges.values()])
            return False
        return True

    def _is_end(self, message: Message, found: PartitionRange) -> bool:
        error = message.error()
        if error is None:
            return False
        if error.code() == KafkaError._PARTITION_EOF:
            # At or past the stop offset nothing this run wants is left; before it, an open
            # transaction still hides records (read_committed): keep reading.
            if message.offset() >= found.stop:
                found.reached_end = True
            return True
        if error.fatal():
            raise ReplayError(f"fatal consumer error: {error.str()}")
        self.log.warning("consumer error", error=error.str())
        return True

    def _max_reached(self, batch: Summary) -> bool:
        limit = self.options.max_records
        if limit is None:
            return False
        selected = (self.summary.read - self.summary.skipped_by_filter) + (batch.read - batch.skipped_by_filter)
        return selected >= limit

    # -- one record ------------------------------------------------------------------

    def decide(self, message: Message) -> tuple[Outcome, Output | None]:
        """What to do with one quarantine message: release it, leave it, write it again, or carry it."""
        try:
            record = self.serde.deserialize_quarantine(message.value())
        except SerializationError as exc:
            if exc.reason is None:
                raise  # the registry is down: not this record's fault, do not move past it
            self.log.warning("unreadable quarantine record left in place", offset=message.offset(), error=str(exc))
            return Outcome(STILL_UNREADABLE, reason="unreadable-quarantine-record"), None
        raw, failure = self._raw(record)
        host = record_host(raw)
        if not self.options.selection.selects(record, raw, message.partition(), message.offset()):
            # Carried forward: the cursor moves past it, so a later replay must find it after the cursor.
            carried = Output(self.settings.quarantine_topic, message.key(), message.value(), message.headers())
            return Outcome(SKIPPED_BY_FILTER, host, carried=not self.options.dry_run), carried
        if record["replay_count"] >= self.options.max_replays:
            return Outcome(SKIPPED_BY_MAX_REPLAYS, host), None
        if raw is None:
            return self._still(self._unreadable(record, failure), STILL_UNREADABLE, host, record)
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
        value = self.serde.serialize_clean(routed.record, utf8_text=routed.text_utf8)
        if len(value) > MESSAGE_LIMIT_BYTES:
            return self._still(self._too_large(record, len(value)), STILL_LOSSY, host, record)
        outcome = Outcome(RELEASED, host, _attempt(record["attempt"]), _described(routed))
        return outcome, Output(self.settings.clean_topic, record["raw_key"], value, _headers(record) or None)

    def _raw(self, record: dict) -> tuple[dict | None, SerializationError | None]:
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

    def _still(self, routed: Routed, kind: str, host: str | None, record: dict) -> tuple[Outcome, Output | None]:
        requarantine = self.options.requarantine
        outcome = Outcome(
            kind, host, _attempt(record["attempt"]), _described(routed), requarantined=requarantine, reason=routed.reason
        )
        if not requarantine:
            return outcome, None
        value = self.serde.serialize_quarantine(routed.record)
        return outcome, Output(self.settings.quarantine_topic, record["raw_key"], value, _headers(record) or None)

    def _unreadable(self, record: dict, failure: SerializationError | None) -> Routed:
        reason = failure.reason if failure is not None else record["reason"]
        routed = self.router.unreadable(
            reason,
            str(failure) if failure is not None else (record["error"] or "the message had no value"),
            _origin(record["origin"]),
            key=record["raw_key"],
            value=record["raw_value"],
            kafka_headers=_headers(record),
        )
        routed.record["replay_count"] = record["replay_count"] + 1
        return routed

    def _too_large(self, record: dict, size: int) -> Routed:
        again = dict(
            record,
            reason="too-large",
            error=f"the decoded record ({size} bytes) exceeds the message limit ({MESSAGE_LIMIT_BYTES})",
            quarantined_at=self.router.clock_ms(),
            replay_count=record["replay_count"] + 1,
        )
        return Routed("quarantine", again, reason="too-large")

    # -- where to read -------------------------------------------------------------------

    def _producer(self):
        return make_producer(self.connection, transactional_id=self.options.transactional_id)

    def _consumer(self) -> Consumer:
        # A dry run reads under a throwaway group that never commits; the real group is only looked at.
        group = f"{self.options.group_id}-dry-run-{uuid.uuid4().hex}" if self.options.dry_run else self.options.group_id
        return make_consumer(self.connection, group, extra={"enable.partition.eof": True})

    def _ranges(self, consumer: Consumer) -> dict[int, PartitionRange]:
        topic = self.settings.quarantine_topic
        timeout = self.settings.shutdown_timeout_s
        try:
            metadata = consumer.list_topics(topic, timeout=timeout).topics.get(topic)
        except KafkaException as exc:
            raise ReplayError(f"cannot read metadata of {topic!r}: {exc.args[0].str()}") from exc
        if metadata is None or metadata.error is not None or not metadata.partitions:
            raise ReplayError(f"quarantine topic {topic!r} does not exist")
        partitions = [TopicPartition(topic, p) for p in sorted(metadata.partitions)]
        committed = {tp.partition: tp.offset for tp in self._committed(consumer, partitions)}
        ranges = {}
        for tp in partitions:
            low, high = consumer.get_watermark_offsets(tp, timeout=timeout, cached=False)
            start = max(committed[tp.partition], low)  # never committed (-1001): from the beginning
            stop = min(high, self._to_offset(tp.partition))
            if start < stop:
                ranges[tp.partition] = PartitionRange(topic, tp.partition, low, start, stop)
        return ranges

    def _committed(self, consumer: Consumer, partitions: list[TopicPartition]) -> list[TopicPartition]:
        timeout = self.settings.shutdown_timeout_s
        if not self.options.dry_run:
            return consumer.committed(partitions, timeout=timeout)
        # A consumer that never subscribes nor commits leaves the group untouched.
        looker = make_consumer(self.connection, self.options.group_id)
        try:
            return looker.committed(partitions, timeout=timeout)
        finally:
            looker.close()

    def _to_offset(self, partition: int) -> int:
        to = self.options.to_offsets
        found = to.get(partition, to.get(None))
        return found if found is not None else 2**63 - 1


def _origin(origin: Mapping) -> Origin:
    stamp = origin.get("timestamp")
    if isinstance(stamp, dt.datetime):
        stamp = int(stamp.timestamp() * 1000)
    return Origin(origin["topic"], origin["partition"], origin["offset"], stamp)


def _headers(record: Mapping) -> list[tuple[str, bytes | None]]:
    return [(header["key"], header["value"]) for header in record["raw_headers"]]


def _attempt(attempt: Mapping | None) -> str:
    return f"{attempt['encoding']}/{attempt['source']}" if attempt else "-"


def _described(routed: Routed) -> str:
    decoded = routed.decoded
    return f"{decoded.encoding}/{decoded.source}" if decoded is not None else "-"
