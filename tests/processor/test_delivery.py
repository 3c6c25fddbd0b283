"""Delivery policies against the real broker: batches made while the one before commits.

The loop hands ``write`` a generator that decodes record by record while the
previous batch's commit runs in a helper thread; commits run one after another.
What the generator raises happens while a batch is made: nothing of that batch
may become visible, and no offset may move past it.  A failed commit drops
every batch not committed and rewinds the consumer so they are read again.
"""

from __future__ import annotations

import os
import threading
import uuid

import pytest
from confluent_kafka import KafkaError, KafkaException, TopicPartition

from consumer.kafka import make_consumer, make_producer
from consumer.processor.delivery import AtLeastOnce, BatchAborted, ExactlyOnce, Output
from consumer.processor.exceptions import ProcessorFatalError


class OutputsFailed(Exception):
    pass


@pytest.fixture
def topics(topic_factory) -> dict[str, str]:
    return {"landing": topic_factory(), "out": topic_factory()}


@pytest.fixture
def batch(kafka_connection, topics, group_id, consume):
    """A consumer that has read a batch of 5 landing records (nothing committed yet)."""
    producer = make_producer(kafka_connection)
    for i in range(5):
        producer.produce(topics["landing"], f"in-{i}".encode(), f"k{i}".encode())
    assert producer.flush(30) == 0
    consumer = make_consumer(kafka_connection, group_id)
    consumer.subscribe([topics["landing"]])
    consume(consumer, lambda messages: len(messages) >= 5)
    yield consumer
    consumer.close()


def outputs(topic: str, count: int, *, fail_after: int | None = None):
    for i in range(count):
        if fail_after is not None and i == fail_after:
            raise OutputsFailed("the registry is down")
        yield Output(topic, f"k{i}".encode(), f"out-{i}".encode(), None)


def committed_offset(consumer, topic: str) -> int:
    return consumer.committed([TopicPartition(topic, 0)], timeout=30)[0].offset


def visible(kafka_connection, topic: str, expected: int) -> list[bytes]:
    """The values a read_committed reader finds in *topic*, reading until *expected* of them or the end."""
    reader = make_consumer(kafka_connection, f"reader-{uuid.uuid4().hex}", extra={"enable.partition.eof": True})
    reader.assign([TopicPartition(topic, 0, 0)])
    values: list[bytes] = []
    try:
        while len(values) < expected:
            message = reader.poll(1.0)
            if message is None:
                continue
            if message.error() is not None:
                break  # _PARTITION_EOF: everything committed (up to the last stable offset) has been read
            values.append(message.value())
    finally:
        reader.close()
    return values


def test_exactly_once_delivers_a_batch_made_by_a_generator(kafka_connection, topics, transactional_id, batch, consume):
    delivery = ExactlyOnce(make_producer(kafka_connection, transactional_id=transactional_id), timeout=30)
    delivery.start()
    delivery.deliver(batch, outputs(topics["out"], 5))
    assert visible(kafka_connection, topics["out"], 5) == [f"out-{i}".encode() for i in range(5)]
    assert committed_offset(batch, topics["landing"]) == 5
    delivery.close(30)


def test_exactly_once_aborts_when_making_the_outputs_fails(kafka_connection, topics, transactional_id, batch, consume):
    delivery = ExactlyOnce(make_producer(kafka_connection, transactional_id=transactional_id), timeout=30)
    delivery.start()
    with pytest.raises(OutputsFailed):
        delivery.deliver(batch, outputs(topics["out"], 5, fail_after=3))
    # The three produced before the failure were aborted with their transaction.
    assert visible(kafka_connection, topics["out"], 3) == []
    assert committed_offset(batch, topics["landing"]) < 0  # nothing committed
    # The producer is usable again: the batch, re-read, goes through.
    consume(batch, lambda messages: len(messages) >= 5)
    delivery.deliver(batch, outputs(topics["out"], 5))
    assert visible(kafka_connection, topics["out"], 5) == [f"out-{i}".encode() for i in range(5)]
    delivery.close(30)


def test_at_least_once_commits_nothing_when_making_the_outputs_fails(kafka_connection, topics, batch, consume):
    delivery = AtLeastOnce(make_producer(kafka_connection), timeout=30)
    with pytest.raises(OutputsFailed):
        delivery.deliver(batch, outputs(topics["out"], 5, fail_after=3))
    assert committed_offset(batch, topics["landing"]) < 0
    consume(batch, lambda messages: len(messages) >= 5)  # rewound: the batch comes again
    delivery.deliver(batch, outputs(topics["out"], 5))
    assert committed_offset(batch, topics["landing"]) == 5
    delivery.close(30)


