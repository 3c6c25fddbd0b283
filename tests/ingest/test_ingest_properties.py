"""Whatever the bytes, reading an archive never raises: damage becomes malformed records, counted and stepped over."""

from __future__ import annotations

import io
import itertools

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from consumer.ingest.http_response import NotHttp, ResponseHead, parse_head
from consumer.ingest.source import open_source
from consumer.ingest.transfer_coding import remove_transfer_codings
from consumer.ingest.warc import read_entries

from warc_samples import WarcBuilder, chunked, http_block

CODINGS = st.lists(st.sampled_from(["chunked", "gzip", "deflate", "x-gzip", "compress", "br"]), max_size=3)


@given(st.binary(max_size=2000))
def test_any_block_is_a_head_or_says_why_not(block):
    assert isinstance(parse_head(block), ResponseHead | NotHttp)


@given(st.binary(max_size=2000), CODINGS)
def test_any_body_with_any_transfer_codings_unwraps_without_raising(body, codings):
    unwrapped = remove_transfer_codings(body, codings, 10_000)
    assert len(unwrapped.body) <= max(len(body), 10_001)


def archive(gzip_members: bool) -> tuple[bytes, list[tuple[str, int]]]:
    builder = WarcBuilder(gzip=gzip_members)
    builder.warcinfo(isPartOf="p")
    for n in range(6):
        body = f"<p>page {n}</p>".encode() * 20
        builder.response(f"https://example.com/{n}", http_block(200, [("Transfer-Encoding", "chunked")], chunked(body)))
    return builder.getvalue(), builder.records


ARCHIVES = {gzip_members: archive(gzip_members) for gzip_members in (False, True)}


FLIPS = st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.booleans(), FLIPS)
@example(True, [(0.5390625, 0)])  # the end of a deflate stream damaged: warcio's next offset was negative
@example(True, [(0.0012, 15)])  # a gzip header's flags damaged: warcio read the whole input as one empty member
def test_damaged_archives_are_read_to_the_end_every_byte_accounted_for(gzip_members, flips):
    data, records = ARCHIVES[gzip_members]
    damaged = bytearray(data)
    for where, value in flips:
        damaged[int(where * len(data))] = value
    first_damage = min(int(where * len(data)) for where, _ in flips)

    entries = list(read_entries(open_source("-", stdin=io.BytesIO(bytes(damaged))), 0, 1 << 20))

    assert entries[0].offset == 0 and entries[-1].end == len(data)
    assert all(entry.end > entry.offset for entry in entries)
    assert all(a.end == b.offset for a, b in itertools.pairwise(entries)), "each byte in one record, good or malformed"
    ends = [offset for _, offset in records[1:]] + [len(data)]
    intact = [record for record, end in zip(records, ends, strict=True) if end <= first_damage]
    assert [(entry.kind, entry.offset) for entry in entries[: len(intact)]] == intact
