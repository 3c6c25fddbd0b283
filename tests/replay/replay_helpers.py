"""Pages, records and readers the replay tests share (imported by name: tests/replay is on sys.path)."""

from __future__ import annotations

import datetime as dt
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from confluent_kafka import KafkaError, KafkaException, TopicPartition

from consumer.decoding import Override, OverrideMode, OverrideTable, decode
from consumer.kafka import KafkaConnection, make_consumer

LEGACY_HOST = "shop.example.com"
DE_HOST = "www.example.de"
GERMAN = "Grüße aus München, schöne Straße, Käse und Brötchen für alle. "

#: Short titles in a legacy encoding on pages that declare UTF-8.  When the detector
#: is not confident enough to overrule the declaration the page is lossy, and only an
#: override forcing the real encoding decodes it.  Which titles qualify depends on the
#: detector's models (still being tuned), so the tests take the first that does, checked
#: with decode(): (WHATWG name, Python codec, title).
LEGACY_TITLES = (
    ("GBK", "gbk", "北京"),
    ("GBK", "gbk", "厦门"),
    ("Big5", "big5", "新聞"),
    ("Big5", "big5", "台南"),
    ("ISO-8859-7", "iso-8859-7", "Τιμή"),
    ("EUC-JP", "euc-jp", "東京"),
    ("KOI8-R", "koi8-r", "Да"),
)


@dataclass(frozen=True)
class LegacyCase:
    """Pages of LEGACY_HOST that declare UTF-8 but are *encoding*."""

    encoding: str
    codec: str
    title: str

    def page(self, i: int) -> tuple[str, bytes]:
        body = b'<html><head><meta charset="utf-8"><title>' + self.title.encode(self.codec)
        body += f"</title></head><body>item {i}</body></html>".encode()
        return f"https://{LEGACY_HOST}/p/{i}", body

    def override(self) -> Override:
        return Override(LEGACY_HOST, self.encoding, OverrideMode.FORCE, f"declares UTF-8, serves {self.encoding}",
                        dt.date(2099, 1, 1), "crawl-quality")

    def rescued(self, pages: int) -> bool:
        table = OverrideTable([self.override()])
        for url, body in map(self.page, range(pages)):
            fixed = decode(body, "text/html", url, table)
            if not decode(body, "text/html", url, None).lossy or fixed.lossy or self.title not in fixed.text:
                return False
        return True


def legacy_case(pages: int) -> LegacyCase:
    """The first candidate whose pages are lossy by default and decode cleanly under a forced override."""
    for encoding, codec, title in LEGACY_TITLES:
        case = LegacyCase(encoding, codec, title)
        if case.rescued(pages):
            return case
    pytest.fail("no candidate page is lossy by default yet clean under a forced override; add candidates")


def damaged_utf8_page(i: int, bad_bytes: int, host: str = DE_HOST) -> tuple[str, bytes]:
    """UTF-8 text with *bad_bytes* stray bytes: lossy with that many U+FFFD."""
    body = b'<html><head><meta charset="utf-8"></head><body><p>' + GERMAN.encode()
    body += b"\xff" * bad_bytes + f" #{i}</p></body></html>".encode()
    return f"https://{host}/a/{i}", body


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


_LEADERLESS = {KafkaError.NOT_LEADER_FOR_PARTITION, KafkaError.LEADER_NOT_AVAILABLE, KafkaError._TRANSPORT}


def end_offsets(connection: KafkaConnection, topic: str, attempts: int = 20) -> dict[int, int]:
    """Each partition's end offset.  Right after a broker restart a partition may have no leader yet (a
    retriable NOT_LEADER_FOR_PARTITION): asked again, a moment later, up to *attempts* times."""
    consumer = make_consumer(connection, f"probe-{uuid.uuid4().hex}")
    try:
        for attempt in range(attempts):
            try:
                partitions = consumer.list_topics(topic, timeout=30).topics[topic].partitions
                return {
                    p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=30, cached=False)[1]
                    for p in partitions
                }
            except KafkaException as exc:
                error = exc.args[0]
                if attempt == attempts - 1 or not (error.retriable() or error.code() in _LEADERLESS):
                    raise
                time.sleep(0.5)  # a leader being elected
        raise AssertionError("unreachable")
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
