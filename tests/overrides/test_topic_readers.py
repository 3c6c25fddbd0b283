"""The readers ``overrides report``, ``recheck`` and ``suggest`` take their records from: the newest records of
each partition (``recent_records``) or a time window (``window_records``), read to the end each partition had
when the read began, and never a silent partial read: a partition that stops delivering raises
``TimeoutError``, a missing topic ``LookupError``.

The stall is a real one: a broker of this module's own, stopped in the middle of a read larger than the
consumer's prefetch queue.
"""

from __future__ import annotations

import os

import pytest

from consumer.devbroker import LocalBroker
from consumer.kafka import KafkaConnection, ensure_topics, make_admin, make_producer
from consumer.overrides.topics import recent_records, window_records

MiB = 1024 * 1024


def _values(records) -> list[bytes]:
    return [value for _, _, value in records]


def _fill(connection: KafkaConnection, topic: str, per_partition: dict[int, int]) -> None:
    producer = make_producer(connection)
    for partition, count in per_partition.items():
        for i in range(count):
            producer.produce(topic, f"{partition}:{i}".encode(), partition=partition)
    assert producer.flush(30) == 0


def test_recent_records_are_the_newest_of_each_partition(kafka_connection, topic_factory):
    topic = topic_factory(partitions=2)
    _fill(kafka_connection, topic, {0: 5, 1: 2})
    found = _values(recent_records(kafka_connection, topic, lambda value: {}, per_partition=3))
    # Partition 1 holds fewer than asked: all of them, not none.
    assert sorted(found) == [b"0:2", b"0:3", b"0:4", b"1:0", b"1:1"]


def test_recent_records_of_an_empty_topic_are_none(kafka_connection, topic_factory):
    assert _values(recent_records(kafka_connection, topic_factory(), lambda value: {})) == []


@pytest.mark.parametrize("reader", [recent_records, window_records])
def test_a_missing_topic_is_an_error_not_an_empty_read(reader, kafka_connection):
    with pytest.raises(LookupError, match="does not exist"):
        list(reader(kafka_connection, "never-created-topic", lambda value: {}))


@pytest.fixture
def stoppable_broker():
    broker = LocalBroker()
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


def test_a_read_that_stalls_raises_rather_than_ending_short(stoppable_broker):
    connection = KafkaConnection(stoppable_broker.bootstrap_servers)
    readers = []
    for reader in (recent_records, window_records):
        topic = f"stall-{reader.__name__}"
        ensure_topics(make_admin(connection), [topic], partitions=1)
        # 40 MiB: more than a reader's 16 MiB prefetch queue, so records remain on the broker when it stops.
        producer = make_producer(connection)
        for _ in range(40):
            producer.produce(topic, os.urandom(MiB))
        assert producer.flush(60) == 0
        readers.append(reader(connection, topic, lambda value: {}, idle_timeout=3.0))
    for records in readers:
        next(records)
    stoppable_broker.stop()
    for records in readers:
        with pytest.raises(TimeoutError, match=r"nothing read for 3 s before the end of partition\(s\) \[0\]"):
            for _ in records:
                pass
