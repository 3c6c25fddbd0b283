"""The fast path for gzip-per-record WARCs yields exactly what warcio's reading yields, damaged inputs included,
digest verdicts included, and leaves what it does not handle to warcio."""

from __future__ import annotations

import gzip
import hashlib
import io
import struct
import zlib
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from consumer.ingest import warc_fast
from consumer.ingest.exceptions import SourceError
from consumer.ingest.source import open_source
from consumer.ingest.warc import read_entries
from consumer.ingest.warc_fast import entries, fast_entries

from test_ingest_properties import ARCHIVES, FLIPS
from test_warc import every_kind
from test_warc_quirks import BLOCK, BODY, DIGEST_FORMS, PAYLOAD, b32, response
from warc_samples import (
    WarcBuilder,
    arc_file,
    broken_warc_header,
    chunked,
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


def test_without_isal_zlib_reads_the_same_records(monkeypatch):
    # isal is a dependency on CPython only: elsewhere the fast path inflates with zlib.
    monkeypatch.setattr(warc_fast, "inflating", zlib)
    monkeypatch.setattr(warc_fast, "_INFLATE_ERRORS", (zlib.error,))
    test_a_clean_gzip_warc_is_read_whole_by_the_fast_path()


#: RFC 1952's optional gzip header fields, by their FLG bit.
FHCRC, FEXTRA, FNAME, FCOMMENT = 0x02, 0x04, 0x08, 0x10


def with_header_fields(member: bytes, flags: int, *, header_crc: bytes | None = None) -> bytes:
    """*member* (a bare 10-byte gzip header) with the header fields *flags* names, as RFC 1952 lays them out;
    flags outside them (the reserved bits) are set as given."""
    header = bytearray(member[:10])
    header[3] = flags
    header += b"\x05\x00extra" if flags & FEXTRA else b""
    header += b"name.warc\x00" if flags & FNAME else b""
    header += b"a comment\x00" if flags & FCOMMENT else b""
    if flags & FHCRC:
        header += header_crc if header_crc is not None else struct.pack("<H", zlib.crc32(header) & 0xFFFF)
    return bytes(header) + member[10:]


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
    plain = hand_written_response("https://example.com/p", http_block(200, [], b"p"))
    return {
        "WARC-Type written twice": good + gzip.compress(plain.replace(b"WARC-Date:", b"WARC-Type: revisit\r\nWARC-Date:")) + good,
        "lower-case names": good + gzip.compress(plain.replace(b"WARC-Type:", b"warc-type:").replace(b"Content-Length", b"content-length")) + good,
        "a bare LF blank line in the header": good + gzip.compress(plain.replace(b"\r\nWARC-Date:", b"\n\nWARC-Date:")) + good,
        "broken header": good + broken_warc_header(True) + good,
        "corrupt member": good + corrupt_gzip_member() + good,
        "reserved gzip flag bits": good + with_header_fields(gzip.compress(plain, mtime=0), 0xE0) + good,
        "gzip header fields": good + with_header_fields(gzip.compress(plain, mtime=0), FEXTRA | FNAME | FCOMMENT | FHCRC) + good,
        "gzip header CRC wrong": good + with_header_fields(gzip.compress(plain, mtime=0), FHCRC, header_crc=b"\0\0") + good,
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


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 255),
    st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), max_size=3),
    st.sampled_from([0, 1, 6, 9]),
)
@example(0x20, [], 6)  # a reserved flag bit: ISA-L reads the member, zlib (hence warcio) refuses it
@example(FHCRC, [(0.011, 0)], 6)  # the header CRC damaged
@example(0, [(0.99, 1)], 6)  # the member's length damaged
def test_the_fast_path_inflates_what_zlib_inflates(flags, flips, level):
    # The fast path inflates with ISA-L and warcio with zlib: a damaged member or an odd header, the same records.
    plain = hand_written_response("https://example.com/p", http_block(200, [], b"<p>page</p>" * 50))
    member = bytearray(with_header_fields(gzip.compress(plain, compresslevel=level, mtime=0), flags))
    for where, value in flips:
        member[int(where * len(member))] = value
    builder = WarcBuilder(gzip=True)
    builder.page("https://example.com/a", b"<p>a</p>")
    good = builder.getvalue()
    slow, fast = both(good + bytes(member) + good)
    assert fast == slow


# Digests: the same verdict from both readers, the fast path reading every record itself


def read_by_the_fast_path_alone(data: bytes, limit: int) -> None:
    source = open_source("-", stdin=io.BytesIO(data))
    reader = fast_entries(source, 0, limit)
    with pytest.raises(StopIteration) as stopped:
        while True:
            next(reader)
    assert stopped.value.value == len(data), "a record was left to warcio"


