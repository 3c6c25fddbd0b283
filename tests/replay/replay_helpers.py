"""Pages, records and readers the replay tests share (imported by name: tests/replay is on sys.path)."""

from __future__ import annotations

import datetime as dt
import time
import uuid
from pathlib import Path

import yaml
from confluent_kafka import KafkaError, TopicPartition

from consumer.decoding import Override, OverrideMode, OverrideTable, decode
from consumer.kafka import KafkaConnection, make_consumer

GBK_HOST = "shop.example.com"
DE_HOST = "www.example.de"
#: A short GBK title on a page that declares UTF-8: the detector is not confident
#: enough (0.46) to overrule the declaration, so the page is lossy until an override
#: forces GBK.  Each page is checked with decode() before it is used.
GBK_TITLE = "北京"
GERMAN = "Grüße aus München, schöne Straße, Käse und Brötchen für alle. "


def gbk_page(i: int) -> tuple[str, bytes]:
    body = b'<html><head><meta charset="utf-8"><title>' + GBK_TITLE.encode("gbk")
    body += f"</title></head><body>item {i}</body></html>".encode()
    return f"https://{GBK_HOST}/p/{i}", body


def damaged_utf8_page(i: int, bad_bytes: int, host: str = DE_HOST) -> tuple[str, bytes]:
    """UTF-8 text with *bad_bytes* stray bytes: lossy with that many U+FFFD."""
    body = b'<html><head><meta charset="utf-8"></head><body><p>' + GERMAN.encode()
    body += b"\xff" * bad_bytes + f" #{i}</p></body></html>".encode()
    return f"https://{host}/a/{i}", body


def gbk_override() -> Override:
    return Override(GBK_HOST, "GBK", OverrideMode.FORCE, "declares UTF-8, serves GBK", dt.date(2099, 1, 1), "crawl-quality")


def assert_lossy(url: str, body: bytes, *, fixed_by: OverrideTable | None = None, replacements: int | None = None):
    """The premise of a test case, checked on the decoder itself."""
    normal = decode(body, "text/html", url, None)
    assert normal.lossy, f"{url} is expected to be lossy under the default path"
    if replacements is not None:
        assert normal.replacements == replacements
    if fixed_by is not None:
        fixed = decode(body, "text/html", url, fixed_by)
        assert not fixed.lossy and fixed.source == "override", f"{url} should decode cleanly under the override"


def write_overrides(path: Path, *overrides: Override) -> Path:
    entries = [
        {
            "host": o.host,
            "encoding": o.encoding,
            "mode": o.mode.value,
            "reason": o.reason,
            "review_by": o.review_by.isoformat(),
            "owner": o.owner,
        }
        for o in overrides
    ]
    path.write_text(yaml.safe_dump({"overrides": entries}, allow_unicode=True))
    return path


def raw(url: str, body: bytes, content_type: str | None = "text/html") -> dict:
    headers = [{"name": "Content-Type", "value": content_type}] if content_type else []
    return {"url": url, "fetched_at": int(time.time() * 1000), "status": 200, "headers": headers, "body": body}


def read_all(connection: KafkaConnection, topic: str, deserialize, timeout: float = 60.0) -> list[dict]:
    """Every committed record of *topic*, read to the end of each partition (read_committed)."""
    consumer = make_consumer(connection, f"reader-{uuid.uuid4().hex}", extra={"enable.partition.eof": True})
    metadata = consumer.list_topics(topic, timeout=30).topics[topic]
    consumer.assign([TopicPartition(topic, p, 0) for p in metadata.partitions])
    at_end: set[int] = set()
    records = []
    deadline = time.monotonic() + timeout
    try:
        while len(at_end) < len(metadata.partitions):
            assert time.monotonic() < deadline, f"{topic} not read to its end within {timeout:g} s"
            message = consumer.poll(0.5)
            if message is None:
                continue
            if message.error() is not None:
                assert message.error().code() == KafkaError._PARTITION_EOF, message.error()
                at_end.add(message.partition())
                continue
            at_end.discard(message.partition())
            record = deserialize(message.value())
            record.update(key=message.key(), kafka_headers=message.headers(), offset=message.offset())
            records.append(record)
    finally:
        consumer.close()
    return records


def end_offsets(connection: KafkaConnection, topic: str) -> dict[int, int]:
    consumer = make_consumer(connection, f"probe-{uuid.uuid4().hex}")
    try:
        partitions = consumer.list_topics(topic, timeout=30).topics[topic].partitions
        return {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=30, cached=False)[1] for p in partitions}
    finally:
        consumer.close()


def committed_offsets(connection: KafkaConnection, group: str, topic: str) -> dict[int, int]:
    consumer = make_consumer(connection, group)
    try:
        partitions = consumer.list_topics(topic, timeout=30).topics[topic].partitions
        found = consumer.committed([TopicPartition(topic, p) for p in partitions], timeout=30)
        return {tp.partition: tp.offset for tp in found}
    finally:
        consumer.close()


def summary_of(text: str) -> dict[str, int]:
    """The closing summary's ``name: count`` lines as a dict."""
    found = {}
    for line in text.splitlines():
        name, sep, value = line.rpartition(": ")
        if sep and value.isdigit():
            found[name] = int(value)
    return found
