"""Where each input of ``crawl-decoder ingest`` stands, kept in a compacted Kafka topic.

A checkpoint says: of the input with this identity, every record before ``offset`` is on the
landing topic.  It is written in the same Kafka transaction as the landing records it accounts for
(as Kafka Connect's exactly-once source connectors write their offsets, KIP-618), so the two are
visible together or not at all, and a rerun that starts at the last committed checkpoint writes no
record twice and skips none.

The topic is compacted (the newest checkpoint per input is what matters) and is read
``read_committed``.  ``refresh`` reads up to the high watermark taken when it is called, so a
transaction still open then (a killed run's, until its successor fences it or it times out) is
waited for: stopping at the last stable offset instead could miss a newer checkpoint written after
it.  Values are JSON: internal state that an operator can read with any console consumer.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict, dataclass

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, TopicPartition

from ..kafka import KafkaConnection, TopicCreationError, ensure_topics, make_admin, make_consumer
from ..kafka.permissions import TOPIC, MissingPermissions, Permission
from .exceptions import CheckpointError

VERSION = 1
#: Longer than the producer's transaction timeout: a killed run's open transaction ends by then.
REFRESH_TIMEOUT_S = 90.0
TOPIC_CONFIG = {"cleanup.policy": "compact"}


@dataclass(frozen=True, slots=True)
class Checkpoint:
    identity: str
    #: The input's name when the checkpoint was written (for people; the identity is the key).
    name: str
    #: Every record before this offset is written.
    offset: int
    #: The whole input was read.
    done: bool = False
    #: The warcinfo record's isPartOf read before ``offset``: records after it still belong to that crawl.
    crawl_id: str | None = None
    #: RawResponse records written from this input so far, over all runs.
    written: int = 0

    def key(self) -> bytes:
        return self.identity.encode("ascii")

    def value(self) -> bytes:
        return json.dumps({"version": VERSION, **asdict(self)}, separators=(",", ":")).encode("utf-8")

    @classmethod
    def parse(cls, value: bytes) -> Checkpoint:
        try:
            fields = json.loads(value)
            if fields.pop("version") != VERSION:
                raise ValueError("unknown version")
            return cls(**fields)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise CheckpointError(f"not a checkpoint of this version: {value[:200]!r} ({exc})") from exc


#: The throwaway groups of the store's two readers start with these (ACLs: Describe, by prefix).
CHECKPOINT_READER_PREFIX = "crawl-decoder-ingest-checkpoints-"
WATERMARK_READER_PREFIX = "crawl-decoder-ingest-watermarks-"


def ensure_checkpoint_topic(connection: KafkaConnection, topic: str) -> bool:
    """Create the topic unless it exists (an existing one needs no Create permission); True if created."""
    admin = make_admin(connection)
    try:
        found = admin.list_topics(topic, timeout=30).topics.get(topic)
    except KafkaException as exc:
        raise CheckpointError(f"cannot read metadata of checkpoint topic {topic!r}: {exc.args[0].str()}") from exc
    if found is not None and found.error is None:
        return False
    try:
        return bool(ensure_topics(admin, [topic], partitions=1, config=TOPIC_CONFIG))
    except TopicCreationError as exc:
        cause = exc.__cause__
        if isinstance(cause, KafkaException) and cause.args[0].code() in _DENIED:
            needed = Permission(TOPIC, topic, "Create", "the checkpoint topic does not exist: create it, or allow this")
            raise MissingPermissions([needed], connection.sasl_username) from exc
        raise


_DENIED = (KafkaError.TOPIC_AUTHORIZATION_FAILED, KafkaError.CLUSTER_AUTHORIZATION_FAILED)


class CheckpointStore:
    """The newest committed checkpoint of every input, read from *topic* (lazily, then incrementally)."""

    def __init__(self, connection: KafkaConnection, topic: str, *, timeout: float = REFRESH_TIMEOUT_S) -> None:
        self.connection = connection
        self.topic = topic
        self.timeout = timeout
        self._consumer: Consumer | None = None
        self._watermarks: Consumer | None = None
        self._latest: dict[str, Checkpoint] = {}
        #: Partition -> the next offset to read (an end-of-partition event moves it past transaction markers).
        self._positions: dict[int, int] = {}

    def get(self, identity: str) -> Checkpoint | None:
        return self._latest.get(identity)

    def refresh(self) -> None:
        """Read every checkpoint committed before now (see the module docstring)."""
        consumer = self._consumer or self._start()
        targets = self._high_watermarks(consumer)
        deadline = time.monotonic() + self.timeout
        while any(self._positions.get(partition, 0) < high for partition, high in targets.items()):
            if time.monotonic() >= deadline:
                raise CheckpointError(
                    f"checkpoint topic {self.topic!r} not readable to its end within {self.timeout:g} s "
                    "(a transaction still open on it?)"
                )
            message = consumer.poll(0.5)
            if message is None:
                continue
            error = message.error()
            partition, offset = message.partition(), message.offset()
            if error is None:
                assert partition is not None and offset is not None  # a consumed message has them
                checkpoint = Checkpoint.parse(message.value() or b"")  # None: empty, a CheckpointError
                self._latest[checkpoint.identity] = checkpoint
                self._positions[partition] = offset + 1
            elif error.code() == KafkaError._PARTITION_EOF:
                assert partition is not None and offset is not None  # an EOF event names them
                self._positions[partition] = offset
            else:
                raise CheckpointError(f"cannot read checkpoint topic {self.topic!r}: {error.str()}")

    def close(self) -> None:
        for client in (self._consumer, self._watermarks):
            if client is not None:
                client.close()
        self._consumer = self._watermarks = None

    def _start(self) -> Consumer:
        # A group id is required but never committed to: the store reads the whole topic every run.
        consumer = make_consumer(
            self.connection,
            f"{CHECKPOINT_READER_PREFIX}{uuid.uuid4().hex}",
            extra={"enable.partition.eof": True},
            role="checkpoint-reader",
        )
        try:
            metadata = consumer.list_topics(self.topic, timeout=30)
        except KafkaException as exc:
            raise CheckpointError(f"cannot read checkpoint topic {self.topic!r}: {exc.args[0].str()}") from exc
        topic = metadata.topics.get(self.topic)
        if topic is None or topic.error is not None or not topic.partitions:
            raise CheckpointError(f"checkpoint topic {self.topic!r} does not exist")
        consumer.assign([TopicPartition(self.topic, p, OFFSET_BEGINNING) for p in topic.partitions])
        # A read_committed consumer's "high watermark" is the last stable offset, which stops before an open
        # transaction; the log's end is what a read_uncommitted one reports.
        self._watermarks = make_consumer(
            self.connection, f"{WATERMARK_READER_PREFIX}{uuid.uuid4().hex}", isolation_level="read_uncommitted",
            role="checkpoint-watermarks",
        )
        self._consumer = consumer
        return consumer

    def _high_watermarks(self, consumer: Consumer) -> dict[int, int]:
        assert self._watermarks is not None  # _start makes both consumers
        try:
            return {
                tp.partition: self._watermarks.get_watermark_offsets(tp, timeout=30, cached=False)[1]
                for tp in consumer.assignment()
            }
        except KafkaException as exc:
            raise CheckpointError(f"cannot read checkpoint topic {self.topic!r}: {exc.args[0].str()}") from exc
