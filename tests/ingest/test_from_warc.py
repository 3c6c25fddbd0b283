"""A WARC response record becomes the RawResponse its crawler would have written."""

from __future__ import annotations

import gzip

import pytest

from consumer.ingest.from_warc import Converted, Malformed, convert, warc_date_ms
from consumer.ingest.warc import Entry

from warc_samples import chunked, http_block

LIMIT = 1 << 20
HTML = "<p>Grüße</p>".encode()


def entry(block: bytes, **fields: str) -> Entry:
    base = {"WARC-Type": "response", "WARC-Target-URI": "https://example.de/seite", "WARC-Date": "2024-05-06T07:08:09Z"}
    base.update({name.replace("_", "-"): value for name, value in fields.items()})
    return Entry("response", 0, len(block), base, "warc", block)


def converted(item: Entry, crawl_id: str | None = None, limit: int = LIMIT) -> Converted:
    result = convert(item, crawl_id=crawl_id, body_limit=limit)
    assert isinstance(result, Converted), result
    return result


def test_fields_come_from_the_warc_header_and_the_http_block():
    block = http_block(
        200, [("Content-Type", "text/html; charset=utf-8"), ("Vary", "Accept"), ("vary", "Cookie")], HTML
    )
    record = converted(entry(block, WARC_IP_Address="192.0.2.7"), crawl_id="crawl-7").record
    assert record == {
        "url": "https://example.de/seite",
        "fetched_at": 1714979289000,
        "status": 200,
        "headers": [
            {"name": "Content-Type", "value": "text/html; charset=utf-8"},
            {"name": "Vary", "value": "Accept"},
            {"name": "vary", "value": "Cookie"},
        ],
        "body": HTML,
        "truncated": False,
        "content_encoding_removed": False,
        "crawl_id": "crawl-7",
        "ip": "192.0.2.7",
    }


def test_chunks_are_undone_and_the_content_encoding_is_kept_for_the_processor():
    compressed = gzip.compress(HTML)
    block = http_block(200, [("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")], chunked(compressed, 5))
    result = converted(entry(block))
    assert result.record["body"] == compressed
    assert not result.record["content_encoding_removed"] and not result.record["truncated"]


@pytest.mark.parametrize(
    "item, why",
    [
        (entry(http_block(200, [], HTML), WARC_Truncated="length"), "WARC-Truncated"),
        (entry(http_block(200, [("Transfer-Encoding", "chunked")], chunked(HTML, last=False))), "chunks end early"),
    ],
)
def test_truncated_when_the_archive_says_so_or_the_chunks_end_early(item, why):
    assert converted(item).record["truncated"], why


def test_a_body_over_the_limit_is_cut_and_marked_truncated():
    result = converted(entry(http_block(200, [], b"x" * 5000)), limit=1000)
    assert (len(result.record["body"]), result.record["truncated"], result.cut) == (1000, True, True)


def test_a_target_uri_in_angle_brackets_is_unwrapped():
    record = converted(entry(http_block(200, [], HTML), WARC_Target_URI="<https://example.de/x>")).record
    assert record["url"] == "https://example.de/x"


@pytest.mark.parametrize(
    "item, reason",
    [
        (entry(http_block(200, [], HTML), WARC_Target_URI=""), "WARC-Target-URI"),
        (entry(http_block(200, [], HTML), WARC_Date="yesterday"), "WARC-Date"),
        (entry(b"<html>no HTTP head</html>"), "status line"),
        (entry(b"HTTP/1.1 042 Odd\r\n\r\n"), "status"),
    ],
)
def test_what_cannot_be_a_raw_response_is_malformed_with_a_reason(item, reason):
    result = convert(item, crawl_id=None, body_limit=LIMIT)
    assert isinstance(result, Malformed) and reason in result.reason


@pytest.mark.parametrize(
    "value, millis",
    [
        ("2024-05-06T07:08:09Z", 1714979289000),
        ("2024-05-06T07:08:09.5Z", 1714979289500),
        ("2024-05-06T07:08:09.123456789Z", 1714979289123),
        ("2024-05-06T07:08:09", None),
        ("2024-02-30T00:00:00Z", None),
    ],
)
def test_warc_dates_to_the_millisecond(value, millis):
    assert warc_date_ms(value) == millis
