"""Factories for confluent-kafka clients configured for exactly-once processing.

Thin wrappers in the manner of quix-streams' ``kafka/`` package: each factory
merges the shared ``KafkaConnection`` with the settings its role needs and
returns the library's own client.  librdkafka constructors do not block on the
network (connections are made in the background), so creating a client is
cheap; our own objects call these factories only when they start.

Sizes: crawl bodies go up to ``MAX_BODY_BYTES``; records carry headers and
Avro framing around the body, so every limit a record must pass (producer
``message.max.bytes``, topic ``max.message.bytes``, the broker's
``message.max.bytes`` and ``replica.fetch.max.bytes``) is
``MESSAGE_LIMIT_BYTES``, one MiB above it.  The consumer's fetch sizes are not
such limits: a broker returns the first batch of a fetch whole even when it is
larger (KIP-74), and librdkafka grows its per-partition request until a large
record fits.  Kept small, they bound what the consumer buffers instead
(``make_consumer``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from typing import TypeVar

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic, TopicMetadata

from ..observability.client_logs import client_logs
from .config import KafkaConnection
from .exceptions import KafkaConfigError, KafkaUnavailableError, TopicCreationError

#: The class of the client _create makes (Consumer, Producer or AdminClient).
_Client = TypeVar("_Client")

MiB = 1024 * 1024

#: The largest crawled body the pipeline carries.
MAX_BODY_BYTES = 16 * MiB

#: Limit for one record (and one compressed batch) anywhere on the path.
MESSAGE_LIMIT_BYTES = MAX_BODY_BYTES + MiB

#: Producer transactions are short (one consumed batch); a crashed instance's
#: open transaction blocks read_committed readers until this expires unless a
#: successor with the same transactional.id fences it first.  The default of the
#: ``transaction_timeout_ms`` setting.
TRANSACTION_TIMEOUT_MS = 60_000

#: The default of the ``batch_max_bytes`` setting: a batch's records, keys and values, at most this
#: many bytes (one record more when a single record is larger).  bench/batch_memory.py, bench/RESULTS.md.
BATCH_BYTES = 16 * MiB

#: How often librdkafka reports its statistics to a client given a ``stats_cb``
#: (``observability/client_stats.py``); ``statistics.interval.ms`` in ``kafka_config``
#: changes it, 0 turns them off.  Half a typical 30 s scrape interval.
STATISTICS_INTERVAL_MS = 15_000

#: Topic configuration ``ensure_topics`` applies unless overridden.
DEFAULT_TOPIC_CONFIG: Mapping[str, str] = {"max.message.bytes": str(MESSAGE_LIMIT_BYTES)}


#: librdkafka's default ``message.max.bytes``, which a consumer's ``fetch.max.bytes`` may not be below.
CONSUMER_MESSAGE_MAX_BYTES = 1_000_000


def fetch_sizes(batch_bytes: int = BATCH_BYTES) -> dict[str, int]:
    """The consumer's fetch sizes for batches of at most *batch_bytes* (the ``batch_max_bytes`` setting).

    What the consumer holds beside the batch being made is sized with it: the prefetch queue one batch,
    a fetch half of one, a partition's share of a fetch 1/16 (at the default 16 MiB: 16 MiB, 8 MiB,
    1 MiB, the sizes measured below), a fetch no smaller than librdkafka accepts (1,000,000 bytes).
    """
    return {
        # Fetch sizes bound memory, not record size (see the module docstring): with 17 MiB a
        # partition and 50 MiB a fetch, zstd-compressed HTML inflated to a peak RSS of 430-530 MB
        # in bench/pipeline.py (30 KB pages); with 1 MiB and 8 MiB, 190-280 MB at the same throughput.
        # tests/kafka/test_kafka_clients.py round-trips a MAX_BODY_BYTES record through them.
        "max.partition.fetch.bytes": max(batch_bytes // 16, 1024),
        # librdkafka refuses a consumer whose fetch is smaller than its message.max.bytes (1,000,000 unless
        # kafka_config sets it): the smallest bounds the settings take (1 MiB) would not start.
        "fetch.max.bytes": max(batch_bytes // 2, CONSUMER_MESSAGE_MAX_BYTES),
        # The prefetch queue (librdkafka's default 64 MiB): two fetches' worth.  On bench/pipeline.py's
        # crawl mix the processor's peak RSS fell from 412-479 MB to 352 MB at 16 MiB with the same
        # records/s; at 4 MiB to 321 MB, but records/s fell 15% (bench/RESULTS.md, issue 31).  A
        # larger record is still fetched: the limit pauses fetching, it never refuses a message.
        "queued.max.messages.kbytes": min(max(batch_bytes // 1024, 1), 2_097_151),  # librdkafka: at most 2097151
    }


def consumer_config(
    conn: KafkaConnection,
    group_id: str,
    *,
    isolation_level: str = "read_committed",
    role: str = "consumer",
    batch_bytes: int = BATCH_BYTES,
) -> dict[str, object]:
    """``make_consumer``'s configuration: our tuning (fetch sizes for batches of *batch_bytes*), then the
    connection's (``kafka_config`` wins over our tuning), then what the engine owns (which ``kafka_config``
    may not name: ``config.ENGINE_OWNED``)."""
    tuning: dict[str, object] = {
        "auto.offset.reset": "earliest",
        **fetch_sizes(batch_bytes),
        # Once the prefetch queue is full, fetching pauses this long (default 1 s); the processor
        # drains a full queue in less, then waited in consume() for the next fetch (~30-50 ms a batch).
        "fetch.queue.backoff.ms": 50,
    }
    return {
        **tuning,
        **conn.as_librdkafka_dict(),
        "client.id": conn.client_id(role),
        "group.id": group_id,
        "isolation.level": isolation_level,
        # Offsets are committed inside the producer's transaction, never by the consumer itself.
        "enable.auto.commit": False,
        "partition.assignment.strategy": "cooperative-sticky",
        "enable.partition.eof": False,
    }


def make_consumer(
    conn: KafkaConnection,
    group_id: str,
    *,
    isolation_level: str = "read_committed",
    extra: Mapping[str, object] | None = None,
    role: str = "consumer",
    batch_bytes: int = BATCH_BYTES,
) -> Consumer:
    """A consumer whose offsets move only when the caller commits them (see docs/kafka.md, exactly-once).

    *role* ends its ``client.id`` (``<instance>-<role>``, ``KafkaConnection.client_id``); its fetch
    sizes follow *batch_bytes* (``fetch_sizes``).
    """
    conf = consumer_config(conn, group_id, isolation_level=isolation_level, role=role, batch_bytes=batch_bytes)
    conf.update(extra or {})
    return _create(Consumer, conf, "consumer")


def producer_config(
    conn: KafkaConnection,
    *,
    transactional_id: str | None = None,
    role: str = "producer",
    transaction_timeout_ms: int = TRANSACTION_TIMEOUT_MS,
) -> dict[str, object]:
    """``make_producer``'s configuration: our tuning, then the connection's (``kafka_config`` wins over our
    tuning: ``compression.type`` trades the broker's disk for the processor's CPU), then what the engine owns."""
    tuning: dict[str, object] = {
        **_compression(conn),
        # Checked against the uncompressed record, so it must fit the largest body plus framing.
        "message.max.bytes": MESSAGE_LIMIT_BYTES,
        # Moderate batches: librdkafka caps zstd decompression of a batch on the consumer side
        # (receive.message.max.bytes), and highly compressible HTML inflates a lot.
        "batch.size": 4 * MiB,
        "linger.ms": 5,
        # A successful delivery needs no report: the transaction's commit or the at-least-once
        # flush says the batch is written. Each report takes the GIL in the thread that serves it
        # (the engine's writer thread), which stalled the loop decoding the next batch.
        "delivery.report.only.error": True,
    }
    conf: dict[str, object] = {
        **tuning,
        **conn.as_librdkafka_dict(),
        "client.id": conn.client_id(role),
        "enable.idempotence": True,
        "acks": "all",
    }
    if transactional_id is not None:
        conf["transactional.id"] = transactional_id
        conf["transaction.timeout.ms"] = transaction_timeout_ms
    return conf


#: The outputs' codec unless ``kafka_config`` names one: zstd at level 1.  Level 3 (zstd's default)
#: made outputs 7% smaller on bench/pipeline.py's crawl mix (4.5x against 4.25x) for ~40 us more
#: CPU a 33 KB record, a fifth of the processor's librdkafka threads (bench/RESULTS.md, issue 31).
OUTPUT_COMPRESSION: Mapping[str, object] = {"compression.type": "zstd", "compression.level": 1}


def _compression(conn: KafkaConnection) -> Mapping[str, object]:
    """``OUTPUT_COMPRESSION``, or nothing when ``kafka_config`` chooses the codec: a level means something
    else to each codec (snappy has only 0), so ours goes with our codec."""
    chosen = conn.as_librdkafka_dict()
    if "compression.type" in chosen or "compression.codec" in chosen:
        return {}
    return OUTPUT_COMPRESSION


def make_producer(
    conn: KafkaConnection,
    *,
    transactional_id: str | None = None,
    extra: Mapping[str, object] | None = None,
    role: str = "producer",
    transaction_timeout_ms: int = TRANSACTION_TIMEOUT_MS,
) -> Producer:
    """An idempotent producer (``OUTPUT_COMPRESSION`` unless configured); transactional when ``transactional_id``
    is given.

    The caller runs ``init_transactions()`` before the first transaction.
    """
    conf = producer_config(
        conn, transactional_id=transactional_id, role=role, transaction_timeout_ms=transaction_timeout_ms
    )
    conf.update(extra or {})
    return _create(Producer, conf, "producer")


def make_admin(
    conn: KafkaConnection, *, extra: Mapping[str, object] | None = None, role: str = "admin"
) -> AdminClient:
    """An admin client for ``conn``."""
    conf = {**conn.as_librdkafka_dict(), "client.id": conn.client_id(role), **(extra or {})}
    # The stub types the configuration's values as str/int/float/bool; the error_cb and logger _create adds are not.
    return _create(AdminClient, conf, "admin client")  # type: ignore[arg-type]


def _create(client_class: Callable[[dict[str, object]], _Client], conf: dict[str, object], role: str) -> _Client:
    """Construct a client; librdkafka validates the properties here (no network yet).

    librdkafka's own log lines and the errors it reports go through structlog as
    JSON, never raw to stderr (``observability/client_logs.py``); they reach it
    when the client is polled.  A caller's ``logger`` or ``error_cb`` in *extra*
    takes precedence.  A ``stats_cb`` gets statistics every ``STATISTICS_INTERVAL_MS``
    unless ``kafka_config`` says otherwise.
    """
    logs = client_logs()
    conf.setdefault("logger", logs)
    conf.setdefault("error_cb", logs.error)
    if "stats_cb" in conf:
        conf.setdefault("statistics.interval.ms", STATISTICS_INTERVAL_MS)
    try:
        return client_class(conf)
    except KafkaException as exc:
        raise KafkaConfigError(f"invalid {role} configuration: {exc.args[0].str()}") from exc


def ensure_topics(
    admin: AdminClient,
    names: Iterable[str],
    partitions: int = 1,
    config: Mapping[str, str] | None = None,
    *,
    replication_factor: int = -1,
    timeout: float = 30.0,
) -> set[str]:
    """Create the topics in ``names`` that do not exist yet and wait until they are usable.

    Topics that already exist are left as they are (their partitions and
    configuration are not changed).  ``replication_factor=-1`` takes the
    broker's ``default.replication.factor``.  Returns the names created here.
    """
    deadline = time.monotonic() + timeout
    wanted = list(dict.fromkeys(names))
    topic_config = {**DEFAULT_TOPIC_CONFIG, **(config or {})}
    new_topics = [NewTopic(name, partitions, replication_factor, config=topic_config) for name in wanted]
    created: set[str] = set()
    if new_topics:
        futures = admin.create_topics(new_topics, operation_timeout=timeout, request_timeout=timeout)
        for name, future in futures.items():
            if _wait_created(name, future, timeout):
                created.add(name)
    _wait_visible(admin, wanted, deadline)
    return created


def _wait_created(name: str, future: Future[None], timeout: float) -> bool:
    try:
        future.result(timeout=timeout)
    except KafkaException as exc:
        if exc.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS:
            return False
        raise TopicCreationError(f"cannot create topic {name!r}: {exc.args[0].str()}") from exc
    return True


def _wait_visible(admin: AdminClient, names: list[str], deadline: float) -> None:
    """Wait until metadata shows every topic with a leader for each partition.

    CreateTopics returns once the controller accepted the topic; producing
    before the partition leaders are known fails with UNKNOWN_TOPIC_OR_PART.
    """
    missing = set(names)
    unanswered: KafkaException | None = None
    while missing:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            if unanswered is not None:
                raise KafkaUnavailableError(f"cannot read cluster metadata: {unanswered.args[0].str()}") from unanswered
            raise TopicCreationError(f"topics not ready before the deadline: {', '.join(sorted(missing))}")
        try:
            metadata = admin.list_topics(timeout=min(remaining, 5.0))
        except KafkaException as exc:
            # One request that timed out (a broker short of CPU, a controller moving) is asked again
            # until the deadline: the topics were created, and a caller's start should not fail on it.
            unanswered = exc
            time.sleep(0.1)
            continue
        unanswered = None
        missing = {name for name in missing if not _is_ready(metadata.topics.get(name))}
        if missing:
            time.sleep(0.1)  # metadata propagation; bounded by the deadline above


def _is_ready(topic: TopicMetadata | None) -> bool:
    if topic is None or topic.error is not None or not topic.partitions:
        return False
    return all(partition.leader >= 0 for partition in topic.partitions.values())


def wait_until_ready(conn: KafkaConnection, timeout: float = 30.0) -> None:
    """Block until the cluster answers a metadata request, or raise ``KafkaUnavailableError``.

    Stronger than an open port: a broker opens its client listener only when
    it accepts requests, and a metadata answer proves it serves them.
    """
    # log_level 0: refused connections while the broker starts are expected, not worth stderr lines.
    admin = make_admin(conn, extra={"log_level": 0})
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        try:
            admin.list_topics(timeout=max(min(remaining, 2.0), 0.1))
            return
        except KafkaException as exc:
            if time.monotonic() >= deadline:
                raise KafkaUnavailableError(
                    f"Kafka at {conn.bootstrap_servers} did not answer within {timeout:g} s: {exc.args[0].str()}"
                ) from exc
