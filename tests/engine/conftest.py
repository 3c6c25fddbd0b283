"""Fixtures of the batch engine tests: a landing topic with five records read, an output topic, readers."""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka import TopicPartition

from consumer.kafka import make_consumer, make_producer


@pytest.fixture
def topics(topic_factory) -> dict[str, str]:
    return {"landing": topic_factory(), "out": topic_factory()}


def produce_landing(kafka_connection, topic: str, first: int = 0, count: int = 5) -> None:
    producer = make_producer(kafka_connection)
    for i in range(first, first + count):
        producer.produce(topic, f"in-{i}".encode(), f"k{i}".encode())
    assert producer.flush(30) == 0


@pytest.fixture
def batch(kafka_connection, topics, group_id, consume):
    """A consumer that has read a batch of 5 landing records (nothing committed yet)."""
    produce_landing(kafka_connection, topics["landing"])
    consumer = make_consumer(kafka_connection, group_id)
    consumer.subscribe([topics["landing"]])
    consume(consumer, lambda messages: len(messages) >= 5)
    yield consumer
    consumer.close()


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


@pytest.fixture
def engine_helpers():
    """The module-level helpers above, for test modules (they cannot import a conftest reliably)."""

    class Helpers:
        pass

    h = Helpers()
    for fn in (produce_landing, committed_offset, visible):
        setattr(h, fn.__name__, staticmethod(fn))
    return h
