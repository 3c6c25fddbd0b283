"""How a batch becomes durable: exactly once, at least once, or not at all (a dry run).

A policy owns its producer and is used by one thread only, the writer's
(``writer.Writer``).  Both writing policies keep one rule: offsets move only
after the output is durably written.

``ExactlyOnce`` follows docs/kafka.md (and librdkafka's examples/transactions.c):
begin, produce the batch, send its offsets with the consumer's group metadata
to the transaction, commit.  Retriable errors retry the call (``init_transactions``
included) while the broker is away, for *patience* seconds (the rewind's,
``REWIND_PATIENCE_S``, unless given; the stream processor's is unbounded so
that it waits out an outage of any length: docs/delivery.md, "Kafka
outages"): a broker restart under load outlasted one timeout and ended the
processor.  ``stopping()`` (SIGTERM) ends that wait with
``Interrupted``.  Abortable errors raise ``Abortable`` (the writer then calls
``abort``); fencing raises ``EngineFatalError``; any other fatal error raises
``ProducerFailed``.
``AtLeastOnce`` produces, flushes, checks every delivery, then commits the
offsets: a crash between the two writes a batch twice, never loses one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer

from .batch import Batch, Output
from .exceptions import Abortable, EngineFatalError, Interrupted, NotStarted, ProducerFailed
from .rewind import REWIND_PATIENCE_S

#: How long past its own timeout a producer call may block before the writer counts as wedged.
#: librdkafka's send_offsets_to_transaction can ignore its timeout and block for ever once the group
#: coordinator went away and came back (a broker restart): librdkafka issues #5456 and #5511, open in 2.16.
WEDGE_GRACE_S = 10.0

#: Fatal errors that mean another producer has our transactional.id: carrying on would fence it in turn.
_FENCING = frozenset({KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH})

#: ``watch(seconds, what)``: the writer's watchdog around one blocking call; past *seconds* the
#: loop's thread counts the writer as wedged.
Watch = Callable[[float, str], AbstractContextManager[None]]


@contextmanager
def unwatched(seconds: float, what: str) -> Iterator[None]:
    yield


class Policy(Protocol):
    """How a batch becomes durable; every method runs in the writer thread."""

    name: str

    def start(self, watch: Watch) -> None:
        """Get ready to write (initialise transactions); *watch* bounds the calls that can hang."""

    def write(self, batch: Batch, consumer: Consumer) -> None:
        """Write the batch's outputs and commit its offsets, or raise a ``BatchFailed``."""

    def abort(self) -> None:
        """Undo what a failed ``write`` left open, so the next batch can be written."""

    def close(self, timeout: float) -> None:
        """Deliver what is queued."""


def _ignore(_result: str) -> None:
    pass


def _never() -> bool:
    return False


