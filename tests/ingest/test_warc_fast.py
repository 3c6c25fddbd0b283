"""The fast path for gzip-per-record WARCs yields exactly what warcio's reading yields, damaged inputs included,
and leaves what it does not handle to warcio."""

from __future__ import annotations

import gzip
import io
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, example, given, settings

from consumer.ingest.exceptions import SourceError
from consumer.ingest.source import open_source
from consumer.ingest.warc import read_entries
from consumer.ingest.warc_fast import entries, fast_entries

from test_ingest_properties import ARCHIVES, FLIPS
from test_warc import every_kind
from warc_samples import (
    WarcBuilder,
    arc_file,
    broken_warc_header,
    corrupt_gzip_member,
    hand_written_response,
    http_block,
)


def both(data: bytes, *, start: int = 0, limit: int = 1 << 20):
    """(warcio's entries, this path's entries) of *data*, a malformed record's problem reduced to having one:
    warcio words it differently when an iterator starts at the bad record ("Unknown archive format") than when
    it meets it after others ("Invalid WARC record"); the offsets and everything else are the same."""
    found = []
    for read in (read_entries, entries):
        source = open_source("-", stdin=io.BytesIO(data))
        try:
            found.append([replace(e, problem=e.problem is not None) for e in read(source, start, limit)])
        finally:
            source.close()
    return found[0], found[1]


def test_a_clean_gzip_warc_is_read_whole_by_the_fast_path():
    data = every_kind(True).getvalue()
    source = open_source("-", stdin=io.BytesIO(data))
    reader = fast_entries(source, 0, 1 << 20)
    fast = []
    with pytest.raises(StopIteration) as stopped:
        while True:
            fast.append(next(reader))
    assert stopped.value.value == len(data), "every record read here, none left to warcio"
    assert fast == list(read_entries(open_source("-", stdin=io.BytesIO(data)), 0, 1 << 20))


def unusual_records() -> dict[str, bytes]:
    builder = WarcBuilder(gzip=True)
    builder.warcinfo(isPartOf="x")
    builder.page("https://example.com/a", b"<p>a</p>")
    good = builder.getvalue()
    folded = hand_written_response("https://example.com/f", http_block(200, [], b"f")).replace(
        b"WARC-Date:", b"X-Folded: one\r\n two\r\nWARC-Date:"
    )
    latin1 = hand_written_response("https://example.com/\xe9", http_block(200, [], b"l")).replace(
        "https://example.com/\xe9".encode(), b"https://example.com/\xe9"
    )
    return {
        "broken header": good + broken_warc_header(True) + good,
        "corrupt member": good + corrupt_gzip_member() + good,
        "folded header line": good + gzip.compress(folded) + good,
        "latin-1 header": good + gzip.compress(latin1) + good,
        "blank lines after": good + b"\r\n\r\n",
        "garbage after": good + b"not a record at all",
        "cut short": good + good[: len(good) - 7],
        "two records in a member": good + gzip.compress(hand_written_response("https://e.com/1", b"") * 2) + good,
        "arc": arc_file([("http://example.com/", "1.2.3.4", "20240102030405", http_block(200, [], b"x"))], gzip=True),
        "uncompressed warc": every_kind(False).getvalue(),
    }


@pytest.mark.parametrize("name", list(unusual_records()))
def test_what_warcio_yields_on_unusual_records(name):
    data = unusual_records()[name]
    try:
        slow, fast = both(data)
    except SourceError as exc:  # both refuse it the same way
        with pytest.raises(SourceError, match=str(exc)[:40]):
            source = open_source("-", stdin=io.BytesIO(data))
            list(entries(source, 0, 1 << 20))
        return
    assert fast == slow


def test_a_gzip_member_after_an_uncompressed_record_is_read_not_taken_for_damage():
    # warcio's one iterator, having read an uncompressed record amid gzip members, reports the next member as
    # malformed; started afresh there (as this path hands it one record at a time) it reads it, as it should.
    builder = WarcBuilder(gzip=True)
    builder.page("https://example.com/a", b"<p>a</p>")
    good = builder.getvalue()
    data = good + hand_written_response("https://example.com/u", b"HTTP/1.1 200 OK\r\n\r\nu") + good
    slow, fast = both(data)
    assert [e.kind for e in slow] == ["response", "response", "malformed"]
    assert [e.kind for e in fast] == ["response", "response", "response"]
    assert [(e.offset, e.end) for e in fast] == [(e.offset, e.end) for e in slow]


def test_a_block_over_the_limit_is_cut_the_same_way():
    builder = WarcBuilder(gzip=True)
    builder.page("https://example.com/big", b"x" * 5000)
    builder.page("https://example.com/next", b"<p>next</p>")
    slow, fast = both(builder.getvalue(), limit=1000)
    assert fast == slow and fast[0].block_cut and len(fast[0].block) == 1000


def test_resuming_mid_file_from_a_checkpoint():
    builder = every_kind(True)
    data = builder.getvalue()
    start = builder.records[3][1]
    slow, fast = both(data, start=start)
    assert fast == slow and fast[0].offset == start


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FLIPS)
@example([(0.5390625, 0)])
@example([(0.0012, 15)])
def test_damaged_archives_read_the_same(flips):
    data, _ = ARCHIVES[True]
    damaged = bytearray(data)
    for where, value in flips:
        damaged[int(where * len(data))] = value
    slow, fast = both(bytes(damaged))
    assert fast == slow
