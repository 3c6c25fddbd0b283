"""Fixtures for processor tests: raw records in, everything read back from both outputs."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from consumer.app import App
from consumer.kafka import KafkaConnection, make_consumer, make_producer
from consumer.serialization.avro import AvroDeserializer, AvroSerializer
from consumer.serialization.schemas import SchemaStore
from consumer.settings import Settings


@pytest.fixture(scope="session")
def store() -> SchemaStore:
    return SchemaStore()


@pytest.fixture
def topics(topic_factory) -> dict[str, str]:
    return {"landing": topic_factory(partitions=3), "clean": topic_factory(partitions=3), "quarantine": topic_factory()}


@pytest.fixture
def settings_for(topics, group_id, transactional_id, tmp_path) -> Callable[..., Settings]:
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


def raw(url: str, body: bytes, content_type: str | None = "text/html", **extra) -> dict:
    headers = [{"name": "Content-Type", "value": content_type}] if content_type else []
    headers += [{"name": n, "value": v} for n, v in extra.pop("headers", [])]
    return {"url": url, "fetched_at": int(time.time() * 1000), "status": 200, "headers": headers, "body": body, **extra}


@pytest.fixture(name="raw")
def raw_fixture():
    """``raw(url, body, content_type="text/html", headers=[...], **fields) -> dict``: a RawResponse record."""
    return raw


@pytest.fixture
def produce(kafka_connection: KafkaConnection, store: SchemaStore):
    """``produce(topic, [(key, record_dict_or_bytes), ...])``: Avro single-object unless bytes are given."""
    serialize = AvroSerializer(store, "RawResponse")

    def send(topic: str, items: Iterable[tuple[bytes, dict | bytes]]) -> int:
        producer = make_producer(kafka_connection)
        count = 0
        for key, value in items:
            payload = value if isinstance(value, bytes) else serialize(value)
            while True:
                try:
                    producer.produce(topic, payload, key, headers=[("trace", key)])
                    break
                except BufferError:
                    producer.poll(0.1)
            count += 1
        assert producer.flush(60) == 0
        return count

    return send


class Outputs:
    """Everything a read_committed reader finds in clean and quarantine."""

    def __init__(self, clean: list, quarantine: list):
        self.clean = clean
        self.quarantine = quarantine

    def keys(self) -> list[bytes]:
        return [m["key"] for m in self.clean + self.quarantine]

    def by_key(self) -> dict[bytes, tuple[str, dict]]:
        out = {m["key"]: ("clean", m) for m in self.clean}
        out.update({m["key"]: ("quarantine", m) for m in self.quarantine})
        return out


@pytest.fixture
def read_outputs(kafka_connection: KafkaConnection, store: SchemaStore, topics):
    """``read_outputs(expected, timeout)``: read both output topics (read_committed) until *expected* records."""
    clean = AvroDeserializer(store, "DecodedResponse")
    quarantined = AvroDeserializer(store, "QuarantinedResponse")

    def read(expected: int, timeout: float = 120.0, settle: float = 2.0) -> Outputs:
        consumer = make_consumer(kafka_connection, f"reader-{uuid.uuid4().hex}")
        consumer.subscribe([topics["clean"], topics["quarantine"]])
        found = Outputs([], [])
        deadline = time.monotonic() + timeout
        quiet_until = None
        try:
            # Read until the expected count, then keep reading briefly to catch duplicates.
            while time.monotonic() < deadline:
                message = consumer.poll(0.2)
                if message is None:
                    if quiet_until is not None and time.monotonic() >= quiet_until:
                        break
                    continue
                assert message.error() is None, message.error()
                is_clean = message.topic() == topics["clean"]
                record = (clean if is_clean else quarantined)(message.value())
                record["key"] = message.key()
                record["kafka_headers"] = message.headers()
                (found.clean if is_clean else found.quarantine).append(record)
                if len(found.clean) + len(found.quarantine) >= expected and quiet_until is None:
                    quiet_until = time.monotonic() + settle
        finally:
            consumer.close()
        return found

    return read


@pytest.fixture
def running_app(kafka_connection):
    """``running_app(settings) -> App``: an App running in a thread, stopped at teardown."""
    started: list[tuple[App, threading.Thread]] = []

    def start(settings: Settings) -> App:
        app = App(settings, kafka_connection)
        thread = threading.Thread(target=app.run, daemon=True)
        thread.start()
        started.append((app, thread))
        return app

    yield start
    for app, thread in started:
        app.stop()
        thread.join(60)
        assert not thread.is_alive(), "the processor did not stop within its shutdown bound"
