"""The batch engine: consume a batch, decide where each message goes, hand the batch over, repeat.

One loop for the stream processor and for replay.  What differs between them
is given: ``decide(message) -> Decision`` (where one message goes), an
``Offsets`` source (where the offsets a batch commits come from, and when the
run is over) and a policy factory (exactly once, at least once, dry run).

A batch closes at ``batch_size`` records, at ``batch_bytes`` bytes of records
(keys and values: the memory it holds, decoded twice over, while the writer
holds the batch before it), or after ``batch_timeout_s``, whichever comes
first.  The loop's thread consumes, admits and decides; the writer thread (``writer``)
owns the producer and commits each batch while the loop decides the next one.
A failed batch is rewound and read again inside the engine (``BatchAborted``
is caught in ``_round`` alone); ``run()`` raises only ``EngineFatalError``, or
what ``decide`` raised.  Between batches the loop calls ``between_batches``
(the liveness heartbeat, the overrides file); ``stop()`` (SIGTERM) lets the
current batch finish, every handed batch commit, the consumer leave its group
and the producer flush, within the timeout.  The design, with the error table:
docs/batch-engine.md.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from confluent_kafka import Consumer, KafkaError, Message, TopicPartition

from .batch import Batch, Decision, Output, Wait, ignore_wait
from .exceptions import BatchAborted, EngineFatalError, Interrupted, NotStarted
from .offsets import Offsets
from .pipeline import Pipeline
from .policies import Policy
from .rewind import REWIND_PATIENCE_S

Decided = Sequence[tuple[Message, Decision[Any]]]

#: Seconds between attempts to start transactions (``Hooks.start_waiting``): doubling from the first to the last.
START_BACKOFF_S = (2.0, 30.0)


def _ignore(*_args: object) -> None:
    pass


@dataclass
class Hooks:
    """What the engine reports to; every hook is optional and runs in the loop's thread."""

    #: A batch is committed: its messages with their decisions, and the seconds since it was read.
    committed: Callable[[Decided, float], None] = _ignore
    between_batches: Callable[[], None] = _ignore
    #: A batch is handed to the writer (with ``committed`` and ``batch_aborted``: how long a write has waited).
    handed: Callable[[], None] = _ignore
    consumer_error: Callable[[KafkaError], None] = _ignore
    batch_aborted: Callable[[str], None] = _ignore
    assigned: Callable[[list[TopicPartition]], None] = _ignore
    revoked: Callable[[list[TopicPartition]], None] = _ignore
    #: Lost, not handed over: the group went on without this member (a stall past max.poll.interval.ms).
    lost: Callable[[list[TopicPartition]], None] = _ignore
    #: Set: transactions that cannot start (``NotStarted``) are tried again with back-off until ``stop()``,
    #: each failure reported (the stream processor: no crash loop while a coordinator is away), then None
    #: once started.  Unset: ``NotStarted`` is raised (replay: a command that fails).
    start_waiting: Callable[[str | None], None] | None = None
    #: The loop's thread waits on Kafka (the writer's call, a rewind's request): what for, every few
    #: seconds while it lasts (``writer.WAIT_TICK_S``).  The stream processor counts it as alive.
    waiting: Callable[[Wait], None] = ignore_wait


