"""Rebalances mid-stream: members joining, leaving and stalling; afterwards every record is in exactly one output.

A batch's commit runs in the engine's writer thread while the next batch is
read (``consumer.engine``), so rebalance callbacks meet a commit in flight: on
revoke and on loss the member waits for it, and the partitions' next owner
starts right after the batch, or at it if the commit failed.
"""

from __future__ import annotations

import datetime as dt
import signal
import threading
import time

from structlog.testing import capture_logs

from consumer.app import App
from consumer.kafka import KafkaConnection

RECORDS = 3000


def test_members_joining_and_leaving_mid_stream_write_each_record_once(
    processor_env, spawn_processor, produce, read_outputs, topics, kafka_connection, transactional_id, mixed_corpus, helpers
):
    items = mixed_corpus(RECORDS, seed=31)
    produce(topics["landing"], items)
    first = spawn_processor(processor_env(batch_size=50, transactional_id=f"{transactional_id}-a"))
    helpers.wait_for(
        lambda: helpers.output_offsets(kafka_connection, topics) >= 500 or first.popen.poll() is not None,
        "output past 500 offsets",
    )
    # A second member joins: the cooperative rebalance takes some of the first one's partitions.
    second = spawn_processor(processor_env(batch_size=50, transactional_id=f"{transactional_id}-b"))
    helpers.wait_for(
        lambda: "partitions revoked" in first.log() or first.popen.poll() is not None, "a partition revoked"
    )
    helpers.wait_for(
        lambda: helpers.output_offsets(kafka_connection, topics) >= 1500 or second.popen.poll() is not None,
        "output past 1500 offsets",
    )
    assert first.popen.poll() is None and second.popen.poll() is None, first.log()[-3000:] + second.log()[-3000:]
    # The first leaves: the second takes everything over.
    first.signal(signal.SIGTERM)
    assert first.wait(30) == 0, first.log()[-3000:]
    found = read_outputs(len(items), timeout=300, settle=5)
    assert second.popen.poll() is None, second.log()[-3000:]
    helpers.assert_exactly_once(found, items)
    assert "partitions assigned" in second.log()


class StallOnce:
    """App's clock (``today``), read between batches: at its *after*-th reading it stalls the loop."""

    def __init__(self, after: int, seconds: float) -> None:
        self.after, self.seconds, self.calls = after, seconds, 0
        self.stalled = threading.Event()

    def __call__(self) -> dt.date:
        self.calls += 1
        if self.calls == self.after:
            time.sleep(self.seconds)  # a stall past max.poll.interval.ms: the group goes on without us
            self.stalled.set()
        return dt.date.today()


def test_partitions_lost_in_a_stall_are_read_again_and_each_record_written_once(
    settings_for, kafka_connection, produce, read_outputs, topics, mixed_corpus, helpers
):
    items = mixed_corpus(1500, seed=37)
    produce(topics["landing"], items)
    # The shortest session the broker allows; the stall outlasts max.poll.interval.ms.
    connection = KafkaConnection(
        kafka_connection.bootstrap_servers, extra={"session.timeout.ms": "6000", "max.poll.interval.ms": "7000"}
    )
    clock = StallOnce(after=10, seconds=12)  # two readings at start, then one before each batch
    with capture_logs() as logs:
        app = App(settings_for(batch_size=50), connection, today=clock)
        thread = threading.Thread(target=app.run, daemon=True)
        thread.start()
        try:
            assert clock.stalled.wait(120), "the loop never reached its stall"
            found = read_outputs(len(items), timeout=300, settle=5)
            assert thread.is_alive(), "the processor carried on after losing its partitions"
        finally:
            app.stop()
            thread.join(60)
    assert not thread.is_alive()
    events = [entry["event"] for entry in logs]
    assert "partitions lost" in events, events[-20:]
    lost_at = events.index("partitions lost")
    assert "partitions assigned" in events[lost_at:], "it rejoined and took its partitions back"
    helpers.assert_exactly_once(found, items)
