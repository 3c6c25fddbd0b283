"""Fixtures for ingest tests: topics, the ingest command in-process or as a child process, the landing topic
read back whole (read_committed, to its end), the processor run in-process, a loopback web site."""

from __future__ import annotations

import os
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator

import pytest

from consumer.app import App
from consumer.ingest import Ingester, IngestOptions
from consumer.kafka import KafkaConnection, make_consumer
from consumer.serialization.avro import AvroDeserializer, AvroSerializer

from ingest_helpers import REPO, ingest_command, read_all
from site_server import serve_site


@pytest.fixture
def topics(topic_factory) -> dict[str, str]:
    return {"landing": topic_factory(partitions=3), "clean": topic_factory(partitions=2), "quarantine": topic_factory()}


@pytest.fixture
def checkpoint_topic() -> str:
    """A fresh checkpoint topic name (the ingest creates it, compacted)."""
    return f"test-checkpoints-{uuid.uuid4().hex}"


@pytest.fixture
def ingest(kafka_connection: KafkaConnection, store, topics, checkpoint_topic):
    """``ingest(paths, **options) -> Ingester`` (run to its end, in this process)."""

    def run(paths: list[str], **options) -> Ingester:
        values = {"landing_topic": topics["landing"], "checkpoint_topic": checkpoint_topic,
                  "transactional_id_prefix": f"test-ingest-{uuid.uuid4().hex[:8]}"}  # fmt: skip
        values.update(options)
        ingester = Ingester(kafka_connection, IngestOptions(**values), AvroSerializer(store, "RawResponse"))
        ingester.run(paths)
        return ingester

    return run


@pytest.fixture
def ingest_env(kafka_bootstrap: str, topics, checkpoint_topic) -> dict[str, str]:
    """Environment for ``crawl-decoder ingest`` as a child process on this test's topics."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CRAWL_DECODER_", "KAFKA_"))}
    env.update(KAFKA_BOOTSTRAP_SERVERS=kafka_bootstrap, CRAWL_DECODER_LANDING_TOPIC=topics["landing"])
    env["CRAWL_DECODER_CONFIG"] = os.devnull  # no /etc config
    return env


@pytest.fixture
def run_ingest(ingest_env, checkpoint_topic):
    """``run_ingest(*args, stdin=None) -> CompletedProcess``: the real command, to its end."""

    def run(*args: str, stdin: bytes | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run(
            ingest_command(*args, checkpoint_topic=checkpoint_topic), cwd=REPO, env=ingest_env, input=stdin,
            capture_output=True, timeout=timeout,
        )  # fmt: skip

    return run


@pytest.fixture
def landing(kafka_connection: KafkaConnection, store, topics) -> Callable[[], list[dict]]:
    """``landing() -> [record]``: every committed landing record, read as the processor reads them,
    with ``key`` and ``kafka_headers`` added."""
    deserialize = AvroDeserializer(store, "RawResponse")

    def read() -> list[dict]:
        records = []
        for message in read_all(kafka_connection, topics["landing"]):
            record = deserialize(message.value())
            record.update(key=message.key(), kafka_headers=dict(message.headers() or []))
            records.append(record)
        return records

    return read


@pytest.fixture
def processor(kafka_connection: KafkaConnection, settings_for) -> Iterator[Callable[[], App]]:
    """``processor() -> App``: ``crawl-decoder run`` in a thread on this test's topics, stopped at teardown."""
    started: list[tuple[App, threading.Thread]] = []

    def start() -> App:
        app = App(settings_for(), kafka_connection)
        thread = threading.Thread(target=app.run, daemon=True)
        thread.start()
        started.append((app, thread))
        return app

    yield start
    for app, thread in started:
        app.stop()
        thread.join(60)
        assert not thread.is_alive(), "the processor did not stop within its shutdown bound"


@pytest.fixture
def decoded(kafka_connection: KafkaConnection, store, topics) -> Callable[..., dict[str, tuple[str, dict]]]:
    """``decoded(urls) -> {url: ("clean" | "quarantine", record)}``: wait until each of *urls* is in the
    clean or the quarantine topic (read_committed)."""
    readers = {topics["clean"]: ("clean", AvroDeserializer(store, "DecodedResponse")),
               topics["quarantine"]: ("quarantine", AvroDeserializer(store, "QuarantinedResponse"))}  # fmt: skip

    def read(urls: set[str], timeout: float = 120.0) -> dict[str, tuple[str, dict]]:
        found: dict[str, tuple[str, dict]] = {}
        consumer = make_consumer(kafka_connection, f"outputs-reader-{uuid.uuid4().hex}")
        consumer.subscribe(list(readers))
        deadline = time.monotonic() + timeout
        try:
            while not urls <= set(found):
                if time.monotonic() >= deadline:
                    pytest.fail(f"not decoded within {timeout:g} s: {sorted(urls - set(found))}")
                message = consumer.poll(0.5)
                if message is None:
                    continue
                assert message.error() is None, message.error()
                where, deserialize = readers[message.topic()]
                record = deserialize(message.value())
                url = record["url"] if where == "clean" else (record["raw"] or {}).get("url", "")
                found[url] = (where, record)
        finally:
            consumer.close()
        return found

    return read


@pytest.fixture(scope="session")
def site() -> Iterator[str]:
    """Base URL of a small web site on 127.0.0.1 (pages in several encodings, gzip, chunked, a redirect, an image)."""
    with serve_site() as base:
        yield base
