"""``crawl_decoder_consumer_lag``: the group's committed offsets against the partitions' read_committed end,
read from a real broker, in both processing modes, before and after a processor works."""

from __future__ import annotations

import pytest
from confluent_kafka import TopicPartition

from consumer.app import App
from consumer.kafka import KafkaConnection, make_consumer, make_producer
from consumer.observability.lag import LagMonitor, lag_of
from consumer.observability.metrics import Metrics

from .scrape import samples, scrape, value, wait_for


def lag_series(found: dict, topic: str) -> dict[int, float]:
    """partition -> lag of *topic* among scraped samples."""
    return {
        int(dict(labels)["partition"]): v
        for (name, labels), v in found.items()
        if name == "crawl_decoder_consumer_lag" and dict(labels)["topic"] == topic
    }


def monitor(connection: KafkaConnection, group: str, topic: str, metrics, **kwargs) -> LagMonitor:
    return LagMonitor(
        lambda isolation_level: make_consumer(connection, group, isolation_level=isolation_level),
        group, topic, metrics, **kwargs,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("committed", "log_start", "last_stable", "lag"),
    [
        (None, 0, 40, 40),  # never committed: read from the log start (auto.offset.reset=earliest)
        (None, 15, 40, 25),
        (30, 0, 40, 10),
        (40, 0, 40, 0),
        (5, 15, 40, 25),  # committed below the log start: those records are gone, the consumer skips them
        (42, 0, 40, 0),  # committed past the stable end (a transaction's marker just written): never negative
    ],
)
def test_lag_arithmetic(committed, log_start, last_stable, lag):
    assert lag_of(committed, log_start, last_stable) == lag


def test_a_new_group_lags_by_every_record(kafka_connection, topic_factory, group_id, produce_pages, metrics):
    topic = topic_factory(partitions=3)
    produce_pages(topic, 30)
    lags = monitor(kafka_connection, group_id, topic, metrics).refresh()
    assert lags is not None and set(lags) == {0, 1, 2}
    assert sum(lags.values()) == 30
    assert lag_series(samples(metrics), topic) == lags


def test_committed_offsets_reduce_the_lag(kafka_connection, topic_factory, group_id, produce_pages, metrics):
    topic = topic_factory(partitions=3)
    produce_pages(topic, 30)
    lag = monitor(kafka_connection, group_id, topic, metrics)
    before = lag.read()
    consumer = make_consumer(kafka_connection, group_id)
    try:
        # The group reads partition 0 to its end and 2 records of partition 1; partition 2 stays unread.
        consumer.commit(offsets=[TopicPartition(topic, 0, before[0]), TopicPartition(topic, 1, 2)], asynchronous=False)
    finally:
        consumer.close()
    after = lag.read()
    assert after == {0: 0, 1: before[1] - 2, 2: before[2]}


def test_an_open_transaction_is_not_lag_until_it_commits(
    kafka_connection, topic_factory, group_id, transactional_id, metrics
):
    # read_committed: a consumer stops at the last stable offset, so records of an open transaction
    # cannot be read yet and are not lag yet; once committed they are, with the commit marker's offset.
    topic = topic_factory(partitions=1)
    producer = make_producer(kafka_connection, transactional_id=transactional_id)
    producer.init_transactions(30)
    producer.begin_transaction()
    for i in range(5):
        producer.produce(topic, b"committed", str(i).encode())
    producer.commit_transaction(30)
    lag = monitor(kafka_connection, group_id, topic, metrics)
    # commit_transaction returns once the coordinator has decided; it writes the commit markers to the partitions
    # after that, and the last stable offset moves when they land (a read right after the return may be a marker
    # early: seen once under load in CI's rehearsal).
    wait_for(lambda: lag.read() == {0: 6}, "5 committed records and the commit marker counted", timeout=30)
    producer.begin_transaction()
    for i in range(4):
        producer.produce(topic, b"open", str(i).encode())
    producer.flush(30)
    assert lag.read() == {0: 6}
    producer.commit_transaction(30)
    wait_for(lambda: lag.read() == {0: 11}, "the committed transaction counted", timeout=30)


