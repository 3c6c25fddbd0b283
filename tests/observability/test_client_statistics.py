"""On the real broker: settings reach the clients, librdkafka statistics and rebalances reach /metrics,
quarantined lines are capped per host a minute with a summary, process_* metrics are exported."""

from __future__ import annotations

import dataclasses
import time
import uuid

import structlog
from confluent_kafka import TopicPartition

from consumer.kafka import make_admin, make_consumer, make_producer
from consumer.observability.client_stats import ClientStats
from consumer.observability.metrics import Metrics
from consumer.serialization.avro import AvroSerializer

from .conftest import page
from .scrape import scrape, series, value, wait_for


def _member_client_ids(connection, group: str) -> list[str]:
    admin = make_admin(connection)
    description = admin.describe_consumer_groups([group], request_timeout=20)[group].result(timeout=30)
    return [member.client_id for member in description.members]


def _joined(consumer, topic: str) -> None:
    consumer.subscribe([topic])
    deadline = time.monotonic() + 60
    while not consumer.assignment():
        assert time.monotonic() < deadline, "the consumer did not join its group"
        consumer.poll(0.2)


def test_the_group_member_carries_the_instance_named_client_id(kafka_connection, topic_factory, group_id):
    topic = topic_factory()
    instance = f"it-{uuid.uuid4().hex[:8]}"
    consumer = make_consumer(dataclasses.replace(kafka_connection, instance=instance), group_id)
    try:
        _joined(consumer, topic)
        assert _member_client_ids(kafka_connection, group_id) == [f"{instance}-consumer"]
    finally:
        consumer.close()


def test_a_kafka_config_setting_reaches_the_client(kafka_connection, topic_factory, group_id):
    topic = topic_factory()
    connection = dataclasses.replace(kafka_connection, extra={"client.id": "team-crawl", "session.timeout.ms": "45000"})
    consumer = make_consumer(connection, group_id)
    try:
        _joined(consumer, topic)
        assert _member_client_ids(kafka_connection, group_id) == ["team-crawl"]
    finally:
        consumer.close()


def test_librdkafka_statistics_become_bounded_metrics(kafka_connection, topic_factory, group_id, store):
    topic = topic_factory()
    metrics = Metrics()
    stats = ClientStats(metrics)
    # statistics.interval.ms from kafka_config: the user's setting wins over the default of 15 s.
    connection = dataclasses.replace(kafka_connection, extra={"statistics.interval.ms": "200"})
    producer = make_producer(connection, extra={"stats_cb": stats.callback("producer")})
    serialize = AvroSerializer(store, "RawResponse")
    for i in range(20):
        producer.produce(topic, serialize(page(i)))
    assert producer.flush(30) == 0
    consumer = make_consumer(connection, group_id, extra={"stats_cb": stats.callback("consumer")})
    consumer.assign([TopicPartition(topic, 0, 0)])
    try:
        read = 0
        deadline = time.monotonic() + 60
        while read < 20 or not value(metrics, "crawl_decoder_kafka_rx_messages_total", role="consumer"):
            assert time.monotonic() < deadline, "no statistics reached the metrics"
            message = consumer.poll(0.2)
            read += message is not None and message.error() is None
            producer.poll(0)
        # A producer's statistics are served by its poll(), like its delivery reports.
        wait_for(
            lambda: producer.poll(0.1) >= 0
            and (value(metrics, "crawl_decoder_kafka_tx_messages_total", role="producer") or 0) >= 20,
            "the producer's statistics", timeout=30,
        )
    finally:
        consumer.close()
    assert value(metrics, "crawl_decoder_kafka_rx_messages_total", role="consumer") >= 20
    assert value(metrics, "crawl_decoder_kafka_tx_messages_total", role="producer") >= 20
    assert value(metrics, "crawl_decoder_kafka_tx_errors_total", role="producer") == 0
    assert value(metrics, "crawl_decoder_kafka_queue_messages", role="producer") == 0  # flushed
    brokers = {labels["broker"] for labels in series(metrics, "crawl_decoder_kafka_broker_rtt_avg_seconds")}
    assert brokers and all(broker.isdigit() for broker in brokers), "one series per broker node id"
    for labels in series(metrics, "crawl_decoder_kafka_broker_rtt_p99_seconds"):
        assert 0 < value(metrics, "crawl_decoder_kafka_broker_rtt_p99_seconds", **labels) < 10


def lossy_page(i: int) -> dict:
    """A page declaring UTF-8 whose body is not: quarantined as lossy, host lossy.example.com."""
    record = page(i)
    record["url"] = f"https://lossy.example.com/{i}"
    # Mostly UTF-8 with a few invalid bytes (consumer/samples' lossy-utf8): quarantined, never guessed.
    text = "<html><head><meta charset=utf-8></head><body>Crème brûlée à la française, déjà vu</body></html>"
    record["body"] = text.encode("utf-8").replace(b"vu", b"vu \xff\xe2\x82")
    return record


def test_the_processor_exports_rebalances_statistics_and_caps_quarantine_lines(
    kafka_connection, settings_for, topics, running_app, store
):
    serialize = AvroSerializer(store, "RawResponse")
    producer = make_producer(kafka_connection)
    for i in range(25):
        producer.produce(topics["landing"], serialize(lossy_page(i)), f"p-{i}".encode())
    assert producer.flush(30) == 0
    settings = settings_for(quarantine_log_per_host_per_minute=3, batch_size=5)

    def statistics_often(app):
        app.connection = dataclasses.replace(app.connection, extra={"statistics.interval.ms": "300"})

    with structlog.testing.capture_logs() as logs:
        app = running_app(settings, before_run=statistics_often)
        port = app.http.port
        lossy = ("crawl_decoder_quarantined_total", frozenset({("reason", "lossy")}))
        wait_for(lambda: scrape(port).get(lossy) == 25, "25 records quarantined")
        # The producer serves its statistics callback while it commits a batch, so an idle processor's
        # producer reports nothing new: clean pages (another host, no quarantine line) keep it working.
        extra = iter(range(1000, 2000))

        def statistics_arrived() -> bool:
            producer.produce(topics["landing"], serialize(page(next(extra))))
            producer.flush(10)
            found = scrape(port)
            return all(found.get((f"crawl_decoder_kafka_{direction}_messages_total", frozenset({("role", role)})), 0)
                       for direction, role in (("rx", "consumer"), ("tx", "producer")))

        wait_for(statistics_arrived, "the consumer's and the producer's statistics", every=0.5)
        samples = scrape(port)
        running_app.stop(app)
    assert samples[("crawl_decoder_rebalances_total", frozenset({("event", "assigned")}))] >= 1
    assert samples[("crawl_decoder_log_lines_suppressed_total", frozenset())] == 22
    assert samples[("crawl_decoder_kafka_tx_errors_total", frozenset({("role", "producer")}))] == 0
    for name in ("process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds"):
        assert samples[(name, frozenset())] > 0, name
    quarantined = [line for line in logs if line["event"] == "quarantined"]
    assert len(quarantined) == 3 and {line["host"] for line in quarantined} == {"lossy.example.com"}
    # Stopping ends the minute early: the lines held back are counted in one summary, none lost.
    [summary] = [line for line in logs if line["event"] == "quarantined lines suppressed"]
    assert summary["suppressed"] == 22 and summary["by_host"] == {"lossy.example.com": 22}
    assert [line["event"] for line in logs if line["event"].startswith("partitions ")][:1] == ["partitions assigned"]
