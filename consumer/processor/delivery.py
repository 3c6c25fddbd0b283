"""How a batch's output and its input offsets become durable: exactly-once or at-least-once.

Both policies share one rule: offsets move only after the output is durably
written.  ``ExactlyOnce`` follows docs/kafka.md (and librdkafka's
examples/transactions.c): produce the batch, send the consumer's positions to
the transaction, commit.  Abortable errors abort and rewind the consumer to its
committed offsets so the batch is read again; retriable errors retry the call.
Fencing (another producer took our transactional.id) ends the processor.  Any
other fatal error, or a wedged call, ends the producer only: a new one with the
same transactional.id aborts what the old one left open, and the batch is read
again; a second one before any batch commits ends the processor.
``AtLeastOnce`` produces, flushes, checks every delivery and commits the offsets.

Batches are committed one after another, each in a helper thread (the client
releases the GIL while it waits for the broker), while the loop reads and
decodes the next ones: the commits' round trips overlap the decoding instead of
stalling it.

- ``write(consumer, outputs, on_committed)`` makes the batch's outputs (the
  loop hands it a generator that decodes record by record) and takes the
  consumer's positions.  If no commit is in flight, it produces the batch (in a
  new transaction, exactly-once) and starts committing it; otherwise the made
  batch waits for its turn.  While outputs are made, ``write`` looks at the
  commit in flight after each one: when it ends, the waiting batch is produced
  and its commit started at once.  At most one batch waits: the next ``write``
  waits for the commit in flight once its own batch is made.
- ``settle(consumer)`` commits every written batch: the loop calls it when it
  finds nothing to read, and before it closes.

A failed commit rewinds the consumer to its committed offsets and raises
``BatchAborted`` (from ``write`` or ``settle``): every batch not committed yet is
dropped and read again.  ``on_committed`` runs in the caller's thread once the
batch is committed.  ``deliver`` is ``write`` then ``settle``: durable when it
returns.

Written batches span the loop's next ``consume`` call, so rebalance callbacks
can meet them.  ``revoked`` commits them all before the partitions move.
``lost`` waits for the commit in flight and drops the waiting batch, whose
transaction has not begun (there is no open transaction to abort: a transaction
begins only to be committed at once), and rewinds nothing: every partition went,
and its next owner starts from its committed offset.  Committing the one in flight
is safe even then: its offsets went to the group coordinator with the
consumer's group generation, which refuses them (and so fails the transaction)
once the group has moved on (KIP-447), and the next owner's read of the
committed offsets waits for the transaction to end.  Neither callback raises or
rewinds: a failure is kept, and the next ``write`` or ``settle`` rewinds and
raises ``BatchAborted``.  An exception from the outputs iterable itself (not a
Kafka error) lets the batches before it commit, rewinds, and propagates.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import NoReturn

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer, TopicPartition

from .exceptions import ProcessorFatalError


@dataclass(frozen=True, slots=True)
class Output:
    """One record to write: topic, key, serialized value and Kafka headers."""

    topic: str
    key: bytes | None
    value: bytes
    headers: list[tuple[str, bytes]] | None


#: How long past its own timeout a transactional call may block before the producer counts as wedged.
#: librdkafka's send_offsets_to_transaction can ignore its timeout and block for ever once the group
#: coordinator went away and came back (a broker restart): librdkafka issues #5456 and #5511, open in 2.16.
WEDGE_GRACE_S = 10.0


def _nothing() -> None:
    pass


class BatchAborted(Exception):
    """The batch was not written and the consumer was rewound; it will be read again."""


def positions(consumer: Consumer) -> list[TopicPartition]:
    """The next offset to read for each assigned partition that has one."""
    assigned = consumer.assignment()
    if not assigned:
        return []
    return [tp for tp in consumer.position(assigned) if tp.offset >= 0]


#: How long ``rewind`` keeps asking for the committed offsets while the broker cannot answer. A batch
#: fails over to a rewind exactly when the broker went away, and a broker restart took 10-30 s on
#: these machines: a rewind that gave up after one timeout ended the processor during a restart.
REWIND_PATIENCE_S = 45.0

#: Fatal errors that mean another producer has our transactional.id: carrying on would fence it in turn.
_FENCING = frozenset({KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH})

#: Errors that mean "not now" while a broker restarts or its group coordinator loads.
_TRANSIENT = frozenset({
    KafkaError._TIMED_OUT, KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN, KafkaError._WAIT_COORD,
    KafkaError.COORDINATOR_LOAD_IN_PROGRESS, KafkaError.COORDINATOR_NOT_AVAILABLE, KafkaError.NOT_COORDINATOR,
})  # fmt: skip


def rewind(
    consumer: Consumer,
    timeout: float,
    patience: float = REWIND_PATIENCE_S,
    known: Mapping[tuple[str, int], int] | None = None,
) -> None:
    """Seek every assigned partition back to its committed offset (or the beginning).

    *known* holds committed offsets the caller committed itself, so the group coordinator need not
    be asked for them.  The others are asked for again, *timeout* at a time, while the broker cannot
    answer, for at most ``max(timeout, patience)`` seconds in all.
    """
    assigned = consumer.assignment()
    known = known or {}
    unknown = [tp for tp in assigned if (tp.topic, tp.partition) not in known]
    for tp in assigned:
        if (tp.topic, tp.partition) in known:
            consumer.seek(TopicPartition(tp.topic, tp.partition, known[tp.topic, tp.partition]))
    if not unknown:
        return
    for tp in _committed_offsets(consumer, unknown, timeout, patience):
        offset = tp.offset if tp.offset >= 0 else OFFSET_BEGINNING
        consumer.seek(TopicPartition(tp.topic, tp.partition, offset))


def _committed_offsets(consumer: Consumer, partitions: list[TopicPartition], timeout: float, patience: float):
    deadline = time.monotonic() + max(timeout, patience)
    while True:
        try:
            return consumer.committed(partitions, timeout=max(0.1, min(timeout, deadline - time.monotonic())))
        except KafkaException as exc:
            error: KafkaError = exc.args[0]
            if error.fatal() or not (error.retriable() or error.code() in _TRANSIENT) or time.monotonic() >= deadline:
                # Without them the batch cannot be re-read from the right place: stop rather than
                # guess (a restarted instance starts from the committed offsets).
                raise ProcessorFatalError(f"cannot read committed offsets to re-read the batch: {error.str()}") from exc


class _Pipelined(ABC):
    """What both policies share: batches made while the one before commits, committed one after another."""

    #: How long a commit in flight may take before it counts as wedged (None: no limit).
    commit_bound: float | None = None

    def __init__(self, timeout: float, on_result: Callable[[str], None]) -> None:
        self.timeout = timeout
        self.on_result = on_result
        #: The batch whose commit runs in a helper thread.
        self._committing: _Commit | None = None
        #: A batch made while another commits: produced and committed as soon as that one ends.
        self._waiting: _Made | None = None
        #: A failure met in a rebalance callback, raised (after a rewind) by the next write or settle.
        self._failure: BaseException | None = None
        #: The offsets this delivery committed, per (topic, partition) still assigned: a rewind after a
        #: commit that surely failed seeks to them without asking the group coordinator, which a broker
        #: restart left unreachable for a minute (the rewind's 45 s of patience ran out:
        #: tests/processor/test_crash_recovery.py).
        self._committed_offsets: dict[tuple[str, int], int] = {}

    @property
    def committing(self) -> bool:
        """Whether a written batch is not committed yet (its commit running, or waiting for its turn)."""
        return self._committing is not None or self._waiting is not None

    def deliver(self, consumer: Consumer, outputs: Iterable[Output]) -> None:
        """Write the batch and commit it: durable when this returns."""
        self.write(consumer, outputs)
        self.settle(consumer)

    def write(self, consumer: Consumer, outputs: Iterable[Output], on_committed: Callable[[], None] = _nothing) -> None:
        """Make the batch's outputs, then produce it and start its commit, or leave it waiting for its turn.

        While the outputs are made, the commit in flight is looked at after each one: once it ends,
        the waiting batch is produced and its commit started at once.  At most one batch waits: a
        second one waits here for the commit in flight.
        """
        self._raise_kept_failure(consumer)
        made: list[Output] = []
        try:
            for output in outputs:
                made.append(output)
                self._advance(consumer, block=False)
        except BatchAborted:
            raise
        except BaseException:
            # The outputs could not be made (a registry outage, a bug): the batches before are whole
            # and still commit; nothing of this one was produced; it is read again if the processor
            # goes on, and this error propagates.
            self._stop_making(consumer)
            raise
        while self._waiting is not None:
            self._advance(consumer, block=True)
        batch = _Made(made, positions(consumer), consumer.consumer_group_metadata(), on_committed)
        if self._committing is None:
            try:
                self._start(consumer, batch)
            except _BatchFailed as exc:
                self._fail(consumer, exc)
        else:
            self._waiting = batch

    def settle(self, consumer: Consumer) -> None:
        """Commit every written batch now; ``BatchAborted`` (after a rewind) if one, or a kept failure, failed."""
        while self.committing:
            self._advance(consumer, block=True)
        self._raise_kept_failure(consumer)

    def revoked(self, consumer: Consumer, partitions: Iterable[TopicPartition] = ()) -> None:
        """A rebalance callback's part: every written batch commits before the partitions move (never raises)."""
        self._drain_quietly(consumer, start_waiting=True)
        for tp in partitions:  # their committed offsets may move under another member
            self._committed_offsets.pop((tp.topic, tp.partition), None)

    def lost(self, consumer: Consumer, partitions: Iterable[TopicPartition] = ()) -> None:
        """A rebalance callback's part: the partitions are another member's already.

        The commit in flight is waited for (see the module docstring: its offsets are refused if the
        group has moved on); a waiting batch, whose transaction has not begun, is dropped.  Nothing is
        rewound, and a failed commit is not raised once the producer has recovered: every partition
        went, and whoever gets one next (this member too, once it rejoins) starts from its committed
        offset.  A rewind would only ask the group coordinator for offsets, which failed for a minute
        after a broker restart (the session timed out because the coordinator could not be found).
        Never raises.
        """
        self._drain_quietly(consumer, start_waiting=False)
        self._waiting = None
        self._committed_offsets.clear()
        if isinstance(self._failure, _BatchFailed):
            self._failure = None

    def close(self, timeout: float) -> None:
        self.producer.flush(timeout)

    @abstractmethod
    def _produce_batch(self, consumer: Consumer, batch: _Made) -> Callable[[], None]:
        """Produce the batch's outputs; return the call that commits them (run in a helper thread)."""

    @abstractmethod
    def _recover(self, exc: _BatchFailed) -> None:
        """Leave the producer ready for the next batch after *exc*."""

    # -- moving on ---------------------------------------------------------------------

    def _advance(self, consumer: Consumer, block: bool) -> None:
        """``_step`` in the loop's thread: a failure recovers, rewinds and raises ``BatchAborted``."""
        try:
            self._step(consumer, block)
        except _BatchFailed as exc:
            self._fail(consumer, exc)

    def _step(self, consumer: Consumer, block: bool, start_waiting: bool = True) -> None:
        """Settle the commit in flight if it ended (or wait for it); then start the waiting batch."""
        commit = self._committing
        if commit is not None:
            if not block and not commit.work.done.is_set():
                return
            self._committing = None
            try:
                commit.work.wait(self.commit_bound)
            except BaseException:
                self._waiting = None  # nothing written after a failed commit may commit (fenced: nothing at all)
                raise
            self._committed(commit)
        if start_waiting and self._waiting is not None:
            batch, self._waiting = self._waiting, None
            self._start(consumer, batch)

    def _start(self, consumer: Consumer, batch: _Made) -> None:
        work = _InBackground(self._produce_batch(consumer, batch))
        self._committing = _Commit(work, batch.offsets, batch.on_committed)

    def _committed(self, commit: _Commit) -> None:
        self._committed_offsets.update(((tp.topic, tp.partition), tp.offset) for tp in commit.offsets)
        self.on_result("committed")
        commit.on_committed()

    def _drain_quietly(self, consumer: Consumer, start_waiting: bool) -> None:
        """Commit what is in flight (and what waits, if *start_waiting*); keep a failure for the loop."""
        try:
            while self._committing is not None or (start_waiting and self._waiting is not None):
                self._step(consumer, block=True, start_waiting=start_waiting)
        except BaseException as exc:  # kept for the loop's thread: a callback must not raise inside consume()
            self._committing = self._waiting = None
            self._keep(exc)

    def _stop_making(self, consumer: Consumer) -> None:
        """After the outputs failed: commit the batches before, then rewind to re-read this one."""
        try:
            self.settle(consumer)
        except BatchAborted:
            return  # rewound already
        rewind(consumer, self.timeout, known=self._committed_offsets)

    # -- failures ---------------------------------------------------------------------

    def _keep(self, exc: BaseException) -> None:
        """Recover the producer now; the rewind and the error wait for the loop's thread."""
        if isinstance(exc, _BatchFailed):
            try:
                self._recover(exc)
            except BaseException as fatal:
                exc = fatal
        if self._failure is None or not isinstance(exc, _BatchFailed):
            self._failure = exc

    def _raise_kept_failure(self, consumer: Consumer) -> None:
        exc, self._failure = self._failure, None
        if isinstance(exc, _BatchFailed):
            self._fail(consumer, exc, recovered=True)
        if exc is not None:
            raise exc

    def _fail(self, consumer: Consumer, exc: _BatchFailed, recovered: bool = False) -> NoReturn:
        """Recover the producer, drop the waiting batch, rewind the consumer so everything not committed
        is read again, and raise ``BatchAborted``."""
        self._waiting = None
        if not recovered:
            self._recover(exc)
        rewind(consumer, self.timeout, known=self._committed_offsets if self._not_committed(exc) else None)
        raise BatchAborted(str(exc)) from exc

    def _not_committed(self, exc: _BatchFailed) -> bool:
        """Whether *exc* says the failed commit left the committed offsets where this delivery last put them."""
        return True