def digest_records() -> dict[str, tuple[bytes, bool]]:
    """Records (uncompressed) declaring digests, and whether their bytes match them."""
    damaged = BLOCK.replace(b"Archiv", b"Archiw")
    both_digests = [f"WARC-Block-Digest: sha1:{b32(BLOCK)}", f"WARC-Payload-Digest: sha1:{b32(PAYLOAD)}"]
    chunked_block = http_block(200, [("Content-Type", "text/html"), ("Transfer-Encoding", "chunked")], chunked(BODY))
    big = http_block(200, [("Content-Type", "text/html")], b"<p>" + b"gross " * 20_000 + b"</p>")
    revisit, metadata = WarcBuilder(), WarcBuilder()
    revisit.revisit("https://example.com/")
    metadata.metadata("https://example.com/")
    records = {
        "both match": (response(*both_digests), True),
        "block damaged": (response(*both_digests, block=damaged), False),
        "payload damaged, no block digest": (response(both_digests[1], block=damaged), False),
        "payload disagrees, block intact": (response(both_digests[0], f"WARC-Payload-Digest: sha1:{b32(b'?')}"), True),
        "payload de-chunked": (response(f"WARC-Payload-Digest: sha1:{b32(BODY)}", block=chunked_block), True),
        "payload de-chunked, wrong": (response(f"WARC-Payload-Digest: sha1:{b32(BODY + b'!')}", block=chunked_block), False),
        "revisit's payload digest": (revisit.getvalue(), True),  # the earlier capture's: not checked
        "truncated": (response("WARC-Truncated: length", f"WARC-Payload-Digest: sha1:{b32(b'?')}"), True),
        "metadata damaged": (metadata.getvalue().replace(b"outlinks", b"outlinkz"), False),
        "big block damaged at its end": (
            response(f"WARC-Block-Digest: sha256:{hashlib.sha256(big).hexdigest()}", block=big[:-2] + b"?>"), False
        ),
        "big block whole": (response(f"WARC-Block-Digest: sha256:{hashlib.sha256(big).hexdigest()}", block=big), True),
    }
    for form, write in DIGEST_FORMS.items():
        records[form] = (response(f"WARC-Block-Digest: {write(BLOCK)}"), True)
        records[f"{form}, damaged"] = (response(f"WARC-Block-Digest: {write(BLOCK)}", block=damaged), False)
    return records


@pytest.mark.parametrize("limit", [1 << 20, 1000], ids=["whole blocks", "blocks past the limit"])
def test_digest_verdicts_are_the_same_on_both_readers(limit):
    records = digest_records()
    data = b"".join(gzip.compress(record) for record, _ in records.values())
    read_by_the_fast_path_alone(data, limit)
    slow, fast = both(data, limit=limit)
    assert fast == slow
    verdicts = {name: entry.digest_problem is None for name, entry in zip(records, fast, strict=True)}
    assert verdicts == {name: matches for name, (_, matches) in records.items()}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 6), st.floats(0, 1, exclude_max=True), st.integers(0, 255)), max_size=4))
# A record's last bytes damaged, the next but one's first: warcio's offsets after the first fall short of its
# member's end, and warcio started there read the rest as one malformed record (the records after it were lost).
@example([(2, 0.998046875, 28), (4, 0.0, 0)])
# A space joined into the Target-URI (warcio writes it as %20).
@example([(1, 0.1557, 0)])
# A Content-Length digit turned "¹" (0xB9 read as ISO-8859-1), which str.isdigit() calls a digit and int() refuses.
@example([(0, 0.921875, 185)])
# The last record's closing blank lines damaged: warcio says "non-chunked gzip file", but the file is gzipped per
# record (its last record is malformed, not the file refused).
@example([(6, 0.998046875, 28)])
def test_records_damaged_before_compression_read_the_same(flips):
    # Damage zlib's CRC cannot see: bytes changed before each record was gzipped, as a bad disk or writer would.
    builder = WarcBuilder()
    builder.warcinfo(isPartOf="p")
    for n in range(6):
        block = http_block(200, [("Transfer-Encoding", "chunked")], chunked(f"<p>page {n}</p>".encode() * 20))
        builder.response(f"https://example.com/{n}", block)
    data = builder.getvalue()
    offsets = [offset for _, offset in builder.records]
    records = [bytearray(data[start:end]) for start, end in zip(offsets, [*offsets[1:], len(data)], strict=True)]
    for which, where, value in flips:
        records[which][int(where * len(records[which]))] = value
    slow, fast = both(b"".join(gzip.compress(bytes(record)) for record in records))
    assert fast == slow


@pytest.mark.parametrize("uri", ["https://example.com/a page", "<https://example.com/a page>", "<https://example.com/>"])
def test_a_target_uri_is_read_as_warcio_rewrites_it(uri):
    # warcio strips the angle brackets and writes a space as %20 in the fields it gives; the fast path must land
    # the same URL, or a .warc and its .warc.gz would land different records (found by the property test below).
    builder = WarcBuilder()
    builder.response("https://example.com/", http_block(200, [], b"<p>page</p>"))
    data = builder.getvalue().replace(b"WARC-Target-URI: https://example.com/", f"WARC-Target-URI: {uri}".encode(), 1)
    compressed = gzip.compress(data)
    read_by_the_fast_path_alone(compressed, 1 << 20)
    slow, fast = both(compressed)
    assert fast == slow
    assert fast[0].fields["WARC-Target-URI"] == uri.strip("<>").replace(" ", "%20")
