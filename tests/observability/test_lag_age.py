"""The time-based lag (``crawl_decoder_oldest_unprocessed_age_seconds``), what open upstream transactions hold
(``crawl_decoder_consumer_lag_uncommitted``) and the committed offset, read from a real broker: records with
known timestamps, a group that has processed none, some or all of them, transactions open, committed and aborted."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import TopicPartition

from consumer.kafka import KafkaConnection, make_consumer, make_producer
from consumer.observability.lag import LagMonitor
from consumer.observability.metrics import Metrics

from .scrape import samples, scrape, value, wait_for

AGE = "crawl_decoder_oldest_unprocessed_age_seconds"
#: A fixed "now" (ms) for the monitor's clock, and the landing records' timestamps before it.
NOW_MS = int(time.time() * 1000)
HOUR_MS = 3600 * 1000


class Clock:
    """The monitor's wall clock, moved by the test."""

    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> float:
        return self.ms / 1000


def monitor(connection: KafkaConnection, group: str, topic: str, metrics, clock: Clock) -> LagMonitor:
    return LagMonitor(
        lambda isolation_level: make_consumer(connection, group, isolation_level=isolation_level),
        group, topic, metrics, clock=clock,
    )  # fmt: skip


def per_partition(found: dict, name: str, topic: str) -> dict[int, float]:
    return {
        int(dict(labels)["partition"]): v
        for (sample, labels), v in found.items()
        if sample == name and dict(labels)["topic"] == topic
    }


def commit(connection: KafkaConnection, group: str, topic: str, offsets: dict[int, int]) -> None:
    """Commit *offsets* for *group* as a member that never joins it (what a processor's batch does)."""
    consumer = make_consumer(connection, group)
    try:
        consumer.commit(offsets=[TopicPartition(topic, p, o) for p, o in offsets.items()], asynchronous=False)
    finally:
        consumer.close()


def produce(connection: KafkaConnection, topic: str, stamps_ms: list[int], partition: int = 0) -> None:
    producer = make_producer(connection)
    for i, stamp in enumerate(stamps_ms):
        producer.produce(topic, b"page", str(i).encode(), partition=partition, timestamp=stamp)
    assert producer.flush(30) == 0


