"""Rewinding: a second look behind the cursor, for records an older replay left there.

Since every record a run passes is released or written again ahead of the
cursor in the same transaction, nothing behind the cursor waits for a
replay.  Replays before that (and ``kafka-consumer-groups --reset-offsets``)
could leave still-lossy records behind it, where no run reads them.
``--rewind-to [P:]OFFSET`` brings them back without moving the cursor back
(which would read again what was released): before the run, every record of
[OFFSET, cursor) that is

- *still queued*: a record with the same origin (landing topic, partition,
  offset) lies at or after the cursor, waiting for this or a later run;
- *already released*: the clean topic holds a record with the same URL,
  ``fetched_at`` and body SHA-256 (the clean record's join to its raw record);

is left alone, and every other one is written again, byte for byte, after
the cursor, where the run that follows reads it.  A record is brought back
once: copies made are queued from then on (the second of two old copies of one
record is still queued), and a rerun of the same rewind finds them queued.

The clean topic is read from the timestamp of the first record of the
rewound span, less ``CLOCK_MARGIN_MS`` (the producers' clocks may differ):
a record cannot be released before it was quarantined.  If a clean partition
no longer reaches back that far (retention deleted its start within the
window), a record released then cannot be found: the rewind refuses.

The copies are written by a transactional producer with the replay's
``transactional.id``, initialised before anything is read: a replay run of
that id still writing is fenced first, so what it released or re-quarantined
is visible to the checks.  Replays under other ids must not run at the same
time (the docs say so).
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Generator, Mapping
from contextlib import closing
from dataclasses import dataclass
from typing import Any

from confluent_kafka import OFFSET_END, Consumer, KafkaError, KafkaException, Message, Producer, TopicPartition

from ..kafka.clients import make_consumer, make_producer
from ..kafka.config import KafkaConnection
from ..observability.logging import get_logger
from ..serialization.exceptions import SerializationError
from ..serialization.serde import Serde
from .exceptions import ReplayError

#: How much earlier than the first rewound record the clean topic is read from.
CLOCK_MARGIN_MS = 3_600_000

#: Copies per transaction.
_BATCH = 500


@dataclass
class RewindCounts:
    """What a rewind found behind the cursor."""

    brought_back: int = 0
    already_released: int = 0
    still_queued: int = 0


@dataclass(frozen=True, slots=True)
class Span:
    """[start, stop) of one quarantine partition."""

    partition: int
    start: int
    stop: int


class Rewinder:
    """Brings back the records of [*rewind_to*, cursor) neither released nor queued; *dry_run* only counts them."""

    def __init__(
        self,
        connection: KafkaConnection,
        *,
        group_id: str,
        transactional_id: str,
        quarantine_topic: str,
        clean_topic: str,
        rewind_to: Mapping[int | None, int],
        serde: Serde,
        dry_run: bool,
        timeout_s: float,
    ) -> None:
        self.connection = connection
        self.group_id = group_id
        self.transactional_id = transactional_id
        self.quarantine_topic = quarantine_topic
        self.clean_topic = clean_topic
        self.rewind_to = rewind_to
        self.serde = serde
        self.dry_run = dry_run
        self.timeout_s = timeout_s
        self.counts = RewindCounts()
        self.log = get_logger(component="replay", step="rewind")

    def run(self) -> RewindCounts:
        producer = None
        if not self.dry_run:
            producer = make_producer(self.connection, transactional_id=self.transactional_id, role="replay-producer")
            _kafka("cannot start the rewind's transactions", producer.init_transactions, self.timeout_s)
        reader = make_consumer(
            self.connection,
            f"{self.group_id}-rewind-{uuid.uuid4().hex}",  # throwaway: assigns, never commits
            extra={"enable.partition.eof": True},
            role="replay-rewind",
        )
        try:
            spans, queued_spans = self._spans(reader)
            if spans:
                self._rewind(reader, producer, spans, queued_spans)
        finally:
            reader.close()
            if producer is not None:
                producer.flush(self.timeout_s)
        self.log.info("rewind finished", dry_run=self.dry_run, **vars(self.counts))
        return self.counts

    def _spans(self, reader: Consumer) -> tuple[list[Span], list[Span]]:
        """The rewound spans [OFFSET, cursor) and the queued ones [cursor, end) of each partition."""
        topic = self.quarantine_topic
        partitions = _partitions(reader, topic, self.timeout_s)
        looker = make_consumer(self.connection, self.group_id, role="replay-offsets")  # reads the cursor only
        try:
            committed = _kafka("cannot read the replay cursor", looker.committed, partitions, timeout=self.timeout_s)
        finally:
            looker.close()
        spans, queued = [], []
        for tp in committed:
            low, high = reader.get_watermark_offsets(TopicPartition(topic, tp.partition), self.timeout_s, cached=False)
            cursor = max(tp.offset, low)  # never committed: the cursor is at the start, nothing is behind it
            wanted = self.rewind_to.get(tp.partition, self.rewind_to.get(None))
            if wanted is not None and max(wanted, low) < cursor:
                spans.append(Span(tp.partition, max(wanted, low), cursor))
            if cursor < high:
                queued.append(Span(tp.partition, cursor, high))
        return spans, queued

    def _rewind(self, reader: Consumer, producer: Producer | None, spans: list[Span], queued_spans: list[Span]) -> None:
        self.log.info("rewinding", spans={s.partition: (s.start, s.stop) for s in spans})
        queued = {self._origin(m) for m in _read(reader, self.quarantine_topic, queued_spans, self.timeout_s)}
        released = self._released(reader, self._since(reader, spans))
        copies: list[Message] = []
        for message in _read(reader, self.quarantine_topic, spans, self.timeout_s):
            origin = self._origin(message)
            if origin in queued:
                self.counts.still_queued += 1
            elif self._identity(message) in released:
                self.counts.already_released += 1
            else:
                queued.add(origin)  # a second old copy of the same record is queued from now on
                copies.append(message)
                if len(copies) >= _BATCH:
                    self._write(producer, copies)
        self._write(producer, copies)

    def _write(self, producer: Producer | None, copies: list[Message]) -> None:
        if copies and producer is not None:
            _kafka("cannot begin a transaction", producer.begin_transaction)
            for message in copies:
                _produce(producer, self.quarantine_topic, message)
            _kafka("cannot commit the brought-back records", producer.commit_transaction, self.timeout_s)
        self.counts.brought_back += len(copies)
        copies.clear()

    def _since(self, reader: Consumer, spans: list[Span]) -> int:
        """The earliest Kafka timestamp of the rewound spans' first records, less the clock margin."""
        stamps = []
        for span in spans:
            with closing(_read(reader, self.quarantine_topic, [span], self.timeout_s)) as messages:
                first = next(messages, None)
            if first is not None and first.timestamp()[1] > 0:
                stamps.append(first.timestamp()[1])
        return max(0, min(stamps, default=0) - CLOCK_MARGIN_MS)

    def _released(self, reader: Consumer, since_ms: int) -> set[tuple[str, int, str]]:
        """(URL, fetched_at, body SHA-256) of every clean record written since *since_ms*."""
        topic = self.clean_topic
        every = _partitions(reader, topic, self.timeout_s)
        partitions = [TopicPartition(topic, tp.partition, since_ms) for tp in every]
        found = _kafka("cannot look up the clean topic's offsets", reader.offsets_for_times, partitions,
                       timeout=self.timeout_s)
        spans = []
        for tp in found:
            low, high = reader.get_watermark_offsets(TopicPartition(topic, tp.partition), self.timeout_s, cached=False)
            start = high if tp.offset in (-1, OFFSET_END) else tp.offset  # nothing since: an empty span
            if 0 < low == start:
                # The partition's oldest record left is already from the window: retention (or a deletion)
                # may have taken records released in it, and they would be released again.
                raise ReplayError(
                    f"cannot rewind: partition {tp.partition} of the clean topic {topic!r} no longer holds what was"
                    f" released before its offset {low}; rewind from a later quarantine offset"
                )
            spans.append(Span(tp.partition, start, high))
        identities = set()
        for message in _read(reader, topic, spans, self.timeout_s):
            try:
                record = self.serde.deserialize_clean(message.value() or b"")
            except SerializationError as exc:
                if exc.reason is None:
                    raise  # the registry is down: the check cannot be made
                continue  # not one of ours: it releases nothing
            identities.add((record["url"], _millis(record["fetched_at"]), record["body_sha256"]))
        return identities

    def _origin(self, message: Message) -> tuple[str, int, int] | tuple[int, int]:
        record = self._quarantined(message)
        if record is None:  # unreadable: it stands for itself
            return message.partition() or 0, message.offset() or 0
        origin = record["origin"]
        return origin["topic"], origin["partition"], origin["offset"]

    def _identity(self, message: Message) -> tuple[str, int, str] | None:
        record = self._quarantined(message)
        raw = None if record is None else record["raw"]
        if record is not None and raw is None and record["raw_value"] is not None:
            try:
                raw = self.serde.deserialize_raw(record["raw_value"])
            except SerializationError as exc:
                if exc.reason is None:
                    raise
        if raw is None:
            return None  # never read as a page: it cannot have been released
        return raw["url"], _millis(raw["fetched_at"]), hashlib.sha256(raw["body"]).hexdigest()

    def _quarantined(self, message: Message) -> dict[str, Any] | None:
        try:
            return self.serde.deserialize_quarantine(message.value() or b"")
        except SerializationError as exc:
            if exc.reason is None:
                raise
            return None