class BatchEngine:
    """Reads batches through *offsets*, writes what *decide* says, commits the offsets with it."""

    def __init__(
        self,
        *,
        consumer: Callable[[], Consumer],
        offsets: Offsets,
        decide: Callable[[Message], Decision[Any]],
        policy: Callable[[], Policy],
        batch_size: int,
        batch_timeout_s: float,
        timeout_s: float,
        batch_bytes: int | None = None,
        record_limit: int = 1,
        patience_s: float = REWIND_PATIENCE_S,
        hooks: Hooks | None = None,
        on_result: Callable[[str], None] = _ignore,
    ) -> None:
        """*batch_bytes* (None: no bound) closes a batch once its records reach it; *record_limit*, the
        largest record the consumer can return, sizes the reads until records have been seen (``_consume``).
        *patience_s* bounds how long a transactional call or a rewind is retried while the broker does not
        answer (``math.inf``: until it answers, or ``stop()``)."""
        self._make_consumer = consumer
        self._offsets = offsets
        self._decide = decide
        self._make_policy = policy
        self._batch_size = batch_size
        self._batch_timeout = batch_timeout_s
        self._batch_bytes = batch_bytes
        self._record_limit = max(record_limit, 1)
        #: The largest record of the last batch read (0: none yet), to size the next batch's reads.
        self._largest_before = 0
        self._timeout = timeout_s
        self._patience = patience_s
        self._hooks = hooks or Hooks()
        self._on_result = on_result
        self._pipeline: Pipeline | None = None
        self._stop = threading.Event()
        #: Set once the consumer is attached (subscribed or assigned).
        self.started = threading.Event()
        #: Set once partitions were assigned (readiness).
        self.assigned = threading.Event()

    def stop(self) -> None:
        """Ask the loop to finish its batch and end (safe from a signal handler)."""
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def run(self) -> bool:
        """Until ``stop()`` (False) or the offsets are exhausted and committed (True).

        ``EngineFatalError`` if it cannot go on; what ``decide`` raised, once the batches before
        are committed.
        """
        consumer = self._make_consumer()
        pipeline = self._pipeline = Pipeline(
            consumer,
            self._offsets,
            self._make_policy,
            timeout=self._timeout,
            on_result=self._on_result,
            patience=self._patience,
            on_wait=self._hooks.waiting,
        )
        try:
            if not self._start(pipeline):
                return False
            self._offsets.attach(consumer, self)
            self.started.set()
            while not self._stop.is_set():
                if self._finished(pipeline):
                    return True
                self._round(consumer, pipeline)
            return False
        except Interrupted:  # stop() while the writer waited for the broker: what was not committed is read again
            return False
        finally:
            self._close(consumer, pipeline)

    def _start(self, pipeline: Pipeline) -> bool:
        """Start the pipeline before joining the group (nothing consumed while transactions cannot start);
        False if ``stop()`` came first."""
        delay, longest = START_BACKOFF_S
        while True:
            try:
                pipeline.start()
            except NotStarted as exc:
                if self._hooks.start_waiting is None:
                    raise
                self._hooks.start_waiting(str(exc))
                if self._stop.wait(delay):
                    return False
                delay = min(delay * 2, longest)
                continue
            if self._hooks.start_waiting is not None:
                self._hooks.start_waiting(None)
            return True

    # -- one round -----------------------------------------------------------------------

    def _round(self, consumer: Consumer, pipeline: Pipeline) -> None:
        self._hooks.between_batches()
        messages = self._consume(consumer)
        try:
            pipeline.check()  # a batch that failed meanwhile rewinds: these messages are read again
            batch = self._make(consumer, pipeline, messages)
            if batch is not None:
                self._hooks.handed()
                pipeline.write(batch)
            elif pipeline.committing:
                pipeline.settle()  # nothing new: report the last batch once it is committed
        except BatchAborted as exc:
            self._hooks.batch_aborted(str(exc))

    def _consume(self, consumer: Consumer) -> list[Message]:
        """Up to ``batch_size`` records, within ``batch_bytes``, within ``batch_timeout``.

        Without a byte bound, one ``consume``.  With one, the batch is read in steps, each asking for as
        many records as the bytes left can hold at the size of the largest record of this batch and the
        last (``record_limit`` before any was seen).  A step of one record waits for it; a step of more
        takes only what the client has fetched already (timeout 0): where record sizes jump within a
        step, what it overshoots is bounded by the prefetch queue, which is sized with the bound
        (``kafka.clients.fetch_sizes``).  Asking one record a time, as when any record could be 17 MiB,
        cost 30 KB pages ~3% of their records/s (bench/RESULTS.md, issue 38).
        """
        if self._batch_bytes is None:
            return consumer.consume(self._batch_size, self._batch_timeout)
        deadline = time.monotonic() + self._batch_timeout
        messages: list[Message] = []
        size = largest = 0
        while len(messages) < self._batch_size and size < self._batch_bytes:
            estimate = max(largest, self._largest_before) or self._record_limit
            wanted = min(self._batch_size - len(messages), max(1, (self._batch_bytes - size) // estimate))
            read = consumer.consume(wanted, 0) if wanted > 1 else []  # what is buffered: bounded by the queue
            if not read:
                read = consumer.consume(1, max(0.0, deadline - time.monotonic()))
                if not read:
                    break  # the timeout: the batch is what came
            for message in read:
                length = len(message.value() or b"") + len(message.key() or b"")
                size += length
                largest = max(largest, length)
            messages.extend(read)
            if time.monotonic() >= deadline:
                break
        self._largest_before = largest
        return messages

    def _make(self, consumer: Consumer, pipeline: Pipeline, messages: list[Message]) -> Batch | None:
        """Admit and decide message by message (a decision can end the range: replay's --max)."""
        started = time.monotonic()
        decided: list[tuple[Message, Decision[Any]]] = []
        outputs: list[Output] = []
        try:
            for message in messages:
                if self._admit(message):
                    decision = self._decide(message)
                    decided.append((message, decision))
                    outputs.extend(decision.outputs)
        except BaseException:
            # Not a Kafka error (a registry outage, a bug): the batches before are whole and still
            # commit; nothing of this one was written; it is read again if the engine goes on.
            pipeline.abandon()
            raise
        if not decided:
            return None

        def committed() -> None:
            self._hooks.committed(decided, time.monotonic() - started)

        return Batch(outputs, self._offsets.positions(), consumer.consumer_group_metadata(), committed)

    def _admit(self, message: Message) -> bool:
        error = message.error()
        if error is None:
            return self._offsets.admit(message)
        if error.code() == KafkaError._PARTITION_EOF:
            topic, partition, offset = message.topic(), message.partition(), message.offset()
            assert topic is not None and partition is not None and offset is not None  # an EOF event names them
            self._offsets.at_end(topic, partition, offset)
        elif error.fatal():
            raise EngineFatalError(f"fatal consumer error: {error.str()}")
        else:
            self._hooks.consumer_error(error)
        return False

    def _finished(self, pipeline: Pipeline) -> bool:
        """Whether the offsets are exhausted and every batch is committed (replay's end)."""
        if not self._offsets.exhausted():
            return False
        try:
            pipeline.settle()
        except BatchAborted as exc:  # rewound: not exhausted any more
            self._hooks.batch_aborted(str(exc))
        return self._offsets.exhausted()

    # -- rebalance callbacks (inside consume(), in the loop's thread) -----------------------

    def on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.assigned.set()
        self._hooks.assigned(partitions)

    def on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        if self._pipeline is not None:
            self._pipeline.revoked(partitions)  # what is handed over commits before the partitions move
        self._hooks.revoked(partitions)

    def on_lost(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        if self._pipeline is not None:
            self._pipeline.lost(partitions)
        self._hooks.lost(partitions)

    # -- the end -------------------------------------------------------------------------

    def _close(self, consumer: Consumer, pipeline: Pipeline) -> None:
        try:
            try:
                pipeline.settle()
            except BatchAborted as exc:
                self._hooks.batch_aborted(str(exc))
            finally:
                consumer.close()  # leaves the group at once so partitions move without waiting for a timeout
        finally:
            pipeline.close(self._timeout)
