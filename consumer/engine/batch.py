"""The values the engine moves: an output record, a decision on one message, a made batch."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from confluent_kafka import TopicPartition

Note = TypeVar("Note")


@dataclass(frozen=True, slots=True)
class Output:
    """One record to write: topic, key, serialized value and Kafka headers."""

    topic: str
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]] | None


@dataclass(frozen=True, slots=True)
class Decision(Generic[Note]):
    """Where one message goes: its outputs (none for a skip), and a note the caller gets back once its
    batch is committed (what to count: a metric, a summary line)."""

    outputs: Sequence[Output]
    note: Note


def _nothing() -> None:
    pass


@dataclass(frozen=True, slots=True)
class Batch:
    """A made batch: what to write, the offsets to commit with it, who to tell once it is committed."""

    outputs: Sequence[Output]
    #: The next offset to read per partition (``Offsets.positions``), committed with the outputs.
    offsets: Sequence[TopicPartition]
    #: The consumer's group metadata when the batch was made (KIP-447: a commit of an older generation is refused).
    group_metadata: object
    #: Runs in the loop's thread once the batch is committed.
    on_committed: Callable[[], None] = _nothing


@dataclass(frozen=True, slots=True)
class Wait:
    """What the loop's thread waits for: a call of the writer (or of a rewind) on Kafka."""

    #: The call: ``init_transactions``, ``commit_transaction``, ``produce``, ``committed offsets``...
    call: str
    #: Seconds the loop's thread has waited so far.
    seconds: float
    #: The partitions (``topic[partition]``) of the batch the call is for; empty before any batch.
    partitions: tuple[str, ...] = ()


def ignore_wait(_wait: Wait) -> None:
    pass
