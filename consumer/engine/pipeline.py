"""The loop's side of the writer: hand batches over, learn how they ended, recover, rewind.

Every failure the writer reports is handled here, in the loop's thread, in
the order the writer reports: the batches written before it first (their
offsets noted, their ``on_committed`` run), then the failure:

- ``Abortable``: the writer has aborted the transaction; it resumes, and the
  consumer is rewound to the offsets this pipeline committed itself (the failed
  transaction surely did not commit), asking the group coordinator only for
  the others.
- ``ProducerFailed`` or ``Wedged``: a new writer with a new producer of the same
  transactional.id takes over (its ``init_transactions`` aborts, or completes,
  what the old one left open: then only the coordinator knows the committed
  offsets, so the rewind asks it).  A second one before any batch commits ends
  the engine.
- ``EngineFatalError`` (fencing, transactions that cannot start): raised.
- ``Interrupted`` (``stop()`` while a call waited for the broker): raised; the
  engine ends as it does on ``stop()``.

``write``, ``settle`` and ``check`` raise ``BatchAborted`` after the rewind
(every batch not committed yet is dropped, and read again) or
``EngineFatalError``.  The rebalance callbacks' parts, ``revoked`` and
``lost``, never raise (an exception inside ``consume()`` would be lost): a
failure met there is kept, and the next ``check`` rewinds and raises it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NoReturn

from confluent_kafka import Consumer, TopicPartition

from .batch import Batch, Wait, ignore_wait
from .exceptions import (
    Abortable,
    BatchAborted,
    BatchFailed,
    EngineError,
    EngineFatalError,
    Interrupted,
    NotStarted,
    Wedged,
)
from .offsets import Offsets
from .policies import Policy
from .rewind import REWIND_PATIENCE_S, rewind
from .writer import Report, Writer


def _ignore(_result: str) -> None:
    pass


class Pipeline:
    """Batches handed to one writer after another; what failed is rewound and read again."""

    def __init__(
        self,
        consumer: Consumer,
        offsets: Offsets,
        policy: Callable[[], Policy],
        *,
        timeout: float,
        on_result: Callable[[str], None] = _ignore,
        patience: float = REWIND_PATIENCE_S,
        on_wait: Callable[[Wait], None] = ignore_wait,
    ) -> None:
        self._consumer = consumer
        self._on_wait = on_wait
        self._offsets = offsets
        self._make_policy = policy
        self._timeout = timeout
        self._on_result = on_result
        self._patience = patience
        self._writer: Writer | None = None
        #: Whether the producer was replaced since the last committed batch (a second time is fatal).
        self._renewed = False
        #: The offsets this pipeline committed, per (topic, partition) still held: a rewind after a
        #: commit that surely failed seeks to them without asking the group coordinator, which a
        #: broker restart left unreachable for a minute (tests/processor/test_crash_recovery.py).
        self._known: dict[tuple[str, int], int] = {}
        #: A batch that failed during a rebalance callback (with whether ``_known`` holds): the next
        #: ``check`` rewinds and raises ``BatchAborted``.
        self._kept_abort: tuple[BaseException, bool] | None = None
        #: An error met during a rebalance callback that ends the loop (fatal, or a failing hook).
        self._kept_error: BaseException | None = None
        #: Set once the pipeline cannot go on (fatal, or interrupted): raised by every later check.
        self._fatal: EngineError | None = None

    def start(self) -> None:
        """The first writer, ready to write: ``NotStarted`` if transactions cannot start (nothing was
        written: the caller may call ``start`` again), ``EngineFatalError`` if fenced."""
        self._writer = self._new_writer(first=True)

    @property
    def committing(self) -> bool:
        """Whether a written batch is not reported committed yet."""
        return self._writer is not None and self._fatal is None and self._writer.busy

    def write(self, batch: Batch) -> None:
        """Hand *batch* to the writer (waiting while another waits for its turn)."""
        self.check()
        self._handle(self._running.hand(batch))

    def settle(self) -> None:
        """Commit every handed batch now."""
        if self._writer is None or self._fatal is not None:
            return
        self._handle(self._running.drain())
        self.check()

    def check(self) -> None:
        """Report what the writer has done; raise what failed meanwhile, or was kept by a callback."""
        if self._fatal is not None:
            raise self._fatal
        error, self._kept_error = self._kept_error, None
        if error is not None:
            raise error
        self._handle(self._running.collect())
        kept, self._kept_abort = self._kept_abort, None
        if kept is not None:
            self._abort(*kept)

    def abandon(self) -> None:
        """The batch being made failed (not a Kafka error): the ones before commit, this one is read again."""
        try:
            self.settle()
        except BatchAborted:
            return  # rewound already
        self._rewind(known=True)

    def revoked(self, partitions: Iterable[TopicPartition]) -> None:
        """A rebalance callback's part: every handed batch commits before the partitions move (never raises)."""
        if self._writer is not None and self._fatal is None:
            self._quietly(lambda: self._running.drain())
        for tp in partitions:  # their committed offsets may move under another member
            self._known.pop((tp.topic, tp.partition), None)

    def lost(self, partitions: Iterable[TopicPartition]) -> None:
        """A rebalance callback's part: the partitions are another member's already (never raises).

        The waiting batch, whose transaction has not begun, is dropped; the one being written is
        waited for: its offsets went with the group generation, which the coordinator refuses
        (failing the transaction) once the group has moved on (KIP-447), and the next owner's read
        of the committed offsets waits for the transaction to end.  Nothing is rewound and an
        aborted batch is not raised: every partition went, and whoever gets one next (this member
        too, once it rejoins) starts from its committed offset.  A rewind would only ask the group
        coordinator for offsets, which failed for a minute after a broker restart.
        """
        if self._writer is not None and self._fatal is None:
            self._running.withdraw()
            self._quietly(lambda: self._running.drain())
        self._known.clear()
        self._kept_abort = None

    def close(self, timeout: float) -> None:
        """Let the writer deliver what is queued and end."""
        if self._writer is not None:
            self._writer.close(timeout)

    # -- what the writer reported ---------------------------------------------------------

    def _handle(self, report: Report) -> None:
        """Take note of the written batches; after a failure, recover, rewind and raise ``BatchAborted``."""
        taken = self._take(report)
        if taken is not None:
            self._abort(*taken)

    def _take(self, report: Report) -> tuple[BaseException, bool] | None:
        """The written batches noted, the writer recovered: the failure and whether ``_known`` holds."""
        self._note(report.written)
        if report.failure is None:
            return None
        return report.failure, self._recover(report.failure)

    def _abort(self, failure: BaseException, known: bool) -> NoReturn:
        self._rewind(known)
        raise BatchAborted(str(failure)) from failure

    def _note(self, written: list[Batch]) -> None:
        for batch in written:
            self._renewed = False
            self._known.update(((tp.topic, tp.partition), tp.offset) for tp in batch.offsets)
            self._on_result("committed")
            batch.on_committed()

    def _recover(self, failure: BaseException) -> bool:
        """Leave a writer ready for the next batch; whether the committed offsets are those in ``_known``."""
        if isinstance(failure, Abortable):
            self._running.resume()
            return True
        if isinstance(failure, (EngineFatalError, Interrupted)):  # fencing, or a stop while waiting
            raise self._died(failure)
        if not isinstance(failure, BatchFailed):  # a bug in the writer thread
            raise self._died(EngineFatalError(f"the batch writer failed: {failure!r}")) from failure
        what = "wedged" if isinstance(failure, Wedged) else "failed"
        if self._renewed:
            again = f"transactional producer {what} again before any batch committed: {failure}"
            raise self._died(EngineFatalError(again))
        self._renewed = True
        self._on_result("aborted")
        self._writer = self._new_writer()
        return False

    def _new_writer(self, *, first: bool = False) -> Writer:
        writer = Writer(self._make_policy(), self._consumer, self._on_wait)
        failure = writer.start()
        if failure is None:
            return writer
        if isinstance(failure, Interrupted) or (
            isinstance(failure, EngineFatalError) and not isinstance(failure, NotStarted)
        ):
            raise self._died(failure)
        if not isinstance(failure, NotStarted):  # the producer failed or hung in init_transactions
            wrapped = NotStarted(f"cannot initialise transactions: {failure}")
            wrapped.__cause__ = failure
            failure = wrapped
        if first:  # nothing started, nothing to recover: not fatal to this pipeline
            raise failure
        raise self._died(failure)

    def _quietly(self, drain: Callable[[], Report]) -> None:
        """In a rebalance callback: note, recover now, keep a failure for the loop's thread."""
        try:
            taken = self._take(drain())
        except BaseException as exc:  # noqa: BLE001 - fatal, or a hook failed: raised by the loop's next check
            self._kept_error = self._kept_error or exc
            return
        if taken is not None:
            failure, known = taken
            if self._kept_abort is not None:
                failure, known = self._kept_abort[0], known and self._kept_abort[1]
            self._kept_abort = (failure, known)

    def _rewind(self, known: bool) -> None:
        known_offsets = self._known if known else None
        rewind(self._consumer, self._offsets, self._timeout, self._patience, known_offsets, self._on_wait)

    def _died(self, fatal: EngineError) -> EngineError:
        self._fatal = fatal
        return fatal

    @property
    def _running(self) -> Writer:
        if self._writer is None:
            raise RuntimeError("Pipeline used before start()")
        return self._writer
