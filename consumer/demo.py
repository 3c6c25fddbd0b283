"""The demo on the embedded default: a local broker, the bundled samples, the processor, a table.

``crawl-decoder demo`` starts a single-node Kafka (or uses ``KAFKA_BOOTSTRAP_SERVERS``),
creates three fresh topics, produces the sample responses plus records that must
be quarantined (a poison message, a compression bomb, an oversize body) and
responses that are not text (an image, a PDF), runs the processor until every
record has landed in clean or quarantine or been skipped, and prints where each
one went.
"""

from __future__ import annotations

import gzip
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from confluent_kafka import Consumer, Message

from .app import App
from .decoding import media_family
from .devbroker import start_dev_broker
from .devbroker.provider import DevBroker
from .kafka import KafkaConnection, ensure_topics, make_admin, make_consumer, make_producer
from .observability.logging import configure_logging
from .packaged import packaged_path
from .processor.decide import Outcome
from .processor.route import SKIP
from .samples import Sample, binary_samples, samples
from .serialization.avro import AvroDeserializer, AvroSerializer
from .serialization.schemas import SchemaStore
from .settings import Settings

#: The example overrides file the demo runs with (config/overrides.yaml, carried by the package too).
REPO_CONFIG = packaged_path("config/overrides.yaml")
DEMO_BODY_LIMIT = 1024 * 1024


@dataclass(frozen=True)
class Row:
    page: str
    encoding: str
    source: str
    destination: str
    detail: str


def raw_record(sample: Sample, fetched_at_ms: int) -> dict[str, Any]:
    return {
        "url": sample.url,
        "fetched_at": fetched_at_ms,
        "status": sample.status,
        "headers": [{"name": n, "value": v} for n, v in sample.headers],
        "body": sample.body,
    }


def trap_samples() -> list[Sample]:
    """Records that must end in quarantine, each for its own reason."""
    return [
        Sample(
            "compression-bomb",
            "https://bomb.example.com/",
            gzip.compress(b"\0" * (64 * 1024 * 1024)),
            (("Content-Type", "text/html"), ("Content-Encoding", "gzip")),
        ),
        Sample(
            "oversize-body",
            "https://huge.example.com/",
            b"<p>" + b"x" * (DEMO_BODY_LIMIT + 1),
            (("Content-Type", "text/html"),),
        ),
    ]


def produce_inputs(connection: KafkaConnection, topic: str, store: SchemaStore) -> list[str]:
    """Produce every sample, the traps and one poison message; returns their keys in order."""
    serialize = AvroSerializer(store, "RawResponse")
    producer = make_producer(connection)
    now_ms = int(time.time() * 1000)
    keys = []
    for sample in samples() + binary_samples() + trap_samples():
        producer.produce(topic, serialize(raw_record(sample, now_ms)), sample.name.encode())
        keys.append(sample.name)
    producer.produce(topic, b"\x00\x00\x00\x00\x07not avro at all", b"poison-record")
    keys.append("poison-record")
    if producer.flush(30):
        raise RuntimeError("the demo's input records were not all delivered")
    return keys


def read_outputs(consumer: Consumer, done: Callable[[int], bool], timeout: float = 120.0) -> Iterator[Message]:
    """Output messages until ``done(outputs read so far)`` or the timeout."""
    seen = 0
    deadline = time.monotonic() + timeout
    while not done(seen) and time.monotonic() < deadline:
        message = consumer.poll(0.5)
        if message is None or message.error():
            continue
        seen += 1
        yield message


