"""Delivery policies taking a batch's outputs as they are made, against the real broker.

The loop hands ``deliver`` a generator that decodes record by record, so what the
generator raises happens in the middle of a transaction (exactly-once) or of a
produce run (at-least-once): nothing of such a batch may become visible, and no
offset may move.
"""

from __future__ import annotations

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


class CountingProducer:
    """A real producer that counts its produce() calls."""

    def __init__(self, producer):
        self.producer, self.produced = producer, 0

    def produce(self, *args, **kwargs):
        self.produced += 1
        return self.producer.produce(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.producer, name)


@pytest.mark.parametrize("policy", ["exactly-once", "at-least-once"])
def test_each_output_is_produced_before_the_next_is_made(kafka_connection, topics, transactional_id, batch, policy):
    if policy == "exactly-once":
        producer = CountingProducer(make_producer(kafka_connection, transactional_id=transactional_id))
        delivery = ExactlyOnce(producer, timeout=30)
    else:
        producer = CountingProducer(make_producer(kafka_connection))
        delivery = AtLeastOnce(producer, timeout=30)
    delivery.start()
    produced_before = []

    def watched(made):
        for output in made:
            produced_before.append(producer.produced)
            yield output

    delivery.deliver(batch, watched(outputs(topics["out"], 5)))
    # The loop decodes record by record inside this iteration: the producer must not wait for the batch.
    assert produced_before == [0, 1, 2, 3, 4]
    delivery.close(30)


def test_exactly_once_takes_outputs_as_they_are_made(kafka_connection, topics, transactional_id, batch, consume):
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
    delivery.deliver(batch, outputs(topics["out"], 5))
    assert committed_offset(batch, topics["landing"]) == 5
    delivery.close(30)


class FailingOnce:
    """A real transactional producer whose commit_transaction fails once with *error*, without committing
    (a broker restart has ended a commit with the fatal INVALID_TXN_STATE; no broker fails on demand)."""

    def __init__(self, producer, error: KafkaError):
        self.producer, self.error, self.failed = producer, error, False

    def commit_transaction(self, *args):
        if not self.failed:
            self.failed = True
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
