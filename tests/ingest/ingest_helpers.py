"""Helpers shared by the ingest tests (conftest.py holds the fixtures)."""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from confluent_kafka import OFFSET_BEGINNING, KafkaError, TopicPartition

from consumer.kafka import KafkaConnection, make_consumer

from site_server import PAGES

REPO = Path(__file__).resolve().parents[2]


def ingest_command(*args: str, checkpoint_topic: str) -> list[str]:
    """``crawl-decoder ingest`` with *args*, on this test's checkpoint topic."""
    return [sys.executable, "-m", "consumer.cli", "ingest", "--checkpoint-topic", checkpoint_topic, *args]


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 120.0, every: float = 0.1) -> None:
    """Poll *condition* until it holds; fail the test at the deadline."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            pytest.fail(f"{what}: not reached within {timeout:g} s")
        time.sleep(every)  # polling a real condition, bounded by the deadline


def read_all(connection: KafkaConnection, topic: str, timeout: float = 120.0) -> list:
    """Every committed message of *topic*, read_committed from the beginning to the end of every partition."""
    consumer = make_consumer(connection, f"reader-{uuid.uuid4().hex}", extra={"enable.partition.eof": True})
    try:
        partitions = consumer.list_topics(topic, timeout=30).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
        at_end: set[int] = set()
        messages = []
        deadline = time.monotonic() + timeout
        while len(at_end) < len(partitions):
            if time.monotonic() >= deadline:
                pytest.fail(f"{topic} not read to its end within {timeout:g} s")
            message = consumer.poll(0.5)
            if message is None:
                continue
            if message.error() is None:
                messages.append(message)
                at_end.discard(message.partition())
            elif message.error().code() == KafkaError._PARTITION_EOF:
                at_end.add(message.partition())
            else:
                pytest.fail(f"consumer error: {message.error()}")
        return messages
    finally:
        consumer.close()


def read_raw_values(connection: KafkaConnection, topic: str) -> dict[bytes, bytes]:
    """Key -> value bytes of every committed message of *topic* (the framing as written)."""
    return {message.key(): message.value() for message in read_all(connection, topic)}


def assert_decoded_right(decoded, site: str, crawl_id: str) -> None:
    """Every text page of the site on the clean topic with its phrase decoded right; the image nowhere."""
    texts = {f"{site}{path}": page for path, page in PAGES.items() if page.phrase is not None}
    found = decoded(set(texts))
    for url, page in texts.items():
        where, record = found[url]
        assert where == "clean", f"{url} quarantined: {record['reason']} {record['error']}"
        assert page.phrase in record["text"], f"{url}: {record['encoding']} via {record['source']}"
        assert record["replacements"] == 0 and record["crawl_id"] == crawl_id
    assert f"{site}/image.png" not in found, "not text: skipped, published nowhere"
    assert found[f"{site}/shift_jis.html"][1]["encoding"] == "Shift_JIS"
    assert found[f"{site}/windows-1251.html"][1]["source"] == "meta-prescan"
    assert found[f"{site}/chunked.html"][1]["encoding"] == "EUC-KR"
