"""Exactly-once building blocks: transactional output plus consumer offsets, seen by read_committed readers."""

from __future__ import annotations

from confluent_kafka import OFFSET_INVALID, TopicPartition

from consumer.kafka import make_consumer, make_producer


def _consume_input(kafka_connection, topic, group_id, consume, count):
    consumer = make_consumer(kafka_connection, group_id)
    consumer.subscribe([topic])
    messages = consume(consumer, lambda got: len(got) >= count)
    return consumer, messages


def test_committed_transaction_publishes_output_and_offsets_together(
    kafka_connection, topic_factory, group_id, transactional_id, consume
):
    source, sink = topic_factory(), topic_factory()
    plain = make_producer(kafka_connection)
    for i in range(3):
        plain.produce(source, value=b"raw-%d" % i)
    assert plain.flush(60) == 0

    consumer, inputs = _consume_input(kafka_connection, source, group_id, consume, 3)
    producer = make_producer(kafka_connection, transactional_id=transactional_id)
    producer.init_transactions(60)
    producer.begin_transaction()
    for message in inputs:
        producer.produce(sink, value=message.value().replace(b"raw", b"clean"))
    producer.send_offsets_to_transaction(
        consumer.position(consumer.assignment()), consumer.consumer_group_metadata(), 60
    )
    producer.commit_transaction(60)
    consumer.close()

    reader = make_consumer(kafka_connection, f"{group_id}-reader")
    reader.subscribe([sink])
    try:
        outputs = consume(reader, lambda got: len(got) >= 3)
        committed = reader.committed([TopicPartition(source, 0)], timeout=30)
    finally:
        reader.close()
    assert [m.value() for m in outputs] == [b"clean-0", b"clean-1", b"clean-2"]
    # The offsets went in through the transaction, under the processing group (not the reader's).
    assert committed[0].offset == OFFSET_INVALID  # the reader's own group has nothing for the source
    checker = make_consumer(kafka_connection, group_id)
    try:
        [position] = checker.committed([TopicPartition(source, 0)], timeout=30)
    finally:
        checker.close()
    assert position.offset == 3


def test_aborted_transaction_is_invisible_to_read_committed(
    kafka_connection, topic_factory, group_id, transactional_id, consume
):
    sink = topic_factory()
    producer = make_producer(kafka_connection, transactional_id=transactional_id)
    producer.init_transactions(60)
    producer.begin_transaction()
    producer.produce(sink, value=b"aborted")
    producer.flush(60)  # the record reaches the log before the abort
    producer.abort_transaction(60)
    producer.begin_transaction()
    producer.produce(sink, value=b"committed")
    producer.commit_transaction(60)

    committed_reader = make_consumer(kafka_connection, f"{group_id}-rc")
    committed_reader.subscribe([sink])
    uncommitted_reader = make_consumer(kafka_connection, f"{group_id}-ru", isolation_level="read_uncommitted")
    uncommitted_reader.subscribe([sink])
    try:
        # Reading up to the committed marker record means everything before it has been seen too.
        seen_committed = consume(committed_reader, lambda got: any(m.value() == b"committed" for m in got))
        seen_uncommitted = consume(uncommitted_reader, lambda got: any(m.value() == b"committed" for m in got))
    finally:
        committed_reader.close()
        uncommitted_reader.close()
    assert [m.value() for m in seen_committed] == [b"committed"]
    # The aborted record was written: a read_uncommitted reader sees it.
    assert [m.value() for m in seen_uncommitted] == [b"aborted", b"committed"]
