"""A response that is not text is never routed to clean: skipped (counted) or quarantined as not-text.

Pure: no Kafka here (the broker test is test_not_text_pipeline.py).
"""

from __future__ import annotations

import gzip

import pytest

from consumer.processor.records import Origin
from consumer.processor.route import CLEAN, NOT_TEXT, QUARANTINE, SKIP, Router
from consumer.samples import binary_samples
from consumer.serialization.avro import AvroDeserializer, AvroSerializer
from consumer.serialization.schemas import SchemaStore

ORIGIN = Origin("landing", 2, 41, 1_700_000_000_000)
PNG = next(s for s in binary_samples() if s.name == "png-image").body
PDF = next(s for s in binary_samples() if s.name == "pdf-as-octet-stream").body


def _raw(body: bytes, content_type: str | None = None, headers: tuple = ()) -> dict:
    fields = [("Content-Type", content_type)] if content_type is not None else []
    return {
        "url": "https://img.example.com/a",
        "fetched_at": 1_700_000_000_000,
        "status": 200,
        "headers": [{"name": n, "value": v} for n, v in [*fields, *headers]],
        "body": body,
    }


def _router(non_text: str) -> Router:
    return Router(max_body_bytes=1 << 20, non_text=non_text, clock_ms=lambda: 1_700_000_000_001)


@pytest.mark.parametrize(
    ("body", "content_type", "media_type"),
    [
        (PNG, "image/png", "image/png"),
        (PNG, None, "image/png"),  # sniffed
        (PNG, "application/octet-stream", "image/png"),
        (PDF, "application/octet-stream", "application/pdf"),
        (b"%PDF-1.4\n", "application/pdf; charset=utf-8", "application/pdf"),
        (b"log\x00line\x00", "text/plain", "application/octet-stream"),
        (b"wOF2\x00\x01\x00\x00", "font/woff2", "font/woff2"),
    ],
)
def test_a_body_that_is_not_text_is_skipped(body, content_type, media_type):
    routed = _router(SKIP).route(_raw(body, content_type), ORIGIN)
    assert (routed.destination, routed.reason, routed.record) == (SKIP, NOT_TEXT, None)
    assert routed.decoded.binary == media_type
    assert routed.host == "img.example.com"


def test_the_check_sees_the_body_after_its_content_encoding_is_undone():
    routed = _router(SKIP).route(_raw(gzip.compress(PNG), None, (("Content-Encoding", "gzip"),)), ORIGIN)
    assert (routed.destination, routed.decoded.binary) == (SKIP, "image/png")


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (PNG, "text/html"),  # a declared page is decoded as a browser renders it, bytes or not
        (b"<p>caf\xe9\x00</p>", "text/html; charset=windows-1252"),
        (b'{"a": "\x00"}', "application/json"),
        (b"User-agent: *\nDisallow: /\n", "text/plain"),
        (b"<p>no type at all</p>", None),
    ],
)
def test_text_is_still_decoded_under_either_policy(body, content_type):
    for policy in (SKIP, QUARANTINE):
        routed = _router(policy).route(_raw(body, content_type), ORIGIN)
        assert routed.destination in (CLEAN, QUARANTINE) and routed.reason != NOT_TEXT
        assert routed.decoded.binary is None


def test_the_quarantine_policy_keeps_the_raw_record_with_reason_not_text():
    raw = _raw(PNG, "image/png")
    routed = _router(QUARANTINE).route(raw, ORIGIN, key=b"k", kafka_headers=[("trace", b"t")], replay_count=1)
    assert (routed.destination, routed.reason) == (QUARANTINE, NOT_TEXT)
    record = routed.record
    assert record["reason"] == NOT_TEXT and "image/png" in record["error"]
    assert record["raw"]["body"] == PNG and record["raw_value"] is None, "raw bytes kept for replay"
    assert record["attempt"] is None, "nothing was decoded"
    assert record["raw_key"] == b"k" and record["raw_headers"] == [{"key": "trace", "value": b"t"}]
    assert record["replay_count"] == 1
    assert record["origin"] == ORIGIN.as_record()
    # And it is a valid QuarantinedResponse.
    store = SchemaStore()
    written = AvroSerializer(store, "QuarantinedResponse")(record)
    assert AvroDeserializer(store, "QuarantinedResponse")(written)["raw"]["body"] == PNG


def test_a_router_quarantines_unless_told_to_skip():
    assert Router(max_body_bytes=1 << 20).route(_raw(PNG, "image/png"), ORIGIN).destination == QUARANTINE
    with pytest.raises(ValueError, match="non_text"):
        Router(max_body_bytes=1 << 20, non_text="drop")


@pytest.mark.parametrize("non_text, destination", [(SKIP, SKIP), (QUARANTINE, QUARANTINE)])
def test_a_declared_video_larger_than_the_body_limit_is_not_text_not_too_large(non_text, destination):
    body = b"\x00\x00\x00\x18ftypmp42" + bytes(2 << 20)  # past the router's 1 MiB max_body_bytes
    routed = _router(non_text).route(_raw(body, "video/mp4"), ORIGIN)
    assert (routed.destination, routed.reason) == (destination, NOT_TEXT)
    if non_text == SKIP:
        assert routed.decoded.binary == "video/mp4"
    else:
        assert routed.record["error"] == "not text: video/mp4" and routed.record["raw"]["body"] == body


def test_a_declared_image_is_set_aside_without_undoing_its_content_encoding():
    # A damaged gzip would be a corrupt-content-encoding quarantine if it were undone.
    routed = _router(SKIP).route(_raw(b"\x1f\x8b\x08damaged", "image/png", (("Content-Encoding", "gzip"),)), ORIGIN)
    assert (routed.destination, routed.decoded.binary) == (SKIP, "image/png")
