"""Read recent records back from the clean and quarantine topics (for report and recheck).

Reads the last *per_partition* records of every partition with a throwaway
consumer that never commits, so it neither moves nor needs any group's offsets.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator

from confluent_kafka import OFFSET_END, KafkaError, TopicPartition

from ..kafka import KafkaConnection, make_consumer


def recent_records(
    connection: KafkaConnection,
    topic: str,
    deserialize: Callable[[bytes], dict],
    *,
    per_partition: int = 1000,
    timeout: float = 30.0,
) -> Iterator[tuple[bytes | None, dict | None, bytes]]:
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
            if message.error() is not None:
                if message.error().code() == KafkaError._PARTITION_EOF:
                    remaining.pop(message.partition(), None)
                continue
            if message.offset() + 1 >= remaining.get(message.partition(), 0):
                remaining.pop(message.partition(), None)
            try:
                record = deserialize(message.value())
            except Exception:  # noqa: BLE001 - a record we cannot read is still worth counting
                record = None
            yield message.key(), record, message.value()
    finally:
        consumer.close()


def _tail(consumer, topic: str, per_partition: int, timeout: float) -> dict[int, tuple[int, int]]:
    metadata = consumer.list_topics(topic, timeout=timeout)
    partitions = metadata.topics[topic].partitions if topic in metadata.topics else {}
    targets = {}
    for partition in partitions:
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, partition, OFFSET_END), timeout=timeout)
        targets[partition] = (max(low, high - per_partition), high)
    return targets