class ExactlyOnce(_Pipelined):
    """One transaction per batch; offsets committed inside it."""

    name = "exactly-once"

    def __init__(
        self,
        producer: Producer,
        *,
        timeout: float,
        on_result: Callable[[str], None] = lambda _: None,
        renew: Callable[[], Producer] | None = None,
    ):
        super().__init__(timeout, on_result)
        self.producer = producer
        #: Makes a producer with the same transactional.id, to replace a wedged one or one that hit a fatal
        #: error (None: both end the processor).
        self.renew = renew
        #: Whether the producer was replaced since the last committed batch (a second time is fatal).
        self._renewed = False
        # Sending the offsets is bounded by timeout + grace, committing retries for up to a timeout.
        self.commit_bound = 3 * timeout + WEDGE_GRACE_S

    def start(self) -> None:
        try:
            self._call(self.producer.init_transactions, self.timeout)
        except (_Abortable, _Fatal) as exc:
            # Nothing to abort yet: without transactions the processor cannot start (broker unreachable...).
            raise ProcessorFatalError(f"cannot initialise transactions: {exc}") from exc

    def _produce_batch(self, consumer: Consumer, batch: _Made) -> Callable[[], None]:
        self._call(self.producer.begin_transaction)
        for output in batch.outputs:
            _produce(self.producer, output)
        producer = self.producer

        def commit() -> None:
            if batch.offsets:
                send = self._bounded(producer.send_offsets_to_transaction)
                self._call(send, batch.offsets, batch.group_metadata, self.timeout)
            self._call(producer.commit_transaction, self.timeout)

        return commit

    def _committed(self, commit: _Commit) -> None:
        self._renewed = False
        super()._committed(commit)

    def _not_committed(self, exc: _BatchFailed) -> bool:
        # An abortable error means the transaction did not commit. After a fatal error or a wedged
        # call it may have: the new producer's init_transactions completes a commit the coordinator
        # had begun. Then only the coordinator knows the offsets.
        return isinstance(exc, _Abortable)

    def _bounded(self, fn):
        """*fn* run in a helper thread and given up on (``_Wedged``) past ``timeout + WEDGE_GRACE_S``."""

        def call(*args):
            return _InBackground(lambda: fn(*args), name="transactional-call").wait(
                self.timeout + WEDGE_GRACE_S, what=fn.__name__
            )

        return call

    def _recover(self, exc: _BatchFailed) -> None:
        """Abort the transaction; replace the producer if it cannot (or if it is wedged or failed)."""
        if isinstance(exc, _Abortable):
            try:
                self._abort()
                return
            except _Fatal as fatal:
                exc = fatal
        self._replace_producer(exc)

    def _replace_producer(self, exc: _BatchFailed) -> None:
        """Fence the wedged or failed producer with a new one of the same transactional.id.

        init_transactions on the new producer aborts the transaction the old one left open; a
        wedged one stays blocked in its helper thread (it cannot be closed while a call runs in it).
        A broker restart has ended a commit with the fatal INVALID_TXN_STATE (after "Failed to add
        offsets to transaction: Broker transport failure"): the producer is unusable, the
        transactional.id is not, so a new producer carries on where a restart of the process would.
        The caller rewinds the consumer so the batch is read again.
        """
        what = "wedged" if isinstance(exc, _Wedged) else "failed"
        if self.renew is None:
            raise ProcessorFatalError(f"transactional producer {what}: {exc}") from exc
        if self._renewed:
            raise ProcessorFatalError(f"transactional producer {what} again before any batch committed: {exc}") from exc
        self._renewed = True
        self.on_result("aborted")
        self.producer = self.renew()
        self.start()

    def _abort(self) -> None:
        self.on_result("aborted")
        self._call(self.producer.abort_transaction, self.timeout)

    def _call(self, fn, *args):
        """Run one transactional call, retrying what librdkafka marks retriable."""
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                return fn(*args)
            except KafkaException as exc:
                error: KafkaError = exc.args[0]
                if error.code() in _FENCING:
                    raise ProcessorFatalError(f"fenced: {error.str()}") from exc
                if error.fatal():
                    raise _Fatal(error.str()) from exc
                if error.txn_requires_abort():
                    raise _Abortable(error.str()) from exc
                if error.retriable() and time.monotonic() < deadline:
                    self.on_result("retried")
                    continue
                raise _Abortable(error.str()) from exc


