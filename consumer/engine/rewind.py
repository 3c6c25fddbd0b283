"""Seek back to the committed offsets after a failed batch, so that it is read again."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, TopicPartition

from .batch import Wait, ignore_wait
from .exceptions import EngineFatalError
from .offsets import Offsets

#: How long ``rewind`` keeps asking for the committed offsets while the broker cannot answer. A batch
#: fails over to a rewind exactly when the broker went away, and a broker restart took 10-30 s on
#: these machines: a rewind that gave up after one timeout ended the processor during a restart.
REWIND_PATIENCE_S = 45.0

#: Errors that mean "not now" while a broker restarts or its group coordinator loads.
_TRANSIENT = frozenset({
    KafkaError._TIMED_OUT, KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN, KafkaError._WAIT_COORD,
    KafkaError.COORDINATOR_LOAD_IN_PROGRESS, KafkaError.COORDINATOR_NOT_AVAILABLE, KafkaError.NOT_COORDINATOR,
})  # fmt: skip


def rewind(
    consumer: Consumer,
    offsets: Offsets,
    timeout: float,
    patience: float = REWIND_PATIENCE_S,
    known: Mapping[tuple[str, int], int] | None = None,
    on_wait: Callable[[Wait], None] = ignore_wait,
) -> None:
    """Seek every partition of *offsets* back to its committed offset (or the beginning).

    *known* holds committed offsets the caller committed itself, so the group coordinator need not
    be asked for them.  The others are asked for again, *timeout* at a time, while the broker cannot
    answer, for at most ``max(timeout, patience)`` seconds in all (``math.inf``: until it answers); then
    ``EngineFatalError``.  Each unanswered request is reported to *on_wait*.
    """
    assigned = offsets.assignment()
    known = known or {}
    unknown = [tp for tp in assigned if (tp.topic, tp.partition) not in known]
    for tp in assigned:
        if (tp.topic, tp.partition) in known:
            offsets.seek(TopicPartition(tp.topic, tp.partition, known[tp.topic, tp.partition]))
    if not unknown:
        return
    asked = [TopicPartition(tp.topic, tp.partition) for tp in unknown]
    for tp in _committed_offsets(consumer, asked, timeout, patience, on_wait):
        offset = tp.offset if tp.offset >= 0 else OFFSET_BEGINNING
        offsets.seek(TopicPartition(tp.topic, tp.partition, offset))


def _committed_offsets(
    consumer: Consumer,
    partitions: list[TopicPartition],
    timeout: float,
    patience: float,
    on_wait: Callable[[Wait], None],
) -> list[TopicPartition]:
    started = time.monotonic()
    deadline = started + max(timeout, patience)
    names = tuple(f"{tp.topic}[{tp.partition}]" for tp in partitions)
    while True:
        try:
            return consumer.committed(partitions, timeout=max(0.1, min(timeout, deadline - time.monotonic())))
        except KafkaException as exc:
            _unless_transient(exc.args[0], deadline, exc)
        on_wait(Wait("committed offsets (rewind)", round(time.monotonic() - started, 1), names))


def _unless_transient(error: KafkaError, deadline: float, exc: KafkaException | None) -> None:
    """Return if *error* is worth asking again before *deadline*; else ``EngineFatalError``."""
    if error.fatal() or not (error.retriable() or error.code() in _TRANSIENT) or time.monotonic() >= deadline:
        # Without them the batch cannot be re-read from the right place: stop rather than
        # guess (a restarted instance starts from the committed offsets).
        raise EngineFatalError(f"cannot read committed offsets to re-read the batch: {error.str()}") from exc
