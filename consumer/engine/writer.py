"""The one thread that owns the producer, fed through a one-slot hand-off.

The loop's thread makes a batch and ``hand``s it over; the writer thread takes
it and writes it (``Policy.write``: produce, send the offsets, commit).  While
the writer commits batch N, the loop decodes batch N+1 and leaves it in the
slot; the writer takes it the moment N is committed.  A third batch waits in
``hand`` until the slot is free, so at most one made batch waits, and commits
run back to back.  The client releases the GIL while it waits for the broker,
so the commit's round trips overlap the decoding instead of stalling it.

The writer reports, in order, the batches it wrote and the first failure.
After an ``Abortable`` it aborts the transaction itself and then writes
nothing (dropping the batch in the slot, which was made after the failed one)
until the loop has rewound and calls ``resume``.  After any other failure the
thread ends with its producer; the loop makes a new writer.

Every call that can hang runs under the writer's watch: the thread publishes
the deadline of the call it is in, and whoever waits for it in the loop's
thread (``start``, ``hand``, ``drain``) declares it ``Wedged`` once that
deadline has passed.  A wedged thread cannot be stopped: it is abandoned with
its producer, and whatever it does when (if ever) its call returns is ignored.

Whoever waits wakes every ``WAIT_TICK_S`` and reports a ``Wait`` (``on_wait``):
what the writer is in (``init_transactions``, ``commit_transaction``,
``produce``...), since when, for which partitions.  A wait on the writer is a
wait on Kafka (the writer does nothing else, and each of its calls that can
hang is bounded by the watch): the stream processor counts it as alive and logs
it (docs/delivery.md, "Kafka outages").
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from confluent_kafka import Consumer

from .batch import Batch, Wait, ignore_wait
from .exceptions import Abortable, EngineFatalError, ProducerFailed, Wedged
from .policies import Policy

#: Seconds between ``on_wait`` reports while the loop's thread waits for the writer.
WAIT_TICK_S = 5.0


@dataclass(slots=True)
class Report:
    """What the writer did since the last report: batches written (in order), then a failure if any."""

    written: list[Batch] = field(default_factory=list)
    failure: BaseException | None = None


class Writer:
    """A thread owning one policy (and its producer), taking batches from a one-slot hand-off."""

    def __init__(self, policy: Policy, consumer: Consumer, on_wait: Callable[[Wait], None] = ignore_wait) -> None:
        self._policy = policy
        self._consumer = consumer
        self._on_wait = on_wait
        self._cv = threading.Condition()
        #: Made, waiting for its turn.
        self._slot: Batch | None = None
        #: Being written.
        self._writing: Batch | None = None
        #: Written, not reported yet.
        self._written: list[Batch] = []
        #: Set: nothing more is written until ``resume`` (or ever, once ``_ended``).
        self._failure: BaseException | None = None
        self._ready = False
        self._ended = False
        #: Set by ``close``: the thread delivers what is queued within this many seconds, then ends.
        self._closing: float | None = None
        #: The call in progress and when it counts as wedged.
        self._deadline: float | None = None
        self._what = ""
        #: The call in progress, for ``on_wait`` ("" between calls).
        self._call = ""
        self._thread = threading.Thread(target=self._run, name="batch-writer", daemon=True)

    # -- the loop's side ----------------------------------------------------------------

    def start(self) -> BaseException | None:
        """Start the thread and wait until its policy is ready; the failure if it could not get ready."""
        self._thread.start()
        with self._cv:
            self._wait(lambda: self._ready)
            return self._failure

    @property
    def busy(self) -> bool:
        """Whether a handed batch is not reported yet (waiting, being written, or written)."""
        with self._cv:
            return bool(self._slot or self._writing or self._written)

    def hand(self, batch: Batch) -> Report:
        """Leave *batch* in the slot once it is free; dropped if the writer failed meanwhile."""
        with self._cv:
            self._wait(lambda: self._slot is None)
            if self._failure is None:
                self._slot = batch
                self._cv.notify_all()
            return self._report()

    def drain(self) -> Report:
        """Wait until every handed batch is written (or the writer failed)."""
        with self._cv:
            self._wait(lambda: self._slot is None and self._writing is None)
            return self._report()

    def withdraw(self) -> Batch | None:
        """Take the waiting batch back out of the slot (its transaction has not begun)."""
        with self._cv:
            batch, self._slot = self._slot, None
            return batch

    def collect(self) -> Report:
        """What the writer did so far, without waiting."""
        with self._cv:
            return self._report()

    def resume(self) -> None:
        """After an ``Abortable`` the loop has rewound: write again."""
        with self._cv:
            if not self._ended:
                self._failure = None
                self._cv.notify_all()

    def close(self, timeout: float) -> None:
        """Let the thread deliver what is queued and end; give up on it after *timeout*."""
        with self._cv:
            self._closing = timeout
            self._cv.notify_all()
            abandoned = self._ended  # a wedged thread never ends: do not wait for it
        if not abandoned and self._thread.is_alive():
            self._thread.join(timeout + 1)

    # -- the writer's side --------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._policy.start(self._watch)
        except BaseException as exc:  # noqa: BLE001 - reported to the loop's thread
            self._end(exc)
            return
        with self._cv:
            self._ready = True
            self._cv.notify_all()
        while (batch := self._next()) is not None:
            if not self._write(batch):
                return
        try:
            self._policy.close(self._closing or 0.0)
        finally:
            self._end(None)

    def _next(self) -> Batch | None:
        with self._cv:
            while self._closing is None and (self._slot is None or self._failure is not None):
                self._cv.wait()
            if self._ended or self._slot is None or self._failure is not None:
                return None
            self._writing, self._slot = self._slot, None
            self._cv.notify_all()
            return self._writing

    def _write(self, batch: Batch) -> bool:
        """Write *batch*; after an abortable failure, abort.  Whether the thread goes on."""
        try:
            self._policy.write(batch, self._consumer)
        except Abortable as exc:
            return self._aborted(exc)
        except BaseException as exc:  # noqa: BLE001 - ProducerFailed, fencing (EngineFatalError), a bug: reported
            self._end(exc)
            return False
        with self._cv:
            if self._ended:  # abandoned as wedged meanwhile: the loop has given this batch up
                return False
            self._written.append(batch)
            self._writing = None
            self._cv.notify_all()
        return True

    def _aborted(self, exc: Abortable) -> bool:
        try:
            self._policy.abort()
        except EngineFatalError as fatal:  # fenced meanwhile: no new producer may take the id back
            self._end(fatal)
            return False
        except BaseException as failure:  # noqa: BLE001 - the producer cannot undo the transaction: a new one must
            replaced = ProducerFailed(f"{exc}; then abort failed: {failure}")
            replaced.__cause__ = failure
            self._end(replaced)
            return False
        with self._cv:
            if self._ended:
                return False
            self._fail(exc)
        return True

    @contextmanager
    def _watch(self, seconds: float, what: str) -> Iterator[None]:
        with self._cv:
            if self._ended:
                # Given up as wedged: its batch is read again under a new producer, so this one may start
                # no other call.  A hung send_offsets_to_transaction that returns once the broker is back
                # would go on to commit_transaction, racing the new producer's fencing with a batch the
                # loop reads again.
                raise Wedged(f"abandoned; {what} not called")
            self._deadline, self._what = time.monotonic() + seconds, f"{what} did not return within {seconds:g} s"
            self._call = what
            self._cv.notify_all()  # waiters sleep until the deadline, not for ever
        try:
            yield
        finally:
            with self._cv:
                self._deadline = None
                self._call = ""

    # -- shared state (under the condition) ---------------------------------------------

    def _wait(self, done: Callable[[], bool]) -> None:
        """Wait until *done* holds or the writer failed; a call past its deadline is a wedge.
        Every ``WAIT_TICK_S`` meanwhile, ``on_wait`` says what the writer is in."""
        started = reported = time.monotonic()
        while not done() and self._failure is None:
            deadline = self._deadline
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                self._ended = True
                self._fail(Wedged(self._what))
                return
            if now - reported >= WAIT_TICK_S:
                reported = now
                self._on_wait(self._waiting(now - started))
            self._cv.wait(WAIT_TICK_S if deadline is None else min(WAIT_TICK_S, deadline - now))

    def _waiting(self, seconds: float) -> Wait:
        """What the writer is in: its watched call, else producing a batch, else getting ready."""
        batch = self._writing
        call = self._call or ("produce" if batch is not None else "starting the producer")
        partitions = tuple(f"{tp.topic}[{tp.partition}]" for tp in batch.offsets) if batch is not None else ()
        return Wait(call, round(seconds, 1), partitions)

    def _fail(self, exc: BaseException) -> None:
        if self._failure is None:
            self._failure = exc
        self._slot = self._writing = None  # nothing made after a failed batch may commit
        self._cv.notify_all()

    def _end(self, exc: BaseException | None) -> None:
        with self._cv:
            if self._ended:
                return
            self._ended = True
            self._ready = True
            if exc is not None:
                self._fail(exc)
            self._cv.notify_all()

    def _report(self) -> Report:
        report = Report(self._written, self._failure)
        self._written = []
        return report
