"""Where a replay run starts and stops in each quarantine partition, and how far it got.

A run reads each partition from its group's committed offset (the low
watermark on the first run) up to the end offset captured when it started, so
records re-quarantined by this very run are never read again by it.  The
cursor is the offset after the last record the run has dealt with; it is what
the transaction commits, not the consumer's fetch position, which may already
be past the stop offset or past a record ``--max`` left for a later run.
"""

from __future__ import annotations

from dataclasses import dataclass

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition


@dataclass(slots=True)
class PartitionRange:
    """One quarantine partition: [start, stop) to read, and the cursor inside it."""

    topic: str
    partition: int
    low: int
    start: int
    stop: int
    cursor: int = -1
    #: The broker reported the end of the partition at or past ``stop``.
    reached_end: bool = False
    #: ``--max`` was reached: nothing more is read from this partition in this run.
    closed: bool = False

    def __post_init__(self) -> None:
        if self.cursor < 0:
            self.cursor = self.start

    @property
    def done(self) -> bool:
        # With read_committed the last offsets may be transaction markers, which are never
        # delivered: the cursor then stays below stop, and the end-of-partition event ends it.
        return self.closed or self.reached_end or self.cursor >= self.stop

    @property
    def remaining(self) -> int:
        return 0 if self.done else self.stop - self.cursor

    def wants(self, offset: int) -> bool:
        return not self.closed and self.cursor <= offset < self.stop

    def handled(self, offset: int) -> None:
        self.cursor = offset + 1

    def rewound(self, offset: int) -> None:
        """The batch was aborted: read again from *offset* (the committed one)."""
        self.cursor = self.low if offset == OFFSET_BEGINNING else offset
        self.reached_end = False
        self.closed = False

    def topic_partition(self, offset: int | None = None) -> TopicPartition:
        return TopicPartition(self.topic, self.partition, self.cursor if offset is None else offset)


class CursorView:
    """The consumer as ``processor.delivery`` sees it, with positions taken from the cursors.

    ``ExactlyOnce`` sends ``consumer.position(assignment)`` in the transaction
    and, on abort, seeks every partition back to its committed offset.  Through
    this view it commits the replay cursors instead, and a rewind moves both the
    real consumer and the cursors, so an aborted batch is read and decided again.
    """

    def __init__(self, consumer: Consumer, ranges: dict[int, PartitionRange]) -> None:
        self.consumer = consumer
        self.ranges = ranges

    def assignment(self) -> list[TopicPartition]:
        return [r.topic_partition() for r in self.ranges.values()]

    def position(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        return [self.ranges[tp.partition].topic_partition() for tp in partitions]

    def consumer_group_metadata(self):
        return self.consumer.consumer_group_metadata()

    def committed(self, partitions: list[TopicPartition], timeout: float) -> list[TopicPartition]:
        return self.consumer.committed(partitions, timeout=timeout)

    def seek(self, partition: TopicPartition) -> None:
        found = self.ranges[partition.partition]
        found.rewound(partition.offset)
        self.consumer.seek(found.topic_partition())
