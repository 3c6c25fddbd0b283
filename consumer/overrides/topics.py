"""Read records back from the clean and quarantine topics (for ``overrides`` report, recheck, suggest).

One loop reads a window of every partition, up to its end as of the start, with a
throwaway consumer that never commits, so it neither moves nor needs any group's offsets.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Generator
from typing import Any

from confluent_kafka import Consumer, KafkaError, Message, TopicPartition

from ..kafka import KafkaConnection, make_consumer
from ..kafka.permissions import GROUP, TOPIC, Permission


def recent_records(
    connection: KafkaConnection,
    topic: str,
    deserialize: Callable[[bytes], dict[str, Any]],
    *,
    per_partition: int = 1000,
    idle_timeout: float = 30.0,
    since_ms: int | None = None,
) -> Generator[tuple[bytes | None, dict[str, Any] | None, bytes | None], None, None]:
    """Yield (key, record or None when unreadable, value) for the newest *per_partition* records of each
    partition of *topic* (of those written at or after *since_ms*, if given), as ``window_records`` reads: a
    stall raises ``TimeoutError``, a missing topic ``LookupError``."""
    return _records(connection, topic, deserialize, idle_timeout, since_ms=since_ms, last=per_partition)


def _read(
    message: Message, deserialize: Callable[[bytes], dict[str, Any]]
) -> tuple[bytes | None, dict[str, Any] | None, bytes | None]:
    """(key, record or None when unreadable, value): a record we cannot read is still worth counting."""
    try:
        record = deserialize(message.value() or b"")  # None: empty, which no deserializer reads
    except Exception:  # noqa: BLE001 - any failure of the deserializer makes the record unreadable, not the read
        record = None
    return message.key(), record, message.value()


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
    return _records(connection, topic, deserialize, idle_timeout, since_ms=since_ms)


#: The readers' throwaway groups start with this (an ACL: Describe on groups with this prefix).
READER_GROUP_PREFIX = "crawl-decoder-reader-"


def reader_permissions(topics: dict[str, str]) -> list[Permission]:
    """What reading *topics* (name -> what it is) needs: Read on each, Describe on a reader group."""
    needed = [Permission(TOPIC, name, "Read", f"the {what} topic") for name, what in topics.items()]
    group = f"{READER_GROUP_PREFIX}{uuid.uuid4().hex}"
    return [*needed, Permission(GROUP, group, "Describe", f"a throwaway reader group: prefix {READER_GROUP_PREFIX!r}")]


def _records(
    connection: KafkaConnection,
    topic: str,
    deserialize: Callable[[bytes], dict[str, Any]],
    idle_timeout: float,
    *,
    since_ms: int | None = None,
    last: int | None = None,
) -> Generator[tuple[bytes | None, dict[str, Any] | None, bytes | None], None, None]:
    """The readers' one loop: each partition's ``_window``, up to its end as of the start."""
    consumer = make_consumer(
        connection, f"{READER_GROUP_PREFIX}{uuid.uuid4().hex}", extra={"enable.partition.eof": True}, role="reader"
    )
    try:
        targets = _window(consumer, topic, since_ms, idle_timeout, last)
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
            # Partition EOF ends a partition: with read_committed, the last offsets may be transaction
            # markers, never delivered, so "offset + 1 == end" may never be seen.
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


def _window(
    consumer: Consumer, topic: str, since_ms: int | None, timeout: float, last: int | None = None
) -> dict[int, tuple[int, int]]:
    """Per partition, [start, end) to read: end is the high watermark now; start the first offset at or
    after *since_ms*, and no more than *last* offsets before the end, else the partition's start."""
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
        if start < 0:  # no record that recent
            start = high
        if last is not None:
            start = max(start, high - last)
        targets[partition] = (max(low, start), high)
    return targets
