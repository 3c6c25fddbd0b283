"""Fixtures of the observability tests."""

from __future__ import annotations

import pytest

from consumer.observability.metrics import Metrics


@pytest.fixture
def metrics() -> Metrics:
    return Metrics()
