"""The engine's loop against the real broker: decide, write, commit; what decide raises ends run().

The processor's and replay's own tests run the engine end to end (crashes,
rebalances, broker restarts); these pin what the loop itself promises.
"""

from __future__ import annotations

import threading

import pytest
from confluent_kafka import KafkaError, KafkaException

from consumer.engine import (
    AtLeastOnce,
    BatchEngine,
    ConsumerPositions,
    Decision,
    ExactlyOnce,
    Hooks,
    NotStarted,
    Output,
)
from consumer.kafka import make_consumer, make_producer
from consumer.kafka.clients import fetch_sizes


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


def run_until_committed(made: BatchEngine, count: int, hooks: Hooks, timeout: float = 60.0, batches=None) -> list:
    """Run *made* in a thread until *count* decisions are committed; the (message key, note, thread) seen.
    *batches*, a list, gets each committed batch's record sizes (key and value bytes)."""
    committed = []
    enough = threading.Event()

    def on_committed(decided, seconds):
        if batches is not None:
            batches.append([len(message.key() or b"") + len(message.value() or b"") for message, _ in decided])
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


class InitFails:
    """A real transactional producer whose init_transactions fails, without asking the broker (a
    coordinator that answers nothing takes its whole patience: tests/processor/test_readiness_recovery.py)."""

    def __init__(self, producer) -> None:
        self.producer = producer

    def __getattr__(self, name):
        if name == "init_transactions":
            raise KafkaException(KafkaError(KafkaError.INVALID_TXN_STATE, "injected", fatal=True))
        return getattr(self.producer, name)


def failing_first(kafka_connection, transactional_id, failures: int):
    """A policy factory whose first *failures* producers cannot initialise transactions."""
    made = []

    def policy():
        made.append(None)
        producer = make_producer(kafka_connection, transactional_id=transactional_id)
        return ExactlyOnce(InitFails(producer) if len(made) <= failures else producer, timeout=30)

    return policy


def started_engine(kafka_connection, topics, group_id, policy, hooks) -> BatchEngine:
    return BatchEngine(
        consumer=lambda: make_consumer(kafka_connection, group_id),
        offsets=ConsumerPositions([topics["landing"]]),
        decide=copy_to(topics["out"]),
        policy=policy,
        batch_size=10,
        batch_timeout_s=0.1,
        timeout_s=30,
        hooks=hooks,
    )


def test_transactions_that_cannot_start_are_tried_again_with_start_waiting_before_joining_the_group(
    kafka_connection, topics, group_id, transactional_id, engine_helpers
):
    engine_helpers.produce_landing(kafka_connection, topics["landing"])
    waits: list[str | None] = []
    assigned_after: list[int] = []
    hooks = Hooks(start_waiting=waits.append, assigned=lambda parts: assigned_after.append(len(waits)))
    made = started_engine(kafka_connection, topics, group_id, failing_first(kafka_connection, transactional_id, 2), hooks)
    run_until_committed(made, 5, hooks)
    assert [w is None for w in waits] == [False, False, True], waits
    assert all(w.startswith("cannot initialise transactions: ") for w in waits[:2]), waits
    assert assigned_after and assigned_after[0] == 3, "joined the group before transactions started"
    assert engine_helpers.visible(kafka_connection, topics["out"], 5) == [f"out-{i}".encode() for i in range(5)]


def test_without_start_waiting_transactions_that_cannot_start_end_the_run(
    kafka_connection, topics, group_id, transactional_id
):
    made = started_engine(kafka_connection, topics, group_id, failing_first(kafka_connection, transactional_id, 1), Hooks())
    with pytest.raises(NotStarted, match="cannot initialise transactions"):
        made.run()
    assert not made.started.is_set()


def test_stop_ends_the_wait_for_transactions(kafka_connection, topics, group_id, transactional_id):
    waits: list[str | None] = []
    reported = threading.Event()

    def waiting(problem: str | None) -> None:
        waits.append(problem)
        reported.set()

    failing_always = failing_first(kafka_connection, transactional_id, 10**6)
    made = started_engine(kafka_connection, topics, group_id, failing_always, Hooks(start_waiting=waiting))
    thread = threading.Thread(target=made.run, daemon=True)
    thread.start()
    assert reported.wait(60), "no failed start reported"
    made.stop()
    thread.join(10)
    assert not thread.is_alive(), "stop() did not end the back-off"
    assert waits and None not in waits


def _run_with_budget(kafka_connection, topics, group_id, transactional_id, sizes, budget, record_limit):
    """The records of *sizes* through an engine bounded at *budget*, its consumer's prefetch queue as
    large (as the processor's is, ``fetch_sizes``); the batches' record sizes."""
    producer = make_producer(kafka_connection)
    for i, size in enumerate(sizes):
        producer.produce(topics["landing"], b"in" + bytes(size - 2), f"k{i}".encode())
    assert producer.flush(30) == 0
    batches: list[list[int]] = []
    hooks = Hooks()
    made = BatchEngine(
        consumer=lambda: make_consumer(kafka_connection, group_id, batch_bytes=budget),
        offsets=ConsumerPositions([topics["landing"]]),
        decide=copy_to(topics["out"]),
        policy=lambda: ExactlyOnce(make_producer(kafka_connection, transactional_id=transactional_id), timeout=30),
        batch_size=100,
        batch_timeout_s=1.0,
        timeout_s=30,
        batch_bytes=budget,
        record_limit=record_limit,
        hooks=hooks,
    )
    committed = run_until_committed(made, len(sizes), hooks, batches=batches)
    assert sorted(key for key, _, _ in committed) == sorted(f"k{i}".encode() for i in range(len(sizes)))
    return batches


def test_a_batch_of_even_records_closes_at_its_byte_bound_with_at_most_one_record_past_it(
    kafka_connection, topics, group_id, transactional_id, engine_helpers
):
    """Issue 38: bounded by its count alone, a batch held 500 pages of 3 MB.  Records of 100 KB under a
    bound of 350 KB (and a limit of 600 KB a record): every batch stops at the record that reaches it,
    reading several records a step once their size is known."""
    budget, key_bytes = 350_000, 3  # keys "k0".."k39" count too: at most three bytes each
    sizes = [100_000] * 40
    batches = _run_with_budget(kafka_connection, topics, group_id, transactional_id, sizes, budget, 600_000 + key_bytes)
    for batch in batches:
        assert sum(batch[:-1]) < budget, f"a batch went on past its bound: {batch}"
    assert max(len(batch) for batch in batches) > 1, "the bound is not one record a batch"


def test_records_that_grow_within_a_read_pass_the_bound_by_at_most_the_prefetch_queue(
    kafka_connection, topics, group_id, transactional_id, engine_helpers
):
    """Records of 100 KB with 600 KB ones among them, a bound of 350 KB: a step sized for 100 KB records
    may take a 600 KB one with it, never more than the client had fetched (its queue, sized with the bound)."""
    budget, key_bytes = 350_000, 3
    sizes = ([100_000] * 8 + [600_000]) * 3 + [100_000] * 4
    batches = _run_with_budget(kafka_connection, topics, group_id, transactional_id, sizes, budget, 600_000 + key_bytes)
    # What the client may hold: its queue's limit, and a fetch in flight (at least one record, however large).
    fetch = fetch_sizes(budget)
    buffered = fetch["queued.max.messages.kbytes"] * 1024 + max(fetch["fetch.max.bytes"], 600_000 + key_bytes)
    for batch in batches:
        assert sum(batch) < budget + buffered, f"a batch went on past its bound and what was buffered: {batch}"
    assert max(len(batch) for batch in batches) > 1, "the bound is not one record a batch"
