"""SIGTERM: the processor finishes or aborts its batch, leaves the group and exits 0 within its bound."""

from __future__ import annotations

import signal
import time

from consumer.kafka import make_admin

SHUTDOWN_TIMEOUT_S = 10
#: Process start-up (imports) is not part of the shutdown bound, but the exit is measured from the signal.
SLACK_S = 10


def group_members(connection, group_id: str) -> list:
    admin = make_admin(connection)  # kept referenced until the answer: a dropped client purges its requests
    description = admin.describe_consumer_groups([group_id], request_timeout=20)[group_id].result(timeout=30)
    return list(description.members)


def test_sigterm_mid_stream_exits_0_leaves_the_group_and_loses_nothing(
    processor_env, spawn_processor, produce, read_outputs, topics, kafka_connection, group_id, mixed_corpus, helpers
):
    items = mixed_corpus(3000, seed=23)
    produce(topics["landing"], items)
    env = processor_env(batch_size=50, shutdown_timeout_s=SHUTDOWN_TIMEOUT_S)
    first = spawn_processor(env)
    helpers.wait_for(
        lambda: helpers.output_offsets(kafka_connection, topics) >= 500 or first.popen.poll() is not None,
        "output past 500 offsets",
    )
    assert first.popen.poll() is None, first.log()[-3000:]
    assert group_members(kafka_connection, group_id), "the running processor is a member of its group"

    first.signal(signal.SIGTERM)
    assert first.wait(SHUTDOWN_TIMEOUT_S + SLACK_S) == 0, first.log()[-3000:]
    events = [e.get("event") for e in first.events()]
    assert "processor stopped" in events
    assert "waiting for Kafka" not in events, "a healthy broker is never reported waited for"
    assert not any(e.get("level") == "error" for e in first.events()), first.log()[-3000:]
    assert group_members(kafka_connection, group_id) == [], "the consumer left its group on the way out"

    second = spawn_processor(env)
    found = read_outputs(len(items), timeout=180, settle=5)
    helpers.assert_exactly_once(found, items)
    second.signal(signal.SIGTERM)
    assert second.wait(SHUTDOWN_TIMEOUT_S + SLACK_S) == 0, second.log()[-3000:]


def test_sigterm_when_idle_exits_0(processor_env, spawn_processor, kafka_connection, group_id, helpers):
    process = spawn_processor(processor_env(shutdown_timeout_s=SHUTDOWN_TIMEOUT_S))
    helpers.wait_for(
        lambda: "partitions assigned" in process.log() or process.popen.poll() is not None, "partitions assigned"
    )
    assert process.popen.poll() is None, process.log()[-3000:]
    time.sleep(20)  # idle past a lag reading or two (every 15 s): an idle healthy processor says it waits for nothing
    process.signal(signal.SIGTERM)
    assert process.wait(SHUTDOWN_TIMEOUT_S + SLACK_S) == 0, process.log()[-3000:]
    assert group_members(kafka_connection, group_id) == []
    assert not [e for e in process.events() if e.get("event") == "waiting for Kafka"], process.log()[-3000:]


def test_sigint_stops_it_the_same_way(processor_env, spawn_processor, kafka_connection, group_id, helpers):
    process = spawn_processor(processor_env(shutdown_timeout_s=SHUTDOWN_TIMEOUT_S))
    helpers.wait_for(
        lambda: "partitions assigned" in process.log() or process.popen.poll() is not None, "partitions assigned"
    )
    process.signal(signal.SIGINT)
    assert process.wait(SHUTDOWN_TIMEOUT_S + SLACK_S) == 0, process.log()[-3000:]
    assert group_members(kafka_connection, group_id) == []