class FailingOnce:
    """A real transactional producer whose *at*-th commit_transaction fails with *error*, without committing
    (a broker restart has ended a commit with the fatal INVALID_TXN_STATE; no broker fails on demand)."""

    def __init__(self, producer, error: KafkaError, at: int = 1):
        self.producer, self.error, self.at, self.commits = producer, error, at, 0

    def commit_transaction(self, *args):
        self.commits += 1
        if self.commits == self.at:
            raise KafkaException(self.error)
        return self.producer.commit_transaction(*args)

    def __getattr__(self, name):
        return getattr(self.producer, name)


def _fatal(code: int) -> KafkaError:
    return KafkaError(code, "injected", fatal=True)


def test_a_fatal_producer_error_replaces_the_producer_and_the_batch_is_read_again(
    kafka_connection, topics, transactional_id, batch, consume
):
    renewed = []

    def renew():
        renewed.append(make_producer(kafka_connection, transactional_id=transactional_id))
        return renewed[-1]

    first = make_producer(kafka_connection, transactional_id=transactional_id)
    delivery = ExactlyOnce(FailingOnce(first, _fatal(KafkaError.INVALID_TXN_STATE)), timeout=30, renew=renew)
    delivery.start()
    with pytest.raises(BatchAborted):
        delivery.deliver(batch, outputs(topics["out"], 5))
    assert len(renewed) == 1 and delivery.producer is renewed[0]
    # The failed producer's open transaction was aborted by the new one's init_transactions.
    assert visible(kafka_connection, topics["out"], 5) == []
    assert committed_offset(batch, topics["landing"]) < 0
    consume(batch, lambda messages: len(messages) >= 5)  # rewound: the batch comes again
    delivery.deliver(batch, outputs(topics["out"], 5))
    assert visible(kafka_connection, topics["out"], 5) == [f"out-{i}".encode() for i in range(5)]
    assert committed_offset(batch, topics["landing"]) == 5
    delivery.close(30)


def test_a_second_fatal_error_before_any_commit_ends_the_processor(kafka_connection, transactional_id, topics, batch):
    def renew():
        return FailingOnce(make_producer(kafka_connection, transactional_id=transactional_id), _fatal(KafkaError.INVALID_TXN_STATE))

    delivery = ExactlyOnce(renew(), timeout=30, renew=renew)
    delivery.start()
    with pytest.raises(BatchAborted):
        delivery.deliver(batch, outputs(topics["out"], 5))
    with pytest.raises(ProcessorFatalError, match="again before any batch committed"):
        delivery.deliver(batch, outputs(topics["out"], 5))
    assert committed_offset(batch, topics["landing"]) < 0


@pytest.mark.parametrize("code", [KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH, KafkaError._FENCED])
def test_fencing_ends_the_processor_without_a_new_producer(kafka_connection, transactional_id, topics, batch, code):
    renewed = []
    producer = make_producer(kafka_connection, transactional_id=transactional_id)
    delivery = ExactlyOnce(FailingOnce(producer, _fatal(code)), timeout=30, renew=lambda: renewed.append(1))
    delivery.start()
    with pytest.raises(ProcessorFatalError, match="fenced"):
        delivery.deliver(batch, outputs(topics["out"], 5))
    assert renewed == []  # a new producer would fence the instance that now owns the transactional.id


# -- a batch commits while the next one is made ---------------------------------------


class GatedCommit:
    """A real producer whose first commit (``commit_transaction``, or ``flush`` at least once) waits,
    up to 20 s, until *gate* is set; ``overlapped`` says whether the gate opened in time."""

    def __init__(self, producer, gate, method: str):
        self.producer, self.gate, self.method, self.overlapped = producer, gate, method, None

    def __getattr__(self, name):
        attribute = getattr(self.producer, name)
        if name != self.method or self.overlapped is not None:
            return attribute

        def gated(*args):
            self.overlapped = self.gate.wait(20)
            return attribute(*args)

        return gated


