"""How a batch's output and its input offsets become durable: exactly-once or at-least-once.

Both policies share one rule: offsets move only after the output is durably
written.  ``ExactlyOnce`` follows KAFKA.md (and librdkafka's
examples/transactions.c): produce the batch, send the consumer's positions to
the transaction, commit.  Abortable errors abort and rewind the consumer to its
committed offsets so the batch is read again; retriable errors retry the call.
Fencing (another producer took our transactional.id) ends the processor.  Any
other fatal error, or a wedged call, ends the producer only: a new one with the
same transactional.id aborts what the old one left open, and the batch is read
again; a second one before any batch commits ends the processor.

Transactions never span a ``consume()`` call: a batch is consumed, then its
transaction begins and commits.  Rebalance callbacks run inside ``consume()``,
so on revoke or loss there is never an open transaction to commit or abort.

``deliver`` takes the batch's outputs as an iterable and produces each as it
comes: the loop hands it a generator that decodes record by record, so the
producer compresses and sends the first outputs while the later ones are still
being decoded, instead of waiting for the whole batch.  An exception from the
iterable itself (not a Kafka error) aborts the transaction and propagates.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

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


def rewind(consumer: Consumer, timeout: float, patience: float = REWIND_PATIENCE_S) -> None:
    """Seek every assigned partition back to its committed offset (or the beginning).

    The committed offsets are asked for again, *timeout* at a time, while the broker cannot answer,
    for at most ``max(timeout, patience)`` seconds in all.
    """
    assigned = consumer.assignment()
    if not assigned:
        return
    deadline = time.monotonic() + max(timeout, patience)
    while True:
        try:
            committed = consumer.committed(assigned, timeout=max(0.1, min(timeout, deadline - time.monotonic())))
            break
        except KafkaException as exc:
            error: KafkaError = exc.args[0]
            if error.fatal() or not (error.retriable() or error.code() in _TRANSIENT) or time.monotonic() >= deadline:
                # Without them the batch cannot be re-read from the right place: stop rather than
                # guess (a restarted instance starts from the committed offsets).
                raise ProcessorFatalError(f"cannot read committed offsets to re-read the batch: {error.str()}") from exc
    for tp in committed:
        offset = tp.offset if tp.offset >= 0 else OFFSET_BEGINNING
        consumer.seek(TopicPartition(tp.topic, tp.partition, offset))


class ExactlyOnce:
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
        self.producer = producer
        self.timeout = timeout
        self.on_result = on_result
        #: Makes a producer with the same transactional.id, to replace a wedged one or one that hit a fatal
        #: error (None: both end the processor).
        self.renew = renew
        #: Whether the producer was replaced since the last committed batch (a second time is fatal).
        self._renewed = False

    def start(self) -> None:
        try:
            self._call(self.producer.init_transactions, self.timeout)
        except (_Abortable, _Fatal) as exc:
            # Nothing to abort yet: without transactions the processor cannot start (broker unreachable...).
            raise ProcessorFatalError(f"cannot initialise transactions: {exc}") from exc

    def deliver(self, consumer: Consumer, outputs: Iterable[Output]) -> None:
        try:
            self._call(self.producer.begin_transaction)
            self._produce_all(consumer, outputs)
            offsets = positions(consumer)
            if offsets:
                self._call(
                    self._bounded(self.producer.send_offsets_to_transaction),
                    offsets,
                    consumer.consumer_group_metadata(),
                    self.timeout,
                )
            self._call(self.producer.commit_transaction, self.timeout)
        except _Abortable as exc:
            try:
                self._abort(consumer)
            except _Fatal as fatal:
                self._replace_producer(consumer, fatal)
            raise BatchAborted(str(exc)) from exc
        except (_Wedged, _Fatal) as exc:
            self._replace_producer(consumer, exc)
            raise BatchAborted(str(exc)) from exc
        self._renewed = False
        self.on_result("committed")

    def close(self, timeout: float) -> None:
        self.producer.flush(timeout)

    def _produce_all(self, consumer: Consumer, outputs: Iterable[Output]) -> None:
        iterator = iter(outputs)
        while True:
            try:
                output = next(iterator)
            except StopIteration:
                return
            except BaseException:
                # The outputs could not be made (a registry outage, a bug): nothing of the batch
                # may become visible, and the processor stops with this error, not a failed abort's.
                try:
                    self._abort(consumer)
                except Exception:  # left to the transaction timeout, or to the next instance's fencing
                    pass
                raise
            _produce(self.producer, output)

    def _bounded(self, fn):
        """*fn* run in a helper thread and given up on (``_Wedged``) past ``timeout + WEDGE_GRACE_S``."""

        def call(*args):
            outcome: dict[str, object] = {}

            def run() -> None:
                try:
                    outcome["value"] = fn(*args)
                except BaseException as exc:  # handed to the caller's thread below
                    outcome["error"] = exc

            worker = threading.Thread(target=run, name="transactional-call", daemon=True)
            worker.start()
            worker.join(self.timeout + WEDGE_GRACE_S)
            if worker.is_alive():
                raise _Wedged(f"{fn.__name__} did not return within {self.timeout + WEDGE_GRACE_S:g} s")
            if "error" in outcome:
                raise outcome["error"]
            return outcome.get("value")

        return call

    def _replace_producer(self, consumer: Consumer, exc: _Wedged | _Fatal) -> None:
        """Fence the wedged or failed producer with a new one of the same transactional.id and re-read the batch.

        init_transactions on the new producer aborts the transaction the old one left open; a
        wedged one stays blocked in its helper thread (it cannot be closed while a call runs in it).
        A broker restart has ended a commit with the fatal INVALID_TXN_STATE (after "Failed to add
        offsets to transaction: Broker transport failure"): the producer is unusable, the
        transactional.id is not, so a new producer carries on where a restart of the process would.
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
        rewind(consumer, self.timeout)

    def _abort(self, consumer: Consumer) -> None:
        self.on_result("aborted")
        self._call(self.producer.abort_transaction, self.timeout)
        rewind(consumer, self.timeout)

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


class AtLeastOnce:
    """Produce, flush, check every delivery, then commit offsets synchronously."""

    name = "at-least-once"

    def __init__(self, producer: Producer, *, timeout: float, on_result: Callable[[str], None] = lambda _: None):
        self.producer = producer
        self.timeout = timeout
        self.on_result = on_result

    def start(self) -> None:
        pass

    def deliver(self, consumer: Consumer, outputs: Iterable[Output]) -> None:
        """Produce as *outputs* yields; offsets are committed only once every output is acknowledged.
        An exception from *outputs* itself propagates with no offset committed (at least once)."""
        failures: list[KafkaError] = []

        def on_delivery(error, _message):
            if error is not None:
                failures.append(error)

        try:
            for output in outputs:
                _produce(self.producer, output, on_delivery)
        except _Abortable as exc:
            failures.append(exc)
        remaining = self.producer.flush(self.timeout)
        if failures or remaining:
            rewind(consumer, self.timeout)
            self.on_result("aborted")
            raise BatchAborted(f"{len(failures)} deliveries failed, {remaining} still queued")
        offsets = positions(consumer)
        if offsets:
            try:
                consumer.commit(offsets=offsets, asynchronous=False)
            except KafkaException as exc:
                # The output is written; the batch will be re-read and written again (at least once).
                rewind(consumer, self.timeout)
                self.on_result("aborted")
                raise BatchAborted(f"offset commit failed: {exc.args[0].str()}") from exc
        self.on_result("committed")

    def close(self, timeout: float) -> None:
        self.producer.flush(timeout)


class _Abortable(Exception):
    pass


class _Wedged(Exception):
    pass


class _Fatal(Exception):
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
