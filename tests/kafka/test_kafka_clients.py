"""Client factories and topic management against a real broker."""

from __future__ import annotations

import os

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import ConfigResource, ResourceType

from consumer.devbroker import free_ports
from consumer.kafka import (
    MAX_BODY_BYTES,
    MESSAGE_LIMIT_BYTES,
    KafkaConfigError,
    KafkaConnection,
    KafkaUnavailableError,
    TopicCreationError,
    ensure_topics,
    make_admin,
    make_consumer,
    make_producer,
    wait_until_ready,
)


def _produce(conn: KafkaConnection, topic: str, records: list[tuple[bytes, bytes]]) -> None:
    producer = make_producer(conn)
    errors: list[KafkaError] = []
    for key, value in records:
        producer.produce(topic, value=value, key=key, on_delivery=lambda err, _msg: err and errors.append(err))
    assert producer.flush(60) == 0
    assert errors == []


def test_produce_consume_round_trip_keeps_order_keys_and_headers(kafka_connection, topic_factory, group_id, consume):
    topic = topic_factory()
    producer = make_producer(kafka_connection)
    for i in range(20):
        producer.produce(topic, key=b"k%d" % i, value=b"v%d" % i, headers=[("content-type", b"text/html")])
    assert producer.flush(60) == 0

    consumer = make_consumer(kafka_connection, group_id)
    consumer.subscribe([topic])
    try:
        messages = consume(consumer, lambda got: len(got) >= 20)
    finally:
        consumer.close()
    assert [(m.key(), m.value()) for m in messages] == [(b"k%d" % i, b"v%d" % i) for i in range(20)]
    assert all(m.headers() == [("content-type", b"text/html")] for m in messages)


def test_eight_mib_message_round_trip_with_zstd(kafka_connection, topic_factory, group_id, consume):
    topic = topic_factory()
    # Half incompressible, half highly compressible: zstd must neither fail nor change a byte.
    body = os.urandom(4 * 1024 * 1024) + b"<p>crawl</p>" * (4 * 1024 * 1024 // 12)
    assert len(body) > 8_000_000
    _produce(kafka_connection, topic, [(b"big", body)])

    consumer = make_consumer(kafka_connection, group_id)
    consumer.subscribe([topic])
    try:
        [message] = consume(consumer, lambda got: len(got) >= 1)
    finally:
        consumer.close()
    assert message.value() == body


def test_largest_body_fits_producer_broker_topic_and_consumer_limits(
    kafka_connection, topic_factory, group_id, consume
):
    # Incompressible, so the compressed batch is as large as the body: the worst case for the broker.
    body = os.urandom(MAX_BODY_BYTES)
    topic = topic_factory()
    _produce(kafka_connection, topic, [(b"https://example.com/" + b"x" * 2000, body)])

    consumer = make_consumer(kafka_connection, group_id)
    consumer.subscribe([topic])
    try:
        [message] = consume(consumer, lambda got: len(got) >= 1)
    finally:
        consumer.close()
    assert message.value() == body


def test_records_larger_than_the_prefetch_queue_flow_one_after_another(
    kafka_connection, topic_factory, group_id, consume
):
    # The consumer's prefetch queue (queued.max.messages.kbytes) holds 16 MiB, less than two of these:
    # it pauses fetching while full, and never refuses or stalls on a record larger than itself.
    bodies = [bytes([i]) * 64 + os.urandom(MAX_BODY_BYTES - 64) for i in range(3)]
    topic = topic_factory()
    _produce(kafka_connection, topic, [(f"k{i}".encode(), body) for i, body in enumerate(bodies)])

    consumer = make_consumer(kafka_connection, group_id)
    consumer.subscribe([topic])
    try:
        messages = consume(consumer, lambda got: len(got) >= 3)
    finally:
        consumer.close()
    assert [message.value() for message in messages] == bodies


def test_producer_refuses_a_record_above_the_limit(kafka_connection, topic_factory):
    producer = make_producer(kafka_connection)
    with pytest.raises(KafkaException) as caught:
        producer.produce(topic_factory(), value=b"x" * (MESSAGE_LIMIT_BYTES + 1))
    assert caught.value.args[0].code() == KafkaError.MSG_SIZE_TOO_LARGE


def test_ensure_topics_creates_missing_tolerates_existing_and_sets_limits(kafka_connection, topic_factory):
    admin = make_admin(kafka_connection)
    existing = topic_factory(partitions=2)
    new = f"{existing}-new"

    created = ensure_topics(admin, [existing, new], partitions=3, config={"cleanup.policy": "compact"})

    assert created == {new}
    topics = admin.list_topics(timeout=10).topics
    assert len(topics[existing].partitions) == 2  # left as it was
    assert len(topics[new].partitions) == 3
    resource = ConfigResource(ResourceType.TOPIC, new)
    configs = admin.describe_configs([resource])[resource].result(timeout=30)
    assert configs["max.message.bytes"].value == str(MESSAGE_LIMIT_BYTES)
    assert configs["cleanup.policy"].value == "compact"
    assert ensure_topics(admin, [new]) == set()
    admin.delete_topics([new], operation_timeout=30)[new].result(timeout=60)


def test_ensure_topics_wraps_broker_refusal(kafka_connection):
    admin = make_admin(kafka_connection)
    with pytest.raises(TopicCreationError, match="cannot create topic") as caught:
        ensure_topics(admin, ["not a valid topic name!"])
    assert isinstance(caught.value.__cause__, KafkaException)


def test_wait_until_ready_returns_for_a_live_broker(kafka_connection):
    wait_until_ready(kafka_connection, timeout=30)


def test_wait_until_ready_raises_when_nothing_listens():
    [port] = free_ports(1)
    with pytest.raises(KafkaUnavailableError, match=f"127.0.0.1:{port}") as caught:
        wait_until_ready(KafkaConnection(f"127.0.0.1:{port}"), timeout=2)
    assert isinstance(caught.value.__cause__, KafkaException)


@pytest.mark.parametrize("factory", [make_consumer, make_producer, make_admin])
def test_invalid_client_properties_are_config_errors_wrapping_librdkafkas(factory):
    conn = KafkaConnection("127.0.0.1:9", extra={"no.such.property": "1"})
    args = (conn, "group") if factory is make_consumer else (conn,)
    with pytest.raises(KafkaConfigError, match=r"no\.such\.property") as caught:
        factory(*args)
    assert isinstance(caught.value.__cause__, KafkaException)

