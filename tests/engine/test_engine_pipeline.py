"""The pipeline against the real broker: batches handed to the writer thread while the one before commits.

A failed commit drops every batch not committed and rewinds the consumer so
they are read again; a failed or wedged producer is replaced; rebalance
callbacks wait for the commit in flight.  Producers are real ones, wrapped to
fail or to hold a call at a gate (no broker fails on demand).
"""

from __future__ import annotations

import os
import threading
import time

import pytest
from confluent_kafka import KafkaError, KafkaException

from consumer.engine import AtLeastOnce, Batch, BatchAborted, ConsumerPositions, EngineFatalError, ExactlyOnce, Output
from consumer.engine.pipeline import Pipeline
from consumer.kafka import make_producer


def outputs(topic: str, count: int, prefix: str = "out") -> list[Output]:
    return [Output(topic, f"k{i}".encode(), f"{prefix}-{i}".encode(), None) for i in range(count)]


def pipeline(consumer, policy, **kwargs) -> Pipeline:
    """A started pipeline over *consumer*'s own positions; *policy* makes each writer's policy."""
    made = Pipeline(consumer, ConsumerPositions.of(consumer), policy, timeout=kwargs.pop("timeout", 30), **kwargs)
    made.start()
    return made


def batch_of(consumer, items: list[Output], on_committed=lambda: None) -> Batch:
    """A made batch: *items* with the consumer's positions now."""
    return Batch(items, ConsumerPositions.of(consumer).positions(), consumer.consumer_group_metadata(), on_committed)


def deliver(pipe: Pipeline, consumer, items: list[Output]) -> None:
    pipe.write(batch_of(consumer, items))
    pipe.settle()


