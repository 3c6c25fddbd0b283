"""Fixtures for processor tests: raw records in, everything read back from both outputs."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
from confluent_kafka import TopicPartition

from consumer.app import App
from consumer.kafka import KafkaConnection, make_consumer, make_producer
from consumer.serialization.avro import AvroDeserializer, AvroSerializer
from consumer.serialization.schemas import SchemaStore
from consumer.settings import Settings


@pytest.fixture
def topics(topic_factory) -> dict[str, str]:
    return {"landing": topic_factory(partitions=3), "clean": topic_factory(partitions=3), "quarantine": topic_factory()}


def raw(url: str, body: bytes, content_type: str | None = "text/html", **extra) -> dict:
    headers = [{"name": "Content-Type", "value": content_type}] if content_type else []
    headers += [{"name": n, "value": v} for n, v in extra.pop("headers", [])]
    return {"url": url, "fetched_at": int(time.time() * 1000), "status": 200, "headers": headers, "body": body, **extra}


@pytest.fixture(name="raw")
def raw_fixture():
    """``raw(url, body, content_type="text/html", headers=[...], **fields) -> dict``: a RawResponse record."""
    return raw


def produce_records(connection: KafkaConnection, store: SchemaStore, topic: str, items) -> int:
    """Produce ``(key, record_dict_or_bytes)`` items: Avro single-object unless bytes are given."""
    serialize = AvroSerializer(store, "RawResponse")
    producer = make_producer(connection)
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


@pytest.fixture
def produce(kafka_connection: KafkaConnection, store: SchemaStore):
    """``produce(topic, [(key, record_dict_or_bytes), ...])``: Avro single-object unless bytes are given."""

    def send(topic: str, items: Iterable[tuple[bytes, dict | bytes]]) -> int:
        return produce_records(kafka_connection, store, topic, items)

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


def read_committed_outputs(
    connection: KafkaConnection, store: SchemaStore, topics, expected: int, timeout: float = 120.0, settle: float = 2.0
) -> Outputs:
    """Read both output topics (read_committed) until *expected* records, then *settle* s more for duplicates."""
    clean = AvroDeserializer(store, "DecodedResponse")
    quarantined = AvroDeserializer(store, "QuarantinedResponse")
    consumer = make_consumer(connection, f"reader-{uuid.uuid4().hex}")
    consumer.subscribe([topics["clean"], topics["quarantine"]])
    found = Outputs([], [])
    deadline = time.monotonic() + timeout
    quiet_until = None
    try:
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


@pytest.fixture
def read_outputs(kafka_connection: KafkaConnection, store: SchemaStore, topics):
    """``read_outputs(expected, timeout)``: read both output topics (read_committed) until *expected* records."""

    def read(expected: int, timeout: float = 120.0, settle: float = 2.0) -> Outputs:
        return read_committed_outputs(kafka_connection, store, topics, expected, timeout, settle)

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


def mixed_corpus(n: int, seed: int = 7) -> list[tuple[bytes, dict | bytes]]:
    """*n* keyed records: sample pages in many encodings (some lossy) and ~3% poison (not Avro)."""
    from consumer.samples import samples

    rng = random.Random(seed)
    pool = samples()
    items: list[tuple[bytes, dict | bytes]] = []
    for i in range(n):
        key = f"rec-{i}".encode()
        if rng.random() < 0.03:
            items.append((key, rng.randbytes(rng.randint(0, 64))))
        else:
            sample = pool[i % len(pool)]
            items.append((key, raw(sample.url, sample.body, sample.content_type)))
    return items


@pytest.fixture(name="mixed_corpus")
def mixed_corpus_fixture():
    """``mixed_corpus(n, seed=7)``: clean, lossy and poison records keyed ``rec-<i>``."""
    return mixed_corpus


def assert_exactly_once(found: Outputs, items) -> None:
    """Every input key in exactly one of clean or quarantine: none missing, none twice."""
    keys = found.keys()
    duplicated = sorted({k for k in keys if keys.count(k) > 1}) if len(keys) != len(set(keys)) else []
    assert not duplicated, f"{len(duplicated)} keys written more than once, e.g. {duplicated[:5]}"
    missing = {k for k, _ in items} - set(keys)
    assert not missing, f"{len(missing)} keys missing, e.g. {sorted(missing)[:5]}"
    assert len(keys) == len(items)


def output_offsets(connection: KafkaConnection, topics: dict[str, str]) -> int:
    """Sum of the high watermarks of clean and quarantine: grows as the processor writes
    (transaction markers included, so it only says "at least this far")."""
    consumer = make_consumer(connection, f"watermarks-{uuid.uuid4().hex}")
    try:
        total = 0
        for name in (topics["clean"], topics["quarantine"]):
            metadata = consumer.list_topics(name, timeout=10)
            for partition in metadata.topics[name].partitions:
                total += consumer.get_watermark_offsets(TopicPartition(name, partition), timeout=10)[1]
        return total
    finally:
        consumer.close()


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 120.0, every: float = 0.2) -> None:
    """Poll *condition* until it holds; fail the test at the deadline."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            pytest.fail(f"{what}: not reached within {timeout:g} s")
        time.sleep(every)  # polling a real condition, bounded by the deadline


class ProcessorProcess:
    """``crawl-decoder run`` as a child process, its output in a log file."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.log_path = log_path
        self._log = open(log_path, "ab")  # noqa: SIM115 - the child writes to it until close()
        self.popen = subprocess.Popen(
            [sys.executable, "-m", "consumer.cli", "run"],
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    @property
    def pid(self) -> int:
        return self.popen.pid

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def events(self) -> list[dict]:
        """The JSON log lines written so far (librdkafka's own stderr lines are skipped)."""
        out = []
        for line in self.log().splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
        return out

    def signal(self, signum: int) -> None:
        self.popen.send_signal(signum)

    def wait(self, timeout: float) -> int:
        return self.popen.wait(timeout)

    def close(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait(30)
        self._log.close()


REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def processor_env(kafka_bootstrap, processor_values, tmp_path) -> Callable[..., dict[str, str]]:
    """``processor_env(**settings) -> env``: CRAWL_DECODER_* variables for this test's topics and ids
    (``processor_values``), in smaller batches and without an overrides file."""

    def make(bootstrap: str | None = None, **settings) -> dict[str, str]:
        # A missing overrides file: no overrides.
        values = processor_values(**{"overrides_path": str(tmp_path / "no-overrides.yaml"), "batch_size": 50, **settings})
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CRAWL_DECODER_", "KAFKA_"))}
        env.update({f"CRAWL_DECODER_{k.upper()}": str(v) for k, v in values.items()})
        env["KAFKA_BOOTSTRAP_SERVERS"] = bootstrap or kafka_bootstrap
        return env

    return make


@pytest.fixture
def spawn_processor(tmp_path) -> Iterator[Callable[[dict[str, str]], ProcessorProcess]]:
    """``spawn_processor(env) -> ProcessorProcess``; any still running is killed at teardown."""
    spawned: list[ProcessorProcess] = []

    def spawn(env: dict[str, str]) -> ProcessorProcess:
        process = ProcessorProcess(env, tmp_path / f"processor-{len(spawned)}.log")
        spawned.append(process)
        return process

    yield spawn
    for process in spawned:
        process.close()


@pytest.fixture
def helpers():
    """The module-level helpers above, for test modules (they cannot import a conftest reliably)."""

    class Helpers:
        pass

    h = Helpers()
    for fn in (assert_exactly_once, output_offsets, wait_for, produce_records, read_committed_outputs):
        setattr(h, fn.__name__, staticmethod(fn))
    return h
