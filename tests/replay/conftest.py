"""Fixtures for replay tests: records quarantined by the real processor, replays run through the CLI.

Small helpers are copied from tests/processor/conftest.py on purpose (tests of
one area do not import another's fixtures).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

import pytest
import yaml

from consumer.app import App
from consumer.cli import main
from consumer.kafka import KafkaConnection, make_consumer, make_producer
from consumer.observability.logging import configure_logging
from consumer.serialization.avro import AvroDeserializer, AvroSerializer
from consumer.serialization.schemas import SchemaStore

from replay_helpers import end_offsets, read_all


@pytest.fixture
def topics(topic_factory) -> dict[str, str]:
    return {"landing": topic_factory(partitions=2), "clean": topic_factory(partitions=2), "quarantine": topic_factory()}


@pytest.fixture
def config_file(settings_for, tmp_path) -> Path:
    """The settings as a YAML file for ``--config`` (what the processor runs with)."""
    settings = settings_for()
    path = tmp_path / "config.yaml"
    values = {k: (v.value if hasattr(v, "value") else v) for k, v in asdict(settings).items()}
    path.write_text(yaml.safe_dump(values))
    return path


@pytest.fixture
def produce(kafka_connection: KafkaConnection, store: SchemaStore):
    """``produce(topic, [(key, record_or_bytes), ...], timestamp_ms=None)``; header ("trace", key) on each."""
    serialize = AvroSerializer(store, "RawResponse")

    def send(topic: str, items: Iterable[tuple[bytes, dict | bytes]], timestamp_ms: int | None = None) -> int:
        producer = make_producer(kafka_connection)
        count = 0
        extra = {"timestamp": timestamp_ms} if timestamp_ms is not None else {}
        for key, value in items:
            payload = value if isinstance(value, bytes) else serialize(value)
            while True:
                try:
                    producer.produce(topic, payload, key, headers=[("trace", key)], **extra)
                    break
                except BufferError:
                    producer.poll(0.1)
            count += 1
        assert producer.flush(60) == 0
        return count

    return send


class Topics:
    """Read the clean and quarantine topics with the schemas' deserializers."""

    def __init__(self, connection: KafkaConnection, store: SchemaStore, topics: dict[str, str]):
        self.connection = connection
        self.names = topics
        self._clean = AvroDeserializer(store, "DecodedResponse")
        self._quarantine = AvroDeserializer(store, "QuarantinedResponse")

    def clean(self) -> list[dict]:
        return read_all(self.connection, self.names["clean"], self._clean)

    def quarantine(self) -> list[dict]:
        return read_all(self.connection, self.names["quarantine"], self._quarantine)

    def ends(self) -> dict[str, dict[int, int]]:
        return {name: end_offsets(self.connection, topic) for name, topic in self.names.items()}


@pytest.fixture
def outputs(kafka_connection, store, topics) -> Topics:
    return Topics(kafka_connection, store, topics)


@pytest.fixture
def quarantine(kafka_connection, settings_for, produce, topics, outputs, consume):
    """``quarantine(items, timestamp_ms=None)``: run the processor on *items* until all of them are quarantined."""

    def run(items: list[tuple[bytes, dict | bytes]], timestamp_ms: int | None = None) -> list[dict]:
        before = len(outputs.quarantine())
        watcher = make_consumer(kafka_connection, f"watch-{uuid.uuid4().hex}")
        watcher.subscribe([topics["quarantine"]])
        produce(topics["landing"], items, timestamp_ms)
        app = App(settings_for(), kafka_connection)
        thread = threading.Thread(target=app.run, daemon=True)
        thread.start()
        try:
            consume(watcher, lambda messages: len(messages) >= before + len(items), timeout=120)
        finally:
            watcher.close()
            app.stop()
            thread.join(60)
        assert not thread.is_alive()
        assert not outputs.clean(), "every record given to quarantine() must be lossy"
        return outputs.quarantine()

    return run


@pytest.fixture
def replay(config_file, kafka_bootstrap, monkeypatch, capsys):
    """``replay(*args) -> (exit_status, stdout)``: ``crawl-decoder replay --config ... *args`` in this process.

    The last run's stderr is ``replay.err``.
    """
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", kafka_bootstrap)

    def run(*args: str) -> tuple[int, str]:
        handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
        capsys.readouterr()
        try:
            status = main(["replay", "--config", str(config_file), *args])
        finally:
            for sig, handler in handlers.items():
                signal.signal(sig, handler)
            # The command logs to sys.stderr as it was, capsys's buffer, which closes with the test.
            configure_logging("info", stream=sys.__stderr__)
        captured = capsys.readouterr()
        run.err = captured.err
        return status, captured.out

    return run


@pytest.fixture
def replay_process(config_file, kafka_bootstrap, tmp_path):
    """``replay_process(*args, bootstrap=None) -> ReplayProcess``: ``crawl-decoder replay --config ... *args`` as
    a child process, its stdout and stderr in files; any still running is killed at teardown."""
    started: list[ReplayProcess] = []

    def start(*args: str, bootstrap: str | None = None, config: Path | None = None) -> ReplayProcess:
        process = ReplayProcess(
            [sys.executable, "-m", "consumer.cli", "replay", "--config", str(config or config_file), *args],
            {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": bootstrap or kafka_bootstrap},
            tmp_path / f"replay-{len(started)}",
        )
        started.append(process)
        return process

    yield start
    for process in started:
        process.close()


class ReplayProcess:
    """A replay run as a child process: ``out()`` its stdout (the summary), ``events()`` its JSON log lines."""

    def __init__(self, command: list[str], env: dict[str, str], prefix: Path) -> None:
        self.out_path, self.err_path = prefix.with_suffix(".out"), prefix.with_suffix(".err")
        # Owned by this object: close() closes them.
        self._out, self._err = open(self.out_path, "wb"), open(self.err_path, "wb")  # noqa: SIM115
        self.popen = subprocess.Popen(command, cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=self._out, stderr=self._err)

    def out(self) -> str:
        return self.out_path.read_text(errors="replace")

    def err(self) -> str:
        return self.err_path.read_text(errors="replace")

    def logs(self) -> list[dict]:
        """Its JSON log lines (librdkafka's own stderr lines are skipped)."""
        found = []
        for line in self.err().splitlines():
            try:
                found.append(json.loads(line))
            except ValueError:
                continue
        return found

    def events(self) -> list[str]:
        return [entry.get("event") for entry in self.logs()]

    def close(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait(30)
        self._out.close()
        self._err.close()


REPO = Path(__file__).resolve().parents[2]
