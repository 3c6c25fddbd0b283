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
    """The processor's offsets: the consumer's positions on the topics it subscribes to; it never ends."""

    def __init__(self, topics: Sequence[str]) -> None:
        self._topics = list(topics)
        self._consumer: Consumer | None = None

    @classmethod
    def of(cls, consumer: Consumer) -> ConsumerPositions:
        """The positions of a consumer its caller has subscribed or assigned already (``attach`` is not called)."""
        positions = cls([])
        positions._consumer = consumer
        return positions

    def attach(self, consumer: Consumer, rebalance: Rebalance) -> None:
        self._consumer = consumer
        consumer.subscribe(
            self._topics, on_assign=rebalance.on_assign, on_revoke=rebalance.on_revoke, on_lost=rebalance.on_lost
        )

    def admit(self, message: Message) -> bool:
        return True

    def at_end(self, topic: str, partition: int, offset: int) -> None:
        pass

    def positions(self) -> list[TopicPartition]:
        """The next offset to read for each assigned partition that has one."""
        assigned = self.assignment()
        if not assigned:
            return []
        return [tp for tp in self._attached.position(assigned) if tp.offset >= 0]

    def assignment(self) -> list[TopicPartition]:
        return self._attached.assignment()

    def seek(self, partition: TopicPartition) -> None:
        self._attached.seek(partition)

    def exhausted(self) -> bool:
        return False

    @property
    def _attached(self) -> Consumer:
        if self._consumer is None:
            raise RuntimeError("ConsumerPositions used before attach()")
        return self._consumer
