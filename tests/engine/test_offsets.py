"""The processor's positions only move forward between the engine's own seeks (``ConsumerPositions``)."""

from __future__ import annotations

from confluent_kafka import TopicPartition

from consumer.engine import ConsumerPositions
from consumer.kafka import make_consumer


def test_records_read_again_without_the_engines_seek_are_not_admitted_twice(
    kafka_connection, topics, group_id, engine_helpers, consume
):
    """A seek the engine asked for before its partitions were lost took effect after they came back (a
    five-minute outage): the partition's first batch was read, and written, twice.  Whatever moves the
    consumer back, a record admitted since the last assignment or seek is not admitted again, and a
    batch never commits an offset below it; the engine's own seek reads again from where it says."""
    engine_helpers.produce_landing(kafka_connection, topics["landing"], count=5)
    consumer = make_consumer(kafka_connection, group_id)
    consumer.assign([TopicPartition(topics["landing"], 0, 0)])
    positions = ConsumerPositions.of(consumer)
    try:
        first = consume(consumer, lambda messages: len(messages) >= 5)
        assert [positions.admit(m) for m in first] == [True] * 5

        consumer.seek(TopicPartition(topics["landing"], 0, 0))  # not the engine's: a stray seek
        assert [(tp.partition, tp.offset) for tp in positions.positions()] == [(0, 5)]
        again = consume(consumer, lambda messages: len(messages) >= 5)
        assert [m.offset() for m in again] == [0, 1, 2, 3, 4]
        assert [positions.admit(m) for m in again] == [False] * 5
        assert [(tp.partition, tp.offset) for tp in positions.positions()] == [(0, 5)]

        positions.seek(TopicPartition(topics["landing"], 0, 3))  # the engine's rewind
        rewound = consume(consumer, lambda messages: len(messages) >= 2)
        assert [(m.offset(), positions.admit(m)) for m in rewound] == [(3, True), (4, True)]
    finally:
        consumer.close()
