"""Consumer lag as the broker sees it: the group's committed offsets against the partitions' end.

librdkafka's own ``consumer_lag`` statistic is measured from offsets the
consumer itself committed.  In exactly-once mode the consumer commits nothing:
its offsets go into the producer's transaction (``send_offsets_to_transaction``,
docs/kafka.md), so that statistic never appears for a new group and stays frozen
at the lag seen at assignment after a restart.  ``LagMonitor`` asks the cluster
instead, every *interval_s*, with two consumers of its own that carry the
group's id but never subscribe (so they never join the group):

- the group's committed offsets (``committed()``: OffsetFetch to the group
  coordinator) from a read_uncommitted consumer.  Not read_committed: librdkafka
  then asks for stable offsets only (KIP-447 ``require_stable``), and while a
  transaction holds offsets of the group not yet committed, the coordinator
  answers UNSTABLE_OFFSET_COMMIT and the client retries.  An exactly-once
  processor commits transactions back to back, so that wait lasted seconds
  (3.4 s in 97 readings against a processor at ~6000 records/s): the reading
  timed out and the lag series dropped, under load, when it matters.  The
  offsets returned either way are those of committed transactions (pending
  ones are never returned); read_uncommitted only stops waiting for them;
- each partition's last stable offset, the end a read_committed consumer reads
  up to, and its log start offset (``get_watermark_offsets``: ListOffsets with
  the client's isolation level) from a read_committed consumer;

and sets ``crawl_decoder_consumer_lag{topic, partition}`` to
``last_stable - max(committed, log_start)``.

Records of an upstream transaction still open lie past the last stable
offset: a read_committed consumer cannot read them yet, so they are not lag,
and a crawler's transaction left open would read 0.  The same reading also
asks the read_uncommitted consumer for the high watermark (the end including
them) and sets ``crawl_decoder_consumer_lag_uncommitted`` to
``high_watermark - max(committed, log_start)``; the difference is what open
transactions hold back.

Records say how far behind the group is; the time-based lag says how long the
oldest one has waited, the number an SLO is written against.  For each
partition with records past the group's offset, the reading fetches the first
of them and sets ``crawl_decoder_oldest_unprocessed_age_seconds`` to now minus
its timestamp (0 when there is none): the first committed record at or after
the group's offset (read_committed, which skips aborted records and transaction
markers: a partition whose only records left are markers has nothing to
process), and the first record of the oldest open transaction, at the last
stable offset (read_uncommitted), whichever is older (known timestamps are kept while the group's offset stays, so
a stalled partition is not fetched again).  The timestamp is the
landing topic's: the producer's CreateTime by default (a crawler's clock), the
broker's append time under ``message.timestamp.type=LogAppendTime``.  The
committed offset itself is exported too
(``crawl_decoder_consumer_committed_offset``): whether it moves is whether the
group makes progress, which the stall alert asks.  A partition the group never
committed is read from its log start (``auto.offset.reset=earliest``), and an
offset below the log start points at records retention already deleted, which
the consumer would skip.  The same in both processing modes.

Which partitions: with *held* (the processor's), only those this instance
holds, so each pod reports the lag of its own partitions: a stalled partition's
series carry the scrape's ``pod`` label of the pod holding it, and the group's
lag is the sum over pods.  A partition no pod holds has no series then (a
rebalance of a few seconds, or a group with no member left: the readiness and
absence alerts cover those).  During a rebalance two pods may report one
partition for a reading, so alerts still aggregate ``max by (topic,
partition)`` before they sum.  Without *held* (tools, tests), every partition
of the topic.

Not the admin client's ``list_consumer_group_offsets``: librdkafka (up to 2.x
at least) dereferences a null consumer group when an admin client's OffsetFetch
meets NOT_COORDINATOR, which a new group or a coordinator still loading answers,
and the process dies of SIGSEGV (librdkafka issue #5040, confluent-kafka-python
issue #1982).  A consumer has a group handle and retries.

A reading that fails (the broker away, the topic missing) drops the lag series
and counts ``crawl_decoder_consumer_lag_refresh_failures_total``: a frozen old
number would pass for a true one.  The failure is logged once per distinct
message until a reading succeeds again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, TypeVar

from confluent_kafka import TIMESTAMP_NOT_AVAILABLE, KafkaError, KafkaException, TopicPartition

from .exceptions import ObservabilityConfigError
from .logging import get_logger
from .metrics import Metrics

#: How often the lag is read; a Prometheus scrape interval is typically 15-60 s.
DEFAULT_INTERVAL_S = 15.0
#: Bound on each request of one reading, retries of transient errors included.
DEFAULT_TIMEOUT_S = 10.0
#: Pause between two tries of a request that failed with a transient error.
RETRY_BACKOFF_S = 0.2

_T = TypeVar("_T")

#: Records fetched at a time for the age reading: one per partition is used, the rest are dropped.
AGE_FETCH_BATCH = 64

#: The committed offsets are read without waiting for open transactions; the ends are the last stable offsets.
READ_UNCOMMITTED, READ_COMMITTED = "read_uncommitted", "read_committed"

_log = get_logger(component="lag")


class LagUnavailable(Exception):
    """One reading could not be completed; the message says which request failed and why."""


@dataclass
class PartitionReading:
    """One partition of one reading."""

    #: The offset the group reads next: its committed offset, or the log start (never committed, or deleted).
    start: int
    last_stable: int
    high_watermark: int
    lag: int
    #: Records past *start* counting those of open transactions (up to the high watermark).
    lag_uncommitted: int
    #: Seconds the oldest record past *start* has waited, 0 when there is none (set by the age reading).
    age_s: float = 0.0

    @classmethod
    def of(cls, committed: int | None, log_start: int, last_stable: int, high_watermark: int) -> PartitionReading:
        start = log_start if committed is None else max(committed, log_start)
        return cls(
            start, last_stable, high_watermark,
            lag=lag_of(committed, log_start, last_stable),
            lag_uncommitted=lag_of(committed, log_start, high_watermark),
        )  # fmt: skip


class LagMonitor:
    """Reads the lag of *group_id* on *topic* in a daemon thread and sets it in *metrics*.

    *consumer_factory(isolation_level)* makes each ``confluent_kafka.Consumer`` it
    uses: group *group_id*, the given isolation level (``read_uncommitted`` for
    the committed offsets, ``read_committed`` for the partitions' ends, see the
    module docstring), never subscribed.  It is called at the first reading
    (constructors stay offline).  ``read()`` is one
    reading, for tests and for callers that want a number now.
    """

    def __init__(
        self,
        consumer_factory: Callable[[str], Any],
        group_id: str,
        topic: str,
        metrics: Metrics,
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        clock: Callable[[], float] = time.time,
        on_reading: Callable[[str | None], None] | None = None,
        held: Callable[[], Collection[int]] | None = None,
    ) -> None:
        """*on_reading* hears each reading's failure, or None when one succeeded (readiness: the
        broker answers); *held*, the partitions of *topic* this instance holds now (None: all)."""
        if interval_s <= 0 or timeout_s <= 0:
            raise ObservabilityConfigError(f"lag interval ({interval_s}) and timeout ({timeout_s}) must be positive")
        self._consumer_factory = consumer_factory
        self._consumers: dict[str, Any] = {}
        self.group_id = group_id
        self.topic = topic
        self._metrics = metrics
        #: Seconds between readings; may be changed before ``start()``.
        self.interval_s = interval_s
        self._timeout_s = timeout_s
        self._clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_failure: str | None = None
        # (isolation level, partition, start offset) -> the timestamp of the first record found from there: a
        # record at an offset never changes, so a partition whose group offset stays (a stall, the case the age
        # is for) is not fetched again. Kept for the offsets of the last reading only.
        self._first_found: dict[tuple[str, int, int], int] = {}
        self._on_reading = on_reading or _ignore
        self._held = held

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="lag-monitor", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread (within a reading's timeouts), close the consumer, drop the lag series; safe to
        call twice."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(self._timeout_s * 3 + 5)
        consumers, self._consumers = self._consumers, {}
        if thread is None or not thread.is_alive():
            for consumer in consumers.values():
                consumer.close()  # it never joined the group: nothing to leave
        self._metrics.set_lag_reading(self.topic, {})

    def _run(self) -> None:
        while not self._stop.is_set():
            self.refresh()
            self._stop.wait(self.interval_s)

    # -- one reading -----------------------------------------------------------

    def refresh(self) -> dict[int, int] | None:
        """Read the lag and set the gauges; the lag per partition, or None when the reading failed."""
        try:
            reading = self.read_all()
        except LagUnavailable as exc:
            self._on_reading(f"lag reading failed: {exc}")
            self._metrics.lag_refresh_failed()
            if str(exc) != self._last_failure:
                self._last_failure = str(exc)
                _log.warning("consumer lag unavailable", group=self.group_id, topic=self.topic, error=str(exc))
            return None
        self._on_reading(None)
        if self._last_failure is not None:
            self._last_failure = None
            _log.info("consumer lag available again", group=self.group_id, topic=self.topic)
        self._metrics.set_lag_reading(self.topic, reading)
        return {partition: p.lag for partition, p in reading.items()}

    def read(self) -> dict[int, int]:
        """The group's lag per partition of the topic; raises ``LagUnavailable``."""
        return {partition: p.lag for partition, p in self.read_all(ages=False).items()}

    def read_all(self, *, ages: bool = True) -> dict[int, PartitionReading]:
        """Offsets, lags and (when *ages*) the oldest unprocessed record's age per partition; raises
        ``LagUnavailable``."""
        ends_reader, offsets_reader = self._client(READ_COMMITTED), self._client(READ_UNCOMMITTED)
        try:
            partitions = self._partitions(ends_reader)  # also the check that the cluster answers
            if self._held is not None:
                own = set(self._held())
                partitions = [p for p in partitions if p in own]
            if not partitions:
                return {}
            committed = self._committed(offsets_reader, partitions)
            stable = {p: self._watermarks(ends_reader, p) for p in partitions}
            high = {p: self._watermarks(offsets_reader, p)[1] for p in partitions}
            reading = {
                p: PartitionReading.of(committed.get(p), stable[p][0], stable[p][1], high[p]) for p in partitions
            }
            if ages:
                self._read_ages(ends_reader, offsets_reader, reading)
        finally:
            for consumer in (ends_reader, offsets_reader):
                consumer.poll(0)  # serves the client's log lines (they wait for a poll, see client_logs)
        return reading

    def _read_ages(self, ends_reader: Any, offsets_reader: Any, reading: dict[int, PartitionReading]) -> None:
        """Set each reading's age from the timestamps of the first records past the group's offset."""
        committed_from = {p: (r.start, r.last_stable) for p, r in reading.items() if r.start < r.last_stable}
        open_from = {
            p: (r.last_stable, r.high_watermark) for p, r in reading.items() if r.last_stable < r.high_watermark
        }
        found: dict[tuple[str, int, int], int] = {}
        stamps = self._first_timestamps_known(READ_COMMITTED, ends_reader, committed_from, found)
        opened = self._first_timestamps_known(READ_UNCOMMITTED, offsets_reader, open_from, found)
        for partition, stamp in opened.items():
            stamps[partition] = min(stamp, stamps.get(partition, stamp))
        self._first_found = found
        now_ms = self._clock() * 1000
        for partition, stamp in stamps.items():
            # A producer's clock ahead of ours makes a record "from the future": no negative age.
            reading[partition].age_s = max(now_ms - stamp, 0) / 1000

    def _first_timestamps_known(
        self,
        isolation_level: str,
        consumer: Any,
        ranges: dict[int, tuple[int, int]],
        found: dict[tuple[str, int, int], int],
    ) -> dict[int, int]:
        """``_first_timestamps``, fetching only the partitions whose start offset's record is not known yet;
        adds what it knows to *found*."""
        known = {p: self._first_found[(isolation_level, p, start)]
                 for p, (start, _) in ranges.items() if (isolation_level, p, start) in self._first_found}
        fetched = self._first_timestamps(consumer, {p: r for p, r in ranges.items() if p not in known})
        stamps = {**known, **fetched}
        found.update({(isolation_level, p, ranges[p][0]): stamp for p, stamp in stamps.items()})
        return stamps

    def _first_timestamps(self, consumer: Any, ranges: dict[int, tuple[int, int]]) -> dict[int, int]:
        """partition -> the timestamp (ms) of the first record *consumer* returns in [start, end) of it.

        A partition whose position reaches *end* without a record has none (only aborted records or
        transaction markers, which a read_committed consumer skips); it is left out.
        """
        if not ranges:
            return {}
        consumer.assign([TopicPartition(self.topic, p, start) for p, (start, _) in ranges.items()])
        found: dict[int, int] = {}
        pending = set(ranges)
        deadline = time.monotonic() + self._timeout_s
        try:
            while pending:
                if time.monotonic() >= deadline or self._stop.is_set():
                    raise LagUnavailable(
                        f"no record of {self.topic} partitions {sorted(pending)} within {self._timeout_s:g} s"
                    )
                for message in consumer.consume(AGE_FETCH_BATCH, timeout=0.2):
                    partition = message.partition()
                    if message.error() is None and partition in pending:
                        kind, stamp = message.timestamp()
                        if kind != TIMESTAMP_NOT_AVAILABLE:
                            found[partition] = stamp
                        pending.discard(partition)
                positions = consumer.position([TopicPartition(self.topic, p) for p in pending])
                pending -= {tp.partition for tp in positions if tp.offset >= ranges[tp.partition][1]}
        finally:
            consumer.unassign()  # stops fetching and drops what was prefetched
        return found

    def _client(self, isolation_level: str) -> Any:
        consumer = self._consumers.get(isolation_level)
        if consumer is None:
            consumer = self._consumers[isolation_level] = self._consumer_factory(isolation_level)
        return consumer

    def _partitions(self, consumer: Any) -> list[int]:
        try:
            metadata = consumer.list_topics(self.topic, timeout=self._timeout_s)
        except KafkaException as exc:
            raise LagUnavailable(f"cannot read the metadata of {self.topic!r}: {_text(exc)}") from exc
        topic = metadata.topics.get(self.topic)
        if topic is None or topic.error is not None or not topic.partitions:
            reason = topic.error.str() if topic is not None and topic.error is not None else "no partitions"
            raise LagUnavailable(f"topic {self.topic!r}: {reason}")
        return sorted(topic.partitions)

    def _committed(self, consumer: Any, partitions: list[int]) -> dict[int, int]:
        wanted = [TopicPartition(self.topic, p) for p in partitions]
        try:
            found = self._retrying(lambda: consumer.committed(wanted, timeout=self._timeout_s))
        except KafkaException as exc:
            raise LagUnavailable(f"cannot read the committed offsets of group {self.group_id!r}: {_text(exc)}") from exc
        # A partition without a committed offset reads OFFSET_INVALID (-1001): left out.
        return {tp.partition: tp.offset for tp in found if tp.error is None and tp.offset >= 0}

    def _watermarks(self, consumer: Any, partition: int) -> tuple[int, int]:
        """(log start, end) of one partition: the end is the last stable offset for a read_committed
        *consumer*, the high watermark for a read_uncommitted one."""
        tp = TopicPartition(self.topic, partition)
        found: tuple[int, int] | None  # the consumer is typed Any, and so would be its answer
        try:
            found = self._retrying(lambda: consumer.get_watermark_offsets(tp, timeout=self._timeout_s, cached=False))
        except KafkaException as exc:
            raise LagUnavailable(f"cannot read the offsets of {self.topic}[{partition}]: {_text(exc)}") from exc
        if found is None:
            raise LagUnavailable(f"no offsets for {self.topic}[{partition}] within {self._timeout_s:g} s")
        return found

    def _retrying(self, fetch: Callable[[], _T]) -> _T:
        """*fetch*, again while it fails with an error a retry can cure (a group coordinator still
        loading its offsets after a broker start, a leader moving), for up to the timeout."""
        deadline = time.monotonic() + self._timeout_s
        while True:
            try:
                return fetch()
            except KafkaException as exc:
                if not _transient(exc) or time.monotonic() >= deadline or self._stop.wait(RETRY_BACKOFF_S):
                    raise


def _ignore(_failure: str | None) -> None:
    pass


def lag_of(committed: int | None, log_start: int, last_stable: int) -> int:
    """Records a read_committed consumer of the group still has to read in one partition.

    The count is of offsets, so it includes transaction markers of a
    transactional producer between the committed offset and the end.
    """
    start = log_start if committed is None else max(committed, log_start)
    return max(last_stable - start, 0)


def _transient(exc: KafkaException) -> bool:
    error = exc.args[0] if exc.args else None
    if not isinstance(error, KafkaError):
        return False
    return error.retriable() or error.code() in _TRANSIENT_CODES


_TRANSIENT_CODES = frozenset({
    KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
    KafkaError.COORDINATOR_NOT_AVAILABLE,
    KafkaError.NOT_COORDINATOR,
    KafkaError.LEADER_NOT_AVAILABLE,
    KafkaError.NOT_LEADER_FOR_PARTITION,
})


def _text(exc: BaseException) -> str:
    if isinstance(exc, KafkaException) and exc.args and hasattr(exc.args[0], "str"):
        text: str = exc.args[0].str()
        return text
    return str(exc) or type(exc).__name__
