"""Crashes and broker restarts mid-stream: afterwards every landing record is in an output.

The SIGKILL test runs ``crawl-decoder run`` as a child process and kills it
without warning several times; each restart uses the same transactional.id so
it fences its predecessor and aborts the transaction it left open.  The
broker-restart tests own a broker of their own (the session's is shared): in
exactly-once mode every record lands exactly once; in at-least-once mode none
is lost and a duplicate is only ever a re-write of the same record.
"""

from __future__ import annotations

import signal
import socket
import threading
import time
import uuid

import pytest
from confluent_kafka import TopicPartition
from running_app import RunningApp

from consumer.app import App
from consumer.devbroker import LocalBroker
from consumer.engine import ConsumerPositions, EngineFatalError, ExactlyOnce, Interrupted, rewind
from consumer.engine.policies import unwatched
from consumer.kafka import KafkaConnection, ensure_topics, make_admin, make_consumer, make_producer
from consumer.settings import Settings

RECORDS = 4000
KILL_AFTER = (600, 1600, 2600)  # output offsets reached before each SIGKILL


def test_sigkill_mid_stream_several_times_then_exactly_once(
    processor_env, spawn_processor, produce, read_outputs, topics, kafka_connection, mixed_corpus, helpers, transactional_id
):
    items = mixed_corpus(RECORDS, seed=11)
    produce(topics["landing"], items)
    env = processor_env(batch_size=50, group_instance_id=transactional_id)  # static membership, as the chart runs it
    for threshold in KILL_AFTER:
        process = spawn_processor(env)
        helpers.wait_for(
            lambda threshold=threshold, process=process: (
                helpers.output_offsets(kafka_connection, topics) >= threshold or process.popen.poll() is not None
            ),
            f"output past {threshold} offsets",
            timeout=180,
        )
        assert process.popen.poll() is None, f"processor exited early:\n{process.log()[-3000:]}"
        process.signal(signal.SIGKILL)
        assert process.wait(30) == -signal.SIGKILL
    final = spawn_processor(env)
    found = read_outputs(len(items), timeout=300, settle=5)
    assert final.popen.poll() is None, f"the last processor died:\n{final.log()[-3000:]}"
    helpers.assert_exactly_once(found, items)
    poison = {k for k, v in items if isinstance(v, bytes)}
    assert {r["key"] for r in found.quarantine if r["reason"] in ("unreadable-record", "unknown-schema")} == poison
    assert any(r["reason"] == "lossy" for r in found.quarantine), "the corpus has lossy pages"


#: librdkafka's default session.timeout.ms: how long the group waits for a member that stopped heartbeating.
SESSION_TIMEOUT_S = 45


def test_a_restarted_static_member_takes_its_partitions_back_at_once(processor_env, spawn_processor, helpers, transactional_id):
    """A dynamic member restarted after a SIGKILL waited 42-45 s for its partitions: the group waited out the
    dead member's session. With group.instance.id (the pod name in the chart) the restarted instance is that
    member again and gets its partitions without a rebalance."""
    env = processor_env(group_instance_id=transactional_id)
    first = spawn_processor(env)
    _wait_assigned(first, helpers)
    first.signal(signal.SIGKILL)
    assert first.wait(30) == -signal.SIGKILL
    restarted_at = time.monotonic()
    second = spawn_processor(env)
    _wait_assigned(second, helpers)
    gap = time.monotonic() - restarted_at
    print(f"partitions assigned {gap:.1f} s after the restart (a dynamic member: {SESSION_TIMEOUT_S} s)")
    assert gap < SESSION_TIMEOUT_S * 2 / 3, f"took {gap:.1f} s: the session of the killed member was waited out"


def _wait_assigned(process, helpers) -> None:
    helpers.wait_for(
        lambda: any(e.get("event") == "partitions assigned" for e in process.events()) or process.popen.poll() is not None,
        "partitions assigned",
        timeout=120,
    )
    assert process.popen.poll() is None, f"processor exited:\n{process.log()[-3000:]}"


# -- broker restart ---------------------------------------------------------------


