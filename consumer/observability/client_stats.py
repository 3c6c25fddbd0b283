"""A bounded set of Prometheus figures from librdkafka's statistics.

librdkafka hands every ``statistics.interval.ms`` a JSON document of several
hundred fields per client, broker, topic and partition (librdkafka's
``STATISTICS.md``).  A scrape needs few of them, with labels bounded by the
cluster and never by the data: per client role (``consumer``, ``producer``) the
group's rebalances (``cgrp.rebalance_cnt``), each broker's request round-trip
time (``rtt.avg`` and ``rtt.p99``, by broker node id), the producer queue
(``msg_cnt``, ``msg_size``), the fetch queue (each partition's ``fetchq_cnt``
and ``fetchq_size`` summed), messages sent and received (``txmsgs``,
``rxmsgs``) and request errors (each broker's ``txerrs`` and ``rxerrs``
summed).

librdkafka's counts grow from zero over one client's life.  A client the
processor replaces (a producer after a fatal error) starts again at zero, so
the counters here add each client's increase, keyed by its handle name
(``rdkafka#producer-3``), and never go backwards.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from typing import Any

from .metrics import Metrics

#: The figures librdkafka counts up over a client's life (the others are levels).
_CUMULATIVE = ("rebalances", "tx_messages", "rx_messages", "tx_errors", "rx_errors")


class ClientStats:
    """Turns librdkafka statistics into ``Metrics``; ``callback(role)`` is a client's ``stats_cb``."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics
        self._last: dict[str, tuple[str, dict[str, int]]] = {}  # role -> (handle name, cumulative figures)
        self._lock = threading.Lock()

    def callback(self, role: str) -> Callable[[str], None]:
        """The ``stats_cb`` of the client in *role* (one of ``metrics.CLIENT_ROLES``)."""
        return lambda document: self.observe(role, document)

    def observe(self, role: str, document: str) -> None:
        try:
            stats = json.loads(document)
        except ValueError:
            return  # librdkafka writes the document itself; a broken one is its bug, not worth a crash
        figures = figures_of(stats)
        increases = self._increases(role, str(stats.get("name", "")), figures)
        self._metrics.kafka_statistics(role, figures, increases, rtt_by_broker(stats))

    def _increases(self, role: str, name: str, figures: Mapping[str, int]) -> dict[str, int]:
        cumulative = {key: figures[key] for key in _CUMULATIVE}
        with self._lock:
            last_name, last = self._last.get(role, ("", {}))
            if last_name != name:
                last = {}  # a new client: everything it counted is new
            self._last[role] = (name, cumulative)
        return {key: max(value - last.get(key, 0), 0) for key, value in cumulative.items()}


def figures_of(stats: Mapping[str, Any]) -> dict[str, int]:
    """The figures of one statistics document that ``Metrics.kafka_statistics`` exports."""
    brokers = [broker for broker in stats.get("brokers", {}).values() if broker.get("nodeid", -1) >= 0]
    partitions = [
        partition
        for topic in stats.get("topics", {}).values()
        for number, partition in topic.get("partitions", {}).items()
        if number != "-1"  # the unassigned-partition placeholder
    ]
    return {
        "rebalances": int(stats.get("cgrp", {}).get("rebalance_cnt", 0)),
        "tx_messages": int(stats.get("txmsgs", 0)),
        "rx_messages": int(stats.get("rxmsgs", 0)),
        "tx_errors": sum(int(broker.get("txerrs", 0)) for broker in brokers),
        "rx_errors": sum(int(broker.get("rxerrs", 0)) for broker in brokers),
        "queue_messages": int(stats.get("msg_cnt", 0)),
        "queue_bytes": int(stats.get("msg_size", 0)),
        "fetch_queue_messages": sum(int(p.get("fetchq_cnt", 0)) for p in partitions),
        "fetch_queue_bytes": sum(int(p.get("fetchq_size", 0)) for p in partitions),
    }


def rtt_by_broker(stats: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
    """Broker node id -> (average, p99) request round-trip time in seconds, over the last interval.

    The bootstrap and internal pseudo-brokers (node id -1) are left out; so is a
    broker that answered no request in the interval (librdkafka reports 0).
    """
    found = {}
    for broker in stats.get("brokers", {}).values():
        rtt = broker.get("rtt", {})
        if broker.get("nodeid", -1) >= 0 and rtt.get("cnt", 0) > 0:
            found[str(broker["nodeid"])] = (rtt.get("avg", 0) / 1e6, rtt.get("p99", 0) / 1e6)  # µs -> s
    return found
