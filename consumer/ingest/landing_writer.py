"""``LandingWriter``: how a crawler written in Python puts its responses on the landing topic.

    from consumer.ingest import LandingWriter

    with LandingWriter("crawl.raw", crawl_id="news-2025-06") as landing:
        landing.write(url, status, headers, body, fetched_at)

Each call makes one RawResponse (``raw_response``: the checks and the header rule), framed as the
processor reads it (Avro single-object encoding, or the Confluent wire format with a Schema
Registry URL, reached with ``schema_registry_config``: ``client_config()``'s basic auth and CA)
and keyed by URL, and hands it to an idempotent producer (``acks=all``, ``enable.idempotence``:
librdkafka's retries write a record once, in order per partition).
``write`` does not wait for the broker: delivery reports arrive in ``poll``, ``flush`` and
``close`` (in the caller's thread) and go to ``on_delivery`` when one is given.  ``close`` (or
leaving the ``with`` block) waits for every record and raises ``DeliveryError`` when any failed or
is still undelivered at the timeout, so a crawler never believes a lost record was written.

The Kafka connection comes from the ``KAFKA_*`` variables unless one is given; the producer is
created at the first write (constructing a writer makes no network call).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Message, Producer

from ..kafka import KafkaConnection, make_producer
from ..serialization.avro import AvroSerializer
from ..serialization.registry import SchemaRegistry, value_subject
from ..serialization.schemas import SchemaStore
from .exceptions import DeliveryError, IngestError, InvalidResponseError
from .raw_response import FetchedAt, Headers, raw_response, record_key

#: How long ``write`` waits for room in a full local queue before it gives up.
QUEUE_FULL_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class Delivery:
    """The broker's answer for one record: ``error`` None when it is written."""

    url: str
    topic: str
    partition: int | None
    offset: int | None
    error: str | None

    @property
    def ok(self) -> bool:
        return self.error is None


class LandingWriter:
    def __init__(
        self,
        topic: str,
        connection: KafkaConnection | None = None,
        *,
        crawl_id: str | None = None,
        schema_registry_url: str = "",
        schema_registry_config: Mapping[str, str] | None = None,
        on_delivery: Callable[[Delivery], None] | None = None,
        producer_config: Mapping[str, object] | None = None,
        flush_timeout_s: float = 60.0,
        schemas_dir: str | None = None,
    ) -> None:
        if not topic:
            raise InvalidResponseError("the landing topic must not be empty")
        self.topic = topic
        self.connection = connection if connection is not None else KafkaConnection.from_env()
        self.crawl_id = crawl_id
        self.on_delivery = on_delivery
        self.flush_timeout_s = flush_timeout_s
        self._producer_config = dict(producer_config or {})
        registry = SchemaRegistry(schema_registry_url, schema_registry_config) if schema_registry_url else None
        self._serialize = AvroSerializer(
            SchemaStore(schemas_dir), "RawResponse", registry, value_subject(topic) if registry else None
        )
        self._producer: Producer | None = None
        self.delivered = 0
        self.failed = 0
        self._closed = False

    def __repr__(self) -> str:
        return f"LandingWriter(topic={self.topic!r}, connection={self.connection!r}, pending={self.pending})"

    @property
    def pending(self) -> int:
        """Records handed to the producer whose delivery report has not arrived yet."""
        return len(self._producer) if self._producer is not None else 0

    def write(
        self,
        url: str,
        status: int,
        headers: Headers,
        body: bytes,
        fetched_at: FetchedAt = None,
        *,
        truncated: bool = False,
        content_encoding_removed: bool = False,
        crawl_id: str | None = None,
        ip: str | None = None,
        kafka_headers: list[tuple[str, bytes]] | None = None,
    ) -> None:
        """Queue one response (``fetched_at`` None: now).  ``crawl_id`` None takes the writer's.

        *body* is the body as received: still content-coded unless ``content_encoding_removed``.
        """
        record = raw_response(
            url, status, headers, body, fetched_at,
            truncated=truncated, content_encoding_removed=content_encoding_removed,
            crawl_id=crawl_id if crawl_id is not None else self.crawl_id, ip=ip,
        )  # fmt: skip
        self.write_record(record, kafka_headers)

    def write_record(self, record: Mapping[str, Any], kafka_headers: list[tuple[str, bytes]] | None = None) -> None:
        """Queue a RawResponse record already made (``raw_response``)."""
        if self._closed:
            raise IngestError("the landing writer is closed")
        value = self._serialize(record)
        producer = self._producer or self._start()
        url = record["url"]
        callback = lambda error, message: self._report(url, error, message)  # noqa: E731
        waited = 0.0
        while True:
            try:
                # The stub's headers list is invariant: it refuses a list of (str, bytes), which the client takes.
                producer.produce(self.topic, value, record_key(record), headers=kafka_headers, on_delivery=callback)  # type: ignore[arg-type]
                break
            except BufferError:
                if waited >= QUEUE_FULL_TIMEOUT_S:
                    raise IngestError(f"the producer's queue stayed full for {QUEUE_FULL_TIMEOUT_S:g} s") from None
                producer.poll(0.1)  # the local queue is full: serve deliveries to make room
                waited += 0.1
            except KafkaException as exc:
                raise IngestError(f"cannot queue {url}: {exc.args[0].str()}") from exc
        producer.poll(0)

    def poll(self, timeout: float = 0.0) -> int:
        """Serve delivery reports that arrived; returns how many."""
        return self._producer.poll(timeout) if self._producer is not None else 0

    def flush(self, timeout: float | None = None) -> int:
        """Wait until every queued record is delivered or *timeout* passes; returns the number still pending."""
        if self._producer is None:
            return 0
        return self._producer.flush(self.flush_timeout_s if timeout is None else timeout)

    def close(self) -> None:
        """Flush, then raise ``DeliveryError`` if any record failed or is still undelivered."""
        if self._closed:
            return
        undelivered = self.flush()
        self._closed = True
        if self.failed or undelivered:
            raise DeliveryError(
                f"{self.failed} records failed and {undelivered} were still undelivered after "
                f"{self.flush_timeout_s:g} s ({self.delivered} delivered)",
                failed=self.failed,
                undelivered=undelivered,
            )

    def __enter__(self) -> LandingWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.close()
            return
        try:  # deliver what was queued, without hiding the exception that ended the block
            self.close()
        except DeliveryError:
            pass

    def _start(self) -> Producer:
        # Every delivery is reported (the factory's default reports failures only): on_delivery sees each.
        config = {"delivery.report.only.error": False, **self._producer_config}
        self._producer = make_producer(self.connection, extra=config, role="landing-writer")
        return self._producer

    def _report(self, url: str, error: KafkaError | None, message: Message) -> None:
        if error is None:
            self.delivered += 1
        else:
            self.failed += 1
        if self.on_delivery is not None:
            self.on_delivery(
                Delivery(
                    url,
                    self.topic,
                    message.partition() if message is not None else None,
                    message.offset() if error is None and message is not None else None,
                    error.str() if error is not None else None,
                )
            )