class AtLeastOnce(_Pipelined):
    """Produce, flush, check every delivery, then commit the offsets."""

    name = "at-least-once"

    def __init__(self, producer: Producer, *, timeout: float, on_result: Callable[[str], None] = lambda _: None):
        super().__init__(timeout, on_result)
        self.producer = producer

    def start(self) -> None:
        pass

    def _produce_batch(self, consumer: Consumer, batch: _Made) -> Callable[[], None]:
        failures: list[object] = []

        def on_delivery(error, _message):  # called for failures only (delivery.report.only.error)
            if error is not None:
                failures.append(error)

        try:
            for output in batch.outputs:
                _produce(self.producer, output, on_delivery)
        except _Abortable as exc:
            failures.append(exc)

        def commit() -> None:
            remaining = self.producer.flush(self.timeout)
            if failures or remaining:
                raise _Abortable(f"{len(failures)} deliveries failed, {remaining} still queued")
            if batch.offsets:
                try:
                    consumer.commit(offsets=batch.offsets, asynchronous=False)
                except KafkaException as exc:
                    # The output is written; the batch will be re-read and written again (at least once).
                    raise _Abortable(f"offset commit failed: {exc.args[0].str()}") from exc

        return commit

    def _recover(self, exc: _BatchFailed) -> None:
        self.on_result("aborted")  # nothing to undo: what was written stays (at least once)


