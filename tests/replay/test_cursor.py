"""The replay cursor as processor.delivery sees it: positions from the cursor, rewind to the commit."""

from __future__ import annotations

import time

from confluent_kafka import TopicPartition

from consumer.kafka import make_consumer, make_producer
from consumer.processor.delivery import positions, rewind
from consumer.replay.cursor import CursorView, PartitionRange


def fill(kafka_connection, topic: str, n: int) -> None:
    producer = make_producer(kafka_connection)
    for i in range(n):
        producer.produce(topic, f"v{i}".encode(), f"k{i}".encode())
    assert producer.flush(30) == 0


def consume_offsets(consumer, want: int) -> list[int]:
    offsets: list[int] = []
    deadline = time.monotonic() + 30
    while len(offsets) < want:
        assert time.monotonic() < deadline, f"only {len(offsets)} of {want} messages"
        offsets += [m.offset() for m in consumer.consume(want, 0.5) if m.error() is None]
    return offsets


def test_positions_are_the_cursor_not_the_fetch_position(kafka_connection, topic_factory, group_id):
    topic = topic_factory()
    fill(kafka_connection, topic, 10)
    consumer = make_consumer(kafka_connection, group_id)
    ranges = {0: PartitionRange(topic, 0, low=0, start=0, stop=6)}
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        for offset in consume_offsets(consumer, 10):
            if ranges[0].wants(offset):
                ranges[0].handled(offset)
        assert consumer.position([TopicPartition(topic, 0)])[0].offset == 10, "the fetch went past the stop"
        assert [(tp.partition, tp.offset) for tp in positions(CursorView(consumer, ranges))] == [(0, 6)]
        assert ranges[0].done
    finally:
        consumer.close()


def test_rewind_moves_the_cursor_and_the_consumer_back_to_the_committed_offset(kafka_connection, topic_factory, group_id):
    topic = topic_factory()
    fill(kafka_connection, topic, 10)
    consumer = make_consumer(kafka_connection, group_id)
    ranges = {0: PartitionRange(topic, 0, low=0, start=0, stop=10)}
    view = CursorView(consumer, ranges)
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        for offset in consume_offsets(consumer, 4):
            ranges[0].handled(offset)
        consumer.commit(offsets=[TopicPartition(topic, 0, 4)], asynchronous=False)
        for offset in consume_offsets(consumer, 6):
            ranges[0].handled(offset)
        ranges[0].closed = True
        assert ranges[0].done

        rewind(view, 30)  # what ExactlyOnce does after an aborted transaction
        assert ranges[0].cursor == 4 and not ranges[0].done
        assert consume_offsets(consumer, 6) == [4, 5, 6, 7, 8, 9], "the aborted records are read again"
    finally:
        consumer.close()


def test_rewind_without_a_committed_offset_goes_back_to_the_low_watermark(kafka_connection, topic_factory, group_id):
    topic = topic_factory()
    fill(kafka_connection, topic, 3)
    consumer = make_consumer(kafka_connection, group_id)
    ranges = {0: PartitionRange(topic, 0, low=0, start=0, stop=3)}
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        for offset in consume_offsets(consumer, 3):
            ranges[0].handled(offset)
        rewind(CursorView(consumer, ranges), 30)
        assert ranges[0].cursor == 0
        assert consume_offsets(consumer, 3) == [0, 1, 2]
    finally:
        consumer.close()
