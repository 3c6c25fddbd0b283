"""Replay's offsets: where a run starts and stops in each quarantine partition, and how far it got.

A run reads each partition from its group's committed offset (the low
watermark on the first run) up to the end offset captured when it started, so
records re-quarantined by this very run are never read again by it.  The
cursor is the offset after the last record the run has dealt with; it is what
each batch commits (``positions``), not the consumer's fetch position, which
may already be past the stop offset or past a record ``--max`` left for a
later run.  ``ReplayCursor`` is the batch engine's ``Offsets`` source for
replay (``consumer.engine.offsets``).

A run subscribes to the quarantine topic as a member of its group: two runs of
one group share the partitions (and their commits are fenced by the group
generation, as the processor's are) instead of both replaying everything.  A
member is done once it has held partitions and every partition it holds is
read to its stop (or closed by ``--max``); a partition it gets later, from a
member that left, it reads from the committed cursor.  Partitions *lost* (a
session that expired in a stall, a broker restart) were not handed to another
member: the member rejoins and gets them back, so until its next assignment it
is not done, although it holds nothing (it used to end the run there, with
most records not replayed and nothing said).  A dry run commits
nothing, so it assigns the partitions itself, at the real group's cursors,
under a throwaway group.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Message, TopicPartition

from ..engine import Rebalance


@dataclass(slots=True)
class PartitionRange:
    """One quarantine partition: [start, stop) to read as planned, and the cursor inside it."""

    topic: str
    partition: int
    low: int
    start: int
    stop: int
    #: The next offset to decide; None until a record is read since the partition was assigned
    #: (the consumer starts at the committed offset, which another member may have moved).
    cursor: int | None = None
    #: The broker reported the end of the partition at or past ``stop``.
    reached_end: bool = False
    #: ``--max`` was reached: nothing more is read from this partition in this run.
    closed: bool = False

    @property
    def done(self) -> bool:
        # With read_committed the last offsets may be transaction markers, which are never
        # delivered: the cursor then stays below stop, and the end-of-partition event ends it.
        return self.closed or self.reached_end or (self.cursor is not None and self.cursor >= self.stop)

    @property
    def remaining(self) -> int:
        return 0 if self.done else self.stop - (self.start if self.cursor is None else self.cursor)

    @property
    def planned(self) -> int:
        return self.stop - self.start

    @property
    def covered(self) -> int:
        """Offsets of [start, stop) dealt with: all of them once the partition is done.

        Offsets, not records: transaction markers take offsets but are never delivered
        (read_committed), so a count of records never reaches ``planned``; the end of the
        partition (or ``--max``) closes the gap.
        """
        if self.done:
            return self.planned
        if self.cursor is None:
            return 0
        return max(0, min(self.cursor, self.stop) - self.start)

    def wants(self, offset: int) -> bool:
        return not self.closed and offset < self.stop and (self.cursor is None or self.cursor <= offset)

    def handled(self, offset: int) -> None:
        self.cursor = offset + 1

    def rewound(self, offset: int) -> None:
        """The batch was aborted: read again from *offset* (the committed one)."""
        self.cursor = self.low if offset == OFFSET_BEGINNING else offset
        self.reached_end = False
        self.closed = False

    def assigned(self) -> None:
        """The partition is (again) this member's: it is read from the group's committed offset."""
        self.cursor = None
        self.reached_end = False

    def topic_partition(self, offset: int | None = None) -> TopicPartition:
        return TopicPartition(self.topic, self.partition, self.start if offset is None else offset)


class ReplayCursor:
    """The replay cursors as the batch engine's ``Offsets``.

    *plan* computes the ranges from the consumer once the engine's producer is
    ready (it has fenced a killed predecessor, whose open transaction would
    otherwise keep the committed cursors unstable).  With *subscribe* the run
    joins its group; without, it assigns the planned partitions (a dry run).
    """

    def __init__(self, topic: str, plan: Callable[[Consumer], dict[int, PartitionRange]], *, subscribe: bool) -> None:
        self.topic = topic
        self.ranges: dict[int, PartitionRange] = {}
        self._plan = plan
        self._subscribe = subscribe
        self._consumer: Consumer | None = None
        self._rebalance: Rebalance | None = None
        #: Partitions this member holds.
        self._held: set[int] = set()
        self._had_partitions = False
        #: Partitions were lost and the member has not been assigned again since.
        self._rejoining = False

    # -- Offsets ---------------------------------------------------------------------------

    def attach(self, consumer: Consumer, rebalance: Rebalance) -> None:
        self._consumer, self._rebalance = consumer, rebalance
        self.ranges = self._plan(consumer)
        if not self.ranges:
            return  # nothing to read: exhausted at once
        if self._subscribe:
            consumer.subscribe(
                [self.topic], on_assign=self._on_assign, on_revoke=self._on_revoke, on_lost=self._on_lost
            )
            return
        consumer.assign([r.topic_partition() for r in self.ranges.values()])
        self._hold(list(self.ranges))

    def admit(self, message: Message) -> bool:
        partition, offset = message.partition(), message.offset()
        assert partition is not None and offset is not None  # a consumed message has them
        found = self.ranges.get(partition)
        if found is None or partition not in self._held:
            return False
        if not found.wants(offset):  # past the stop, or read again after a rewind's seek
            if offset >= found.stop:
                found.reached_end = True
                self._pause(found)
            return False
        found.handled(offset)
        if found.done:
            self._pause(found)
        return True

    def at_end(self, topic: str, partition: int, offset: int) -> None:
        found = self.ranges.get(partition)
        # At or past the stop offset nothing this run wants is left; before it, an open
        # transaction still hides records (read_committed): keep reading.
        if found is not None and offset >= found.stop:
            found.reached_end = True
            self._pause(found)

    def positions(self) -> list[TopicPartition]:
        return [
            TopicPartition(self.topic, p, cursor)
            for p in sorted(self._held)
            if p in self.ranges and (cursor := self.ranges[p].cursor) is not None
        ]

    def assignment(self) -> list[TopicPartition]:
        return [TopicPartition(self.topic, p) for p in sorted(self._held) if p in self.ranges]

    def seek(self, partition: TopicPartition) -> None:
        found = self.ranges[partition.partition]
        found.rewound(partition.offset)
        consumer = self._attached
        assert found.cursor is not None  # rewound sets it
        consumer.seek(TopicPartition(self.topic, found.partition, found.cursor))
        consumer.resume([TopicPartition(self.topic, found.partition)])

    def exhausted(self) -> bool:
        if not self.ranges or all(r.closed for r in self.ranges.values()):
            return True
        if self._rejoining:
            return False
        return self._had_partitions and all(self.ranges[p].done for p in self._held if p in self.ranges)

    # -- replay's own ------------------------------------------------------------------------

    def close(self) -> None:
        """``--max`` is reached: nothing more is read in this run."""
        for found in self.ranges.values():
            found.closed = True
            self._pause(found)

    @property
    def remaining(self) -> int:
        return sum(r.remaining for r in self.ranges.values())

    def progress(self) -> tuple[int, int]:
        """(offsets dealt with, offsets planned) over every planned partition, for the progress line.

        Once the run is exhausted it has dealt with everything it will: every partition it
        holds is read to its stop (or ``--max`` closed them), and a partition another member
        of the group holds is that member's to read.  Then the two are equal: 100%.
        """
        planned = sum(r.planned for r in self.ranges.values())
        if self.exhausted():
            return planned, planned
        return sum(r.covered for r in self.ranges.values()), planned

    # -- the group's rebalances (the engine's own callbacks run inside) -----------------------

    def _on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self._rejoining = False
        self._hold([tp.partition for tp in partitions])
        self._rebalanced.on_assign(consumer, partitions)

    def _on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self._rebalanced.on_revoke(consumer, partitions)  # what is handed over commits first
        self._release(consumer, partitions)

    def _on_lost(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self._rebalanced.on_lost(consumer, partitions)
        self._release(consumer, partitions)
        self._rejoining = True

    def _hold(self, partitions: list[int]) -> None:
        for p in partitions:
            self._held.add(p)
            if p in self.ranges:
                self.ranges[p].assigned()
        self._had_partitions = self._had_partitions or bool(partitions)

    def _release(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        # A paused partition may stay paused when it comes back: resume it while it is still ours.
        try:
            consumer.resume([TopicPartition(tp.topic, tp.partition) for tp in partitions])
        except KafkaException:
            pass  # not paused, or already gone
        self._held.difference_update(tp.partition for tp in partitions)

    def _pause(self, found: PartitionRange) -> None:
        if found.partition in self._held:
            self._attached.pause([TopicPartition(self.topic, found.partition)])

    @property
    def _attached(self) -> Consumer:
        if self._consumer is None:
            raise RuntimeError("ReplayCursor used before attach()")
        return self._consumer

    @property
    def _rebalanced(self) -> Rebalance:
        if self._rebalance is None:
            raise RuntimeError("ReplayCursor used before attach()")
        return self._rebalance
