"""The engine's loop against the real broker: decide, write, commit; what decide raises ends run().

The processor's and replay's own tests run the engine end to end (crashes,
rebalances, broker restarts); these pin what the loop itself promises.
"""

from __future__ import annotations

import threading

import pytest

from consumer.engine import AtLeastOnce, BatchEngine, ConsumerPositions, Decision, ExactlyOnce, Hooks, Output
from consumer.kafka import make_consumer, make_producer


class DecideFailed(Exception):
    pass


def copy_to(topic: str, fail_at: int | None = None, skip: frozenset[bytes] = frozenset()):
    """A decide function copying each message to *topic* (none for keys in *skip*), raising at the
    *fail_at*-th message."""
    seen = []

    def decide(message):
        seen.append(message.key())
        if fail_at is not None and len(seen) == fail_at:
            raise DecideFailed("the registry is down")
        if message.key() in skip:
            return Decision((), "skipped")
        return Decision((Output(topic, message.key(), message.value().replace(b"in", b"out"), None),), "copied")

    return decide


def engine(kafka_connection, topics, group_id, transactional_id, decide, mode="exactly-once", hooks=None) -> BatchEngine:
    def policy():
        if mode == "exactly-once":
            return ExactlyOnce(make_producer(kafka_connection, transactional_id=transactional_id), timeout=30)
        return AtLeastOnce(make_producer(kafka_connection), timeout=30)

    return BatchEngine(
        consumer=lambda: make_consumer(kafka_connection, group_id),
        offsets=ConsumerPositions([topics["landing"]]),
        decide=decide,
        policy=policy,
        batch_size=10,
        batch_timeout_s=0.1,
        timeout_s=30,
        hooks=hooks,
    )


def run_until_committed(made: BatchEngine, count: int, hooks: Hooks, timeout: float = 60.0) -> list:
    """Run *made* in a thread until *count* decisions are committed; the (message key, note, thread) seen."""
    committed = []
    enough = threading.Event()

    def on_committed(decided, seconds):
        committed.extend((message.key(), decision.note, threading.current_thread().name) for message, decision in decided)
        if len(committed) >= count:
            enough.set()

    hooks.committed = on_committed
    thread = threading.Thread(target=made.run, name="engine-loop", daemon=True)
    thread.start()
    try:
        assert enough.wait(timeout), f"only {len(committed)} of {count} committed"
    finally:
        made.stop()
        thread.join(60)
    assert not thread.is_alive()
    return committed


@pytest.mark.parametrize("mode", ["exactly-once", "at-least-once"])
def test_what_decide_raises_ends_the_run_and_nothing_of_the_batch_is_written(
    kafka_connection, topics, group_id, transactional_id, engine_helpers, mode
):
    engine_helpers.produce_landing(kafka_connection, topics["landing"])
    failing = engine(kafka_connection, topics, group_id, transactional_id, copy_to(topics["out"], fail_at=4), mode)
    with pytest.raises(DecideFailed):
        failing.run()
    assert engine_helpers.visible(kafka_connection, topics["out"], 3) == []
    checker = make_consumer(kafka_connection, group_id)
    assert engine_helpers.committed_offset(checker, topics["landing"]) < 0, "no offset moved past the batch"
    checker.close()

    hooks = Hooks()
    again = engine(kafka_connection, topics, group_id, transactional_id, copy_to(topics["out"]), mode, hooks)
    run_until_committed(again, 5, hooks)
    assert engine_helpers.visible(kafka_connection, topics["out"], 5) == [f"out-{i}".encode() for i in range(5)]


def test_a_decision_without_outputs_commits_its_offset_and_hooks_run_in_the_loop_thread(
    kafka_connection, topics, group_id, transactional_id, engine_helpers
):
    engine_helpers.produce_landing(kafka_connection, topics["landing"])
    hooks = Hooks()
    made = engine(kafka_connection, topics, group_id, transactional_id, copy_to(topics["out"], skip=frozenset({b"k4"})), hooks=hooks)
    committed = run_until_committed(made, 5, hooks)
    assert [(key, note) for key, note, _ in committed] == [(f"k{i}".encode(), "copied") for i in range(4)] + [(b"k4", "skipped")]
    assert {thread for _, _, thread in committed} == {"engine-loop"}
    assert engine_helpers.visible(kafka_connection, topics["out"], 5) == [f"out-{i}".encode() for i in range(4)]
    checker = make_consumer(kafka_connection, group_id)
    assert engine_helpers.committed_offset(checker, topics["landing"]) == 5, "the skipped record's offset too"
    checker.close()
