"""The clean record's text: a valid UTF-8 page's bytes are written as its text, never decoded to a str.

The router hands the serializer the body (``Routed.text_utf8``, the decode's ``Decoded.utf8``) in place
of the record's "text"; the message must be the one the whole record, text included, gives.  Pure: no
Kafka here.
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
    assert routed.decoded.built_text is None  # nothing on the way built the text
    assert message == serializer({**routed.record, "text": utf8.decode("utf-8")})
    read = AvroDeserializer(SchemaStore(), "DecodedResponse")(message)
    assert read["text"] == routed.decoded.text == utf8.decode("utf-8")


@pytest.mark.parametrize(
    ("charset", "codec"), [("windows-1252", "cp1252"), ("shift_jis", "cp932"), ("utf-16le", "utf-16-le")]
)
def test_a_legacy_page_is_written_from_its_texts_utf8_encoded_once(serializer, charset, codec):
    body = PAGE.format(charset=charset).encode(codec, "replace")
    content_type = f"text/html; charset={charset}"
    routed = Router(max_body_bytes=1 << 20).route(_raw(body, content_type), ORIGIN)
    assert routed.destination == CLEAN and "text" not in routed.record
    # The UTF-8 the mojibake check read is the one written: the text is not encoded again.
    assert routed.text_utf8 is routed.decoded.utf8
    assert routed.text_utf8 == body.decode(codec).encode("utf-8")
    message = serializer(routed.record, utf8_text=routed.text_utf8)
    assert message == serializer({**routed.record, "text": body.decode(codec)})


def test_a_lossy_page_under_the_threshold_carries_its_text(serializer):
    # A byte order mark is final: a lone surrogate after it is replaced, counted.
    body = b"\xff\xfe" + PAGE.format(charset="utf-16").encode("utf-16-le") + b"\x00\xd8"
    routed = Router(max_body_bytes=1 << 20, replacement_threshold=1).route(_raw(body), ORIGIN)
    assert routed.destination == CLEAN and routed.decoded.replacements == 1 and routed.text_utf8 is None
    assert routed.record["text"].endswith("\ufffd")
    assert serializer(routed.record) == serializer(routed.record, utf8_text=routed.record["text"].encode())