class ExactlyOnce:
    """One transaction per batch, its offsets committed inside it."""

    name = "exactly-once"

    def __init__(
        self,
        producer: Producer,
        *,
        timeout: float,
        on_result: Callable[[str], None] = _ignore,
        grace: float = WEDGE_GRACE_S,
        patience: float = REWIND_PATIENCE_S,
        stopping: Callable[[], bool] = _never,
        start_patience: float | None = None,
    ) -> None:
        """*start_patience* (default: *patience*) bounds the retries of ``init_transactions`` alone: the
        stream processor's first producer gives up after the rewind's patience and reports it, waiting
        with back-off (``Hooks.start_waiting``); a producer replaced mid-stream waits as long as others."""
        self.producer = producer
        self.timeout = timeout
        self.on_result = on_result
        self.grace = grace
        self.patience = patience
        self.start_patience = patience if start_patience is None else start_patience
        self.stopping = stopping
        self._watch: Watch = unwatched

    def start(self, watch: Watch) -> None:
        self._watch = watch
        try:
            # Called again after a timeout, init_transactions resumes where it stopped (librdkafka).
            self._call("init_transactions", self.producer.init_transactions, self.timeout, patience=self.start_patience)
        except (Abortable, ProducerFailed) as exc:
            # Nothing to abort yet: without transactions nothing can be written (broker unreachable...).
            raise NotStarted(f"cannot initialise transactions: {exc}") from exc

    def write(self, batch: Batch, consumer: Consumer) -> None:
        self._call("begin_transaction", self.producer.begin_transaction)
        for output in batch.outputs:
            produce(self.producer, output)
        if batch.offsets:
            send = self.producer.send_offsets_to_transaction
            self._call("send_offsets_to_transaction", send, list(batch.offsets), batch.group_metadata, self.timeout)
        self._call("commit_transaction", self.producer.commit_transaction, self.timeout)

    def abort(self) -> None:
        self.on_result("aborted")
        self._call("abort_transaction", self.producer.abort_transaction, self.timeout)

    def close(self, timeout: float) -> None:
        self.producer.flush(timeout)

    def _call(self, what: str, fn: Callable[..., object], *args: object, patience: float | None = None) -> object:
        """Run one transactional call under the watch, retrying what librdkafka marks retriable.

        Retries go on for ``max(timeout, patience)`` seconds in all (the policy's *patience* unless
        given), unless ``stopping()``.
        """
        deadline = time.monotonic() + max(self.timeout, self.patience if patience is None else patience)
        while True:
            try:
                with self._watch(self.timeout + self.grace, what):
                    return fn(*args)
            except KafkaException as exc:
                error: KafkaError = exc.args[0]
                if error.code() in _FENCING:
                    raise EngineFatalError(f"fenced: {error.str()}") from exc
                if error.fatal():
                    raise ProducerFailed(error.str()) from exc
                if error.txn_requires_abort():
                    raise Abortable(error.str()) from exc
                if error.retriable() and self.stopping():
                    raise Interrupted(f"stopped while {what} waited for the broker: {error.str()}") from exc
                if error.retriable() and time.monotonic() < deadline:
                    self.on_result("retried")
                    continue
                raise Abortable(f"{what}: {error.str()}") from exc


class AtLeastOnce:
    """Produce, flush, check every delivery, then commit the offsets."""

    name = "at-least-once"

    def __init__(self, producer: Producer, *, timeout: float, on_result: Callable[[str], None] = _ignore) -> None:
        self.producer = producer
        self.timeout = timeout
        self.on_result = on_result
        self._watch: Watch = unwatched

    def start(self, watch: Watch) -> None:
        self._watch = watch  # names the flush to whoever waits for it (it is bounded by its own timeout)

    def write(self, batch: Batch, consumer: Consumer) -> None:
        failures: list[object] = []

        # Called for failures only (delivery.report.only.error).
        def on_delivery(error: KafkaError | None, _message: object) -> None:
            if error is not None:
                failures.append(error)

        try:
            for output in batch.outputs:
                produce(self.producer, output, on_delivery)
        except Abortable as exc:
            failures.append(exc)
        with self._watch(self.timeout + WEDGE_GRACE_S, "produce flush"):
            remaining = self.producer.flush(self.timeout)
        if failures or remaining:
            raise Abortable(f"{len(failures)} deliveries failed, {remaining} still queued")
        if batch.offsets:
            try:
                consumer.commit(offsets=list(batch.offsets), asynchronous=False)
            except KafkaException as exc:
                # The output is written; the batch will be re-read and written again (at least once).
                raise Abortable(f"offset commit failed: {exc.args[0].str()}") from exc

    def abort(self) -> None:
        self.on_result("aborted")  # nothing to undo: what was written stays (at least once)

    def close(self, timeout: float) -> None:
        self.producer.flush(timeout)


class DryRun:
    """Writes and commits nothing: a batch counts as committed at once (replay's ``--dry-run``)."""

    name = "dry-run"

    def start(self, watch: Watch) -> None:
        pass

    def write(self, batch: Batch, consumer: Consumer) -> None:
        pass

    def abort(self) -> None:
        pass

    def close(self, timeout: float) -> None:
        pass


def produce(producer: Producer, output: Output, on_delivery: Callable[..., None] | None = None) -> None:
    while True:
        try:
            # The stub's headers list is invariant: it refuses a list of (str, bytes | None), which the client takes.
            producer.produce(
                output.topic, output.value, output.key, headers=output.headers, on_delivery=on_delivery  # type: ignore[arg-type]
            )
            return
        except BufferError:
            # The local queue is full: serve delivery reports to make room, then retry.
            producer.poll(0.1)
        except KafkaException as exc:
            raise Abortable(exc.args[0].str()) from exc
