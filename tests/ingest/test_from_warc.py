"""A WARC response record becomes the RawResponse its crawler would have written."""

from __future__ import annotations

import gzip

import pytest

from consumer.ingest.from_warc import UNKNOWN_FETCHED_AT, Converted, Malformed, convert, warc_date_ms
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
        pytest.param("2024-05-06T07:08:09Z", 1714979289000, id="WARC 1.0"),
        pytest.param("2024-05-06T07:08:09.5Z", 1714979289500, id="WARC 1.1 fraction"),
        pytest.param("2024-05-06T07:08:09.123456789Z", 1714979289123, id="nanoseconds kept to the millisecond"),
        pytest.param("2024-05-06T07:08:09", 1714979289000, id="no zone is UTC"),
        pytest.param("2024-05-06t07:08:09z", 1714979289000, id="lower case"),
        pytest.param(" 2024-05-06 07:08:09Z ", 1714979289000, id="a space for the T, spaces around"),
        pytest.param("2024-05-06T09:08:09+02:00", 1714979289000, id="an offset with a colon"),
        pytest.param("2024-05-06T00:08:09-0700", 1714979289000, id="an offset without"),
        pytest.param("2024-05-06T07:08Z", 1714979280000, id="no seconds"),
        pytest.param("2024-05-06", 1714953600000, id="no time is midnight"),
        pytest.param("20240506070809", 1714979289000, id="14 digits"),
        pytest.param("2024-05-06T07:08:60Z", 1714979339000, id="a leap second is the 59th"),
        # ClueWeb09's writer put the day of the year where the day of the month goes.
        pytest.param("2008-10-294T05:21:46-0700", 1224505306000, id="ClueWeb09: day 294 of 2008 is 20 October"),
        pytest.param("2009-03-65T08:43:19-0800", 1236357799000, id="ClueWeb09: day 65 of 2009 is 6 March"),
        pytest.param("2024-02-30T00:00:00Z", None, id="day 30 of the year is not in February"),
        pytest.param("2024-13-01T00:00:00Z", None, id="no month 13"),
        pytest.param("2024-05-06T07:08:09+24:00", None, id="an offset of a day"),
        pytest.param("yesterday", None, id="not a date"),
        pytest.param("", None, id="empty"),
    ],
)
def test_warc_dates_to_the_millisecond(value, millis):
    assert warc_date_ms(value) == millis


@pytest.mark.parametrize("date", ["yesterday", ""], ids=["unreadable", "absent"])
def test_a_response_whose_date_cannot_be_read_lands_at_the_epoch_with_a_note(date):
    item = entry(http_block(200, [], HTML), WARC_Date=date)
    result = converted(item)
    assert result.record["fetched_at"] == UNKNOWN_FETCHED_AT == 0
    assert result.unread_date == date
    assert converted(entry(http_block(200, [], HTML))).unread_date is None
