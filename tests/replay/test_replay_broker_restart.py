"""A broker restart mid-replay: the run survives it and releases every record exactly once.

The module owns its broker (restarting the session's would disturb other
tests).  Quarantine records are written directly (as the processor would have
written them), then a replay runs in a thread while the broker restarts.
Mirrors tests/processor/test_crash_recovery.py's broker-restart test.
"""

from __future__ import annotations

import threading
import time
from collections import Counter

from fresh_topics import fresh_topics

from consumer.decoding import OverrideTable
from consumer.kafka import KafkaConnection, make_producer
from consumer.processor.records import Origin, quarantine_record
from consumer.processor.route import QUARANTINE, Router
from consumer.replay import Replayer, ReplayOptions
from consumer.serialization.avro import AvroDeserializer, AvroSerializer
from consumer.serialization.serde import build_serde
from consumer.settings import Settings

from replay_helpers import damaged_utf8_page, end_offsets, raw, read_all

RECORDS = 3000


def quarantine_directly(connection: KafkaConnection, store, topics: dict[str, str], n: int) -> list[bytes]:
    """*n* lossy pages quarantined as the processor writes them (key, headers, the raw record); their keys."""
    serialize = AvroSerializer(store, "QuarantinedResponse")
    producer = make_producer(connection)
    keys = []
    for i in range(n):
        key = f"b{i}".encode()
        record = quarantine_record(
            reason="lossy",
            origin=Origin(topics["landing"], 0, i, None),
            quarantined_at_ms=int(time.time() * 1000),
            raw=raw(*damaged_utf8_page(i, 1 + i % 3)),
            key=key,
            kafka_headers=[("trace", key)],
        )
        while True:
            try:
                producer.produce(topics["quarantine"], serialize(record), key, headers=[("trace", key)])
                break
            except BufferError:
                producer.poll(0.1)
        keys.append(key)
    assert producer.flush(60) == 0
    return keys


def test_broker_restart_mid_replay_releases_each_record_exactly_once(own_broker, store, tmp_path):
    connection = KafkaConnection(own_broker.bootstrap_servers)
    topics, suffix = fresh_topics(connection, partitions=3)
    keys = quarantine_directly(connection, store, topics, RECORDS)
    settings = Settings(
        landing_topic=topics["landing"],
        clean_topic=topics["clean"],
        quarantine_topic=topics["quarantine"],
        group_id=f"group-{suffix}",
        transactional_id=f"txn-{suffix}",
        http_port=0,
        overrides_path=str(tmp_path / "none.yaml"),
        batch_size=10,
        batch_timeout_ms=100,
        shutdown_timeout_s=10,
    )
    replayer = Replayer(
        settings,
        connection,
        ReplayOptions(group_id=f"group-{suffix}-replay", transactional_id=f"txn-{suffix}-replay", batch_size=10),
        serde=build_serde(settings),
        router=Router(max_body_bytes=settings.max_body_bytes, replacement_threshold=3, non_text=QUARANTINE),
        overrides=OverrideTable(),
    )
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["summary"] = replayer.run()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while sum(end_offsets(connection, topics["clean"]).values()) < 300 and thread.is_alive():
        assert time.monotonic() < deadline, "the replay released nothing"
        time.sleep(0.2)  # polling the clean topic's end, bounded by the deadline
    assert thread.is_alive(), f"the replay ended before the restart: use more records {outcome!r}"
    own_broker.restart()
    thread.join(300)
    assert not thread.is_alive(), "the replay did not end after the broker restart"
    assert "error" not in outcome, f"the replay ended with {outcome.get('error')!r}"
    assert not replayer.interrupted
    assert outcome["summary"].released == RECORDS, "the summary counts each record once"
    released = read_all(connection, topics["clean"], AvroDeserializer(store, "DecodedResponse"), timeout=120)
    assert Counter(r["key"] for r in released) == Counter(keys), "every record exactly once"