def test_the_age_is_the_oldest_unprocessed_records_and_grows_while_nothing_is_processed(
    kafka_connection, topic_factory, group_id, metrics
):
    topic = topic_factory(partitions=2)
    # Partition 0: records of 3, 2 and 1 hours ago; partition 1: one of 30 minutes ago.
    produce(kafka_connection, topic, [NOW_MS - 3 * HOUR_MS, NOW_MS - 2 * HOUR_MS, NOW_MS - HOUR_MS], partition=0)
    produce(kafka_connection, topic, [NOW_MS - HOUR_MS // 2], partition=1)
    clock = Clock(NOW_MS)
    lag = monitor(kafka_connection, group_id, topic, metrics, clock)
    assert lag.refresh() == {0: 3, 1: 1}
    assert per_partition(samples(metrics), AGE, topic) == {0: 3 * 3600, 1: 1800}
    clock.ms += 120_000  # two minutes on, no processor ran: the same records, two minutes older
    lag.refresh()
    assert per_partition(samples(metrics), AGE, topic) == {0: 3 * 3600 + 120, 1: 1800 + 120}
    # The group processed the first two records of partition 0: the oldest left is an hour old.
    commit(kafka_connection, group_id, topic, {0: 2})
    lag.refresh()
    assert per_partition(samples(metrics), AGE, topic) == {0: 3600 + 120, 1: 1800 + 120}
    assert per_partition(samples(metrics), "crawl_decoder_consumer_committed_offset", topic) == {0: 2, 1: 0}
    # Everything processed: 0, and the series stay (a missing one means a failed reading).
    commit(kafka_connection, group_id, topic, {0: 3, 1: 1})
    assert lag.refresh() == {0: 0, 1: 0}
    assert per_partition(samples(metrics), AGE, topic) == {0: 0, 1: 0}


class CountingConsumer:
    """A real consumer that counts its assign() calls (each is a fetch of first records)."""

    def __init__(self, consumer, counts: list[int]) -> None:
        self._consumer, self._counts = consumer, counts

    def assign(self, partitions) -> None:
        self._counts.append(len(partitions))
        self._consumer.assign(partitions)

    def __getattr__(self, name):
        return getattr(self._consumer, name)


def test_a_stalled_partition_is_not_fetched_again(kafka_connection, topic_factory, group_id, metrics):
    # The record at an offset never changes: while the group's offset stays, its timestamp is known.
    topic = topic_factory(partitions=2)
    produce(kafka_connection, topic, [NOW_MS - HOUR_MS] * 3, partition=0)
    produce(kafka_connection, topic, [NOW_MS - HOUR_MS // 2] * 3, partition=1)
    assigned: list[int] = []
    clock = Clock(NOW_MS)
    lag = LagMonitor(
        lambda isolation_level: CountingConsumer(
            make_consumer(kafka_connection, group_id, isolation_level=isolation_level), assigned),
        group_id, topic, metrics, clock=clock,
    )  # fmt: skip
    lag.refresh()
    assert assigned == [2]
    clock.ms += 60_000
    lag.refresh()
    assert assigned == [2], "nothing fetched: both offsets stayed"
    assert per_partition(samples(metrics), AGE, topic) == {0: 3600 + 60, 1: 1800 + 60}
    commit(kafka_connection, group_id, topic, {1: 1})  # partition 1 moves on: its next record is fetched
    lag.refresh()
    assert assigned == [2, 1]
    assert per_partition(samples(metrics), AGE, topic) == {0: 3600 + 60, 1: 1800 + 60}


def test_a_record_from_a_clock_ahead_is_no_negative_age(kafka_connection, topic_factory, group_id, metrics):
    topic = topic_factory(partitions=1)
    produce(kafka_connection, topic, [NOW_MS + 60_000])
    monitor(kafka_connection, group_id, topic, metrics, Clock(NOW_MS)).refresh()
    assert per_partition(samples(metrics), AGE, topic) == {0: 0}


def test_an_open_upstream_transaction_is_no_lag_but_counts_uncommitted_and_ages(
    kafka_connection, topic_factory, group_id, transactional_id, metrics
):
    # A crawler's transaction left open: read_committed readers stop at its first record, so the lag
    # reads 0, yet its records wait, and its first record's timestamp says since when.
    topic = topic_factory(partitions=1)
    producer = make_producer(kafka_connection, transactional_id=transactional_id)
    producer.init_transactions(30)
    producer.begin_transaction()
    for i in range(4):
        producer.produce(topic, b"open", str(i).encode(), timestamp=NOW_MS - 600_000 + i)
    producer.flush(30)
    lag = monitor(kafka_connection, group_id, topic, metrics, Clock(NOW_MS))
    try:
        assert lag.refresh() == {0: 0}
        found = samples(metrics)
        assert per_partition(found, "crawl_decoder_consumer_lag_uncommitted", topic) == {0: 4}
        assert per_partition(found, AGE, topic) == {0: 600}
    finally:
        producer.commit_transaction(30)
    # Committed: the same records are lag now (4 and the commit marker), as old as before.
    wait_for(lambda: lag.refresh() == {0: 5}, "the committed transaction counted as lag", 30)
    found = samples(metrics)
    assert per_partition(found, "crawl_decoder_consumer_lag_uncommitted", topic) == {0: 5}
    assert per_partition(found, AGE, topic) == {0: 600}


def test_markers_and_aborted_records_left_are_nothing_to_process(
    kafka_connection, topic_factory, group_id, transactional_id, metrics
):
    # The lag counts offsets, transaction markers and aborted records included; the age counts records a
    # read_committed consumer would get: none here, so 0 (not the age of an aborted record).
    topic = topic_factory(partitions=1)
    producer = make_producer(kafka_connection, transactional_id=transactional_id)
    producer.init_transactions(30)
    producer.begin_transaction()
    producer.produce(topic, b"kept", b"0", timestamp=NOW_MS - HOUR_MS)
    producer.commit_transaction(30)  # offsets 0 (record) and 1 (marker)
    producer.begin_transaction()
    producer.produce(topic, b"dropped", b"1", timestamp=NOW_MS - HOUR_MS)
    producer.flush(30)  # written, then aborted (abort_transaction drops records not sent yet)
    producer.abort_transaction(30)  # offsets 2 (aborted record) and 3 (marker)
    lag = monitor(kafka_connection, group_id, topic, metrics, Clock(NOW_MS))
    wait_for(lambda: lag.read() == {0: 4}, "both transactions' markers written", 30)
    lag.refresh()
    assert per_partition(samples(metrics), AGE, topic) == {0: 3600}
    commit(kafka_connection, group_id, topic, {0: 1})  # the processor's position after the one record
    assert lag.refresh() == {0: 3}
    assert per_partition(samples(metrics), AGE, topic) == {0: 0}


def test_a_failed_reading_drops_the_age_and_offsets_too(metrics):
    lag = LagMonitor(
        lambda isolation_level: make_consumer(KafkaConnection("127.0.0.1:1"), "g", isolation_level=isolation_level),
        "g", "crawl.raw", metrics, timeout_s=1.0,
    )  # fmt: skip

    class Reading:
        start, lag, lag_uncommitted, age_s = 5, 1, 1, 30.0

    metrics.set_lag_reading("crawl.raw", {0: Reading()})
    assert value(metrics, AGE, topic="crawl.raw", partition="0") == 30
    assert lag.refresh() is None
    names = {name for name, _ in samples(metrics)}
    assert not names & {AGE, "crawl_decoder_consumer_lag_uncommitted", "crawl_decoder_consumer_committed_offset"}


@pytest.mark.parametrize("mode", ["exactly-once", "at-least-once"])
def test_a_processor_brings_the_age_to_zero(mode, settings_for, topics, produce_pages, running_app, kafka_connection):
    settings = settings_for(processing_mode=mode, batch_size=20)
    landing = topics["landing"]
    produce_pages(landing, 30, timestamp_ms=int(time.time() * 1000) - 900_000)  # crawled 15 minutes ago

    # Before any processor works: every partition's oldest record is 15 minutes old, and more each second.
    # The group's whole reading (an App's own covers the partitions it holds: none before it runs).
    metrics = Metrics()
    first_look = LagMonitor(
        lambda isolation_level: make_consumer(kafka_connection, settings.group_id, isolation_level=isolation_level),
        settings.group_id, landing, metrics,
    )  # fmt: skip
    first_look.refresh()
    ages = per_partition(samples(metrics), AGE, landing)
    first_look.stop()
    assert set(ages) == {0, 1, 2} and all(900 <= age < 900 + 120 for age in ages.values()), ages

    def fast(app) -> None:
        app.lag.interval_s = 0.5

    app = running_app(settings, before_run=fast)
    wait_for(lambda: per_partition(scrape(app.http.port), AGE, landing) == {0: 0, 1: 0, 2: 0}, "age 0 once processed")
    found = scrape(app.http.port)
    assert sum(per_partition(found, "crawl_decoder_consumer_committed_offset", landing).values()) == 30
