"""A replay run: the quarantine topic from the group's cursor to the end seen at start, through the batch engine.

The run is the batch engine (``consumer.engine``) with replay's decision
(``decide.ReplayDecider``: the processor's own ``Router``, so replay decides
exactly as the processor would today) and replay's cursor as its offsets
(``cursor.ReplayCursor``).  Each batch is one transaction holding the clean
records, the re-written quarantine records and the replay group's cursors.
The summary counts what was committed.  See the package docstring for what
happens to each kind of record and why.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

from confluent_kafka import Consumer, KafkaException, Message, TopicPartition

from ..decoding import OverrideTable
from ..engine import BatchEngine, Decided, Decision, DryRun, ExactlyOnce, Hooks, Policy
from ..kafka.clients import MESSAGE_LIMIT_BYTES, make_consumer, make_producer
from ..kafka.config import KafkaConnection
from ..kafka.permissions import GROUP, TOPIC, TRANSACTIONAL_ID, Permission, check_permissions
from ..observability.logging import get_logger
from ..processor.route import Router
from ..serialization.serde import Serde
from ..settings import Settings
from .cursor import PartitionRange, ReplayCursor
from .decide import ReplayDecider
from .exceptions import ReplayError
from .progress import Progress
from .rewind import Rewinder
from .selection import Selection
from .tally import SKIPPED_BY_FILTER, Outcome, Summary, summary_fields

#: No limit: a record still quarantined is decided again by every run (``--max-replays`` sets one).
DEFAULT_MAX_REPLAYS: int | None = None

#: A run killed mid-way holds its partitions until its group session expires: a rerun should not
#: wait librdkafka's default 45 s for them.  Heartbeats come from librdkafka's own thread, so a
#: busy run keeps its session all the same (the broker's minimum is 6 s).
SESSION_TIMEOUT_MS = 10_000


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """One run.  *to_offsets*: per quarantine partition (``None``: all) the offset reading stops at."""

    group_id: str
    transactional_id: str
    selection: Selection = field(default_factory=Selection)
    to_offsets: Mapping[int | None, int] = field(default_factory=dict)
    max_records: int | None = None
    max_replays: int | None = DEFAULT_MAX_REPLAYS
    #: Per quarantine partition (``None``: all): look again behind the cursor from this offset (``rewind``).
    rewind_to: Mapping[int | None, int] = field(default_factory=dict)
    dry_run: bool = False
    batch_size: int = 500


class Replayer:
    """Replays the quarantine topic once, from the group's cursor to the end captured at start."""

    def __init__(
        self,
        settings: Settings,
        connection: KafkaConnection,
        options: ReplayOptions,
        *,
        serde: Serde,
        router: Router,
        overrides: OverrideTable,
        progress: Progress | None = None,
    ) -> None:
        self.settings = settings
        self.connection = connection
        self.options = options
        self.progress = progress
        self.serde = serde
        self.summary = Summary()
        self.log = get_logger(component="replay", group=options.group_id, dry_run=options.dry_run)
        self._interrupted = False
        #: A dry run reads under this throwaway group, never committed to.
        self._dry_group = f"{options.group_id}-dry-run-{uuid.uuid4().hex}"
        #: Records selected in batches not committed yet (``--max`` counts them with the summary's).
        self._selected_pending = 0
        self._decide = ReplayDecider(
            serde=serde,
            router=router,
            overrides=overrides,
            selection=options.selection,
            max_replays=options.max_replays,
            dry_run=options.dry_run,
            clean_topic=settings.clean_topic,
            quarantine_topic=settings.quarantine_topic,
            message_limit=MESSAGE_LIMIT_BYTES,
        )
        self.cursor = ReplayCursor(settings.quarantine_topic, self._plan, subscribe=not options.dry_run)
        self.engine = BatchEngine(
            consumer=self._consumer,
            offsets=self.cursor,
            decide=self._decided,
            policy=self._policy,
            batch_size=options.batch_size,
            batch_timeout_s=settings.batch_timeout_ms / 1000,
            timeout_s=settings.shutdown_timeout_s,
            hooks=Hooks(
                committed=self._batch_committed,
                consumer_error=lambda error: self.log.warning("consumer error", error=error.str()),
                batch_aborted=self._aborted,
                assigned=lambda parts: self.log.info("partitions assigned", partitions=_numbers(parts)),
                revoked=lambda parts: self.log.info("partitions revoked", partitions=_numbers(parts)),
                lost=self._lost,
            ),
        )

    def stop(self, *_signal_args: object) -> None:
        """Finish the current batch, then end the run (safe from a signal handler)."""
        self.engine.stop()

    @property
    def interrupted(self) -> bool:
        """The run was stopped before its end; the next run goes on from the committed cursor."""
        return self._interrupted

    def permissions(self) -> tuple[list[Permission], Permission | None]:
        """What this run needs: (topics and groups, the transactional id or None for a dry run)."""
        options, settings = self.options, self.settings
        quarantine, clean = settings.quarantine_topic, settings.clean_topic
        needed = [Permission(TOPIC, quarantine, "Read", "the quarantine topic, replayed")]
        if options.dry_run:
            needed += [
                Permission(GROUP, options.group_id, "Describe", "the replay group, whose cursor a dry run reads"),
                Permission(GROUP, self._dry_group, "Describe",
                           f"a dry run's group: prefix {options.group_id}-dry-run-"),
            ]
        else:
            needed += [
                Permission(TOPIC, clean, "Write", "the clean topic: released records"),
                Permission(TOPIC, quarantine, "Write", "the quarantine topic: records still lossy, or carried forward"),
                Permission(GROUP, options.group_id, "Read", "the replay group: its cursor"),
            ]
        if options.rewind_to:
            needed += [
                Permission(TOPIC, clean, "Read", "the clean topic: --rewind-to looks for released records"),
                Permission(GROUP, f"{options.group_id}-rewind-{uuid.uuid4().hex}", "Describe",
                           f"a rewind's reader group: prefix {options.group_id}-rewind-"),
            ]
        if options.dry_run:
            return needed, None
        return needed, Permission(TRANSACTIONAL_ID, options.transactional_id, "Write", "the replay's transactions")

    def run(self) -> Summary:
        needed, transactional_id = self.permissions()
        check_permissions(
            self.connection, needed, transactional_id=transactional_id, timeout_s=self.settings.shutdown_timeout_s
        )
        if self.options.rewind_to:
            self.summary.rewind = self._rewinder().run()
        try:
            self._interrupted = not self.engine.run()
        finally:
            if self.progress is not None:
                self.progress.close(self.summary, done=self.cursor.progress()[0])
        if self._interrupted:
            self.log.warning("replay stopped before the end; run it again to go on", **self.summary.counts())
        fields = summary_fields(self.summary, dry_run=self.options.dry_run)
        self.log.info("replay finished", interrupted=self._interrupted, **fields)
        return self.summary

    def _rewinder(self) -> Rewinder:
        return Rewinder(
            self.connection,
            group_id=self.options.group_id,
            transactional_id=self.options.transactional_id,
            quarantine_topic=self.settings.quarantine_topic,
            clean_topic=self.settings.clean_topic,
            rewind_to=self.options.rewind_to,
            serde=self.serde,
            dry_run=self.options.dry_run,
            timeout_s=self.settings.shutdown_timeout_s,
        )

    # -- the engine's decide function and hooks ---------------------------------------------

    def _decided(self, message: Message) -> Decision[Outcome]:
        decision = self._decide(message)
        self._selected_pending += decision.note.kind != SKIPPED_BY_FILTER
        limit = self.options.max_records
        if limit is not None and self._selected() + self._selected_pending >= limit:
            self.cursor.close()  # what follows stays ahead of the cursor for a later run
        return decision

    def _batch_committed(self, decided: Decided, seconds: float) -> None:
        for _, decision in decided:
            self.summary.add(decision.note)
            self._selected_pending -= decision.note.kind != SKIPPED_BY_FILTER
        if self.progress is not None:
            self.progress.update(self.summary, done=self.cursor.progress()[0])

    def _aborted(self, reason: str) -> None:
        self.log.warning("batch aborted, reading it again", reason=reason)
        self._selected_pending = 0  # every batch not committed is read again

    def _lost(self, partitions: list[TopicPartition]) -> None:
        self.log.warning("partitions lost", partitions=_numbers(partitions))
        self._selected_pending = 0  # the waiting batch was dropped; its records are read again

    def _selected(self) -> int:
        return self.summary.read - self.summary.skipped_by_filter

    # -- where to read -------------------------------------------------------------------

    def _policy(self) -> Policy:
        if self.options.dry_run:
            return DryRun()
        producer = make_producer(
            self.connection, transactional_id=self.options.transactional_id, role="replay-producer"
        )
        return ExactlyOnce(producer, timeout=self.settings.shutdown_timeout_s)

    def _consumer(self) -> Consumer:
        # A dry run reads under a throwaway group that never commits; the real group is only looked at.
        group = self._dry_group if self.options.dry_run else self.options.group_id
        extra: dict[str, object] = {"enable.partition.eof": True}
        if "session.timeout.ms" not in self.connection.extra:
            extra["session.timeout.ms"] = SESSION_TIMEOUT_MS
        return make_consumer(self.connection, group, extra=extra, role="replay-consumer")

    def _plan(self, consumer: Consumer) -> dict[int, PartitionRange]:
        """Per quarantine partition: from the group's cursor to the end offset now (or --to-offset)."""
        ranges = self._ranges(consumer)
        planned = sum(r.planned for r in ranges.values())  # offsets, transaction markers included
        if self.progress is None:
            self.progress = Progress(planned)
        else:
            self.progress.total = planned
        self.log.info("replay starting", partitions={p: (r.start, r.stop) for p, r in ranges.items()})
        return ranges

    def _ranges(self, consumer: Consumer) -> dict[int, PartitionRange]:
        topic = self.settings.quarantine_topic
        timeout = self.settings.shutdown_timeout_s
        try:
            metadata = consumer.list_topics(topic, timeout=timeout).topics.get(topic)
        except KafkaException as exc:
            raise ReplayError(f"cannot read metadata of {topic!r}: {exc.args[0].str()}") from exc
        if metadata is None or metadata.error is not None or not metadata.partitions:
            raise ReplayError(f"quarantine topic {topic!r} does not exist")
        partitions = [TopicPartition(topic, p) for p in sorted(metadata.partitions)]
        committed = {tp.partition: tp.offset for tp in self._committed(consumer, partitions)}
        ranges = {}
        for tp in partitions:
            low, high = consumer.get_watermark_offsets(tp, timeout=timeout, cached=False)
            start = max(committed[tp.partition], low)  # never committed (-1001): from the beginning
            stop = min(high, self._to_offset(tp.partition))
            if start < stop:
                ranges[tp.partition] = PartitionRange(topic, tp.partition, low, start, stop)
        return ranges

    def _committed(self, consumer: Consumer, partitions: list[TopicPartition]) -> list[TopicPartition]:
        timeout = self.settings.shutdown_timeout_s
        if not self.options.dry_run:
            return consumer.committed(partitions, timeout=timeout)
        # A consumer that never subscribes nor commits leaves the group untouched.
        looker = make_consumer(self.connection, self.options.group_id, role="replay-offsets")
        try:
            return looker.committed(partitions, timeout=timeout)
        finally:
            looker.close()

    def _to_offset(self, partition: int) -> int:
        to = self.options.to_offsets
        found = to.get(partition, to.get(None))
        return found if found is not None else 2**63 - 1



def _numbers(partitions: list[TopicPartition]) -> list[int]:
    return [tp.partition for tp in partitions]
