"""A replay killed with SIGKILL midway and run again still releases every record exactly once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from confluent_kafka import TopicPartition

from consumer.kafka import make_consumer, make_producer

from replay_helpers import damaged_utf8_page, raw, summary_of

REPO = Path(__file__).resolve().parents[2]
RECORDS = 2000


@pytest.fixture
def topics(topic_factory) -> dict[str, str]:
    """Three quarantine partitions: one cursor each, all committed in the same transactions."""
    return {"landing": topic_factory(partitions=2), "clean": topic_factory(partitions=2), "quarantine": topic_factory(partitions=3)}


def test_sigkill_midway_then_rerun_is_exactly_once(quarantine, replay, outputs, config_file, kafka_bootstrap,
                                                   kafka_connection, topics):
    items = []
    for i in range(RECORDS):
        url, body = damaged_utf8_page(i, 1 + i % 3)  # 1..3 replacements: all released under --threshold 3
        items.append((f"r{i}".encode(), raw(url, body)))
    quarantine(items)

    command = [sys.executable, "-m", "consumer.cli", "replay", "--config", str(config_file),
               "--threshold", "3", "--batch-size", "10"]
    env = {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap}
    watcher = make_consumer(kafka_connection, f"watch-{uuid.uuid4().hex}")
    watcher.subscribe([topics["clean"]])
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        seen = 0
        deadline = time.monotonic() + 120
        while seen < RECORDS // 10:
            assert time.monotonic() < deadline, f"only {seen} records released before the deadline"
            assert process.poll() is None, "the replay finished before it could be killed; use more records"
            seen += sum(1 for m in watcher.consume(100, 0.2) if m.error() is None)
        process.kill()  # SIGKILL: no handler runs, a transaction may be open
        process.wait(30)
    finally:
        watcher.close()
        if process.poll() is None:
            process.kill()
    partial = Counter(r["key"] for r in outputs.clean())
    assert 0 < len(partial) < RECORDS, "killed midway"
    assert max(partial.values()) == 1

    status, out = replay("--threshold", "3", "--batch-size", "50")
    assert status == 0
    assert summary_of(out)["released"] == RECORDS - len(partial), "the re-run starts at the committed cursor"
    released = Counter(r["key"] for r in outputs.clean())
    assert released == Counter(k for k, _ in items), "every record exactly once"


def test_sigterm_stops_after_the_batch_then_a_rerun_finishes_the_job(quarantine, replay, outputs, config_file,
                                                                       kafka_bootstrap, kafka_connection, topics):
    items = []
    for i in range(RECORDS):
        url, body = damaged_utf8_page(i, 1)
        items.append((f"t{i}".encode(), raw(url, body)))
    quarantine(items)

    command = [sys.executable, "-m", "consumer.cli", "replay", "--config", str(config_file),
               "--threshold", "1", "--batch-size", "10"]
    env = {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap}
    watcher = make_consumer(kafka_connection, f"watch-{uuid.uuid4().hex}")
    watcher.subscribe([topics["clean"]])
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen = 0
        deadline = time.monotonic() + 120
        while seen < RECORDS // 10:
            assert time.monotonic() < deadline, f"only {seen} records released before the deadline"
            assert process.poll() is None, "the replay finished before it could be stopped; use more records"
            seen += sum(1 for m in watcher.consume(100, 0.2) if m.error() is None)
        process.terminate()
        stdout, stderr = process.communicate(timeout=60)
    finally:
        watcher.close()
        if process.poll() is None:
            process.kill()
    assert process.returncode == 1, "stopped early is not success"
    assert "stopped before the end" in stdout
    released_first = summary_of(stdout)["released"]
    assert 0 < released_first < RECORDS
    events = [json.loads(line)["event"] for line in stderr.splitlines() if line.startswith("{")]
    assert "replay starting" in events and "replay finished" in events, "structured logs when not on a terminal"

    status, out = replay("--threshold", "1", "--batch-size", "100")
    assert status == 0
    assert summary_of(out)["released"] == RECORDS - released_first, "the summary counted what was committed"
    assert Counter(r["key"] for r in outputs.clean()) == Counter(k for k, _ in items), "every record exactly once"


def test_a_transaction_a_killed_replay_left_open_is_fenced_not_waited_for(quarantine, replay, outputs, kafka_connection,
                                                                         topics):
    items = [(f"r{i}".encode(), raw(*damaged_utf8_page(i, 1))) for i in range(20)]
    quarantine(items)
    group, transactional_id = f"replay-{uuid.uuid4().hex}", f"replay-txn-{uuid.uuid4().hex}"
    # What a replay killed between send_offsets_to_transaction and commit leaves behind: an open
    # transaction holding the cursor's offsets, which keeps them unstable until the transaction
    # times out (60 s, longer than the replay waits to read them).
    zombie = make_producer(kafka_connection, transactional_id=transactional_id)
    zombie.init_transactions(30)
    zombie.begin_transaction()
    zombie.produce(topics["clean"], b"never visible", b"zombie")
    cursor_group = make_consumer(kafka_connection, group)
    zombie.send_offsets_to_transaction(
        [TopicPartition(topics["quarantine"], 0, 5)], cursor_group.consumer_group_metadata(), 30
    )
    cursor_group.close()

    status, out = replay("--threshold", "1", "--group", group, "--transactional-id", transactional_id)

    assert status == 0, replay.err
    assert summary_of(out)["released"] == len(items), "the zombie's offsets were aborted, not committed"
    released = Counter(r["key"] for r in outputs.clean())
    assert released == Counter(k for k, _ in items), "every record exactly once, nothing of the zombie's"
    del zombie  # kept alive (not aborted, not closed) until the replay had fenced it
