"""ClientStats: librdkafka's statistics document (STATISTICS.md) to the bounded figures on /metrics."""

from __future__ import annotations

import json

import pytest

from consumer.observability.client_stats import ClientStats, figures_of, rtt_by_broker
from consumer.observability.exceptions import InvalidLabelError

from .scrape import series, value


def document(name: str = "pod-consumer#consumer-1", *, rebalances: int = 2, rxmsgs: int = 40, txerrs: int = 1) -> str:
    return json.dumps({
        "name": name, "type": "consumer", "msg_cnt": 3, "msg_size": 300, "txmsgs": 0, "rxmsgs": rxmsgs,
        "cgrp": {"rebalance_cnt": rebalances},
        "brokers": {
            "127.0.0.1:9092/bootstrap": {"nodeid": -1, "txerrs": 5, "rxerrs": 5, "rtt": {"cnt": 1, "avg": 9, "p99": 9}},
            "127.0.0.1:9092/1": {"nodeid": 1, "txerrs": txerrs, "rxerrs": 0, "rtt": {"cnt": 4, "avg": 1500, "p99": 8000}},
            "127.0.0.1:9093/2": {"nodeid": 2, "txerrs": 0, "rxerrs": 2, "rtt": {"cnt": 0, "avg": 0, "p99": 0}},
        },
        "topics": {"crawl.raw": {"partitions": {
            "0": {"fetchq_cnt": 10, "fetchq_size": 1000}, "1": {"fetchq_cnt": 5, "fetchq_size": 500},
            "-1": {"fetchq_cnt": 99, "fetchq_size": 99},
        }}},
    })


def test_figures_leave_out_the_pseudo_brokers_and_the_unassigned_partition():
    stats = json.loads(document())
    assert figures_of(stats) == {
        "rebalances": 2, "tx_messages": 0, "rx_messages": 40, "tx_errors": 1, "rx_errors": 2,
        "queue_messages": 3, "queue_bytes": 300, "fetch_queue_messages": 15, "fetch_queue_bytes": 1500,
    }
    # µs to seconds; a broker with no request in the interval has no round-trip time to show.
    assert rtt_by_broker(stats) == {"1": (0.0015, 0.008)}


def test_counters_add_each_clients_increase_and_a_new_client_starts_from_zero(metrics):
    stats = ClientStats(metrics)
    stats.observe("consumer", document(rebalances=2, rxmsgs=40))
    stats.observe("consumer", document(rebalances=3, rxmsgs=100))
    assert value(metrics, "crawl_decoder_kafka_rebalances_total", role="consumer") == 3
    # The consumer replaced: its librdkafka counts start again; ours go on.
    stats.observe("consumer", document("pod-consumer#consumer-2", rebalances=1, rxmsgs=10))
    assert value(metrics, "crawl_decoder_kafka_rebalances_total", role="consumer") == 4
    assert value(metrics, "crawl_decoder_kafka_rx_messages_total", role="consumer") == 110
    assert value(metrics, "crawl_decoder_kafka_fetch_queue_messages", role="consumer") == 15
    assert series(metrics, "crawl_decoder_kafka_broker_rtt_p99_seconds") == [{"role": "consumer", "broker": "1"}]


def test_a_broken_document_changes_nothing(metrics):
    ClientStats(metrics).observe("consumer", "{not json")
    assert value(metrics, "crawl_decoder_kafka_rx_messages_total", role="consumer") == 0


def test_the_role_label_is_closed(metrics):
    with pytest.raises(InvalidLabelError):
        ClientStats(metrics).observe("admin", document())
