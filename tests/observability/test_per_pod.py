"""Which pod holds which partition: ``crawl_decoder_partition_assigned`` and each pod's lag for its own partitions.

Two processors of one group on a real broker, as two pods: each reports the partitions it holds, the two sets
are disjoint and cover the topic, and each pod's lag series are exactly those partitions' (the group's lag is
the sum over pods).  When one stops, the other takes every partition and reports them all.
"""

from __future__ import annotations

import dataclasses

from consumer.observability.metrics import Metrics

from .scrape import samples, scrape, wait_for
from .test_lag import lag_series, monitor

ASSIGNED = "crawl_decoder_partition_assigned"


def held(found: dict, topic: str) -> set[int]:
    return {
        int(dict(labels)["partition"])
        for (name, labels), value in found.items()
        if name == ASSIGNED and dict(labels)["topic"] == topic and value == 1
    }


def test_a_monitor_told_what_is_held_reads_those_partitions_only(kafka_connection, topic_factory, group_id,
                                                                 produce_pages):  # fmt: skip
    topic = topic_factory(partitions=3)
    produce_pages(topic, 30)
    own = {1}
    metrics = Metrics()
    lags = monitor(kafka_connection, group_id, topic, metrics, held=lambda: own).refresh()
    assert lags is not None and set(lags) == {1} and lags[1] > 0
    assert set(lag_series(samples(metrics), topic)) == {1}
    own.clear()  # nothing held (a rebalance took it): no series, and the reading still counts as an answer
    assert monitor(kafka_connection, group_id, topic, metrics, held=lambda: own).refresh() == {}
    assert lag_series(samples(metrics), topic) == {}


def test_the_assignment_metric_follows_assign_revoke_and_lost():
    metrics = Metrics()
    metrics.partitions_assigned([("crawl.raw", 0), ("crawl.raw", 1)])
    metrics.partitions_assigned([("crawl.raw", 2)])  # incremental (cooperative-sticky)
    assert held(samples(metrics), "crawl.raw") == {0, 1, 2}
    metrics.partitions_released([("crawl.raw", 1)])
    metrics.partitions_released([("crawl.raw", 1), ("crawl.raw", 7)])  # released twice, or never held: no error
    assert held(samples(metrics), "crawl.raw") == {0, 2}
    assert not [key for key in samples(metrics) if key[0] == ASSIGNED and dict(key[1])["partition"] == "1"]


def test_two_pods_each_report_their_own_partitions(settings_for, topics, produce_pages, running_app):
    settings = settings_for(batch_size=20)
    landing = topics["landing"]
    produce_pages(landing, 60)

    def fast(app) -> None:
        app.lag.interval_s = 0.5

    first = running_app(settings, before_run=fast)
    wait_for(lambda: held(parse_scrape(first), landing) == {0, 1, 2}, "the first pod holds every partition", 120)
    second = running_app(dataclasses.replace(settings, transactional_id=settings.transactional_id + "-2"), fast)

    def split() -> bool:
        a, b = held(parse_scrape(first), landing), held(parse_scrape(second), landing)
        return bool(a) and bool(b) and not a & b and a | b == {0, 1, 2}

    wait_for(split, "the partitions split between the two pods", 120)

    def own_lag() -> bool:
        for app in (first, second):
            found = parse_scrape(app)
            if set(lag_series(found, landing)) != held(found, landing):
                return False
        return True

    wait_for(own_lag, "each pod's lag series are its own partitions", 60)
    running_app.stop(second)
    wait_for(lambda: held(parse_scrape(first), landing) == {0, 1, 2}, "the first pod takes them all back", 120)
    wait_for(lambda: set(lag_series(parse_scrape(first), landing)) == {0, 1, 2}, "and reports their lag", 60)


def parse_scrape(app) -> dict:
    """The app's /metrics, parsed."""
    return scrape(app.http.port)
