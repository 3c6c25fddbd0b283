"""The replay cursor as the batch engine's offsets: positions from the cursor, rewind to the commit, the end."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import TopicPartition

from consumer.engine import rewind
from consumer.kafka import make_consumer, make_producer
from consumer.replay.cursor import PartitionRange, ReplayCursor


class NoRebalance:
    def on_assign(self, consumer, partitions):
        self.assigned = partitions

    def on_revoke(self, consumer, partitions):
        pass

    def on_lost(self, consumer, partitions):
        pass


def fill(kafka_connection, topic: str, n: int) -> None:
    producer = make_producer(kafka_connection)
    for i in range(n):
        producer.produce(topic, f"v{i}".encode(), f"k{i}".encode())
    assert producer.flush(30) == 0


def read(consumer, cursor: ReplayCursor, want: int) -> list[int]:
    """Offsets of the next *want* records the consumer returns, each offered to the cursor as the engine does."""
    offsets: list[int] = []
    deadline = time.monotonic() + 30
    while len(offsets) < want:
        assert time.monotonic() < deadline, f"only {len(offsets)} of {want} messages"
        for message in consumer.consume(want, 0.5):
            if message.error() is None:
                offsets.append(message.offset())
                cursor.admit(message)
            else:
                cursor.at_end(message.topic(), message.partition(), message.offset())
    return offsets


def assigned_cursor(consumer, topic: str, stop: int) -> ReplayCursor:
    """A cursor over partition 0 of *topic*, [0, stop), assigned (as a dry run does)."""
    cursor = ReplayCursor(topic, lambda _: {0: PartitionRange(topic, 0, low=0, start=0, stop=stop)}, subscribe=False)
    cursor.attach(consumer, NoRebalance())
    return cursor


def test_positions_are_the_cursor_not_the_fetch_position(kafka_connection, topic_factory, group_id):
    topic = topic_factory()
    fill(kafka_connection, topic, 10)
    consumer = make_consumer(kafka_connection, group_id)
    try:
        cursor = assigned_cursor(consumer, topic, stop=6)
        assert not cursor.exhausted()
        read(consumer, cursor, 6)
        assert [(tp.partition, tp.offset) for tp in cursor.positions()] == [(0, 6)]
        assert cursor.exhausted()
    finally:
        consumer.close()


def test_rewind_moves_the_cursor_and_the_consumer_back_to_the_committed_offset(kafka_connection, topic_factory, group_id):
    topic = topic_factory()
    fill(kafka_connection, topic, 10)
    consumer = make_consumer(kafka_connection, group_id)
    try:
        cursor = assigned_cursor(consumer, topic, stop=10)
        read(consumer, cursor, 4)
        consumer.commit(offsets=[TopicPartition(topic, 0, 4)], asynchronous=False)
        read(consumer, cursor, 6)
        assert cursor.exhausted()

        rewind(consumer, cursor, 30)  # what the engine does after an aborted transaction
        assert cursor.ranges[0].cursor == 4 and not cursor.exhausted()
        assert read(consumer, cursor, 6) == [4, 5, 6, 7, 8, 9], "the aborted records are read again"
    finally:
        consumer.close()


def test_rewind_without_a_committed_offset_goes_back_to_the_low_watermark(kafka_connection, topic_factory, group_id):
    topic = topic_factory()
    fill(kafka_connection, topic, 3)
    consumer = make_consumer(kafka_connection, group_id)
    try:
        cursor = assigned_cursor(consumer, topic, stop=3)
        read(consumer, cursor, 3)
        rewind(consumer, cursor, 30)
        assert cursor.ranges[0].cursor == 0
        assert read(consumer, cursor, 3) == [0, 1, 2]
    finally:
        consumer.close()


def test_closing_ends_the_run_and_a_rewind_opens_it_again(kafka_connection, topic_factory, group_id):
    topic = topic_factory()
    fill(kafka_connection, topic, 5)
    consumer = make_consumer(kafka_connection, group_id)
    try:
        cursor = assigned_cursor(consumer, topic, stop=5)
        read(consumer, cursor, 2)
        cursor.close()  # --max reached
        assert cursor.exhausted() and [tp.offset for tp in cursor.positions()] == [2]
        rewind(consumer, cursor, 30)  # the batch that reached it was aborted
        assert not cursor.exhausted()
    finally:
        consumer.close()


def test_a_member_is_done_once_it_held_partitions_and_read_each_to_its_stop(kafka_connection, topic_factory, group_id):
    topic = topic_factory(partitions=2)
    fill(kafka_connection, topic, 4)  # all to one partition or spread: the cursor does not care
    consumer = make_consumer(kafka_connection, group_id, extra={"enable.partition.eof": True})

    def plan(planning_consumer):
        ranges = {}
        for p in (0, 1):
            low, high = planning_consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=30, cached=False)
            if low < high:
                ranges[p] = PartitionRange(topic, p, low, low, high)
        return ranges

    rebalance = NoRebalance()
    cursor = ReplayCursor(topic, plan, subscribe=True)
    try:
        cursor.attach(consumer, rebalance)
        assert not cursor.exhausted(), "no partition held yet: not done"
        deadline = time.monotonic() + 60
        while not cursor.exhausted():
            assert time.monotonic() < deadline, "never read to the end"
            for message in consumer.consume(10, 0.5):  # as the engine offers them
                if message.error() is None:
                    cursor.admit(message)
                else:
                    cursor.at_end(message.topic(), message.partition(), message.offset())
        assert sorted(tp.partition for tp in rebalance.assigned) == [0, 1]
        assert {tp.partition: tp.offset for tp in cursor.positions()} == {p: r.stop for p, r in cursor.ranges.items()}
    finally:
        consumer.close()



@pytest.fixture
def joined(kafka_connection, topic_factory, group_id):
    """(cursor, consumer, partitions): a subscribed cursor over two partitions, [0, 100) each, whose member has
    been assigned both, its rebalance callbacks called as librdkafka calls them."""
    topic = topic_factory(partitions=2)
    consumer = make_consumer(kafka_connection, group_id)
    cursor = ReplayCursor(
        topic, lambda _: {p: PartitionRange(topic, p, low=0, start=0, stop=100) for p in (0, 1)}, subscribe=True
    )
    try:
        cursor.attach(consumer, NoRebalance())
        held = [TopicPartition(topic, 0), TopicPartition(topic, 1)]
        cursor._on_assign(consumer, held)
        yield cursor, consumer, held
    finally:
        consumer.close()


def test_a_member_that_lost_its_partitions_is_not_done_until_it_is_assigned_again(joined):
    # A stall past max.poll.interval.ms or a broker restart loses the partitions: nobody else holds
    # them, the member rejoins and gets them back. Holding nothing meanwhile is not being done (the
    # run used to end there: 290 of 3000 records released, "replay finished", no error).
    cursor, consumer, held = joined
    assert not cursor.exhausted()
    cursor._on_lost(consumer, held)
    assert cursor.assignment() == []
    assert not cursor.exhausted(), "lost partitions come back: not done"
    cursor._on_assign(consumer, held)
    assert not cursor.exhausted(), "assigned again, nothing read yet"
    for found in cursor.ranges.values():
        found.reached_end = True
    assert cursor.exhausted()


def test_a_member_whose_partitions_went_to_another_member_is_done(joined):
    # Revoked (not lost): another member holds them now and reads them; this one has nothing left to do.
    cursor, consumer, held = joined
    cursor._on_revoke(consumer, held)
    assert cursor.assignment() == [] and cursor.exhausted()
