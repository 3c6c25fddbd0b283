"""Where the offsets a batch commits come from, and where a rewind puts them back.

The engine commits, with each batch, the next offset to read of every
partition it holds (``positions``), and after a failed batch seeks them back to
their committed offsets (``assignment``, ``seek``; see ``rewind``).  An
``Offsets`` source says what those are:

- the processor's are the consumer's own positions (``ConsumerPositions``);
- replay's are its cursor's, bounded by the end offsets seen at its start
  (``consumer.replay.cursor.ReplayCursor``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from confluent_kafka import Consumer, Message, TopicPartition


class Rebalance(Protocol):
    """The engine's rebalance callbacks, in confluent-kafka's signature; ``attach`` hands them to the consumer."""

    def on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None: ...

    def on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None: ...

    def on_lost(self, consumer: Consumer, partitions: list[TopicPartition]) -> None: ...


class Offsets(Protocol):
    """Where a batch's offsets come from.  Called from the engine's loop thread (``attach``'s callbacks
    run inside ``consume``, in that thread too)."""

    def attach(self, consumer: Consumer, rebalance: Rebalance) -> None:
        """Start reading: subscribe (with *rebalance*'s callbacks) or assign."""

    def admit(self, message: Message) -> bool:
        """Whether the engine decides this record; if so, it counts as read (``positions`` moves past it)."""

    def at_end(self, topic: str, partition: int, offset: int) -> None:
        """The consumer reached the end of a partition (an ``enable.partition.eof`` event)."""

    def positions(self) -> Sequence[TopicPartition]:
        """The offsets to commit with the batch made so far: the next offset to read, per partition."""

    def assignment(self) -> Sequence[TopicPartition]:
        """The partitions a rewind moves."""

    def seek(self, partition: TopicPartition) -> None:
        """Read *partition* again from its offset (a rewind)."""

    def exhausted(self) -> bool:
        """Whether everything this run was to read has been read (the engine then settles and ends)."""


class ConsumerPositions:
    """The processor's offsets: the consumer's positions on the topics it subscribes to; it never ends.

    Positions only move forward between the engine's own seeks: a record below the next offset already
    admitted on its partition (since the partition was assigned, or the engine last sought it) is in a
    batch committed or in flight, and is not admitted again; a batch commits no offset below it.  A seek
    the engine asked for just before its partitions were lost (a rewind as the broker came back after
    five minutes) took effect once the consumer had them again and was reading: the partition's first
    batch was read twice, and written twice.
    """

    def __init__(self, topics: Sequence[str]) -> None:
        self._topics = list(topics)
        self._consumer: Consumer | None = None
        #: The next offset to admit per (topic, partition), since its assignment or the engine's last seek.
        self._next: dict[tuple[str, int], int] = {}

    @classmethod
    def of(cls, consumer: Consumer) -> ConsumerPositions:
        """The positions of a consumer its caller has subscribed or assigned already (``attach`` is not called)."""
        positions = cls([])
        positions._consumer = consumer
        return positions

    def attach(self, consumer: Consumer, rebalance: Rebalance) -> None:
        self._consumer = consumer

        def on_assign(consumer: Consumer, partitions: list[TopicPartition]) -> None:
            self._forget(partitions)  # read from the committed offsets, whatever came before
            rebalance.on_assign(consumer, partitions)

        def on_revoke(consumer: Consumer, partitions: list[TopicPartition]) -> None:
            rebalance.on_revoke(consumer, partitions)
            self._forget(partitions)

        def on_lost(consumer: Consumer, partitions: list[TopicPartition]) -> None:
            rebalance.on_lost(consumer, partitions)
            self._forget(partitions)

        consumer.subscribe(self._topics, on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)

    def admit(self, message: Message) -> bool:
        topic, partition, offset = message.topic(), message.partition(), message.offset()
        assert topic is not None and partition is not None and offset is not None  # a record names them
        if offset < self._next.get((topic, partition), 0):
            return False  # read before, since the last assignment or seek: in a batch already
        self._next[topic, partition] = offset + 1
        return True

    def at_end(self, topic: str, partition: int, offset: int) -> None:
        pass

    def positions(self) -> list[TopicPartition]:
        """The next offset to read for each assigned partition that has one (never below what was admitted)."""
        assigned = self.assignment()
        if not assigned:
            return []
        return [
            TopicPartition(tp.topic, tp.partition, max(tp.offset, self._next.get((tp.topic, tp.partition), -1)))
            for tp in self._attached.position(assigned)
            if tp.offset >= 0 or (tp.topic, tp.partition) in self._next
        ]

    def assignment(self) -> list[TopicPartition]:
        return self._attached.assignment()

    def seek(self, partition: TopicPartition) -> None:
        # A logical offset (the beginning: nothing committed) admits the partition's records from its first.
        self._next[partition.topic, partition.partition] = max(partition.offset, 0)
        self._attached.seek(partition)

    def _forget(self, partitions: list[TopicPartition]) -> None:
        for tp in partitions:
            self._next.pop((tp.topic, tp.partition), None)

    def exhausted(self) -> bool:
        return False

    @property
    def _attached(self) -> Consumer:
        if self._consumer is None:
            raise RuntimeError("ConsumerPositions used before attach()")
        return self._consumer
