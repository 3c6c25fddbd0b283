"""Reading WARC and ARC inputs: every record with its offsets, malformed ones stepped over."""

from __future__ import annotations

import gzip
import io

import pytest

from consumer.ingest.exceptions import SourceError
from consumer.ingest.source import Rewindable, open_source
from consumer.ingest.warc import MALFORMED, read_entries

from warc_samples import WarcBuilder, arc_file, broken_warc_header, corrupt_gzip_member, http_block

LIMIT = 1 << 20


def every_kind(gzip_members: bool) -> WarcBuilder:
    builder = WarcBuilder(gzip=gzip_members)
    builder.warcinfo(isPartOf="crawl-7", software="tests")
    builder.request("https://example.com/")
    builder.page("https://example.com/", b"<p>one</p>")
    builder.metadata("https://example.com/")
    builder.revisit("https://example.com/")
    builder.dns("example.com")
    builder.resource("urn:x-wget:log")
    builder.page("https://example.com/two", b"<p>two</p>")
    return builder


def entries(data: bytes, *, start: int = 0, stdin: bool = False, limit: int = LIMIT, tmp_path=None):
    if stdin:
        source = open_source("-", stdin=io.BytesIO(data))
    else:
        path = tmp_path / "input.warc"
        path.write_bytes(data)
        source = open_source(str(path))
    try:
        return list(read_entries(source, start, limit))
    finally:
        source.close()


@pytest.mark.parametrize("gzip_members", [False, True], ids=["uncompressed", "gzip per record"])
@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
def test_every_record_with_its_kind_and_offsets(tmp_path, gzip_members, stdin):
    builder = every_kind(gzip_members)
    data = builder.getvalue()
    found = entries(data, stdin=stdin, tmp_path=tmp_path)
    assert [(e.kind, e.offset) for e in found] == builder.records
    assert [e.end for e in found] == [offset for _, offset in builder.records[1:]] + [len(data)]
    responses = [e for e in found if e.kind == "response"]
    assert (
        responses[0].block.endswith(b"<p>one</p>") and responses[0].fields["WARC-Target-URI"] == "https://example.com/"
    )


@pytest.mark.parametrize("gzip_members", [False, True], ids=["uncompressed", "gzip per record"])
def test_reading_resumes_at_a_record_boundary(tmp_path, gzip_members):
    builder = every_kind(gzip_members)
    start = builder.records[4][1]
    found = entries(builder.getvalue(), start=start, tmp_path=tmp_path)
    assert [(e.kind, e.offset) for e in found] == builder.records[4:]


def test_resuming_standard_input_skips_forward_by_reading():
    builder = every_kind(True)
    start = builder.records[6][1]
    found = entries(builder.getvalue(), start=start, stdin=True)
    assert [(e.kind, e.offset) for e in found] == builder.records[6:]


@pytest.mark.parametrize(
    "gzip_members, bad",
    [(False, broken_warc_header(False)), (True, broken_warc_header(True)), (True, corrupt_gzip_member())],
    ids=["bad WARC header", "bad WARC header, gzip", "corrupt gzip member"],
)
@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
def test_a_malformed_record_is_reported_at_its_offset_and_stepped_over(tmp_path, gzip_members, bad, stdin):
    builder = WarcBuilder(gzip=gzip_members)
    builder.page("https://example.com/before", b"<p>before</p>")
    builder.raw(MALFORMED, bad)
    builder.page("https://example.com/after", b"<p>after</p>")
    builder.page("https://example.com/last", b"<p>last</p>")
    found = entries(builder.getvalue(), stdin=stdin, tmp_path=tmp_path)
    assert [(e.kind, e.offset) for e in found] == builder.records
    malformed = found[1]
    assert malformed.end == builder.records[2][1] and malformed.problem


def test_a_malformed_last_record_ends_at_the_end_of_the_input(tmp_path):
    builder = WarcBuilder()
    builder.page("https://example.com/", b"<p>ok</p>")
    builder.raw(MALFORMED, broken_warc_header(False))
    data = builder.getvalue()
    found = entries(data, tmp_path=tmp_path)
    assert [(e.kind, e.offset, e.end) for e in found][-1] == (MALFORMED, builder.records[1][1], len(data))


