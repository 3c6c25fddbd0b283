"""``crawl-decoder ingest``'s loop: WARC and ARC inputs to the landing topic, exactly once across reruns.

Each input is written by its own transactional producer, ``transactional.id`` =
``<prefix>-<input identity>``.  Records go out in batches; each batch is one Kafka transaction
holding its RawResponse records and the input's checkpoint (``checkpoint``) at the end of the
batch's last record.  Hence:

- a reader of the landing topic (``read_committed``, as the processor reads it) sees a batch whole
  or not at all: Ctrl-C, SIGTERM and SIGKILL leave nothing half-written;
- a rerun of the same input first fences its predecessor (``init_transactions`` with the same id
  aborts the transaction a killed run left open), then reads the newest checkpoint and resumes at
  its offset: no record written twice, none skipped;
- two ingests of different inputs never fence each other; two of the same input do (the older one
  stops): they would otherwise write it twice.

An abortable error (a broker restarting) aborts the batch and reads the input again from the last
checkpoint, up to ``MAX_ATTEMPTS`` times in a row.  A malformed record is counted, logged with its
offset and stepped over, or with ``stop_on_malformed`` ends the run with the records before it
committed (a rerun stops at it again until the file is repaired).

A record whose digest does not match is counted and logged with its offset; a response among them
is written with the Kafka header ``warc-digest-mismatch``, which the processor quarantines
(``digest-mismatch``).  A WARC-Date that cannot be read, and what warcio prints, are counted and logged.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, NoReturn

from confluent_kafka import KafkaError, KafkaException, Producer

from ..exceptions import ConfigError
from ..kafka import MAX_BODY_BYTES, KafkaConnection, make_admin, make_producer
from ..kafka.permissions import GROUP, TOPIC, TRANSACTIONAL_ID, MissingPermissions, Permission, check_permissions
from ..observability.logging import get_logger
from ..processor.route import DIGEST_MISMATCH_HEADER
from ..serialization.avro import AvroSerializer
from .checkpoint import (
    CHECKPOINT_READER_PREFIX,
    WATERMARK_READER_PREFIX,
    Checkpoint,
    CheckpointStore,
    ensure_checkpoint_topic,
)
from .exceptions import IngestAborted, IngestError, SourceError
from .from_warc import Malformed, convert
from .progress import Progress
from .raw_response import record_key
from .source import Source, open_source
from .tally import MalformedRecord, RecordCounts, Tally
from .warc import MALFORMED, RESPONSE, WARCINFO, Entry, one_stream, warc_fields
from .warc_fast import entries

MiB = 1024 * 1024
#: Read beyond the body limit for the HTTP head and chunk framing around a body at the limit.
HEAD_ALLOWANCE = MiB
#: Failed transactions in a row on one input before the run gives up on it (a rerun resumes).
MAX_ATTEMPTS = 3
KAFKA_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class IngestOptions:
    landing_topic: str
    #: Compacted topic of per-input checkpoints; default ``<landing_topic>.ingest-checkpoints``.
    checkpoint_topic: str = ""
    transactional_id_prefix: str = "crawl-decoder-ingest"
    #: Set on every record; None takes each WARC's warcinfo ``isPartOf``.
    crawl_id: str | None = None
    stop_on_malformed: bool = False
    body_limit: int = MAX_BODY_BYTES
    batch_records: int = 1000
    batch_bytes: int = 64 * MiB

    def __post_init__(self) -> None:
        if not self.checkpoint_topic:
            object.__setattr__(self, "checkpoint_topic", f"{self.landing_topic}.ingest-checkpoints")
        problems = []
        if not self.landing_topic or not self.transactional_id_prefix:
            problems.append("the landing topic and the transactional id prefix must not be empty")
        if self.checkpoint_topic == self.landing_topic:
            problems.append("the checkpoint topic must not be the landing topic")
        if not 0 < self.body_limit <= MAX_BODY_BYTES:
            problems.append(
                f"the body limit must be from 1 to {MAX_BODY_BYTES} bytes (a record must fit a Kafka message)"
            )
        if self.batch_records <= 0 or self.batch_bytes <= 0:
            problems.append("batch sizes must be positive")
        if problems:
            raise ConfigError("invalid ingest options: " + "; ".join(problems))


class _Aborted(Exception):
    """The open transaction was aborted; the input is read again from the last committed checkpoint."""


class _StopOnMalformed(Exception):
    pass


class Ingester:
    def __init__(
        self,
        connection: KafkaConnection,
        options: IngestOptions,
        serialize: AvroSerializer,
        *,
        progress: Progress | None = None,
        stdin: BinaryIO | None = None,
    ) -> None:
        self.connection = connection
        self.options = options
        self.serialize = serialize
        self.progress = progress
        self.stdin = stdin
        self.tally = Tally()
        self.log = get_logger(component="ingest", landing_topic=options.landing_topic)
        self._stopping = threading.Event()
        #: Set when a malformed record ended the run (``stop_on_malformed``).
        self.stopped_at_malformed = False
        #: Set when a stop left part of the inputs unread (a stop after the last commit changes nothing).
        self._cut_short = False

    @property
    def stop_requested(self) -> bool:
        return self._stopping.is_set()

    @property
    def interrupted(self) -> bool:
        """Whether ``stop`` ended the run before the end of its inputs (rerun the same command to resume)."""
        return self._cut_short

    def cut_short(self) -> None:
        """(Called by an input's run) A stop ended this input before its end."""
        self._cut_short = True

    def stop(self, *_args: object) -> None:
        """Finish the record in hand, commit the batch, stop (a signal handler may call it)."""
        self._stopping.set()

    def permissions(self) -> list[Permission]:
        """What a run needs on topics and groups (transactional ids: checked as each input starts)."""
        options = self.options
        return [
            Permission(TOPIC, options.landing_topic, "Write", "the landing topic"),
            Permission(TOPIC, options.checkpoint_topic, "Read", "the checkpoint topic, read at start"),
            Permission(TOPIC, options.checkpoint_topic, "Write", "the checkpoint topic, written with each batch"),
            *(
                Permission(GROUP, f"{prefix}{uuid.uuid4().hex}", "Describe", f"a throwaway group: prefix {prefix!r}")
                for prefix in (CHECKPOINT_READER_PREFIX, WATERMARK_READER_PREFIX)
            ),
        ]

    def run(self, paths: Sequence[str]) -> Tally:
        # First: a topic this user may not describe looks as if it did not exist.
        check_permissions(self.connection, self.permissions())
        _require_topic(self.connection, self.options.landing_topic)
        if ensure_checkpoint_topic(self.connection, self.options.checkpoint_topic):
            check_permissions(self.connection, self.permissions())  # on the topic just created
        store = CheckpointStore(self.connection, self.options.checkpoint_topic)
        try:
            for path in paths:
                if self.stopped_at_malformed:
                    break
                if self._stopping.is_set():
                    self._cut_short = True
                    break
                self._one_input(path, store)
        finally:
            store.close()
            if self.progress is not None:
                self.progress.close()
        return self.tally

    def _one_input(self, path: str, store: CheckpointStore) -> None:
        try:
            source = open_source(path, self.stdin, rewind_bytes=self.rewind_bytes)
        except SourceError as exc:
            self._failed(path, exc)
            return
        try:
            _InputRun(self, source, store).run()
        except (SourceError, IngestAborted) as exc:
            self._failed(path, exc)
        except _StopOnMalformed:
            self.stopped_at_malformed = True
        finally:
            source.close()

    @property
    def rewind_bytes(self) -> int:
        """How far back an input read as it streams can go: a batch and a record, to read an aborted batch again."""
        return self.options.batch_bytes + self.options.body_limit + HEAD_ALLOWANCE

    def _failed(self, path: str, exc: IngestError) -> None:
        self.tally.files_failed += 1
        self.log.error("input not ingested to its end", file=path, error=str(exc))


@dataclass
class _Batch(RecordCounts):
    """What the open transaction holds, added to the run's tally once it commits."""

    bytes: int = 0
    entries: int = 0


class _InputRun:
    """One input, from its checkpoint to its end (or a stop)."""

    def __init__(self, ingester: Ingester, source: Source, store: CheckpointStore) -> None:
        self.ingester = ingester
        self.options = ingester.options
        self.source = source
        self.store = store
        self.log = ingester.log.bind(file=source.name, input_id=source.identity)
        self.producer: Producer | None = None
        self.committed: Checkpoint | None = None
        self.in_transaction = False

    def run(self) -> None:
        self.producer = self._producer()
        self.store.refresh()  # after init_transactions: a predecessor's open transaction is aborted by now
        self.committed = self.store.get(self.source.identity) or Checkpoint(self.source.identity, self.source.name, 0)
        tally = self.ingester.tally
        if self.committed.done:
            tally.files_already_done += 1
            self.log.info("input already ingested: skipped", written=self.committed.written)
            return
        inflated = one_stream(self.source, self.ingester.rewind_bytes)
        if inflated is not None:
            # warcio refuses it; read whole, it loses nothing but the way to start anywhere but at its start.
            tally.files_one_gzip_stream += 1
            self.log.warning("input gzip-compressed as one stream, not per record: read from its start, "
                             "offsets counted in its uncompressed bytes")  # fmt: skip
            self.source = inflated
        if self.committed.offset:
            tally.files_resumed += 1
            self.log.info("resuming input", offset=self.committed.offset, written_before=self.committed.written)
        try:
            self._with_retries()
        finally:
            if self.in_transaction:  # an exception or a second Ctrl-C: nothing of the batch becomes visible
                self._abort_quietly()

    def _with_retries(self) -> None:
        assert self.committed is not None  # run read it
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                self._read_from(self.committed)
                return
            except _Aborted as exc:
                self.log.warning("transaction aborted: reading again from the last checkpoint",
                                 error=str(exc), offset=self.committed.offset, attempt=attempt)  # fmt: skip
        raise IngestAborted(f"{self.source.name}: {MAX_ATTEMPTS} transactions in a row failed; rerun to resume")

    def _read_from(self, checkpoint: Checkpoint) -> None:
        crawl_id = self.options.crawl_id or checkpoint.crawl_id
        batch, written = _Batch(), checkpoint.written
        block_limit = self.options.body_limit + HEAD_ALLOWANCE
        for entry in entries(self.source, checkpoint.offset, block_limit):
            if entry.kind == WARCINFO and self.options.crawl_id is None:
                crawl_id = warc_fields(entry.block).get("isPartOf") or crawl_id
            outcome = self._handle(entry, crawl_id, batch)
            written += outcome == RESPONSE
            if outcome == MALFORMED and self.options.stop_on_malformed:
                self._commit(batch, entry.offset, crawl_id, written, done=False)
                self.log.error("stopped at a malformed record (--stop-on-malformed)", offset=entry.offset)
                raise _StopOnMalformed
            batch.bytes += entry.end - entry.offset
            batch.entries += 1
            if self._batch_full(batch) or self.ingester.stop_requested:
                self._commit(batch, entry.end, crawl_id, written, done=False)
                batch = _Batch()
                if self.ingester.stop_requested:
                    self.log.warning("interrupted: batch committed, rerun to resume", offset=entry.end)
                    self.ingester.cut_short()
                    return
            self._show(entry.end, batch)
        self._commit(batch, self._end(), crawl_id, written, done=True)
        self.ingester.tally.files_done += 1
        self._show(self._end(), _Batch(), force=True)

    def _handle(self, entry: Entry, crawl_id: str | None, batch: _Batch) -> str:
        """Count *entry* in *batch* and produce it when it is an HTTP response; returns the kind it counted as
        (an HTTP response whose block does not parse counts as malformed)."""
        for note in entry.notes:
            batch.library_warnings += 1
            self.log.warning("library warning", library="warcio", offset=entry.offset, message=note)
        if entry.digest_problem is not None:
            batch.digest_mismatches += 1
            self.log.warning("digest mismatch", offset=entry.offset, kind=entry.kind, problem=entry.digest_problem,
                             record_id=entry.fields.get("WARC-Record-ID"))  # fmt: skip
        if entry.kind == RESPONSE:
            converted = convert(entry, crawl_id=crawl_id, body_limit=self.options.body_limit)
            if isinstance(converted, Malformed):
                return self._malformed(entry, converted.reason, batch)
            if converted.unread_date is not None:
                batch.dates_unread += 1
                self.log.warning("WARC-Date unreadable: fetched_at set to 1970-01-01T00:00:00Z", offset=entry.offset,
                                 warc_date=converted.unread_date)  # fmt: skip
            self._produce(converted.record, entry)
            batch.written += 1
            batch.cut += converted.cut
            batch.coding_kept += converted.note is not None
        elif entry.kind == MALFORMED:
            return self._malformed(entry, entry.problem or "unreadable", batch)
        batch.kinds[entry.kind] += 1
        return entry.kind

    def _malformed(self, entry: Entry, reason: str, batch: _Batch) -> str:
        batch.kinds[MALFORMED] += 1
        batch.malformed.append(MalformedRecord(self.source.name, entry.offset, reason))
        event = "malformed record stopping" if self.options.stop_on_malformed else "malformed record skipped"
        self.log.warning(event, offset=entry.offset, reason=reason)
        return MALFORMED

    def _produce(self, record: dict[str, Any], entry: Entry) -> None:
        value = self.ingester.serialize(record)
        headers = [("warc-file", self.source.name.encode()), ("warc-offset", str(entry.offset).encode())]
        if entry.format == "warc" and entry.fields.get("WARC-Record-ID"):
            headers.append(("warc-record-id", entry.fields["WARC-Record-ID"].encode()))
        if entry.digest_problem is not None:  # the processor quarantines it (digest-mismatch)
            headers.append((DIGEST_MISMATCH_HEADER, entry.digest_problem.encode()))
        self._send(self.options.landing_topic, value, record_key(record), headers)

    def _send(self, topic: str, value: bytes, key: bytes, headers: list[tuple[str, bytes]] | None = None) -> None:
        self._begin()
        assert self.producer is not None  # run made it
        while True:
            try:
                # The stub's headers list is invariant: it refuses a list of (str, bytes), which the client takes.
                self.producer.produce(topic, value, key, headers=headers)  # type: ignore[arg-type]
                return
            except BufferError:
                self.producer.poll(0.05)  # the local queue is full: let deliveries drain it
            except KafkaException as exc:
                self._transaction_failed(exc)

    def _begin(self) -> None:
        if not self.in_transaction:
            assert self.producer is not None  # run made it
            try:
                self.producer.begin_transaction()
            except KafkaException as exc:
                self._transaction_failed(exc)
            self.in_transaction = True

    def _commit(self, batch: _Batch, offset: int, crawl_id: str | None, written: int, *, done: bool) -> None:
        checkpoint = Checkpoint(self.source.identity, self.source.name, offset, done, crawl_id, written)
        self._send(self.options.checkpoint_topic, checkpoint.value(), checkpoint.key())
        assert self.producer is not None  # run made it
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                self.producer.commit_transaction(KAFKA_TIMEOUT_S)
                break
            except KafkaException as exc:
                if not exc.args[0].retriable() or attempt == MAX_ATTEMPTS:
                    self._transaction_failed(exc)
        self.in_transaction = False
        self.committed = checkpoint
        self.ingester.tally.add(batch)
        self.ingester.tally.bytes_read += batch.bytes

    def _transaction_failed(self, exc: KafkaException) -> NoReturn:
        error = exc.args[0]
        if error.txn_requires_abort():
            self._abort_quietly()
            raise _Aborted(error.str()) from exc
        self.in_transaction = False  # a fatal producer error: the broker aborts what is open
        if error.fatal():
            raise IngestAborted(
                f"{self.source.name}: {error.str()} (another ingest of the same input started? it fences this one)"
            ) from exc
        raise IngestAborted(f"{self.source.name}: {error.str()}") from exc

    def _abort_quietly(self) -> None:
        assert self.producer is not None  # only a run's transaction is aborted
        try:
            self.producer.abort_transaction(KAFKA_TIMEOUT_S)
        except KafkaException as exc:
            self.log.warning("abort failed: the broker aborts the transaction when it times out", error=str(exc))
        self.in_transaction = False

    def _producer(self) -> Producer:
        transactional_id = f"{self.options.transactional_id_prefix}-{self.source.identity}"
        producer = make_producer(
            self.ingester.connection,
            transactional_id=transactional_id,
            # Larger batches than the processor's: an ingest is throughput, not latency.
            extra={"linger.ms": 50},
            role="ingest-producer",
        )
        try:
            producer.init_transactions(KAFKA_TIMEOUT_S)
        except KafkaException as exc:
            if exc.args[0].code() == KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED:
                # Not this input's fault: every input needs one of these ids; the run stops here.
                needed = Permission(TRANSACTIONAL_ID, transactional_id, "Write",
                                    f"each input's transactions: prefix {self.options.transactional_id_prefix}-")
                raise MissingPermissions([needed], self.ingester.connection.sasl_username) from exc
            raise IngestAborted(
                f"{self.source.name}: cannot start a transactional producer: {exc.args[0].str()}"
            ) from exc
        return producer

    def _batch_full(self, batch: _Batch) -> bool:
        return batch.entries >= self.options.batch_records or batch.bytes >= self.options.batch_bytes

    def _end(self) -> int:
        return self.source.size if self.source.size is not None else self.source.stream.tell()

    def _show(self, position: int, batch: _Batch, *, force: bool = False) -> None:
        """Progress with the open batch counted (the tally has only committed batches)."""
        progress = self.ingester.progress
        if progress is not None and (force or progress.due()):
            tally = self.ingester.tally
            progress.update(
                self.source.name, position, self.source.size,
                records=tally.records + sum(batch.kinds.values()), written=tally.written + batch.written,
                malformed=tally.kinds[MALFORMED] + batch.kinds[MALFORMED], bytes_read=tally.bytes_read + batch.bytes,
            )  # fmt: skip


def _require_topic(connection: KafkaConnection, topic: str) -> None:
    try:
        metadata = make_admin(connection).list_topics(topic, timeout=30)
    except KafkaException as exc:
        raise IngestError(f"cannot reach Kafka: {exc.args[0].str()}") from exc
    found = metadata.topics.get(topic)
    if found is None or found.error is not None:
        raise IngestError(f"landing topic {topic!r} does not exist: create it first (or pass --topic)")