def test_broker_restart_mid_stream_is_survived_exactly_once(own_broker, store, mixed_corpus, tmp_path, helpers):
    connection = KafkaConnection(own_broker.bootstrap_servers)
    suffix = uuid.uuid4().hex
    topics = {"landing": f"landing-{suffix}", "clean": f"clean-{suffix}", "quarantine": f"quarantine-{suffix}"}
    ensure_topics(make_admin(connection), list(topics.values()), partitions=3)
    items = mixed_corpus(3000, seed=5)
    helpers.produce_records(connection, store, topics["landing"], items)
    settings = _restart_settings(topics, suffix, tmp_path, transactional_id=f"txn-{suffix}")
    running = RunningApp(App(settings, connection))
    try:
        helpers.wait_for(lambda: helpers.output_offsets(connection, topics) >= 500 or not running.thread.is_alive(), "output started")
        assert running.error is None and running.thread.is_alive()
        own_broker.restart()
        assert running.thread.is_alive(), f"the processor died during the broker restart: {running.error!r}"
        found = helpers.read_committed_outputs(connection, store, topics, len(items), timeout=300, settle=5)
        assert running.error is None and running.thread.is_alive(), f"processor died: {running.error!r}"
    finally:
        running.stop(60)
    running.assert_stopped_cleanly()
    helpers.assert_exactly_once(found, items)


def _refuses_connections(broker: LocalBroker) -> bool:
    host, _, port = broker.bootstrap_servers.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=1).close()
    except OSError:
        return True
    return False


def test_rewind_waits_for_the_committed_offsets_through_a_broker_restart(own_broker, helpers):
    """A batch fails over to a rewind exactly when the broker has gone away. A rewind that asked for
    the committed offsets once, for its timeout, ended the processor in a CI run whose broker took
    longer than that to restart; it now asks again until the broker answers (within its patience)."""
    connection = KafkaConnection(own_broker.bootstrap_servers)
    topic = f"rewind-{uuid.uuid4().hex}"
    ensure_topics(make_admin(connection), [topic])
    producer = make_producer(connection)
    for i in range(10):
        producer.produce(topic, f"v{i}".encode(), f"k{i}".encode())
    assert producer.flush(30) == 0
    consumer = make_consumer(connection, f"group-{uuid.uuid4().hex}")
    consumer.assign([TopicPartition(topic, 0, 0)])
    read = []
    helpers.wait_for(lambda: read.extend(consumer.consume(10, 0.5)) or len(read) >= 10, "the ten records read")
    consumer.commit(offsets=[TopicPartition(topic, 0, 4)], asynchronous=False)
    restarting = threading.Thread(target=own_broker.restart)
    restarting.start()
    try:
        helpers.wait_for(lambda: _refuses_connections(own_broker), "the broker stopped", every=0.05)
        positions = ConsumerPositions.of(consumer)
        with pytest.raises(EngineFatalError, match="cannot read committed offsets"):
            rewind(consumer, positions, timeout=0.2, patience=0)  # a JVM cannot be back within 0.2 s
        rewind(consumer, positions, timeout=1.0, patience=120)
    finally:
        restarting.join()
    again = []
    helpers.wait_for(lambda: again.extend(consumer.consume(1, 0.5)) or again, "a record after the rewind")
    assert again[0].offset() == 4
    consumer.close()


def test_init_transactions_waits_through_a_broker_restart_and_sigterm_interrupts_the_wait(own_broker, helpers):
    """Under load a broker restart ended the processor: the producer replaced after a failed batch timed
    out in init_transactions ("retry call to resume") and that was fatal. Every transactional call now
    retries for the rewind's patience, and a stop (SIGTERM) ends the wait at once."""
    connection = KafkaConnection(own_broker.bootstrap_servers)
    restarting = threading.Thread(target=own_broker.restart)
    restarting.start()
    try:
        helpers.wait_for(lambda: _refuses_connections(own_broker), "the broker stopped", every=0.05)
        stopped: list[str] = []
        stopping = ExactlyOnce(
            make_producer(connection, transactional_id=f"txn-{uuid.uuid4().hex}"),
            timeout=0.5,
            on_result=stopped.append,
            stopping=lambda: True,
        )
        with pytest.raises(Interrupted, match="init_transactions"):
            stopping.start(unwatched)
        assert stopped == [], "no retry once stopping"
        results: list[str] = []
        patient = ExactlyOnce(
            make_producer(connection, transactional_id=f"txn-{uuid.uuid4().hex}"),
            timeout=1.0,
            patience=120,
            on_result=results.append,
        )
        patient.start(unwatched)  # returns once the broker is back (a JVM restart takes seconds: retried)
    finally:
        restarting.join()
    assert "retried" in results


#: Stamped when a record is (re-)processed, so a re-written duplicate legitimately differs there alone.
PROCESSING_STAMPS = ("decoded_at", "quarantined_at")


