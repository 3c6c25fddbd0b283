"""Start-up names why the cluster does not answer: authentication, TLS and OIDC failures, not only
"Broker transport failure".

Against the session's real broker, whose only listener is PLAINTEXT: a client speaking SASL to it has its
handshake refused, one speaking TLS has its handshake closed, and one whose OIDC token endpoint is a closed
port on 127.0.0.1 never gets a token.  Each waits (``wait_for_cluster``), and the problem it reports (what
``/readyz`` says) and logs names the cause.
"""

from __future__ import annotations

import dataclasses
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
import structlog

from consumer.app import App
from consumer.kafka import KafkaConnection
from consumer.kafka.startup import wait_for_cluster


def _closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then released: connections to it are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _sasl_plain(plaintext: KafkaConnection) -> KafkaConnection:
    return dataclasses.replace(
        plaintext, security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN", sasl_username="u", sasl_password="p"
    )


def _tls(plaintext: KafkaConnection) -> KafkaConnection:
    return dataclasses.replace(plaintext, security_protocol="SSL")


def _oidc(plaintext: KafkaConnection) -> KafkaConnection:
    return dataclasses.replace(
        plaintext,
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="OAUTHBEARER",
        sasl_oauthbearer_method="oidc",
        sasl_oauthbearer_client_id="crawl-decoder",
        sasl_oauthbearer_client_secret="secret",
        sasl_oauthbearer_token_endpoint_url=f"http://127.0.0.1:{_closed_port()}/token",
    )


CASES = {
    "SASL against a plaintext listener": (_sasl_plain, "authentication failed: ", "SASL PLAIN mechanism handshake"),
    # librdkafka says either, as the listener's close races its handshake (a loaded machine: the second).
    "TLS against a plaintext listener": (_tls, "TLS failed: ", "SSL handshake failed|SSL connection closed by peer"),
    "OIDC token endpoint refusing connections": (_oidc, "OIDC token not acquired: ", "Failed to connect to 127.0.0.1"),
}


def _first_problem(connection: KafkaConnection, topics: list[str]) -> str:
    """The first problem ``wait_for_cluster`` reports for *connection*, then stop waiting."""
    stop = threading.Event()
    problems: list[str | None] = []

    def report(problem: str | None) -> None:
        problems.append(problem)
        stop.set()

    wait_for_cluster(connection, topics, stop=stop, report=report, interval_s=0.1)
    assert problems and problems[0] is not None, "the cluster answered a client it should have refused"
    return problems[0]


@pytest.mark.parametrize("case", list(CASES))
def test_the_problem_names_the_cause(case, kafka_connection, topic_factory):
    make, named, detail = CASES[case]
    with structlog.testing.capture_logs() as logs:
        problem = _first_problem(make(kafka_connection), [topic_factory()])
    assert "does not answer" in problem
    assert named in problem and re.search(detail, problem), problem
    [logged] = [line for line in logs if line["event"] == "waiting for kafka"]
    assert logged["problem"] == problem and logged["log_level"] == "error"


def test_a_broker_that_answers_reports_no_cause(kafka_connection, topic_factory):
    # The same wait against the same broker, spoken to as it expects: no problem, so no cause.
    stop = threading.Event()
    problems: list[str | None] = []
    assert wait_for_cluster(kafka_connection, [topic_factory()], stop=stop, report=problems.append)
    assert problems == [None]


def test_a_broker_that_is_not_there_is_a_refused_connection(kafka_connection, topic_factory):
    gone = dataclasses.replace(kafka_connection, bootstrap_servers=f"127.0.0.1:{_closed_port()}")
    problem = _first_problem(gone, [topic_factory()])
    assert "does not answer" in problem and "Connection refused" in problem, problem
    assert "authentication" not in problem and "TLS" not in problem and "OIDC" not in problem


@pytest.fixture
def topics(topic_factory) -> dict[str, str]:
    return {"landing": topic_factory(), "clean": topic_factory(), "quarantine": topic_factory()}


@pytest.fixture
def app_with_sasl(settings_for, kafka_connection) -> Iterator[App]:
    app = App(settings_for(http_port=0), _sasl_plain(kafka_connection))
    thread = threading.Thread(target=app.run, daemon=True)
    thread.start()
    try:
        yield app
    finally:
        app.stop()
        thread.join(30)
    assert not thread.is_alive()


def test_readyz_says_authentication_failed(app_with_sasl):
    deadline = time.monotonic() + 60
    body = ""
    while "authentication failed" not in body:
        assert time.monotonic() < deadline, f"/readyz never named the cause: {body!r}"
        body = _readyz(app_with_sasl)
        time.sleep(0.1)  # polling a real condition, bounded by the deadline
    assert body.startswith("unavailable: kafka at ") and "SASL PLAIN mechanism handshake" in body


def _readyz(app: App) -> str:
    if not app.http.port:
        return ""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{app.http.port}/readyz", timeout=5) as response:
            return str(response.read().decode())
    except urllib.error.HTTPError as exc:
        return str(exc.read().decode())
