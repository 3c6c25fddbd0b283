"""Reading a ``Metrics`` back the way Prometheus does: render (or GET /metrics), then parse the text format."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from collections.abc import Callable

import pytest
from prometheus_client.parser import text_string_to_metric_families

from consumer.observability.metrics import Metrics


def samples(metrics: Metrics) -> dict[tuple[str, frozenset], float]:
    """Every sample rendered by *metrics*, keyed by (sample name, frozenset of label items)."""
    body, _ = metrics.render()
    return parse(body.decode())


def parse(text: str) -> dict[tuple[str, frozenset], float]:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(metrics: Metrics, name: str, **labels: str) -> float | None:
    """The value of one series, or None when it is not rendered at all."""
    return samples(metrics).get((name, frozenset(labels.items())))


def series(metrics: Metrics, name: str) -> list[dict[str, str]]:
    """The label sets of every sample named *name*."""
    return [dict(items) for sample_name, items in samples(metrics) if sample_name == name]


def http_get(port: int, path: str) -> tuple[int, str]:
    """(status, body) of GET *path* on 127.0.0.1:*port*."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def scrape(port: int) -> dict[tuple[str, frozenset], float]:
    """Every sample of a running processor's /metrics, keyed as ``samples`` keys them."""
    status, body = http_get(port, "/metrics")
    assert status == 200, body
    return parse(body)


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 120.0, every: float = 0.2) -> None:
    """Poll *condition* until it holds; fail the test at the deadline."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            pytest.fail(f"{what}: not reached within {timeout:g} s")
        time.sleep(every)  # polling a real condition, bounded by the deadline
