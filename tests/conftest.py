"""Repository-wide Kafka fixtures: one broker per test session, fresh names per test.

Everything here is lazy: a test that requests none of these fixtures starts
no broker.  ``KAFKA_BOOTSTRAP_SERVERS`` set means "use that cluster"; then no
broker is started and topics created by ``topic_factory`` are deleted at the
end of the session (a local broker's data goes away with it anyway).
Tests that stop or restart a broker must own a ``LocalBroker`` of their own
(see tests/devbroker/) so they never disturb tests sharing this one.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator, Mapping

import pytest
from confluent_kafka import Consumer, Message

from consumer.devbroker import LocalBroker
from consumer.kafka import KafkaConnection, ensure_topics, make_admin, wait_until_ready
from consumer.serialization.schemas import SchemaStore
from consumer.settings import Settings


@pytest.fixture(scope="session")
def local_broker() -> Iterator[LocalBroker | None]:
    """The session's ``LocalBroker``, or None when ``KAFKA_BOOTSTRAP_SERVERS`` names an external cluster."""
    if os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "").strip():
        yield None
        return
    broker = LocalBroker()
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture(scope="session")
def kafka_bootstrap(local_broker: LocalBroker | None) -> str:
    """Bootstrap address of the session's cluster, answering metadata requests."""
    if local_broker is not None:
        return local_broker.bootstrap_servers
    external = os.environ["KAFKA_BOOTSTRAP_SERVERS"].strip()
    wait_until_ready(KafkaConnection(external), timeout=60.0)
    return external


@pytest.fixture(scope="session")
def kafka_connection(kafka_bootstrap: str) -> KafkaConnection:
    """A plain-text ``KafkaConnection`` to the session's cluster."""
    return KafkaConnection(bootstrap_servers=kafka_bootstrap)


@pytest.fixture(scope="session")
def _created_topics(kafka_connection: KafkaConnection, local_broker: LocalBroker | None) -> Iterator[list[str]]:
    names: list[str] = []
    yield names
    if local_broker is None and names:
        # Best effort: an external cluster should not collect uuid topics from every test run.
        # Keep the admin referenced until the futures resolve: a destroyed handle cancels them.
        admin = make_admin(kafka_connection)
        for future in admin.delete_topics(names, operation_timeout=30).values():
            future.exception(timeout=60)


@pytest.fixture
def topic_factory(
    kafka_connection: KafkaConnection, _created_topics: list[str]
) -> Callable[..., str]:
    """``topic_factory(partitions=1, config=None) -> name``: a new, ready topic with a uuid name."""
    admin = make_admin(kafka_connection)

    def create(partitions: int = 1, config: Mapping[str, str] | None = None) -> str:
        name = f"test-{uuid.uuid4().hex}"
        ensure_topics(admin, [name], partitions=partitions, config=config)
        _created_topics.append(name)
        return name

    return create


@pytest.fixture(scope="session")
def store() -> SchemaStore:
    """Our Avro schemas, parsed once for the session."""
    return SchemaStore()


@pytest.fixture
def settings_for(topics, group_id, transactional_id, tmp_path) -> Callable[..., Settings]:
    """``settings_for(**overrides) -> Settings`` for a processor on this test's ``topics`` (each area defines
    ``topics`` with the partition counts it needs) and a fresh group and transactional id."""
    def make(**overrides) -> Settings:
        values = dict(
            landing_topic=topics["landing"],
            clean_topic=topics["clean"],
            quarantine_topic=topics["quarantine"],
            group_id=group_id,
            transactional_id=transactional_id,
            http_port=0,
            overrides_path=str(tmp_path / "overrides.yaml"),
            batch_size=200,
            batch_timeout_ms=100,
            shutdown_timeout_s=20,
        )
        values.update(overrides)
        return Settings(**values)

    return make


@pytest.fixture
def group_id() -> str:
    """A consumer group id no other test uses."""
    return f"test-group-{uuid.uuid4().hex}"


@pytest.fixture
def transactional_id() -> str:
    """A producer transactional.id no other test uses."""
    return f"test-txn-{uuid.uuid4().hex}"


def consume_until(
    consumer: Consumer, done: Callable[[list[Message]], bool], *, timeout: float = 60.0
) -> list[Message]:
    """Poll ``consumer`` until ``done(messages)`` holds; fail the test at the deadline or on an error."""
    messages: list[Message] = []
    deadline = time.monotonic() + timeout
    while not done(messages):
        if time.monotonic() >= deadline:
            pytest.fail(f"condition not reached within {timeout:g} s; got {len(messages)} messages")
        message = consumer.poll(0.5)
        if message is None:
            continue
        if message.error() is not None:
            pytest.fail(f"consumer error: {message.error()}")
        messages.append(message)
    return messages


@pytest.fixture
def consume() -> Callable[..., list[Message]]:
    """``consume(consumer, done, timeout=60) -> messages``: poll until ``done(messages)``, with a deadline."""
    return consume_until
