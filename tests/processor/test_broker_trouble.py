"""When Kafka is away at start, or a topic is missing: the processor waits, not ready, and says why.

The start-up policy (README, "When Kafka is away"): the processor waits as long
as it takes, logging one JSON error naming the bootstrap servers and what was
tried, then the same at most every 30 s; ``/readyz`` answers 503 with the reason;
``/healthz`` stays 200 (waiting is not hanging); SIGTERM ends the wait, exit 0.
"""

from __future__ import annotations

import json
import signal
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from consumer.app import App
from consumer.kafka import ensure_topics, make_admin


def _closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _http_port(process, helpers) -> int:
    helpers.wait_for(
        lambda: any(e.get("event") == "processor starting" for e in process.events()) or process.popen.poll() is not None,
        "processor starting",
        timeout=60,
    )
    assert process.popen.poll() is None, f"the processor exited:\n{process.log()[-3000:]}"
    return next(e["http_port"] for e in process.events() if e.get("event") == "processor starting")


def _transactions(port: int) -> float:
    """All transactions counted on /metrics, whatever their result."""
    families = text_string_to_metric_families(_get(port, "/metrics")[1])
    return sum(s.value for f in families for s in f.samples if s.name == "crawl_decoder_transactions_total")


@pytest.mark.parametrize("mode", ["exactly-once", "at-least-once"])
def test_an_unreachable_broker_at_start_is_waited_for_named_and_not_ready(mode, processor_env, spawn_processor, helpers):
    bootstrap = f"127.0.0.1:{_closed_port()}"
    process = spawn_processor(processor_env(bootstrap=bootstrap, processing_mode=mode))
    port = _http_port(process, helpers)
    helpers.wait_for(lambda: _get(port, "/readyz")[0] == 503 and "does not answer" in _get(port, "/readyz")[1], "/readyz says why")
    status, body = _get(port, "/readyz")
    assert status == 503 and bootstrap in body, body
    time.sleep(8)  # several attempts (one every 2 s): the error is logged once, not once per attempt
    assert process.popen.poll() is None, f"the processor gave up:\n{process.log()[-3000:]}"
    assert _get(port, "/healthz")[0] == 200, "waiting for the broker is not a hung loop"

    process.signal(signal.SIGTERM)
    assert process.wait(30) == 0, "SIGTERM ends the wait with exit 0"
    lines = process.log().splitlines()
    assert lines, "the processor logged nothing"
    for line in lines:
        json.loads(line)  # every line is JSON: no raw librdkafka lines (ValueError fails the test)
    waits = [e for e in process.events() if e.get("event") == "waiting for kafka"]
    assert len(waits) == 1, f"logged {len(waits)} times in ~10 s; at most every 30 s wanted"
    (wait,) = waits
    assert wait["level"] == "error" and wait["bootstrap_servers"] == bootstrap
    assert bootstrap in wait["problem"] and bootstrap in wait["tried"] and wait["attempts"] == 1
    assert not any(e.get("event") == "processor stopped on a fatal error" for e in process.events())


def test_a_missing_landing_topic_is_waited_for_without_transactions(
    settings_for, kafka_connection, topics, produce, read_outputs, mixed_corpus, helpers, store
):
    landing = f"landing-created-late-{time.monotonic_ns()}"
    app = App(settings_for(landing_topic=landing), kafka_connection)
    thread = threading.Thread(target=app.run, daemon=True)
    thread.start()
    try:
        helpers.wait_for(lambda: app.http.port != 0 and _get(app.http.port, "/readyz")[1].count(landing), "/readyz names the topic")
        status, body = _get(app.http.port, "/readyz")
        assert status == 503 and "do not exist" in body, body
        time.sleep(3)
        assert not app.processor.started.is_set(), "the processor joined its group before its topic existed"
        assert _transactions(app.http.port) == 0, "no transaction, not even an empty one"

        ensure_topics(make_admin(kafka_connection), [landing], partitions=2)
        items = mixed_corpus(60, seed=3)
        produce(landing, items)
        helpers.wait_for(lambda: _get(app.http.port, "/readyz")[0] == 200, "ready once the topic exists", timeout=90)
        helpers.assert_exactly_once(read_outputs(len(items)), items)
    finally:
        app.stop()
        thread.join(60)
    assert not thread.is_alive()


def test_sigterm_while_waiting_for_a_missing_topic_ends_at_once(settings_for, kafka_connection, helpers):
    app = App(settings_for(landing_topic=f"never-created-{time.monotonic_ns()}"), kafka_connection)
    thread = threading.Thread(target=app.run, daemon=True)
    thread.start()
    helpers.wait_for(lambda: app.http.port != 0 and _get(app.http.port, "/readyz")[1].count("do not exist"), "waiting")
    app.stop()
    thread.join(10)
    assert not thread.is_alive(), "stop() did not end the wait"