def _policy(policy: str, producer, kafka_connection, transactional_id):
    if policy == "exactly-once":
        real = make_producer(kafka_connection, transactional_id=transactional_id)
        return ExactlyOnce(producer(real, "commit_transaction"), timeout=30)
    return AtLeastOnce(producer(make_producer(kafka_connection), "flush"), timeout=30)


def _more_landing_records(kafka_connection, topic: str, count: int = 5) -> None:
    producer = make_producer(kafka_connection)
    for i in range(5, 5 + count):
        producer.produce(topic, f"in-{i}".encode(), f"k{i}".encode())
    assert producer.flush(30) == 0


@pytest.mark.parametrize("policy", ["exactly-once", "at-least-once"])
def test_the_next_batch_is_made_while_one_commits(kafka_connection, topics, transactional_id, batch, consume, policy):
    gate = threading.Event()
    gated: list[GatedCommit] = []

    def producer(real, method):
        gated.append(GatedCommit(real, gate, method))
        return gated[-1]

    delivery = _policy(policy, producer, kafka_connection, transactional_id)
    delivery.start()
    committed: list[str] = []
    delivery.write(batch, outputs(topics["out"], 5), lambda: committed.append("first"))
    assert delivery.committing and committed == []  # its commit waits at the gate

    _more_landing_records(kafka_connection, topics["landing"])
    consume(batch, lambda messages: len(messages) >= 5)
    second = (Output(o.topic, o.key, f"second-{i}".encode(), None) for i, o in enumerate(outputs(topics["out"], 5)))
    delivery.write(batch, second, lambda: committed.append("second"))
    gate.set()  # only now may the first batch commit: write() made the second batch without waiting for it
    delivery.settle(batch)
    assert gated[0].overlapped, "write() waited for the first batch's commit"
    assert committed == ["first", "second"] and not delivery.committing
    found = visible(kafka_connection, topics["out"], 10)
    assert sorted(found) == sorted([f"out-{i}".encode() for i in range(5)] + [f"second-{i}".encode() for i in range(5)])
    assert committed_offset(batch, topics["landing"]) == 10
    delivery.close(30)


class CountingBegins:
    """A real transactional producer that counts its begin_transaction() calls."""

    def __init__(self, producer):
        self.producer, self.begun = producer, 0

    def begin_transaction(self, *args):
        self.begun += 1
        return self.producer.begin_transaction(*args)

    def __getattr__(self, name):
        return getattr(self.producer, name)


def test_a_waiting_batch_commits_as_soon_as_the_one_before_ends(
    kafka_connection, topics, transactional_id, batch, consume
):
    gate = threading.Event()
    producer = CountingBegins(make_producer(kafka_connection, transactional_id=transactional_id))
    delivery = ExactlyOnce(GatedCommit(producer, gate, "commit_transaction"), timeout=30)
    delivery.start()
    delivery.write(batch, outputs(topics["out"], 5))  # committing, held at the gate
    delivery.write(batch, outputs(topics["out"], 0))  # waiting for its turn (no records: offsets only)
    assert producer.begun == 1
    first_commit_ended = delivery._committing.work.done  # the end of the commit in flight, as write() sees it
    begun: list[int] = []

    def third():
        # The first commit ends while this batch is made: the waiting batch must begin its
        # transaction at the next output, not once this batch is made.
        yield Output(topics["out"], b"k", b"third-0", None)
        gate.set()
        assert first_commit_ended.wait(30)
        yield Output(topics["out"], b"k", b"third-1", None)  # write() looks at the commit after this one
        begun.append(producer.begun)
        yield Output(topics["out"], b"k", b"third-2", None)

    delivery.write(batch, third())
    assert begun == [2], "the waiting batch began only after the next one was made"
    delivery.settle(batch)
    assert producer.begun == 3
    delivery.close(30)


def _abortable() -> KafkaError:
    return KafkaError(KafkaError._STATE, "injected", txn_requires_abort=True)


