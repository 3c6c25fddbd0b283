"""Readiness tracks the present: a problem clears it once it has lasted the setting, recovery restores it."""

from __future__ import annotations

import pytest

from consumer.observability.readiness import Readiness

LANDING = [("crawl.raw", 0), ("crawl.raw", 1)]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def readiness(clock: Clock) -> Readiness:
    ready = Readiness(30, what="partitions of crawl.raw (group g)", clock=clock)
    ready.assigned(LANDING)
    return ready


def test_an_outage_shorter_than_the_setting_keeps_it_ready(readiness, clock):
    readiness.kafka_failed("all brokers down")
    clock.now += 29
    assert readiness.problem() is None
    readiness.kafka_answered()
    clock.now += 60
    assert readiness.problem() is None


def test_an_outage_longer_than_the_setting_says_since_when_and_the_latest_error(readiness, clock):
    readiness.kafka_failed("all brokers down")
    clock.now += 20
    readiness.kafka_failed("lag reading failed: timed out")  # a later failure does not restart the clock
    clock.now += 10
    assert readiness.problem() == "kafka unreachable for 30 s: lag reading failed: timed out"


def test_an_answer_ends_the_outage_and_a_new_failure_starts_a_new_clock(readiness, clock):
    readiness.kafka_failed("all brokers down")
    clock.now += 40
    assert readiness.problem() is not None
    readiness.kafka_answered()
    assert readiness.problem() is None
    readiness.kafka_failed("all brokers down")
    clock.now += 29
    assert readiness.problem() is None


def test_holding_no_partitions_longer_than_the_setting_is_not_ready(readiness, clock):
    readiness.released(LANDING[:1])
    clock.now += 60
    assert readiness.problem() is None, "still holds one"
    readiness.released(LANDING[1:])
    clock.now += 29
    assert readiness.problem() is None, "a rebalance moves partitions within seconds"
    clock.now += 1
    assert readiness.problem() == "no partitions of crawl.raw (group g) held for 30 s"
    readiness.assigned(LANDING[1:])
    assert readiness.problem() is None


def test_an_assignment_is_an_answer_from_kafka(readiness, clock):
    readiness.kafka_failed("all brokers down")
    clock.now += 40
    readiness.assigned(LANDING)
    assert readiness.problem() is None


def test_before_the_first_assignment_it_says_nothing(clock):
    """The caller says "not assigned yet" then; the no-partitions clock starts only once some were held."""
    readiness = Readiness(30, what="partitions", clock=clock)
    clock.now += 300
    assert readiness.problem() is None


def test_a_batch_not_committed_for_the_setting_is_an_outage_before_the_client_reports_one(readiness, clock):
    readiness.batch_handed()
    clock.now += 29
    assert readiness.problem() is None
    clock.now += 1
    assert readiness.problem() == "kafka unreachable for 30 s: a batch written 30 s ago is not committed yet"
    readiness.batch_settled()
    assert readiness.problem() is None


def test_the_clock_runs_from_the_oldest_batch_not_committed(readiness, clock):
    readiness.batch_handed()
    clock.now += 20
    readiness.batch_handed()  # the next batch, handed while the first waits: the wait is still the first's
    clock.now += 10
    assert readiness.problem() is not None


def test_a_lag_reading_that_succeeds_does_not_hide_a_write_that_waits(readiness, clock):
    """The transaction coordinator may hang while the partition leaders answer the lag monitor."""
    readiness.batch_handed()
    clock.now += 15
    readiness.kafka_answered()
    clock.now += 15
    assert readiness.problem() is not None


def test_committing_steadily_stays_ready(readiness, clock):
    for _ in range(100):
        readiness.batch_handed()
        clock.now += 5
        readiness.batch_settled()
        assert readiness.problem() is None


def test_unreachable_says_at_once_how_long_kafka_has_not_answered_and_why(readiness, clock):
    """The loop's 'waiting for Kafka' line between batches reads it: no setting delays it, an answer ends it."""
    assert readiness.unreachable() is None
    readiness.kafka_failed("Connect to ipv4#127.0.0.1:9092 failed: Connection refused")
    clock.now += 3
    readiness.kafka_failed("1/1 brokers are down")
    clock.now += 4
    assert readiness.unreachable() == (7, "1/1 brokers are down")  # since the first failure, the latest reason
    assert readiness.problem() is None  # not yet a readiness problem: the setting is 30 s
    readiness.kafka_answered()
    assert readiness.unreachable() is None
