"""Read recent records back from the clean and quarantine topics (for report and recheck).

Reads the last *per_partition* records of every partition with a throwaway
consumer that never commits, so it neither moves nor needs any group's offsets.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Generator, Iterator
from typing import Any

from confluent_kafka import OFFSET_END, Consumer, KafkaError, Message, TopicPartition

from ..kafka import KafkaConnection, make_consumer


def recent_records(
    connection: KafkaConnection,
    topic: str,
    deserialize: Callable[[bytes], dict[str, Any]],
    *,
    per_partition: int = 1000,
    timeout: float = 30.0,
) -> Iterator[tuple[bytes | None, dict[str, Any] | None, bytes | None]]:
    """Yield (key, record or None when unreadable, value) for the newest records of *topic*."""
    # Partition EOF ends a partition: with read_committed, the last offsets are transaction
    # markers that are never delivered, so "offset + 1 == end" may never be seen.
    consumer = make_consumer(
        connection, f"crawl-decoder-reader-{uuid.uuid4().hex}", extra={"enable.partition.eof": True}, role="reader"
    )
    try:
        targets = _tail(consumer, topic, per_partition, timeout)
        if not targets:
            return
        consumer.assign([TopicPartition(topic, p, start) for p, (start, _) in targets.items()])
        remaining = {p: end for p, (start, end) in targets.items() if end > start}
        deadline = time.monotonic() + timeout
        while remaining and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None:
                continue
            error, partition, offset = message.error(), message.partition(), message.offset()
            if error is not None:
                if error.code() == KafkaError._PARTITION_EOF:
                    assert partition is not None  # an EOF event names its partition
                    remaining.pop(partition, None)
                continue
            assert partition is not None and offset is not None  # a consumed message has them
            if offset + 1 >= remaining.get(partition, 0):
                remaining.pop(partition, None)
            yield _read(message, deserialize)
    finally:
        consumer.close()


def _read(
    message: Message, deserialize: Callable[[bytes], dict[str, Any]]
) -> tuple[bytes | None, dict[str, Any] | None, bytes | None]:
    """(key, record or None when unreadable, value): a record we cannot read is still worth counting."""
    try:
        record = deserialize(message.value() or b"")  # None: empty, which no deserializer reads
    except Exception:  # noqa: BLE001 - any failure of the deserializer makes the record unreadable, not the read
        record = None
    return message.key(), record, message.value()


def _tail(consumer: Consumer, topic: str, per_partition: int, timeout: float) -> dict[int, tuple[int, int]]:
    metadata = consumer.list_topics(topic, timeout=timeout)
    partitions = metadata.topics[topic].partitions if topic in metadata.topics else {}
    targets = {}
    for partition in partitions:
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, partition, OFFSET_END), timeout=timeout)
        targets[partition] = (max(low, high - per_partition), high)
    return targets


def window_records(
    connection: KafkaConnection,
    topic: str,
    deserialize: Callable[[bytes], dict[str, Any]],
    *,
    since_ms: int | None = None,
    idle_timeout: float = 30.0,
) -> Generator[tuple[bytes | None, dict[str, Any] | None, bytes | None], None, None]:
    """Yield (key, record or None when unreadable, value) from *topic* up to its end as of the call.

    Each partition is read from the first record written at or after *since_ms*
    (the message timestamp, by ``offsets_for_times``), else from its start; a
    caller that wants fewer stops iterating (the consumer is closed then).
    read_committed, under a throwaway group that never commits.  A partition that delivers nothing for
    *idle_timeout* seconds before its end raises ``TimeoutError``: a silent
    partial read would make a thin sample look like the whole.  A topic that does not exist raises
    ``LookupError``.
    """
    consumer = make_consumer(
        connection, f"crawl-decoder-reader-{uuid.uuid4().hex}", extra={"enable.partition.eof": True}
    )
    try:
        targets = _window(consumer, topic, since_ms, idle_timeout)
        remaining = {p: end for p, (start, end) in targets.items() if end > start}
        if not remaining:
            return
        consumer.assign([TopicPartition(topic, p, targets[p][0]) for p in remaining])
        last_seen = time.monotonic()
        while remaining:
            message = consumer.poll(0.5)
            if message is None:
                if time.monotonic() - last_seen > idle_timeout:
                    raise TimeoutError(f"{topic}: nothing read for {idle_timeout:.0f} s before the end of "
                                       f"partition(s) {sorted(remaining)}")
                continue
            last_seen = time.monotonic()
            error, partition, offset = message.error(), message.partition(), message.offset()
            if error is not None:
                if error.code() == KafkaError._PARTITION_EOF:
                    assert partition is not None  # an EOF event names its partition
                    remaining.pop(partition, None)
                continue
            assert partition is not None and offset is not None  # a consumed message has them
            end = remaining.get(partition)
            if end is None or offset >= end:  # written after the start: not this read's
                remaining.pop(partition, None)
                continue
            if offset + 1 >= end:
                remaining.pop(partition, None)
            yield _read(message, deserialize)
    finally:
        consumer.close()


def _window(consumer: Consumer, topic: str, since_ms: int | None, timeout: float) -> dict[int, tuple[int, int]]:
    """Per partition, [start, end) to read: end is the high watermark now."""
    found = consumer.list_topics(topic, timeout=timeout).topics.get(topic)
    if found is None or found.error is not None or not found.partitions:
        raise LookupError(f"topic {topic!r} does not exist")
    partitions = sorted(found.partitions)
    starts = {}
    if since_ms is not None and partitions:
        found = consumer.offsets_for_times([TopicPartition(topic, p, since_ms) for p in partitions], timeout=timeout)
        starts = {tp.partition: tp.offset for tp in found}
    targets = {}
    for partition in partitions:
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=timeout, cached=False)
        start = starts.get(partition, low)
        start = high if start < 0 else max(low, start)  # -1: no record that recent
        targets[partition] = (start, high)
    return targets