def test_a_failed_commit_aborts_it_and_the_next_batch_and_both_are_read_again(
    kafka_connection, topics, transactional_id, batch, consume
):
    producer = make_producer(kafka_connection, transactional_id=transactional_id)
    delivery = ExactlyOnce(FailingOnce(producer, _abortable()), timeout=30)
    delivery.start()
    delivery.write(batch, outputs(topics["out"], 5))  # its commit will fail
    _more_landing_records(kafka_connection, topics["landing"])
    consume(batch, lambda messages: len(messages) >= 5)
    with pytest.raises(BatchAborted, match="injected"):
        delivery.write(batch, outputs(topics["out"], 5))  # raises if the commit has failed by then
        delivery.settle(batch)  # otherwise this does
    assert not delivery.committing
    assert visible(kafka_connection, topics["out"], 5) == []
    assert committed_offset(batch, topics["landing"]) < 0
    again = consume(batch, lambda messages: len(messages) >= 10)  # rewound to the start: both batches
    assert sorted(m.offset() for m in again) == list(range(10))
    delivery.deliver(batch, outputs(topics["out"], 10))
    assert len(visible(kafka_connection, topics["out"], 10)) == 10
    assert committed_offset(batch, topics["landing"]) == 10
    delivery.close(30)


def _opening(gate: threading.Event) -> None:
    """Opens *gate* from another thread, now: a commit held at it is in flight when the call that
    follows starts (after the gate it still needs the broker), and ends while that call runs."""
    threading.Thread(target=gate.set, daemon=True).start()


@pytest.mark.parametrize("callback", ["revoked", "lost"])
def test_a_rebalance_waits_for_the_commit_in_flight(kafka_connection, topics, transactional_id, batch, callback):
    gate = threading.Event()
    real = make_producer(kafka_connection, transactional_id=transactional_id)
    producer = GatedCommit(real, gate, "commit_transaction")
    delivery = ExactlyOnce(producer, timeout=30)
    delivery.start()
    committed = []
    delivery.write(batch, outputs(topics["out"], 5), lambda: committed.append(1))
    assert delivery.committing and committed == []  # held at the gate
    _opening(gate)
    getattr(delivery, callback)(batch)
    # The partitions' next owner starts after the batch: its outputs and offsets are committed.
    assert producer.overlapped and committed == [1] and not delivery.committing
    assert visible(kafka_connection, topics["out"], 5) == [f"out-{i}".encode() for i in range(5)]
    assert committed_offset(batch, topics["landing"]) == 5
    delivery.close(30)


def _second_batch_waiting(
    kafka_connection, transactional_id, topics, batch, consume
) -> tuple[ExactlyOnce, threading.Event]:
    """A delivery whose first batch commits, held at the gate returned with it, and whose second batch
    is made and waits for its turn."""
    gate = threading.Event()
    counting = CountingBegins(make_producer(kafka_connection, transactional_id=transactional_id))
    delivery = ExactlyOnce(GatedCommit(counting, gate, "commit_transaction"), timeout=30)
    delivery.start()
    delivery.write(batch, outputs(topics["out"], 5))
    _more_landing_records(kafka_connection, topics["landing"])
    consume(batch, lambda messages: len(messages) >= 5)
    second = (Output(o.topic, o.key, f"second-{i}".encode(), None) for i, o in enumerate(outputs(topics["out"], 5)))
    delivery.write(batch, second)
    assert counting.begun == 1, "the second batch waits: its transaction has not begun"
    return delivery, gate


def test_on_revoke_the_waiting_batch_commits_too(kafka_connection, topics, transactional_id, batch, consume):
    delivery, gate = _second_batch_waiting(kafka_connection, transactional_id, topics, batch, consume)
    _opening(gate)  # the callback finds the first commit in flight
    delivery.revoked(batch)
    assert not delivery.committing
    assert len(visible(kafka_connection, topics["out"], 10)) == 10
    assert committed_offset(batch, topics["landing"]) == 10
    delivery.close(30)


def test_on_loss_the_waiting_batch_is_dropped_uncommitted(kafka_connection, topics, transactional_id, batch, consume):
    delivery, gate = _second_batch_waiting(kafka_connection, transactional_id, topics, batch, consume)
    _opening(gate)  # the callback finds the first commit in flight
    delivery.lost(batch)  # the commit in flight ends; the waiting batch never begins its transaction
    assert not delivery.committing
    assert visible(kafka_connection, topics["out"], 10) == [f"out-{i}".encode() for i in range(5)]
    # The partitions' next owner starts at the dropped batch.
    assert committed_offset(batch, topics["landing"]) == 5
    delivery.settle(batch)  # nothing to raise: the loss needs no rewind
    delivery.close(30)


