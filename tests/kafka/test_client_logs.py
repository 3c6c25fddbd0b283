"""librdkafka's log lines and errors reach stderr as JSON lines only, levels mapped, repeats held back."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import structlog
from confluent_kafka import KafkaError

from consumer.devbroker import free_ports
from consumer.observability.client_logs import MAX_KEYS, ClientLogs
from consumer.observability.logging import configure_logging

REPO = Path(__file__).resolve().parents[2]
FAIL = "[thrd:127.0.0.1:9/bootstrap]: 127.0.0.1:9/bootstrap: Connect to ipv4#127.0.0.1:9 failed: Connection refused (after {}ms in state CONNECT)"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def out():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    stream = io.StringIO()
    configure_logging("debug", stream=stream)
    yield stream
    structlog.reset_defaults()
    root.handlers[:] = handlers
    root.setLevel(level)


def lines(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def librdkafka_log(logs: ClientLogs, level: int, facility: str, message: str, client: str = "rdkafka#consumer-1"):
    """What confluent-kafka calls: ``logger.log(level, "%s [%s] %s", facility, client, message)``."""
    logs.log(level, "%s [%s] %s", facility, client, message)


class TestClientLogs:
    def test_a_line_becomes_one_event_with_its_fields(self, out):
        librdkafka_log(ClientLogs(), logging.ERROR, "FAIL", FAIL.format(0))
        (line,) = lines(out)
        assert line["event"] == "kafka client log"
        assert line["level"] == "error"
        assert line["facility"] == "FAIL"
        assert line["client"] == "rdkafka#consumer-1"
        assert line["thread"] == "127.0.0.1:9/bootstrap"
        assert line["message"].startswith("127.0.0.1:9/bootstrap: Connect to ipv4#127.0.0.1:9 failed")
        assert "timestamp" in line

    @pytest.mark.parametrize(
        ("python_level", "level"),
        # confluent-kafka maps librdkafka's syslog levels 0-2 to CRITICAL, 3 ERROR, 4 WARNING, 5-6 INFO, 7 DEBUG.
        [(50, "critical"), (40, "error"), (30, "warning"), (20, "info"), (10, "debug")],
    )
    def test_levels(self, out, python_level, level):
        librdkafka_log(ClientLogs(), python_level, "X", "something")
        assert lines(out)[0]["level"] == level

    def test_repeats_are_held_back_and_counted_in_the_next_line_written(self, out):
        clock = Clock()
        logs = ClientLogs(every_s=60, clock=clock)
        for after_ms in range(10):  # the same failure, only its timing differs
            librdkafka_log(logs, logging.ERROR, "FAIL", FAIL.format(after_ms))
            clock.now += 1
        assert len(lines(out)) == 1 and logs.held_back == 9
        clock.now = 61
        librdkafka_log(logs, logging.ERROR, "FAIL", FAIL.format(3))
        first, second = lines(out)
        assert "repeated" not in first
        assert second["repeated"] == 9

    def test_distinct_lines_and_clients_are_not_held_back(self, out):
        logs = ClientLogs(clock=Clock())
        librdkafka_log(logs, logging.ERROR, "FAIL", FAIL.format(0))
        librdkafka_log(logs, logging.ERROR, "FAIL", FAIL.format(0), client="rdkafka#producer-2")
        librdkafka_log(logs, logging.WARNING, "GETPID", "Failed to acquire transactional PID")
        assert len(lines(out)) == 3

    def test_memory_is_bounded(self, out):
        logs = ClientLogs(clock=Clock())
        for i in range(MAX_KEYS + 10):
            librdkafka_log(logs, logging.DEBUG, f"F{chr(65 + i % 26)}", "x" * (i // 26 + 1))
        assert len(logs._seen) == MAX_KEYS

    def test_an_unexpected_call_is_logged_and_never_raises(self, out):
        logs = ClientLogs()
        logs.log(logging.INFO, "plain message")
        logs.log(logging.INFO, "%s and %s", "one")  # a bad format: dropped, not raised into librdkafka's poll
        assert [line["message"] for line in lines(out)] == ["plain message"]

    def test_errors_reported_to_the_application(self, out):
        logs = ClientLogs(clock=Clock())
        logs.error(KafkaError(KafkaError._ALL_BROKERS_DOWN, "1/1 brokers are down"))
        logs.error(KafkaError(KafkaError._ALL_BROKERS_DOWN, "1/1 brokers are down"))
        logs.error(KafkaError(KafkaError._FENCED, "fenced", fatal=True))
        down, fenced = lines(out)
        assert (down["event"], down["level"], down["error"], down["fatal"]) == (
            "kafka client error", "warning", "_ALL_BROKERS_DOWN", False,
        )
        assert (fenced["level"], fenced["fatal"]) == ("error", True)


UNREACHABLE = textwrap.dedent(
    """
    import sys, time
    from consumer.kafka import KafkaConnection, make_admin, make_consumer, make_producer
    from consumer.observability.client_logs import client_logs
    from consumer.observability.logging import configure_logging

    configure_logging("debug", stream=sys.stderr)
    conn = KafkaConnection(sys.argv[1], instance="pod-7")
    consumer = make_consumer(conn, "unreachable", extra={"reconnect.backoff.max.ms": 100})
    producer = make_producer(conn, extra={"reconnect.backoff.max.ms": 100})
    admin = make_admin(conn, extra={"reconnect.backoff.max.ms": 100})
    consumer.subscribe(["crawl.raw"])
    deadline = time.monotonic() + 120
    # Until librdkafka has retried often enough that its repeats were held back, with a deadline.
    while client_logs().held_back < 30 and time.monotonic() < deadline:
        consumer.poll(0.2)
        producer.poll(0)
        admin.poll(0)
    consumer.close()
    producer.flush(1)
    print(client_logs().held_back)
    """
)


def test_clients_pointed_at_an_unreachable_broker_write_only_json_lines(tmp_path):
    [port] = free_ports(1)  # nothing listens there
    result = subprocess.run(
        [sys.executable, "-c", UNREACHABLE, f"127.0.0.1:{port}"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert int(result.stdout) >= 30, "librdkafka kept retrying and its repeats were held back"
    events = []
    for line in result.stderr.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            pytest.fail(f"not a JSON line on stderr: {line!r}")
        assert isinstance(events[-1], dict) and {"event", "level", "timestamp"} <= events[-1].keys()
    failures = [e for e in events if e.get("facility") == "FAIL"]
    assert failures and all(e["level"] == "error" and f"127.0.0.1:{port}" in e["message"] for e in failures)
    # Each client named after the instance and its role (client.id), not librdkafka's "rdkafka".
    assert {e["client"] for e in failures} >= {"pod-7-consumer#consumer-1", "pod-7-producer#producer-2"}
    # Held back: once per client and message within the minute, not once per retry.
    assert len(failures) <= 6, [e["message"] for e in failures]
    assert any(e["event"] == "kafka client error" and e["error"] == "_ALL_BROKERS_DOWN" for e in events)