def test_a_gzip_encoded_body_in_an_uncompressed_warc_is_not_taken_for_a_record(tmp_path):
    # After a bad record, a gzip member inside the next response's body must not be where reading resumes.
    builder = WarcBuilder()
    builder.raw(MALFORMED, broken_warc_header(False))
    builder.response(
        "https://example.com/gz", http_block(200, [("Content-Encoding", "gzip")], gzip.compress(b"<p>x</p>" * 50))
    )
    found = entries(builder.getvalue(), tmp_path=tmp_path)
    assert [(e.kind, e.offset) for e in found] == builder.records


@pytest.mark.parametrize("gzip_members", [False, True], ids=["arc", "arc.gz"])
def test_arc_records_get_their_warc_field_names(tmp_path, gzip_members):
    block = http_block(200, [("Content-Type", "text/html")], b"<p>arc</p>")
    data = arc_file([("http://example.com/arc", "93.184.216.34", "20240102030405", block),
                     ("dns:example.com", "127.0.0.1", "20240102030406", b"93.184.216.34")],
                    gzip=gzip_members)  # fmt: skip
    found = entries(data, tmp_path=tmp_path)
    assert [e.kind for e in found] == ["warcinfo", "response", "dns"]
    response = found[1]
    assert response.format == "arc" and response.block == block
    assert response.fields == {
        "WARC-Target-URI": "http://example.com/arc", "WARC-IP-Address": "93.184.216.34",
        "WARC-Date": "2024-01-02T03:04:05Z",
    }  # fmt: skip
    assert found[-1].end == len(data)


def test_a_block_longer_than_the_limit_is_cut_and_the_next_record_still_read(tmp_path):
    builder = WarcBuilder(gzip=True)
    builder.page("https://example.com/big", b"x" * 10_000)
    builder.page("https://example.com/next", b"<p>next</p>")
    found = entries(builder.getvalue(), limit=1000, tmp_path=tmp_path)
    assert (len(found[0].block), found[0].block_cut) == (1000, True)
    assert found[1].kind == "response" and not found[1].block_cut


def test_a_gzip_member_holding_several_records_past_the_start_is_refused_with_the_fix(tmp_path):
    # A file gzipped whole from its start is read (one_stream, test_warc_quirks.py); one whose first member
    # holds one record and a later one several cannot be: its records there have no offset of their own.
    first = WarcBuilder(gzip=True)
    first.warcinfo(isPartOf="crawl-7")
    data = first.getvalue() + gzip.compress(every_kind(False).getvalue())
    with pytest.raises(SourceError, match="warcio recompress"):
        entries(data, tmp_path=tmp_path)


def test_standard_input_keeps_a_window_to_go_back_in():
    stream = Rewindable(io.BytesIO(bytes(range(256)) * 1024), keep=100_000)
    stream.seek(200_000)  # skipping forward keeps only the window, not everything skipped
    assert 0 < stream.earliest <= 100_000
    stream.seek(150_000)
    assert stream.read(4) == bytes([150_000 % 256, (150_001) % 256, (150_002) % 256, (150_003) % 256])
    with pytest.raises(SourceError, match="cannot go back"):
        stream.seek(10)


def test_an_empty_or_missing_input_is_an_error(tmp_path):
    (tmp_path / "empty.warc").write_bytes(b"")
    with pytest.raises(SourceError, match="empty"):
        open_source(str(tmp_path / "empty.warc"))
    with pytest.raises(SourceError, match="cannot open"):
        open_source(str(tmp_path / "missing.warc"))


def test_the_identity_of_an_input_is_its_content_not_its_name(tmp_path):
    data = every_kind(True).getvalue()
    (tmp_path / "a.warc.gz").write_bytes(data)
    (tmp_path / "b.warc.gz").write_bytes(data)
    identities = {open_source(str(tmp_path / name)).identity for name in ("a.warc.gz", "b.warc.gz")}
    identities.add(open_source("-", stdin=io.BytesIO(data)).identity)
    assert len(identities) == 1
    assert open_source("-", stdin=io.BytesIO(every_kind(True).getvalue())).identity not in identities