def test_offsets_an_open_transaction_holds_do_not_stall_the_reading(
    kafka_connection, topic_factory, group_id, transactional_id, produce_pages, metrics
):
    # An exactly-once processor's next transaction holds offsets of its group almost all the time.
    # A read_committed client asks for stable offsets only and waits them out (KIP-447): against a
    # processor committing back to back the reading timed out and the lag series dropped, under load.
    # The lag is the committed offset's, until the transaction holding the next one commits.
    topic = topic_factory(partitions=1)
    produce_pages(topic, 10)
    member = make_consumer(kafka_connection, group_id)  # never subscribes: commits as a standalone member
    producer = make_producer(kafka_connection, transactional_id=transactional_id)
    try:
        member.commit(offsets=[TopicPartition(topic, 0, 4)], asynchronous=False)
        producer.init_transactions(30)
        producer.begin_transaction()
        producer.send_offsets_to_transaction([TopicPartition(topic, 0, 8)], member.consumer_group_metadata(), 30)
        lag = monitor(kafka_connection, group_id, topic, metrics, timeout_s=5.0)
        assert lag.read() == {0: 6}
        producer.commit_transaction(30)
        # The coordinator writes the commit into the group's offsets just after commit_transaction returns.
        wait_for(lambda: lag.read() == {0: 2}, "the lag once the transaction's offset is committed", 30)
    finally:
        member.close()


def test_a_broker_that_does_not_answer_drops_the_lag_and_counts_the_failure(metrics):
    lag = monitor(KafkaConnection("127.0.0.1:1"), "g", "crawl.raw", metrics, timeout_s=1.0)
    metrics.set_consumer_lags({("crawl.raw", 0): 12})
    assert lag.refresh() is None
    assert lag_series(samples(metrics), "crawl.raw") == {}
    assert value(metrics, "crawl_decoder_consumer_lag_refresh_failures_total") == 1


def test_a_missing_topic_is_a_failed_reading(kafka_connection, group_id, metrics):
    lag = monitor(kafka_connection, group_id, "test-no-such-topic-for-lag", metrics)
    assert lag.refresh() is None
    assert value(metrics, "crawl_decoder_consumer_lag_refresh_failures_total") == 1


@pytest.mark.parametrize("mode", ["exactly-once", "at-least-once"])
def test_the_processors_lag_gauge_tells_the_truth(
    mode, settings_for, topics, produce_pages, running_app, kafka_connection
):
    """Before a processor works, its gauge shows every record; once it has, 0; after a restart, the new
    records only (librdkafka's own statistic never appeared for a new group in exactly-once mode, and
    stayed at the lag seen at assignment after a restart)."""
    settings = settings_for(processing_mode=mode, batch_size=20)
    landing = topics["landing"]
    produce_pages(landing, 45)

    def fast(app) -> None:
        app.lag.interval_s = 0.5

    # Read before any processor works. An App's monitor reports the partitions its App holds: none before its
    # loop runs. The group's whole lag: a monitor of every partition, as a tool reads it.
    idle = App(settings, kafka_connection)
    assert idle.lag.refresh() == {} and lag_series(samples(idle.metrics), landing) == {}
    group_metrics = Metrics()
    first_look = monitor(kafka_connection, settings.group_id, landing, group_metrics)
    assert sum(first_look.refresh().values()) == 45
    assert sum(lag_series(samples(group_metrics), landing).values()) == 45
    first_look.stop()

    app = running_app(settings, before_run=fast)
    wait_for(lambda: lag_series(scrape(app.http.port), landing) == {0: 0, 1: 0, 2: 0}, "lag 0 once processed", 120)
    running_app.stop(app)

    produce_pages(landing, 17, start=45)
    group_metrics = Metrics()
    restarted = monitor(kafka_connection, settings.group_id, landing, group_metrics)
    assert restarted.refresh() is not None
    assert sum(lag_series(samples(group_metrics), landing).values()) == 17
    restarted.stop()

    app = running_app(settings, before_run=fast)
    wait_for(lambda: lag_series(scrape(app.http.port), landing) == {0: 0, 1: 0, 2: 0}, "lag 0 after restart", 120)
    assert set(lag_series(scrape(app.http.port), landing)) == {0, 1, 2}