def wait_until(condition, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {timeout:g} s"
        time.sleep(0.01)  # polling another thread's progress, bounded by the deadline


class FailingOnce:
    """A real transactional producer whose *at*-th *method* call fails with *error*, without doing it
    (a broker restart has ended a commit with the fatal INVALID_TXN_STATE; no broker fails on demand)."""

    def __init__(self, producer, error: KafkaError, at: int = 1, method: str = "commit_transaction"):
        self.producer, self.error, self.at, self.method, self.calls = producer, error, at, method, 0

    def __getattr__(self, name):
        attribute = getattr(self.producer, name)
        if name != self.method:
            return attribute

        def failing(*args):
            self.calls += 1
            if self.calls == self.at:
                raise KafkaException(self.error)
            return attribute(*args)

        return failing


def _fatal(code: int) -> KafkaError:
    return KafkaError(code, "injected", fatal=True)


def _abortable() -> KafkaError:
    return KafkaError(KafkaError._STATE, "injected", txn_requires_abort=True)


def test_a_batch_and_its_offsets_commit_together(kafka_connection, topics, transactional_id, batch, engine_helpers):
    pipe = pipeline(batch, lambda: ExactlyOnce(make_producer(kafka_connection, transactional_id=transactional_id), timeout=30))
    committed = []
    pipe.write(batch_of(batch, outputs(topics["out"], 5), lambda: committed.append(1)))
    pipe.settle()
    assert committed == [1] and not pipe.committing
    assert engine_helpers.visible(kafka_connection, topics["out"], 5) == [f"out-{i}".encode() for i in range(5)]
    assert engine_helpers.committed_offset(batch, topics["landing"]) == 5
    pipe.close(30)


class Recording:
    """A real producer that records which thread makes each call."""

    def __init__(self, producer):
        self.producer, self.threads = producer, set()

    def __getattr__(self, name):
        attribute = getattr(self.producer, name)
        if not callable(attribute):
            return attribute

        def recorded(*args, **kwargs):
            self.threads.add(threading.current_thread().name)
            return attribute(*args, **kwargs)

        return recorded


def test_one_thread_owns_the_producer(kafka_connection, topics, transactional_id, batch, consume, engine_helpers):
    producer = Recording(make_producer(kafka_connection, transactional_id=transactional_id))
    pipe = pipeline(batch, lambda: ExactlyOnce(producer, timeout=30))
    pipe.write(batch_of(batch, outputs(topics["out"], 5)))
    engine_helpers.produce_landing(kafka_connection, topics["landing"], first=5)
    consume(batch, lambda messages: len(messages) >= 5)
    deliver(pipe, batch, outputs(topics["out"], 5, "second"))
    pipe.close(30)
    assert producer.threads == {"batch-writer"}, "init, begin, produce, send offsets, commit and flush"


def test_a_fatal_producer_error_replaces_the_producer_and_the_batch_is_read_again(
    kafka_connection, topics, transactional_id, batch, consume, engine_helpers
):
    made = []

    def policy():
        producer = make_producer(kafka_connection, transactional_id=transactional_id)
        made.append(FailingOnce(producer, _fatal(KafkaError.INVALID_TXN_STATE)) if not made else producer)
        return ExactlyOnce(made[-1], timeout=30)

    pipe = pipeline(batch, policy)
    with pytest.raises(BatchAborted):
        deliver(pipe, batch, outputs(topics["out"], 5))
    assert len(made) == 2, "a new producer took over"
    # The failed producer's open transaction was aborted by the new one's init_transactions.
    assert engine_helpers.visible(kafka_connection, topics["out"], 5) == []
    assert engine_helpers.committed_offset(batch, topics["landing"]) < 0
    consume(batch, lambda messages: len(messages) >= 5)  # rewound: the batch comes again
    deliver(pipe, batch, outputs(topics["out"], 5))
    assert engine_helpers.visible(kafka_connection, topics["out"], 5) == [f"out-{i}".encode() for i in range(5)]
    assert engine_helpers.committed_offset(batch, topics["landing"]) == 5
    pipe.close(30)


def test_a_second_fatal_error_before_any_commit_ends_the_engine(
    kafka_connection, transactional_id, topics, batch, engine_helpers
):
    def policy():
        producer = make_producer(kafka_connection, transactional_id=transactional_id)
        return ExactlyOnce(FailingOnce(producer, _fatal(KafkaError.INVALID_TXN_STATE)), timeout=30)

    pipe = pipeline(batch, policy)
    with pytest.raises(BatchAborted):
        deliver(pipe, batch, outputs(topics["out"], 5))
    with pytest.raises(EngineFatalError, match="again before any batch committed"):
        deliver(pipe, batch, outputs(topics["out"], 5))
    assert engine_helpers.committed_offset(batch, topics["landing"]) < 0
    pipe.close(30)


@pytest.mark.parametrize("code", [KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH, KafkaError._FENCED])
def test_fencing_ends_the_engine_without_a_new_producer(kafka_connection, transactional_id, topics, batch, code):
    made = []

    def policy():
        made.append(1)
        producer = make_producer(kafka_connection, transactional_id=transactional_id)
        return ExactlyOnce(FailingOnce(producer, _fatal(code)), timeout=30)

    pipe = pipeline(batch, policy)
    with pytest.raises(EngineFatalError, match="fenced"):
        deliver(pipe, batch, outputs(topics["out"], 5))
    assert made == [1], "a new producer would fence the instance that now owns the transactional.id"
    pipe.close(30)


def test_an_abort_that_fails_replaces_the_producer(kafka_connection, topics, transactional_id, batch, consume, engine_helpers):
    made = []

    def policy():
        producer = make_producer(kafka_connection, transactional_id=transactional_id)
        if not made:
            producer = FailingOnce(FailingOnce(producer, _abortable()), _fatal(KafkaError._STATE), method="abort_transaction")
        made.append(producer)
        return ExactlyOnce(producer, timeout=30)

    pipe = pipeline(batch, policy)
    with pytest.raises(BatchAborted, match="abort failed"):
        deliver(pipe, batch, outputs(topics["out"], 5))
    assert len(made) == 2
    consume(batch, lambda messages: len(messages) >= 5)
    deliver(pipe, batch, outputs(topics["out"], 5))
    assert len(engine_helpers.visible(kafka_connection, topics["out"], 5)) == 5
    pipe.close(30)


def test_fencing_met_while_aborting_ends_the_engine_without_a_new_producer(kafka_connection, transactional_id, topics, batch):
    made = []

    def policy():
        producer = make_producer(kafka_connection, transactional_id=transactional_id)
        made.append(producer)
        fenced = _fatal(KafkaError.PRODUCER_FENCED)
        return ExactlyOnce(FailingOnce(FailingOnce(producer, _abortable()), fenced, method="abort_transaction"), timeout=30)

    pipe = pipeline(batch, policy)
    with pytest.raises(EngineFatalError, match="fenced"):
        deliver(pipe, batch, outputs(topics["out"], 5))
    assert len(made) == 1, "a new producer would fence the instance that now owns the transactional.id"
    pipe.close(30)


# -- a batch commits while the next one is made ---------------------------------------


class GatedCall:
    """A real producer whose first *method* call (at least once) waits, up to *hold* s, until *gate* is set;
    ``entered`` is set once the writer is at the gate, ``overlapped`` says whether the gate opened in time."""

    def __init__(self, producer, gate: threading.Event, method: str, hold: float = 20.0):
        self.producer, self.gate, self.method, self.hold, self.overlapped = producer, gate, method, hold, None
        self.entered = threading.Event()

    def __getattr__(self, name):
        attribute = getattr(self.producer, name)
        if name != self.method or self.overlapped is not None or self.entered.is_set():
            return attribute

        def gated(*args):
            self.entered.set()
            self.overlapped = self.gate.wait(self.hold)
            return attribute(*args)

        return gated


class CountingBegins:
    """A real transactional producer that counts its begin_transaction() calls."""

    def __init__(self, producer):
        self.producer, self.begun = producer, 0

    def begin_transaction(self, *args):
        self.begun += 1
        return self.producer.begin_transaction(*args)

    def __getattr__(self, name):
        return getattr(self.producer, name)


@pytest.mark.parametrize("mode", ["exactly-once", "at-least-once"])
def test_the_next_batch_is_handed_over_while_one_commits(
    kafka_connection, topics, transactional_id, batch, consume, engine_helpers, mode
):
    gate = threading.Event()
    if mode == "exactly-once":
        producer = GatedCall(make_producer(kafka_connection, transactional_id=transactional_id), gate, "commit_transaction")
        pipe = pipeline(batch, lambda: ExactlyOnce(producer, timeout=30))
    else:
        producer = GatedCall(make_producer(kafka_connection), gate, "flush")
        pipe = pipeline(batch, lambda: AtLeastOnce(producer, timeout=30))
    committed: list[str] = []
    pipe.write(batch_of(batch, outputs(topics["out"], 5), lambda: committed.append("first")))
    assert pipe.committing and committed == []  # its commit waits at the gate

    engine_helpers.produce_landing(kafka_connection, topics["landing"], first=5)
    consume(batch, lambda messages: len(messages) >= 5)
    pipe.write(batch_of(batch, outputs(topics["out"], 5, "second"), lambda: committed.append("second")))
    gate.set()  # only now may the first batch commit: write() handed the second over without waiting for it
    pipe.settle()
    assert producer.overlapped, "write() waited for the first batch's commit"
    assert committed == ["first", "second"] and not pipe.committing
    found = engine_helpers.visible(kafka_connection, topics["out"], 10)
    assert sorted(found) == sorted([f"out-{i}".encode() for i in range(5)] + [f"second-{i}".encode() for i in range(5)])
    assert engine_helpers.committed_offset(batch, topics["landing"]) == 10
    pipe.close(30)


def test_a_waiting_batch_is_written_as_soon_as_the_one_before_commits(
    kafka_connection, topics, transactional_id, batch, engine_helpers
):
    gate = threading.Event()
    counting = CountingBegins(make_producer(kafka_connection, transactional_id=transactional_id))
    gated = GatedCall(counting, gate, "commit_transaction")
    pipe = pipeline(batch, lambda: ExactlyOnce(gated, timeout=30))
    pipe.write(batch_of(batch, outputs(topics["out"], 5)))
    assert gated.entered.wait(30)  # committing, held at the gate
    pipe.write(batch_of(batch, []))  # waiting in the slot (no records: offsets only)
    assert counting.begun == 1
    gate.set()
    # The writer takes the waiting batch by itself: the loop's thread is not involved.
    wait_until(lambda: counting.begun == 2, "the waiting batch began its transaction")
    pipe.settle()
    pipe.close(30)


def test_a_third_batch_waits_for_the_slot(kafka_connection, topics, transactional_id, batch, opening):
    gate = threading.Event()
    waited: list[str] = []
    opens = opening(gate)

    def on_wait(wait) -> None:
        waited.append(wait.call)
        opens(wait)

    producer = GatedCall(make_producer(kafka_connection, transactional_id=transactional_id), gate, "commit_transaction")
    pipe = pipeline(batch, lambda: ExactlyOnce(producer, timeout=30), on_wait=on_wait)
    pipe.write(batch_of(batch, outputs(topics["out"], 5)))
    assert producer.entered.wait(30)  # being written, held at the gate
    pipe.write(batch_of(batch, []))  # in the slot
    assert not gate.is_set() and "commit_transaction" not in waited
    pipe.write(batch_of(batch, []))  # waits until the writer takes the second: once the first commits
    assert "commit_transaction" in waited, "at most one made batch waits"
    pipe.settle()
    pipe.close(30)


def test_a_failed_commit_aborts_it_and_the_next_batch_and_both_are_read_again(
    kafka_connection, topics, transactional_id, batch, consume, engine_helpers
):
    gate = threading.Event()
    producer = FailingOnce(make_producer(kafka_connection, transactional_id=transactional_id), _abortable())
    pipe = pipeline(batch, lambda: ExactlyOnce(GatedCall(producer, gate, "send_offsets_to_transaction"), timeout=30))
    pipe.write(batch_of(batch, outputs(topics["out"], 5)))  # its commit will fail
    engine_helpers.produce_landing(kafka_connection, topics["landing"], first=5)
    consume(batch, lambda messages: len(messages) >= 5)
    pipe.write(batch_of(batch, outputs(topics["out"], 5)))  # waits in the slot
    gate.set()
    with pytest.raises(BatchAborted, match="injected"):
        pipe.settle()
    assert not pipe.committing
    assert engine_helpers.visible(kafka_connection, topics["out"], 5) == []
    assert engine_helpers.committed_offset(batch, topics["landing"]) < 0
    again = consume(batch, lambda messages: len(messages) >= 10)  # rewound to the start: both batches
    assert sorted(m.offset() for m in again) == list(range(10))
    deliver(pipe, batch, outputs(topics["out"], 10))
    assert len(engine_helpers.visible(kafka_connection, topics["out"], 10)) == 10
    assert engine_helpers.committed_offset(batch, topics["landing"]) == 10
    pipe.close(30)


def test_a_wedged_call_replaces_the_producer_and_the_batch_is_read_again(
    kafka_connection, topics, transactional_id, batch, consume, engine_helpers
):
    """librdkafka's send_offsets_to_transaction has blocked for ever after a broker restart (issues
    #5456, #5511): past its timeout and a grace the writer is given up and a new producer takes over."""
    never = threading.Event()
    made = []

    def policy():
        producer = make_producer(kafka_connection, transactional_id=transactional_id)
        if not made:
            producer = GatedCall(producer, never, "send_offsets_to_transaction", hold=3600)
        made.append(producer)
        return ExactlyOnce(producer, timeout=2, grace=1)

    pipe = pipeline(batch, policy, timeout=2)
    started = time.monotonic()
    with pytest.raises(BatchAborted, match="send_offsets_to_transaction did not return within 3 s"):
        deliver(pipe, batch, outputs(topics["out"], 5))
    assert time.monotonic() - started < 20
    assert len(made) == 2
    consume(batch, lambda messages: len(messages) >= 5)  # rewound: the batch comes again
    deliver(pipe, batch, outputs(topics["out"], 5))
    assert engine_helpers.visible(kafka_connection, topics["out"], 5) == [f"out-{i}".encode() for i in range(5)]
    assert engine_helpers.committed_offset(batch, topics["landing"]) == 5
    never.set()  # let the abandoned thread go
    pipe.close(30)


# -- rebalances -----------------------------------------------------------------------


@pytest.fixture
def opening(monkeypatch):
    """Makes an ``on_wait`` that opens *gate* once a caller waits on the commit held at it: a
    rebalance callback finds that commit in flight, and it ends while the callback waits.

    A thread opening the gate at once raced the callback: on a loaded machine the commit ended,
    and the writer began the waiting batch's transaction, before the callback withdrew it.  The
    wait is reported every ``WAIT_TICK_S``, shortened here so the tests do not sleep.
    """
    monkeypatch.setattr("consumer.engine.writer.WAIT_TICK_S", 0.05)

    def opening(gate: threading.Event):
        def on_wait(wait) -> None:
            if wait.call == "commit_transaction":
                gate.set()

        return on_wait

    return opening


@pytest.mark.parametrize("callback", ["revoked", "lost"])
def test_a_rebalance_waits_for_the_commit_in_flight(
    kafka_connection, topics, transactional_id, batch, engine_helpers, opening, callback
):
    gate = threading.Event()
    producer = GatedCall(make_producer(kafka_connection, transactional_id=transactional_id), gate, "commit_transaction")
    pipe = pipeline(batch, lambda: ExactlyOnce(producer, timeout=30), on_wait=opening(gate))
    committed = []
    pipe.write(batch_of(batch, outputs(topics["out"], 5), lambda: committed.append(1)))
    assert producer.entered.wait(30) and committed == []  # being written, held at the gate
    getattr(pipe, callback)(batch.assignment())
    # The partitions' next owner starts after the batch: its outputs and offsets are committed.
    assert producer.overlapped and committed == [1] and not pipe.committing
    assert engine_helpers.visible(kafka_connection, topics["out"], 5) == [f"out-{i}".encode() for i in range(5)]
    assert engine_helpers.committed_offset(batch, topics["landing"]) == 5
    pipe.close(30)


def _second_batch_waiting(kafka_connection, transactional_id, topics, batch, consume, engine_helpers, opening):
    """A pipeline whose first batch commits, held at a gate until a rebalance callback waits on it,
    and whose second batch waits in the slot."""
    gate = threading.Event()
    counting = CountingBegins(make_producer(kafka_connection, transactional_id=transactional_id))
    gated = GatedCall(counting, gate, "commit_transaction")
    pipe = pipeline(batch, lambda: ExactlyOnce(gated, timeout=30), on_wait=opening(gate))
    pipe.write(batch_of(batch, outputs(topics["out"], 5)))
    assert gated.entered.wait(30)  # being written, held at the gate
    engine_helpers.produce_landing(kafka_connection, topics["landing"], first=5)
    consume(batch, lambda messages: len(messages) >= 5)
    pipe.write(batch_of(batch, outputs(topics["out"], 5, "second")))
    assert counting.begun == 1, "the second batch waits: its transaction has not begun"
    return pipe


def test_on_revoke_the_waiting_batch_commits_too(
    kafka_connection, topics, transactional_id, batch, consume, engine_helpers, opening
):
    pipe = _second_batch_waiting(kafka_connection, transactional_id, topics, batch, consume, engine_helpers, opening)
    pipe.revoked(batch.assignment())
    assert not pipe.committing
    assert len(engine_helpers.visible(kafka_connection, topics["out"], 10)) == 10
    assert engine_helpers.committed_offset(batch, topics["landing"]) == 10
    pipe.close(30)


def test_on_loss_the_waiting_batch_is_dropped_uncommitted(
    kafka_connection, topics, transactional_id, batch, consume, engine_helpers, opening
):
    pipe = _second_batch_waiting(kafka_connection, transactional_id, topics, batch, consume, engine_helpers, opening)
    pipe.lost(batch.assignment())  # the commit in flight ends; the waiting batch never begins its transaction
    assert not pipe.committing
    assert engine_helpers.visible(kafka_connection, topics["out"], 10) == [f"out-{i}".encode() for i in range(5)]
    # The partitions' next owner starts at the dropped batch.
    assert engine_helpers.committed_offset(batch, topics["landing"]) == 5
    pipe.settle()  # nothing to raise: the loss needs no rewind
    pipe.check()
    pipe.close(30)


def test_a_commit_failing_as_partitions_are_lost_is_not_raised(
    kafka_connection, topics, transactional_id, batch, engine_helpers, opening
):
    gate = threading.Event()
    failing = FailingOnce(make_producer(kafka_connection, transactional_id=transactional_id), _abortable())
    gated = GatedCall(failing, gate, "commit_transaction")
    pipe = pipeline(batch, lambda: ExactlyOnce(gated, timeout=30), on_wait=opening(gate))
    pipe.write(batch_of(batch, outputs(topics["out"], 5)))
    assert gated.entered.wait(30)  # being written (a batch still in the slot would just be dropped)
    pipe.lost(batch.assignment())  # its commit fails and is aborted; no rewind is needed (every partition went)
    pipe.settle()
    pipe.check()
    assert engine_helpers.visible(kafka_connection, topics["out"], 5) == []
    assert engine_helpers.committed_offset(batch, topics["landing"]) < 0
    deliver(pipe, batch, outputs(topics["out"], 5))  # the producer recovered
    assert len(engine_helpers.visible(kafka_connection, topics["out"], 5)) == 5
    pipe.close(30)


def test_fencing_met_by_a_commit_in_flight_drops_the_waiting_batch(kafka_connection, transactional_id, topics, batch):
    gate = threading.Event()
    failing = FailingOnce(make_producer(kafka_connection, transactional_id=transactional_id), _fatal(KafkaError.PRODUCER_FENCED))
    counting = CountingBegins(failing)
    pipe = pipeline(batch, lambda: ExactlyOnce(GatedCall(counting, gate, "commit_transaction"), timeout=30))
    pipe.write(batch_of(batch, outputs(topics["out"], 5)))  # its commit will be fenced
    pipe.write(batch_of(batch, []))  # waits for its turn
    gate.set()
    with pytest.raises(EngineFatalError, match="fenced"):
        pipe.settle()
    assert not pipe.committing and counting.begun == 1, "nothing began a transaction after the fencing"
    pipe.close(30)


class CoordinatorDown:
    """A real consumer whose group coordinator cannot tell its committed offsets (after a broker restart,
    librdkafka could not find it for a minute)."""

    def __init__(self, consumer):
        self.consumer = consumer

    def committed(self, *args, **kwargs):
        raise KafkaException(KafkaError(KafkaError._TIMED_OUT, "Failed to get committed offsets: Local: Timed out"))

    def __getattr__(self, name):
        return getattr(self.consumer, name)


def test_a_rewind_to_offsets_it_committed_needs_no_coordinator(
    kafka_connection, topics, transactional_id, batch, consume, engine_helpers
):
    producer = FailingOnce(make_producer(kafka_connection, transactional_id=transactional_id), _abortable(), at=2)
    pipe = Pipeline(CoordinatorDown(batch), ConsumerPositions.of(batch), lambda: ExactlyOnce(producer, timeout=30), timeout=30)
    pipe.start()
    deliver(pipe, batch, outputs(topics["out"], 5))
    engine_helpers.produce_landing(kafka_connection, topics["landing"], first=5)
    consume(batch, lambda messages: len(messages) >= 5)
    with pytest.raises(BatchAborted, match="injected"):  # not EngineFatalError: committed() was not needed
        deliver(pipe, batch, outputs(topics["out"], 5))
    again = consume(batch, lambda messages: len(messages) >= 5)
    assert sorted(m.offset() for m in again) == list(range(5, 10))
    pipe.close(30)


def test_a_commit_failing_during_a_rebalance_is_raised_by_the_next_check(
    kafka_connection, topics, transactional_id, batch, consume, engine_helpers
):
    producer = FailingOnce(make_producer(kafka_connection, transactional_id=transactional_id), _abortable())
    pipe = pipeline(batch, lambda: ExactlyOnce(producer, timeout=30))
    pipe.write(batch_of(batch, outputs(topics["out"], 5)))
    pipe.revoked([])  # inside consume(): it must not raise, and the transaction is aborted at once
    assert engine_helpers.visible(kafka_connection, topics["out"], 5) == []
    with pytest.raises(BatchAborted, match="injected"):
        pipe.check()  # in the loop's thread, after consume() returned: rewinds
    assert len(consume(batch, lambda messages: len(messages) >= 5)) == 5
    pipe.check()  # the failure was raised once
    pipe.settle()
    pipe.close(30)


def test_at_least_once_commits_nothing_when_a_delivery_fails(
    kafka_connection, topic_factory, topics, batch, consume, engine_helpers
):
    # The broker refuses records above the topic's max.message.bytes: a real failed delivery.
    small = topic_factory(config={"max.message.bytes": "1024"})
    pipe = pipeline(batch, lambda: AtLeastOnce(make_producer(kafka_connection), timeout=30))
    too_large = [Output(small, b"k", os.urandom(8192), None)]  # random: zstd cannot shrink it under the limit
    with pytest.raises(BatchAborted, match="1 deliveries failed"):
        deliver(pipe, batch, too_large)
    assert engine_helpers.committed_offset(batch, topics["landing"]) < 0
    assert len(consume(batch, lambda messages: len(messages) >= 5)) == 5  # rewound: read again
    pipe.close(30)