class _DemoApp(App):
    """The processor, remembering what it skipped (key -> media type) to show it: a skip writes nothing."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.skipped: dict[str, str] = {}
        super().__init__(*args, **kwargs)

    def _routed(self, message: Message, outcome: Outcome) -> None:
        super()._routed(message, outcome)
        if outcome.destination == SKIP:
            assert outcome.binary is not None  # a skip is non-text
            self.skipped[(message.key() or b"").decode()] = outcome.binary


def run_demo(*, show_logs: bool = False) -> list[Row]:
    # Logs go to stderr and, unless asked for, only errors: the table on stdout is the demo's output.
    # A normal run has warnings that are no news (a fresh broker's group coordinator still loading:
    # librdkafka "retrying"); --logs shows them and the processor's own account.
    configure_logging("info" if show_logs else "error", json=False, stream=sys.stderr)
    bootstrap, broker = _bootstrap()
    try:
        return _demo(KafkaConnection(bootstrap_servers=bootstrap))
    finally:
        if broker is not None:
            broker.stop()


def _bootstrap() -> tuple[str, DevBroker | None]:
    external = os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "").strip()
    if external:
        return external, None
    print(
        "starting a local Kafka broker (the first run downloads its jars from Maven Central)...",
        file=sys.stderr,
        flush=True,
    )
    return start_dev_broker()


def _demo(connection: KafkaConnection) -> list[Row]:
    suffix = uuid.uuid4().hex[:8]
    settings = Settings(
        landing_topic=f"demo.raw.{suffix}",
        clean_topic=f"demo.clean.{suffix}",
        quarantine_topic=f"demo.quarantine.{suffix}",
        group_id=f"demo-{suffix}",
        transactional_id=f"demo-{suffix}",
        http_port=0,
        overrides_path=str(REPO_CONFIG),
        max_body_bytes=DEMO_BODY_LIMIT,
        batch_size=100,
    )
    ensure_topics(make_admin(connection), [settings.landing_topic, settings.clean_topic, settings.quarantine_topic])
    store = SchemaStore(settings.schemas_dir or None)
    keys = produce_inputs(connection, settings.landing_topic, store)
    app = _DemoApp(settings, connection)
    thread = threading.Thread(target=app.run, name="processor", daemon=True)
    thread.start()
    try:
        # Every record ends in clean, quarantine, or a skip (counted once its batch commits).
        rows = _collect(connection, settings, store, lambda outputs: outputs + len(app.skipped) >= len(keys))
        rows += [_skipped_row(page, media_type) for page, media_type in list(app.skipped.items())]
    finally:
        app.stop()
        thread.join(settings.shutdown_timeout_s + 10)
    order = {key: i for i, key in enumerate(keys)}
    return sorted(rows, key=lambda row: order.get(row.page, len(order)))


def _skipped_row(page: str, media_type: str) -> Row:
    return Row(page, "-", "binary", "skipped", f"not text: {media_type} ({media_family(media_type)})")


def _collect(
    connection: KafkaConnection, settings: Settings, store: SchemaStore, done: Callable[[int], bool]
) -> list[Row]:
    consumer = make_consumer(connection, f"{settings.group_id}-reader")
    consumer.subscribe([settings.clean_topic, settings.quarantine_topic])
    clean = AvroDeserializer(store, "DecodedResponse")
    quarantined = AvroDeserializer(store, "QuarantinedResponse")
    rows = []
    try:
        for message in read_outputs(consumer, done):
            page = (message.key() or b"").decode()
            if message.topic() == settings.clean_topic:
                record = clean(message.value() or b"")  # the processor writes no null value
                detail = "mojibake suspected" if record["mojibake_suspected"] else ""
                if record["override"]:
                    detail = f"override: {record['override']['host']}"
                rows.append(Row(page, record["encoding"], record["source"], "clean", detail))
            else:
                record = quarantined(message.value() or b"")
                attempt = record["attempt"] or {}
                rows.append(
                    Row(page, attempt.get("encoding", "-"), attempt.get("source", "-"), "quarantine", record["reason"])
                )
    finally:
        consumer.close()
    return rows


def format_rows(rows: list[Row]) -> str:
    header = Row("page", "encoding", "source", "destination", "detail")
    widths = [max(len(getattr(r, f)) for r in [header, *rows]) for f in Row.__dataclass_fields__]
    lines = []
    for row in [header, *rows]:
        cells = [getattr(row, f) for f in Row.__dataclass_fields__]
        lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
