"""On the real broker: every landing record ends in clean, quarantine or a counted skip, and a skipped
record's offset is committed with its batch."""

from __future__ import annotations

from confluent_kafka import TopicPartition

from consumer.kafka import KafkaConnection, make_consumer, make_producer
from consumer.samples import binary_samples
from consumer.serialization.avro import AvroSerializer

BINARY = {s.name: s for s in binary_samples()}
PNG, PDF = BINARY["png-image"].body, BINARY["pdf-as-octet-stream"].body
#: (Content-Type, body, media type family of the skip).
KINDS = [
    ("image/png", PNG, "image"),
    (None, PNG, "image"),  # sniffed
    ("application/octet-stream", PDF, "application"),
    ("text/plain", b"core dump\x00\x01\x02", "application"),  # application/octet-stream
]


def binary_items(raw, n: int, prefix: str = "bin") -> list[tuple[bytes, dict, str]]:
    """*n* (key, record, family) of responses that are not text."""
    items = []
    for i in range(n):
        content_type, body, family = KINDS[i % len(KINDS)]
        items.append((f"{prefix}-{i}".encode(), raw(f"https://cdn.example.com/{i}", body, content_type), family))
    return items


def skipped(app, family: str) -> float:
    value = app.metrics.registry.get_sample_value(
        "crawl_decoder_skipped_total", {"reason": "not-text", "media_family": family}
    )
    return value or 0.0


def produce_to_partitions(connection: KafkaConnection, store, topic: str, items, partitions: int) -> None:
    """Produce *items* round robin over the partitions: each partition's last records are these."""
    serialize = AvroSerializer(store, "RawResponse")
    producer = make_producer(connection)
    for i, (key, record, _) in enumerate(items):
        producer.produce(topic, serialize(record), key, partition=i % partitions, headers=[("trace", key)])
    assert producer.flush(30) == 0


def committed_and_end(connection: KafkaConnection, group_id: str, topic: str) -> dict[int, tuple[int, int]]:
    """Per partition of *topic*: the group's committed offset and the end offset."""
    consumer = make_consumer(connection, group_id)  # never subscribes: reads offsets, does not join the group
    try:
        metadata = consumer.list_topics(topic, timeout=10)
        partitions = [TopicPartition(topic, p) for p in metadata.topics[topic].partitions]
        committed = consumer.committed(partitions, timeout=10)
        return {tp.partition: (tp.offset, consumer.get_watermark_offsets(tp, timeout=10)[1]) for tp in committed}
    finally:
        consumer.close()


def test_every_landing_record_ends_in_clean_quarantine_or_a_counted_skip(
    settings_for, produce, read_outputs, running_app, topics, raw, mixed_corpus, helpers, kafka_connection, store
):
    text = mixed_corpus(300, seed=11)
    binary = binary_items(raw, 24)
    produce(topics["landing"], text[:150])
    produce(topics["landing"], [(key, record) for key, record, _ in binary[:12]])
    produce(topics["landing"], text[150:])
    # The last records of every partition are skipped ones: their offsets must be committed too.
    produce_to_partitions(kafka_connection, store, topics["landing"], binary[12:], partitions=3)
    settings = settings_for(batch_size=40)
    app = running_app(settings)

    found = read_outputs(len(text))
    helpers.assert_exactly_once(found, text)  # every text record once, and no binary one written anywhere
    families = {"image": 0, "application": 0}
    for _, _, family in binary:
        families[family] += 1
    # Counted once their batch commits, like every metric.
    helpers.wait_for(lambda: sum(skipped(app, f) for f in families) == len(binary), "every binary record counted")
    assert {family: skipped(app, family) for family in families} == families
    assert app.metrics.registry.get_sample_value("crawl_decoder_quarantined_total", {"reason": "not-text"}) is None
    def consumed() -> bool:
        offsets = committed_and_end(kafka_connection, settings.group_id, topics["landing"])
        return all(offset == end for offset, end in offsets.values())

    helpers.wait_for(consumed, "the group's committed offsets past the skipped records that end each partition")


def test_a_batch_of_nothing_but_binary_commits_its_offsets_and_writes_nothing(
    settings_for, running_app, topics, raw, helpers, kafka_connection, store
):
    binary = binary_items(raw, 9, prefix="only")
    produce_to_partitions(kafka_connection, store, topics["landing"], binary, partitions=3)
    settings = settings_for()
    app = running_app(settings)
    everything = dict.fromkeys(range(3), (3, 3))
    helpers.wait_for(
        lambda: committed_and_end(kafka_connection, settings.group_id, topics["landing"]) == everything,
        "offsets committed for a batch with no output",
    )
    helpers.wait_for(lambda: skipped(app, "image") + skipped(app, "application") == 9, "every skip counted")
    assert helpers.output_offsets(kafka_connection, topics) == 0, "nothing written to clean or quarantine"


def test_the_quarantine_policy_quarantines_them_as_not_text(
    settings_for, produce, read_outputs, running_app, topics, raw, helpers
):
    binary = binary_items(raw, 8, prefix="q")
    pages = [
        (f"page-{i}".encode(), raw(f"https://example.com/{i}", f"<p>Seite {i}: Grüße</p>".encode())) for i in range(8)
    ]
    items = pages + [(key, record) for key, record, _ in binary]
    produce(topics["landing"], items)
    app = running_app(settings_for(non_text="quarantine"))

    found = read_outputs(len(items))
    helpers.assert_exactly_once(found, items)
    by_key = found.by_key()
    for key, record, _ in binary:
        where, written = by_key[key]
        assert (where, written["reason"]) == ("quarantine", "not-text")
        assert written["raw"]["body"] == record["body"] and written["attempt"] is None
    assert all(by_key[key][0] == "clean" for key, _ in pages)
    helpers.wait_for(
        lambda: app.metrics.registry.get_sample_value("crawl_decoder_quarantined_total", {"reason": "not-text"}) == 8,
        "not-text quarantines counted",
    )
    assert skipped(app, "image") == skipped(app, "application") == 0
