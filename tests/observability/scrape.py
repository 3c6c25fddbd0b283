"""Reading a ``Metrics`` back the way Prometheus does: render, then parse the text format."""

from __future__ import annotations

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
