"""Rebalances mid-replay: runs of one group joining, leaving and stalling; each record released once.

A replay run is a member of its group (``replay.cursor``): a second run of the
same group takes some quarantine partitions over, the first commits what it
wrote before they move, and when a run leaves or stalls past
max.poll.interval.ms the other (or itself, rejoining) reads on from the
committed cursor.  Mirrors tests/processor/test_rebalance.py.
"""

from __future__ import annotations

import signal
import threading
import time
import uuid
from collections import Counter

import pytest
from confluent_kafka import OFFSET_BEGINNING, TopicPartition
from structlog.testing import capture_logs

from consumer.decoding import OverrideTable
from consumer.kafka import KafkaConnection, make_consumer
from consumer.processor.route import QUARANTINE, Router
from consumer.replay import Replayer, ReplayOptions
from consumer.replay.progress import Progress
from consumer.serialization.serde import build_serde

from replay_helpers import damaged_utf8_page, raw, summary_of


@pytest.fixture
def topics(topic_factory) -> dict[str, str]:
    """Three quarantine partitions: enough to share between two runs."""
    return {"landing": topic_factory(partitions=2), "clean": topic_factory(partitions=2), "quarantine": topic_factory(partitions=3)}


def lossy_items(n: int, prefix: str) -> list[tuple[bytes, dict]]:
    return [(f"{prefix}{i}".encode(), raw(*damaged_utf8_page(i, 1))) for i in range(n)]


def wait_for(condition, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {timeout:g} s"
        time.sleep(0.05)  # polling a real condition, bounded by the deadline


def held(process, event: str) -> bool:
    """Whether *process* logged *event* with at least one partition."""
    return any(entry.get("event") == event and entry.get("partitions") for entry in process.logs())


def holding(process) -> set[int]:
    """The partitions *process* holds, from its assigned and revoked log lines (cooperative: increments)."""
    partitions: set[int] = set()
    for entry in process.logs():
        if entry.get("event") == "partitions assigned":
            partitions.update(entry["partitions"])
        elif entry.get("event") in ("partitions revoked", "partitions lost"):
            partitions.difference_update(entry["partitions"])
    return partitions


def test_runs_joining_and_leaving_mid_replay_release_each_record_once(
    quarantine, replay, replay_process, outputs, kafka_connection, topics, transactional_id
):
    items = lossy_items(6000, "j")
    quarantine(items)
    # Assigned, not subscribed: a group join takes seconds on a loaded machine, time in which the first run
    # could release everything before the watcher saw its first records.
    watcher = make_consumer(kafka_connection, f"watch-{uuid.uuid4().hex}")
    watcher.assign([TopicPartition(topics["clean"], p, OFFSET_BEGINNING) for p in range(2)])
    released = 0

    def seen(at_least: int) -> bool:
        nonlocal released
        released += sum(1 for m in watcher.consume(500, 0.2) if m.error() is None)
        return released >= at_least

    try:
        first = replay_process("--threshold", "1", "--batch-size", "5", "--transactional-id", f"{transactional_id}-a")
        wait_for(lambda: seen(200) or first.popen.poll() is not None, "the first run released records")
        assert first.popen.poll() is None, f"the first run ended too soon: use more records\n{first.out()}"
        # A second run of the same group joins: the cooperative rebalance moves partitions to it.
        second = replay_process("--threshold", "1", "--batch-size", "5", "--transactional-id", f"{transactional_id}-b")
        wait_for(lambda: held(second, "partitions assigned") or second.popen.poll() is not None, "the second run got partitions")
        assert held(first, "partitions revoked"), "the first run handed partitions over"
        assert first.popen.poll() is None, "the second run joined while the first was mid-run"
        # The first leaves: the second takes its partitions over.
        first.popen.send_signal(signal.SIGTERM)
        assert first.popen.wait(60) in (0, 1), first.err()[-3000:]
        wait_for(lambda: holding(second) == {0, 1, 2} or second.popen.poll() is not None, "the second took everything")
        assert holding(second) == {0, 1, 2}, second.err()[-3000:]
        second.popen.send_signal(signal.SIGTERM)  # stopped mid-way too (or done): a last run finishes the job
        assert second.popen.wait(60) in (0, 1), second.err()[-3000:]
    finally:
        watcher.close()
    status, out = replay("--threshold", "1")
    assert status == 0, replay.err
    total = sum(summary_of(run)["released"] for run in (first.out(), second.out(), out))
    assert total == len(items), "each run's summary counts what it committed"
    assert Counter(r["key"] for r in outputs.clean()) == Counter(k for k, _ in items), "every record exactly once"


class StallOnce(Progress):
    """Progress updates, one per committed batch, in the loop's thread: at the *after*-th it stalls."""

    def __init__(self, after: int, seconds: float) -> None:
        super().__init__(0)
        self.after, self.seconds, self.calls = after, seconds, 0
        self.stalled = threading.Event()

    def update(self, summary, *, done: int | None = None, force: bool = False) -> None:
        self.calls += 1
        if self.calls == self.after:
            time.sleep(self.seconds)  # a stall past max.poll.interval.ms: the group goes on without us
            self.stalled.set()


def test_partitions_lost_in_a_stall_are_read_again_and_each_record_released_once(
    quarantine, outputs, settings_for, kafka_connection, group_id, transactional_id
):
    items = lossy_items(1500, "s")
    quarantine(items)
    # The shortest session the broker allows; the stall outlasts max.poll.interval.ms.
    connection = KafkaConnection(
        kafka_connection.bootstrap_servers, extra={"session.timeout.ms": "6000", "max.poll.interval.ms": "7000"}
    )
    settings = settings_for()
    progress = StallOnce(after=10, seconds=12)
    replayer = Replayer(
        settings,
        connection,
        ReplayOptions(group_id=f"{group_id}-replay", transactional_id=f"{transactional_id}-replay", batch_size=10),
        serde=build_serde(settings),
        router=Router(max_body_bytes=settings.max_body_bytes, replacement_threshold=1, non_text=QUARANTINE),
        overrides=OverrideTable(),
        progress=progress,
    )
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["summary"] = replayer.run()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            outcome["error"] = exc

    with capture_logs() as logs:
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        assert progress.stalled.wait(120), "the run never reached its stall"
        thread.join(300)
    assert not thread.is_alive(), "the run did not end"
    assert "error" not in outcome, outcome.get("error")
    events = [entry["event"] for entry in logs]
    assert "partitions lost" in events, events[-20:]
    assert "partitions assigned" in events[events.index("partitions lost"):], "it rejoined and took its partitions back"
    assert not replayer.interrupted
    assert outcome["summary"].released == len(items), "the summary counts each record once"
    assert Counter(r["key"] for r in outputs.clean()) == Counter(k for k, _ in items), "every record exactly once"