def _input_consumed(connection: KafkaConnection, group_id: str, topic: str) -> bool:
    """Whether *group_id* has committed the end offset of every partition of *topic*."""
    consumer = make_consumer(connection, group_id)  # never subscribes: reads offsets, does not join the group
    try:
        partitions = [TopicPartition(topic, p) for p in consumer.list_topics(topic, timeout=10).topics[topic].partitions]
        committed = consumer.committed(partitions, timeout=10)
        ends = [consumer.get_watermark_offsets(tp, timeout=10)[1] for tp in partitions]
        return all(end == 0 or tp.offset >= end for tp, end in zip(committed, ends, strict=True))  # an empty partition has nothing to commit
    finally:
        consumer.close()


def _assert_at_least_once(found, items) -> None:
    """Every input key in clean or quarantine; a key written twice is the same record both times."""
    copies: dict[bytes, list[tuple[str, dict]]] = {}
    for destination, records in (("clean", found.clean), ("quarantine", found.quarantine)):
        for record in records:
            copies.setdefault(record["key"], []).append((destination, record))
    missing = {k for k, _ in items} - copies.keys()
    assert not missing, f"{len(missing)} keys missing, e.g. {sorted(missing)[:5]}"
    unexpected = copies.keys() - {k for k, _ in items}
    assert not unexpected, f"{len(unexpected)} keys that were never produced, e.g. {sorted(unexpected)[:5]}"
    for key, written in copies.items():
        first_destination, first = written[0]
        expected = {f: v for f, v in first.items() if f not in PROCESSING_STAMPS}
        for destination, record in written[1:]:
            assert destination == first_destination, f"{key!r} written to both {first_destination} and {destination}"
            assert {f: v for f, v in record.items() if f not in PROCESSING_STAMPS} == expected, (
                f"{key!r} written twice with different values"
            )


def test_broker_restart_mid_stream_is_survived_at_least_once(own_broker, store, mixed_corpus, tmp_path, helpers):
    connection = KafkaConnection(own_broker.bootstrap_servers)
    suffix = uuid.uuid4().hex
    topics = {"landing": f"landing-{suffix}", "clean": f"clean-{suffix}", "quarantine": f"quarantine-{suffix}"}
    ensure_topics(make_admin(connection), list(topics.values()), partitions=3)
    items = mixed_corpus(3000, seed=6)
    before, after = items[:2000], items[2000:]
    helpers.produce_records(connection, store, topics["landing"], before)
    settings = _restart_settings(topics, suffix, tmp_path, processing_mode="at-least-once")
    running = RunningApp(App(settings, connection))
    try:
        helpers.wait_for(lambda: helpers.output_offsets(connection, topics) >= 500 or not running.thread.is_alive(), "output started")
        assert running.error is None and running.thread.is_alive()
        own_broker.restart()
        assert running.thread.is_alive(), f"the processor died during the broker restart: {running.error!r}"
        # Records that exist only after the restart cannot have been processed before it.
        helpers.produce_records(connection, store, topics["landing"], after)
        # Offsets are committed only after the batch's output is flushed: once they reach the
        # landing topic's end, everything the processor will write is already in the outputs.
        helpers.wait_for(
            lambda: _input_consumed(connection, settings.group_id, topics["landing"]) or not running.thread.is_alive(),
            "landing topic consumed and committed",
            timeout=300,
        )
        assert running.error is None and running.thread.is_alive(), f"processor died: {running.error!r}"
        found = helpers.read_committed_outputs(connection, store, topics, len(items), timeout=300, settle=5)
    finally:
        running.stop(60)
    running.assert_stopped_cleanly()
    _assert_at_least_once(found, items)
    poison = {k for k, v in items if isinstance(v, bytes)}
    assert {r["key"] for r in found.quarantine if r["reason"] in ("unreadable-record", "unknown-schema")} == poison


def _restart_settings(topics, suffix: str, tmp_path, **extra) -> Settings:
    """Small batches and a short shutdown bound, so a restart lands mid-stream and tests end quickly."""
    return Settings(
        landing_topic=topics["landing"],
        clean_topic=topics["clean"],
        quarantine_topic=topics["quarantine"],
        group_id=f"group-{suffix}",
        http_port=0,
        overrides_path=str(tmp_path / "none.yaml"),
        batch_size=50,
        batch_timeout_ms=100,
        shutdown_timeout_s=10,
        **extra,
    )