def test_a_commit_failing_as_partitions_are_lost_is_not_raised(kafka_connection, topics, transactional_id, batch):
    producer = make_producer(kafka_connection, transactional_id=transactional_id)
    delivery = ExactlyOnce(FailingOnce(producer, _abortable()), timeout=30)
    delivery.start()
    delivery.write(batch, outputs(topics["out"], 5))
    delivery.lost(batch)  # aborts the transaction; no rewind is needed (every partition went)
    delivery.settle(batch)
    assert visible(kafka_connection, topics["out"], 5) == []
    assert committed_offset(batch, topics["landing"]) < 0
    delivery.deliver(batch, outputs(topics["out"], 5))  # the producer recovered
    assert len(visible(kafka_connection, topics["out"], 5)) == 5
    delivery.close(30)


def test_fencing_met_by_a_commit_in_flight_drops_the_waiting_batch(kafka_connection, transactional_id, topics, batch):
    gate = threading.Event()
    counting = CountingBegins(FailingOnce(make_producer(kafka_connection, transactional_id=transactional_id), _fatal(KafkaError.PRODUCER_FENCED)))
    delivery = ExactlyOnce(GatedCommit(counting, gate, "commit_transaction"), timeout=30)
    delivery.start()
    delivery.write(batch, outputs(topics["out"], 5))  # its commit will be fenced
    delivery.write(batch, outputs(topics["out"], 0))  # waits for its turn
    gate.set()
    with pytest.raises(ProcessorFatalError, match="fenced"):
        delivery.settle(batch)
    assert not delivery.committing and counting.begun == 1, "nothing began a transaction after the fencing"


class CoordinatorDown:
    """A real consumer whose group coordinator cannot tell its committed offsets (after a broker restart,
    librdkafka could not find it for a minute)."""

    def __init__(self, consumer):
        self.consumer = consumer

    def committed(self, *args, **kwargs):
        raise KafkaException(KafkaError(KafkaError._TIMED_OUT, "Failed to get committed offsets: Local: Timed out"))

    def __getattr__(self, name):
        return getattr(self.consumer, name)


def test_a_rewind_to_offsets_it_committed_needs_no_coordinator(kafka_connection, topics, transactional_id, batch, consume):
    producer = make_producer(kafka_connection, transactional_id=transactional_id)
    delivery = ExactlyOnce(FailingOnce(producer, _abortable(), at=2), timeout=30)
    delivery.start()
    down = CoordinatorDown(batch)
    delivery.deliver(down, outputs(topics["out"], 5))
    _more_landing_records(kafka_connection, topics["landing"])
    consume(batch, lambda messages: len(messages) >= 5)
    with pytest.raises(BatchAborted, match="injected"):  # not ProcessorFatalError: committed() was not needed
        delivery.deliver(down, outputs(topics["out"], 5))
    again = consume(batch, lambda messages: len(messages) >= 5)
    assert sorted(m.offset() for m in again) == list(range(5, 10))
    delivery.close(30)


def test_a_commit_failing_during_a_rebalance_is_raised_by_the_next_settle(
    kafka_connection, topics, transactional_id, batch, consume
):
    producer = make_producer(kafka_connection, transactional_id=transactional_id)
    delivery = ExactlyOnce(FailingOnce(producer, _abortable()), timeout=30)
    delivery.start()
    delivery.write(batch, outputs(topics["out"], 5))
    delivery.revoked(batch)  # inside consume(): it must not raise, and it aborts the transaction at once
    assert visible(kafka_connection, topics["out"], 5) == []
    with pytest.raises(BatchAborted, match="injected"):
        delivery.settle(batch)  # in the loop's thread: rewinds
    assert len(consume(batch, lambda messages: len(messages) >= 5)) == 5
    delivery.settle(batch)  # the failure was raised once
    delivery.close(30)


def test_at_least_once_commits_nothing_when_a_delivery_fails(kafka_connection, topic_factory, topics, batch, consume):
    # The broker refuses records above the topic's max.message.bytes: a real failed delivery.
    small = topic_factory(config={"max.message.bytes": "1024"})
    delivery = AtLeastOnce(make_producer(kafka_connection), timeout=30)
    too_large = [Output(small, b"k", os.urandom(8192), None)]  # random: zstd cannot shrink it under the limit
    with pytest.raises(BatchAborted, match="1 deliveries failed"):
        delivery.deliver(batch, too_large)
    assert committed_offset(batch, topics["landing"]) < 0
    assert len(consume(batch, lambda messages: len(messages) >= 5)) == 5  # rewound: read again
    delivery.close(30)
