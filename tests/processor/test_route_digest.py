"""A landing record the ingest marked ``warc-digest-mismatch`` is quarantined as digest-mismatch, never decoded.

Pure: no Kafka here (the broker test is tests/ingest/test_ingest_quirks.py).
"""

from __future__ import annotations

import pytest

from consumer.processor.records import Origin
from consumer.processor.route import CLEAN, DIGEST_MISMATCH, DIGEST_MISMATCH_HEADER, QUARANTINE, SKIP, Router
from consumer.serialization.avro import AvroDeserializer, AvroSerializer
from consumer.serialization.schemas import SchemaStore

ORIGIN = Origin("landing", 0, 7, 1_700_000_000_000)
MARK = b"WARC-Payload-Digest sha1:AAAA does not match the bytes read (sha1:BBBB)"
HEADERS = [("warc-file", b"crawl.warc.gz"), ("warc-offset", b"1234"), (DIGEST_MISMATCH_HEADER, MARK)]


def _raw(body: bytes, content_type: str) -> dict:
    return {
        "url": "https://example.com/seite",
        "fetched_at": 1_700_000_000_000,
        "status": 200,
        "headers": [{"name": "Content-Type", "value": content_type}],
        "body": body,
        "truncated": False,
        "content_encoding_removed": False,
        "crawl_id": None,
        "ip": None,
    }


def _router(non_text: str = QUARANTINE) -> Router:
    return Router(max_body_bytes=1 << 20, non_text=non_text, clock_ms=lambda: 1_700_000_000_001)


@pytest.mark.parametrize(
    "body, content_type, non_text",
    [
        ("<p>Grüße</p>".encode(), "text/html; charset=utf-8", QUARANTINE),
        (b"\x89PNG\r\n\x1a\n", "image/png", SKIP),  # not text, and its policy skip: quarantined all the same
    ],
    ids=["text", "an image under the skip policy"],
)
def test_a_marked_record_is_quarantined_as_digest_mismatch_before_anything_else(body, content_type, non_text):
    routed = _router(non_text).route(_raw(body, content_type), ORIGIN, key=b"k", kafka_headers=HEADERS)
    assert (routed.destination, routed.reason) == (QUARANTINE, DIGEST_MISMATCH)
    assert routed.decoded is None, "not decoded as if whole"
    record = routed.record
    assert record["error"] == MARK.decode() and record["attempt"] is None
    assert record["raw"]["body"] == body and record["raw_headers"][-1] == {"key": DIGEST_MISMATCH_HEADER, "value": MARK}
    store = SchemaStore()
    schema = "QuarantinedResponse"
    assert AvroDeserializer(store, schema)(AvroSerializer(store, schema)(record))["reason"] == "digest-mismatch"


def test_the_same_record_without_the_mark_is_decoded():
    routed = _router().route(_raw("<p>Grüße</p>".encode(), "text/html; charset=utf-8"), ORIGIN, kafka_headers=HEADERS[:2])
    assert routed.destination == CLEAN


def test_replay_keeps_it_in_quarantine():
    # Replay routes a quarantined record again with its raw_headers (consumer/replay/decide.py): still marked.
    first = _router().route(_raw(b"<p>x</p>", "text/html"), ORIGIN, kafka_headers=HEADERS).record
    headers = [(header["key"], header["value"]) for header in first["raw_headers"]]
    again = _router().route(first["raw"], ORIGIN, kafka_headers=headers, replay_count=1)
    assert (again.destination, again.reason) == (QUARANTINE, DIGEST_MISMATCH)
