"""The one place that turns a crawler's values into a RawResponse the processor reads."""

from __future__ import annotations

import datetime as dt

import pytest

from consumer.ingest import InvalidResponseError, raw_response, record_key
from consumer.serialization.avro import AvroDeserializer, AvroSerializer

FETCHED = dt.datetime(2025, 6, 1, 12, 30, 45, 123456, tzinfo=dt.UTC)


def test_the_record_reads_back_through_the_processors_deserializer(store):
    record = raw_response(
        "https://example.jp/page",
        200,
        [("Content-Type", "text/html; charset=shift_jis"), (b"Set-Cookie", b"a=\xe9"), ("set-cookie", "b=2")],
        b"\x93\xfa\x96\x7b",
        FETCHED,
        truncated=True,
        crawl_id="crawl-7",
        ip="2001:db8::1",
    )
    read = AvroDeserializer(store, "RawResponse")(AvroSerializer(store, "RawResponse")(record))
    assert read == {**record, "fetched_at": dt.datetime(2025, 6, 1, 12, 30, 45, 123000, tzinfo=dt.UTC)}
    assert read["headers"][1] == {"name": "Set-Cookie", "value": "a=\u00e9"}, "bytes carried as ISO-8859-1"
    assert record_key(record) == b"https://example.jp/page"


def test_headers_from_a_mapping_keep_its_order_and_lose_surrounding_whitespace():
    record = raw_response("https://e.com/", 200, {"B": " 2 ", "A": "1\r\n"}, b"")
    assert record["headers"] == [{"name": "B", "value": "2"}, {"name": "A", "value": "1"}]


@pytest.mark.parametrize(
    "fetched_at, millis",
    [
        (FETCHED, 1748781045123),
        (dt.datetime(2025, 6, 1, 14, 30, 45, 123999, tzinfo=dt.timezone(dt.timedelta(hours=2))), 1748781045123),
        (1748781045123, 1748781045123),
    ],
)
def test_fetched_at_is_milliseconds_since_the_epoch(fetched_at, millis):
    assert raw_response("https://e.com/", 200, [], b"", fetched_at)["fetched_at"] == millis


def test_fetched_at_defaults_to_now():
    before = int(dt.datetime.now(dt.UTC).timestamp() * 1000)
    assert raw_response("https://e.com/", 200, [], b"")["fetched_at"] >= before


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"url": ""}, "url"),
        ({"url": b"https://e.com/"}, "url"),
        ({"status": 99}, "status"),
        ({"status": True}, "status"),
        ({"status": "200"}, "status"),
        ({"body": "text"}, "body must be bytes"),
        ({"headers": [("A",)]}, "pairs"),
        ({"headers": [("A", 1)]}, "str or bytes"),
        ({"headers": [(" ", "x")]}, "empty name"),
        ({"fetched_at": dt.datetime(2025, 1, 1)}, "naive"),
        ({"fetched_at": 1748781045.1}, "integer milliseconds"),
        ({"crawl_id": 7}, "crawl_id"),
    ],
)
def test_bad_values_are_refused_with_the_value_named(kwargs, message):
    values = {"url": "https://e.com/", "status": 200, "headers": [], "body": b"", **kwargs}
    fetched_at = values.pop("fetched_at", None)
    crawl_id = values.pop("crawl_id", None)
    with pytest.raises(InvalidResponseError, match=message):
        raw_response(**values, fetched_at=fetched_at, crawl_id=crawl_id)
