"""Fixtures of the observability tests: a ``Metrics``, and for the broker tests topics, records and a running App."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest

from consumer.app import App
from consumer.kafka import KafkaConnection, make_producer
from consumer.observability.metrics import Metrics
from consumer.serialization.avro import AvroSerializer
from consumer.serialization.schemas import SchemaStore
from consumer.settings import Settings

from .scrape import wait_for


@pytest.fixture
def metrics() -> Metrics:
    return Metrics()


@pytest.fixture
def topics(topic_factory) -> dict[str, str]:
    """A processor's topics for ``settings_for``: a landing topic of three partitions."""
    return {"landing": topic_factory(partitions=3), "clean": topic_factory(partitions=3), "quarantine": topic_factory()}


def page(i: int) -> dict:
    """A RawResponse record of a small UTF-8 page."""
    body = f"<!DOCTYPE html><html><head><meta charset=utf-8><title>{i}</title></head><body>Grüße {i}</body></html>"
    return {
        "url": f"https://lag.example.com/{i}",
        "fetched_at": int(time.time() * 1000),
        "status": 200,
        "headers": [{"name": "Content-Type", "value": "text/html"}],
        "body": body.encode(),
    }


@pytest.fixture
def produce_pages(kafka_connection: KafkaConnection, store: SchemaStore) -> Callable[..., None]:
    """``produce_pages(topic, n, start=0, timestamp_ms=None)``: *n* Avro pages keyed ``page-<i>``, spread over
    the partitions by key, with Kafka timestamp *timestamp_ms* (None: the producer's clock)."""

    def produce(topic: str, n: int, start: int = 0, timestamp_ms: int | None = None) -> None:
        serialize = AvroSerializer(store, "RawResponse")
        producer = make_producer(kafka_connection)
        stamp = {} if timestamp_ms is None else {"timestamp": timestamp_ms}
        for i in range(start, start + n):
            producer.produce(topic, serialize(page(i)), f"page-{i}".encode(), **stamp)
        assert producer.flush(60) == 0

    return produce


@pytest.fixture
def running_app(kafka_connection) -> Iterator[Callable[..., App]]:
    """``running_app(settings, before_run=None) -> App``: an App running in a thread, serving HTTP, stopped
    at teardown; *before_run(app)* may adjust it first.

    ``stop_app(app)`` (on the returned callable) stops one early and waits for it.
    """
    started: list[tuple[App, threading.Thread]] = []

    def start(settings: Settings, before_run: Callable[[App], None] | None = None) -> App:
        app = App(settings, kafka_connection)
        if before_run is not None:
            before_run(app)
        thread = threading.Thread(target=app.run, name="app", daemon=True)
        thread.start()
        started.append((app, thread))
        # http_port 0 reads back as the bound port once run() has started serving.
        wait_for(lambda: app.http.port != 0 or not thread.is_alive(), "the HTTP server listening", timeout=60)
        assert thread.is_alive(), "the processor ended at start"
        return app

    def stop(app: App) -> None:
        for candidate, thread in started:
            if candidate is app:
                app.stop()
                thread.join(60)
                assert not thread.is_alive(), "the processor did not stop within its shutdown bound"

    start.stop = stop  # type: ignore[attr-defined]
    yield start
    for app, thread in started:
        app.stop()
        thread.join(60)
        assert not thread.is_alive(), "the processor did not stop within its shutdown bound"

