"""The clean record's text: a valid UTF-8 page's bytes are written as its text, never decoded to a str.

The router hands the serializer the body (``Routed.text_utf8``) in place of the record's "text"; the
message must be the one the whole record, text included, gives.  Pure: no Kafka here.
"""

from __future__ import annotations

import pytest

from consumer.processor.records import Origin
from consumer.processor.route import CLEAN, Router
from consumer.serialization.avro import AvroDeserializer, AvroSerializer
from consumer.serialization.schemas import SchemaStore

PAGE = "<!doctype html><meta charset={charset}><title>Grüße aus Zürich</title><p>東京 €"
ORIGIN = Origin("landing", 0, 7, 1_700_000_000_000)


def _raw(body: bytes, content_type: str = "text/html") -> dict:
    return {
        "url": "https://example.de/",
        "fetched_at": 1_700_000_000_000,
        "status": 200,
        "headers": [{"name": "Content-Type", "value": content_type}],
        "body": body,
    }


@pytest.fixture(scope="module")
def serializer() -> AvroSerializer:
    return AvroSerializer(SchemaStore(), "DecodedResponse")


@pytest.mark.parametrize(
    ("body", "utf8"),
    [
        (PAGE.format(charset="utf-8").encode(), PAGE.format(charset="utf-8").encode()),
        (b"\xef\xbb\xbf" + PAGE.format(charset="utf-8").encode(), PAGE.format(charset="utf-8").encode()),
    ],
    ids=["declared", "behind a BOM"],
)
def test_a_valid_utf8_page_is_written_from_its_bytes(serializer, body, utf8):
    routed = Router(max_body_bytes=1 << 20).route(_raw(body), ORIGIN)
    assert routed.destination == CLEAN and routed.text_utf8 == utf8
    assert "text" not in routed.record
    message = serializer(routed.record, utf8_text=routed.text_utf8)
    assert routed.decoded._utf8 is not None  # nothing on the way built the text
    assert message == serializer({**routed.record, "text": utf8.decode("utf-8")})
    read = AvroDeserializer(SchemaStore(), "DecodedResponse")(message)
    assert read["text"] == routed.decoded.text == utf8.decode("utf-8")


def test_any_other_page_carries_its_text(serializer):
    body = PAGE.format(charset="windows-1252").encode("cp1252", "replace")
    routed = Router(max_body_bytes=1 << 20).route(_raw(body), ORIGIN)
    assert routed.destination == CLEAN and routed.text_utf8 is None
    assert routed.record["text"] == body.decode("cp1252")
    assert serializer(routed.record) == serializer(routed.record, utf8_text=routed.record["text"].encode())
