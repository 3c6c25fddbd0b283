"""The broker a benchmark runs against: ``KAFKA_BOOTSTRAP_SERVERS``, else a ``LocalBroker`` of its own."""

from __future__ import annotations

import os
from collections.abc import Callable


def broker_for_bench() -> tuple[str, Callable[[], None]]:
    """The bootstrap servers, and what stops the broker once the benchmark is done (nothing for a given one)."""
    given = os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "").strip()
    if given:
        return given, lambda: None
    from consumer.devbroker import LocalBroker

    broker = LocalBroker()
    return broker.start(), broker.stop