@dataclass(frozen=True, slots=True)
class _Made:
    """A batch whose outputs are made: what to produce, the offsets to commit with it, who to tell."""

    outputs: list[Output]
    offsets: list[TopicPartition]
    group_metadata: object
    on_committed: Callable[[], None]


@dataclass(frozen=True, slots=True)
class _Commit:
    """A batch's commit running in a helper thread, and who to tell once it is done."""

    work: _InBackground
    offsets: list[TopicPartition]
    on_committed: Callable[[], None]


class _InBackground:
    """A blocking client call run in a helper thread (the client releases the GIL while it waits)."""

    def __init__(self, fn: Callable[[], object], name: str = "batch-commit") -> None:
        self._fn = fn
        self._outcome: dict[str, object] = {}
        self.done = threading.Event()
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def _run(self) -> None:
        try:
            self._outcome["value"] = self._fn()
        except BaseException as exc:  # handed to the waiting thread
            self._outcome["error"] = exc
        finally:
            self.done.set()

    def wait(self, timeout: float | None, what: str = "the batch's commit"):
        """The call's result, or its exception; ``_Wedged`` when it has not returned within *timeout* s."""
        if not self.done.wait(timeout):
            raise _Wedged(f"{what} did not return within {timeout:g} s")
        if "error" in self._outcome:
            raise self._outcome["error"]
        return self._outcome.get("value")


class _BatchFailed(Exception):
    """The batch cannot be committed; once the producer recovers, it is read again."""


class _Abortable(_BatchFailed):
    pass


class _Wedged(_BatchFailed):
    pass


class _Fatal(_BatchFailed):
    """A fatal error of the transactional producer other than fencing: the producer cannot go on."""



def _produce(producer: Producer, output: Output, on_delivery=None) -> None:
    while True:
        try:
            producer.produce(output.topic, output.value, output.key, headers=output.headers, on_delivery=on_delivery)
            return
        except BufferError:
            # The local queue is full: serve delivery reports to make room, then retry.
            producer.poll(0.1)
        except KafkaException as exc:
            raise _Abortable(exc.args[0].str()) from exc