def _read(consumer: Consumer, topic: str, spans: list[Span], timeout_s: float) -> Generator[Message, None, None]:
    """The committed records of [start, stop) of each span (read_committed: markers are skipped)."""
    open_spans = {s.partition: s for s in spans if s.start < s.stop}
    if not open_spans:
        return
    consumer.assign([TopicPartition(topic, s.partition, s.start) for s in open_spans.values()])
    deadline = time.monotonic() + max(timeout_s, 60.0)
    try:
        while open_spans:
            message = consumer.poll(0.5)
            if message is None:
                if time.monotonic() > deadline:
                    raise ReplayError(f"{topic!r}: partitions {sorted(open_spans)} not read to their end in time")
                continue
            deadline = time.monotonic() + max(timeout_s, 60.0)
            partition, offset = message.partition(), message.offset()
            if partition is None or offset is None or partition not in open_spans:
                continue
            span = open_spans[partition]
            error = message.error()
            if error is not None:
                if error.code() != KafkaError._PARTITION_EOF:
                    raise ReplayError(f"cannot read {topic!r}: {error.str()}")
                if offset >= span.stop:
                    del open_spans[partition]
                continue
            if offset < span.stop:
                yield message
            if offset + 1 >= span.stop:
                del open_spans[partition]
    finally:
        consumer.unassign()


def _partitions(consumer: Consumer, topic: str, timeout_s: float) -> list[TopicPartition]:
    metadata = _kafka(f"cannot read metadata of {topic!r}", consumer.list_topics, topic, timeout=timeout_s)
    found = metadata.topics.get(topic)
    if found is None or found.error is not None or not found.partitions:
        raise ReplayError(f"topic {topic!r} does not exist or cannot be described")
    return [TopicPartition(topic, p) for p in sorted(found.partitions)]


def _produce(producer: Producer, topic: str, message: Message) -> None:
    while True:
        try:
            producer.produce(topic, message.value(), message.key(), headers=message.headers())
            return
        except BufferError:
            producer.poll(0.1)


def _kafka(what: str, call: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return call(*args, **kwargs)
    except KafkaException as exc:
        raise ReplayError(f"{what}: {exc.args[0].str()}") from exc


def _millis(stamp: Any) -> int:
    # fastavro reads timestamp-millis as an aware datetime.
    return int(stamp.timestamp() * 1000) if hasattr(stamp, "timestamp") else int(stamp)
