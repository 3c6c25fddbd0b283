"""What archives really hold, read as warcio and jwarc read it (issue 39): each quirk in a small file built here.

- field names in any case, folded values, ClueWeb09's WARC/0.18 records and day-of-the-year dates;
- a file gzip-compressed as one stream, read record by record (damaged or cut short: the records before kept);
- warcio's plain-text warnings caught into the entry's notes, nothing printed;
- WARC-Block-Digest and WARC-Payload-Digest checked in every form writers use.

What a record's header and digests are read as holds on both readers: warcio's (``warc.read_entries``, on an
uncompressed WARC here) and the fast path for gzip-per-record WARCs (``warc_fast``), each test taking
``reader``; ``read_records`` asserts the fast path read every record itself, none left to warcio.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import sys
import threading
import warnings

import pytest

from consumer.ingest.digest import parse
from consumer.ingest.from_warc import Converted, convert
from consumer.ingest.library_output import captured, notes
from consumer.ingest.source import open_source
from consumer.ingest.warc import MALFORMED, Entry, one_stream, read_entries
from consumer.ingest.warc_fast import fast_entries

from warc_samples import HTTP, WarcBuilder, arc_file, chunked, gzip_stream_at_records, http_block, warc_record

LIMIT = 1 << 20
BODY = "<p>Grüße aus dem Archiv</p>".encode()
BLOCK = http_block(200, [("Content-Type", "text/html; charset=utf-8")], BODY)
PAYLOAD = BLOCK[BLOCK.index(b"\r\n\r\n") + 4 :]


def read(data: bytes, *, stdin: bool = False, start: int = 0, limit: int = LIMIT, tmp_path=None, whole=False):
    """The entries of *data* (through ``one_stream`` as the ingester reads, when *whole*)."""
    if stdin:
        source = open_source("-", stdin=io.BytesIO(data))
    else:
        path = tmp_path / "input.warc"
        path.write_bytes(data)
        source = open_source(str(path))
    try:
        if whole:
            inflated = one_stream(source)
            assert inflated is not None, "not taken for a file gzipped as one stream"
            source = inflated
        return list(read_entries(source, start, limit))
    finally:
        source.close()


READERS = ["warcio", "fast"]


def read_records(records: list[bytes], reader: str, *, limit: int = LIMIT) -> list[Entry]:
    """*records* (each a whole uncompressed record) read by *reader*: by warcio from an uncompressed WARC of
    them, or by the fast path from a WARC of them gzipped per record, which it must read to its end itself."""
    if reader == "warcio":
        return read(b"".join(records), stdin=True, limit=limit)
    data = b"".join(gzip.compress(record) for record in records)
    source = open_source("-", stdin=io.BytesIO(data))
    found: list[Entry] = []
    try:
        fast = fast_entries(source, 0, limit)
        while True:
            try:
                found.append(next(fast))
            except StopIteration as stop:
                assert stop.value == len(data), "a record was left to warcio"
                return found
    finally:
        source.close()


def response(*lines: str, block: bytes = BLOCK, version: str = "WARC/1.1", length: int | None = None) -> bytes:
    return warc_record(
        ["WARC-Type: response", "WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-00000000000a>",
         "WARC-Target-URI: https://example.com/archiv", f"Content-Type: {HTTP}", *lines],
        block, version=version, length=length,
    )  # fmt: skip


def fetched_at(entry) -> int:
    result = convert(entry, crawl_id=None, body_limit=LIMIT)
    assert isinstance(result, Converted), result
    return result.record["fetched_at"]


# Field names and dates


def test_field_names_in_any_case_and_folded_values_are_read(tmp_path):
    record = warc_record(
        ["warc-type: response", "warc-target-uri: https://example.com/klein", "WARC-DATE:", "  2024-05-06T07:08:09Z",
         f"content-type: {HTTP}", "Warc-Ip-Address: 192.0.2.9"],
        BLOCK,
    )  # fmt: skip
    (entry,) = read(record, tmp_path=tmp_path)
    assert entry.kind == "response"
    assert entry.fields["WARC-Target-URI"] == "https://example.com/klein"
    assert entry.fields["WARC-Date"] == "2024-05-06T07:08:09Z", "the folded value joined, spaces trimmed"
    result = convert(entry, crawl_id=None, body_limit=LIMIT)
    assert isinstance(result, Converted)
    assert (result.record["fetched_at"], result.record["ip"]) == (1714979289000, "192.0.2.9")


@pytest.mark.parametrize("reader", READERS)
def test_field_names_in_any_case_are_read_by_both_readers(reader):
    record = warc_record(
        ["warc-type: response", "WARC-TARGET-URI: https://example.com/klein", "Warc-Date:  2024-05-06T07:08:09Z  ",
         f"content-type: {HTTP}", "warc-ip-address: 192.0.2.9", "x-own-field: kept as written"],
        BLOCK,
    )  # fmt: skip
    (entry,) = read_records([record], reader)
    assert entry.kind == "response" and entry.block == BLOCK
    assert entry.fields["WARC-Target-URI"] == "https://example.com/klein"
    assert entry.fields["WARC-Date"] == "2024-05-06T07:08:09Z" and entry.fields["x-own-field"] == "kept as written"
    result = convert(entry, crawl_id=None, body_limit=LIMIT)
    assert isinstance(result, Converted)
    assert (result.record["fetched_at"], result.record["ip"]) == (1714979289000, "192.0.2.9")


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("version", ["WARC/0.17", "WARC/0.18"])
def test_a_clueweb09_record_is_read_with_its_date(reader, version):
    # ClueWeb09: WARC/0.18, the day of the year for the day of the month, a zone offset, its own fields.
    record = response("WARC-Date: 2008-10-294T05:21:46-0700", "WARC-TREC-ID: clueweb09-en0000-00-00000",
                      version=version)  # fmt: skip
    (entry, _) = read_records([record, record], reader)
    assert entry.kind == "response" and entry.fields["WARC-TREC-ID"] == "clueweb09-en0000-00-00000"
    assert fetched_at(entry) == 1224505306000  # 2008-10-20T12:21:46Z


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize(
    "date, expected",
    [("2024-05-06T07:08:09", 1714979289000), ("2024-05-06T09:08:09+02:00", 1714979289000), ("20240506070809", 1714979289000),
     ("sometime in 2009", 0)],
    ids=["no zone", "offset", "14 digits", "unreadable"],
)  # fmt: skip
def test_lenient_dates_on_both_readers(reader, date, expected):
    (entry,) = read_records([response(f"WARC-Date: {date}")], reader)
    assert fetched_at(entry) == expected


def test_a_record_after_a_malformed_one_is_found_at_a_warc_0_18_header(tmp_path):
    good = response("WARC-Date: 2009-03-65T08:43:19-0800", version="WARC/0.18")
    found = read(b"WORC/9.9\r\ngarbage\r\n\r\n" + good, tmp_path=tmp_path)
    assert [entry.kind for entry in found] == [MALFORMED, "response"]
    assert fetched_at(found[1]) == 1236357799000  # 2009-03-06T16:43:19Z


# A file gzip-compressed as one stream


def every_kind() -> WarcBuilder:
    builder = WarcBuilder()
    builder.warcinfo(isPartOf="one-stream")
    builder.request("https://example.com/")
    builder.page("https://example.com/", b"<p>one</p>")
    builder.metadata("https://example.com/")
    builder.revisit("https://example.com/")
    builder.page("https://example.com/two", b"<p>two</p>")
    return builder


@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
def test_a_warc_gzipped_as_one_stream_is_read_record_by_record(tmp_path, stdin):
    builder = every_kind()
    plain = builder.getvalue()
    found = read(gzip.compress(plain), stdin=stdin, tmp_path=tmp_path, whole=True)
    assert [(entry.kind, entry.offset) for entry in found] == builder.records, "offsets in the uncompressed bytes"
    assert found[-1].end == len(plain)
    assert found[2].block.endswith(b"<p>one</p>") and all(entry.digest_problem is None for entry in found)


def test_an_arc_gzipped_as_one_stream_is_read_record_by_record(tmp_path):
    block = http_block(200, [("Content-Type", "text/html")], b"<p>arc</p>")
    plain = arc_file([("http://example.com/a", "192.0.2.1", "20080101120000", block),
                      ("http://example.com/b", "192.0.2.1", "20080101120001", block)])  # fmt: skip
    found = read(gzip.compress(plain), tmp_path=tmp_path, whole=True)
    assert [(entry.kind, entry.format) for entry in found] == [("warcinfo", "arc"), ("response", "arc"), ("response", "arc")]
    assert found[2].fields["WARC-Target-URI"] == "http://example.com/b" and found[-1].end == len(plain)


def test_reading_a_one_stream_gzip_resumes_at_an_uncompressed_offset(tmp_path):
    builder = every_kind()
    start = builder.records[3][1]
    found = read(gzip.compress(builder.getvalue()), start=start, tmp_path=tmp_path, whole=True)
    assert [(entry.kind, entry.offset) for entry in found] == builder.records[3:]


def test_gzip_per_record_and_uncompressed_files_are_not_taken_for_one_stream(tmp_path):
    for name, data in (("per record", WarcBuilder(gzip=True)), ("plain", WarcBuilder())):
        data.page("https://example.com/a", b"<p>a</p>")
        data.page("https://example.com/b", b"<p>b</p>")
        path = tmp_path / f"{name}.warc"
        path.write_bytes(data.getvalue())
        source = open_source(str(path))
        try:
            assert one_stream(source) is None, name
            assert len(list(read_entries(source, 0, LIMIT))) == 2, "the source is left where reading starts"
        finally:
            source.close()


def numbered_pages(count: int) -> list[bytes]:
    builder = WarcBuilder()
    bodies = [f"<p>Seite {n}: {hashlib.sha256(str(n).encode()).hexdigest() * 8}</p>".encode() for n in range(count)]
    for n, body in enumerate(bodies):
        builder.page(f"https://example.com/{n}", body)
    data, offsets = builder.getvalue(), [offset for _, offset in builder.records]
    return [data[start:end] for start, end in zip(offsets, [*offsets[1:], len(data)], strict=True)]


def test_a_damaged_one_stream_gzip_keeps_the_records_before_the_damage(tmp_path):
    records = numbered_pages(6)
    compressed, flushed = gzip_stream_at_records(records)
    damaged = bytearray(compressed)
    damaged[flushed[2] + 10 : flushed[2] + 60] = b"\xff" * 50  # inside the fourth record's deflate data
    found = read(bytes(damaged), tmp_path=tmp_path, whole=True)
    assert [entry.kind for entry in found[:3]] == ["response"] * 3
    assert [entry.offset for entry in found[:3]] == [0, len(records[0]), len(records[0]) + len(records[1])]
    assert all(entry.digest_problem is None for entry in found[:3]), "the records before the damage are whole"
    assert found[3].kind == MALFORMED and found[3].offset == sum(map(len, records[:3]))
    assert "gzip" in (found[3].problem or "")
    assert found[-1].kind == MALFORMED, "nothing after the damage is taken for a record"


def test_a_one_stream_gzip_cut_short_keeps_the_records_before_the_cut(tmp_path):
    records = numbered_pages(4)
    compressed, flushed = gzip_stream_at_records(records)
    found = read(compressed[: flushed[1] + 30], tmp_path=tmp_path, whole=True)
    assert [entry.kind for entry in found] == ["response", "response", MALFORMED]
    assert found[2].offset == len(records[0]) + len(records[1]) and "cut short" in (found[2].problem or "")


# Library output


def test_warcios_plain_text_warning_becomes_a_note_of_the_record_and_nothing_is_printed(tmp_path, capfd):
    builder = WarcBuilder()
    builder.page("https://example.com/a", b"<p>a</p>")
    short = builder.raw("response", response("WARC-Date: 2024-05-06T07:08:09Z", length=len(BLOCK) - 4))
    builder.page("https://example.com/c", b"<p>c</p>")
    found = read(builder.getvalue(), tmp_path=tmp_path)
    assert [(entry.kind, entry.offset) for entry in found] == builder.records
    (warned,) = [entry for entry in found if entry.notes]
    assert warned.offset == short
    assert warned.notes[0].startswith("WARNING: Record not followed by newline, perhaps Content-Length is invalid")
    assert capfd.readouterr() == ("", ""), "nothing reached the process's stdout or stderr"


def test_captured_keeps_this_threads_output_and_passes_other_threads_through(capsys):
    def other_thread() -> None:
        print("from another thread", file=sys.stderr)

    before = sys.stderr
    with captured() as kept:
        print("    WARNING: one\n    Offset: 1\n    Remainder: b'x'", file=sys.stderr)
        print("printed to stdout")
        # What warnings.showwarning writes when no one has replaced it (pytest has, for this test).
        sys.stderr.write(warnings.formatwarning("a library's warning", UserWarning, "lib.py", 7, "warn(...)"))
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
    assert notes(kept) == [
        "WARNING: one Offset: 1 Remainder: b'x'",
        "printed to stdout",
        "lib.py:7: UserWarning: a library's warning warn(...)",
    ]
    assert capsys.readouterr() == ("", "from another thread\n")
    assert sys.stderr is before, "put back as it was"


# Digests


def b32(data: bytes, algorithm: str = "sha1") -> str:
    return base64.b32encode(hashlib.new(algorithm, data).digest()).decode()


def hexd(data: bytes, algorithm: str = "sha1") -> str:
    return hashlib.new(algorithm, data).hexdigest()


def b64(data: bytes, algorithm: str) -> str:
    return base64.b64encode(hashlib.new(algorithm, data).digest()).decode()


DIGEST_FORMS = {
    "sha1 base32 (Heritrix, wget, warcio)": lambda data: f"sha1:{b32(data)}",
    "sha1 base32 lower case, no padding needed": lambda data: f"SHA1:{b32(data).lower()}",
    "sha1 hex": lambda data: f"sha1:{hexd(data)}",
    "sha-1 name": lambda data: f"sha-1:{b32(data)}",
    "sha256 hex": lambda data: f"sha256:{hexd(data, 'sha256')}",
    "sha256 base32 padded": lambda data: f"sha256:{b32(data, 'sha256')}",
    "sha-256 base64": lambda data: f"sha-256:{b64(data, 'sha256')}",
    "sha512 hex": lambda data: f"sha512:{hexd(data, 'sha512')}",
    "no algorithm, sha1 base32": lambda data: b32(data),
    "no algorithm, sha256 hex": lambda data: hexd(data, "sha256"),
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("form", DIGEST_FORMS)
def test_digests_in_every_form_match_and_a_changed_byte_does_not(form, reader):
    write = DIGEST_FORMS[form]
    lines = ["WARC-Date: 2024-05-06T07:08:09Z", f"WARC-Block-Digest: {write(BLOCK)}",
             f"WARC-Payload-Digest: {write(PAYLOAD)}"]  # fmt: skip
    damaged = BLOCK.replace(b"Archiv", b"Archiw")
    whole, bad, bad_payload = read_records(
        [response(*lines), response(*lines, block=damaged), response(lines[0], lines[2], block=damaged)], reader
    )
    assert whole.digest_problem is None
    assert bad.digest_problem is not None and bad.digest_problem.startswith("WARC-Block-Digest ")
    assert (bad_payload.digest_problem or "").startswith("WARC-Payload-Digest ")


@pytest.mark.parametrize("gzip_members", [False, True], ids=["warc", "warc.gz"])
def test_a_block_is_digested_whole_even_past_the_body_limit(tmp_path, gzip_members):
    builder = WarcBuilder(gzip=gzip_members)
    builder.page("https://example.com/big", b"x" * 50_000)  # warcio writes both digests
    good = builder.getvalue()
    (entry,) = read(good, limit=1000, tmp_path=tmp_path)
    assert entry.block_cut and entry.digest_problem is None
    builder = WarcBuilder(gzip=gzip_members)
    builder.page("https://example.com/big", b"x" * 50_000)
    data = builder.getvalue()
    if gzip_members:
        data = gzip.compress(gzip.decompress(data).replace(b"xxxxx\r\n\r\n", b"xxxxy\r\n\r\n"))
    else:
        data = data.replace(b"xxxxx\r\n\r\n", b"xxxxy\r\n\r\n")
    (entry,) = read(data, limit=1000, tmp_path=tmp_path)
    assert entry.block_cut and (entry.digest_problem or "").startswith("WARC-Block-Digest ")


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("size", [50_000, 3_000_000], ids=["past the limit", "past the fast path's reads"])
def test_a_block_damaged_past_what_is_kept_is_found_by_both_readers(reader, size):
    # Random bytes do not compress: the 3 MB member spans several of the fast path's 1 MiB reads.
    body = hashlib.shake_256(b"seed").digest(size)
    block = http_block(200, [("Content-Type", "application/octet-stream")], body)
    lines = [f"WARC-Block-Digest: sha1:{b32(block)}"]
    damaged = block[:-1] + bytes([block[-1] ^ 1])
    whole, bad = read_records([response(*lines, block=block), response(*lines, block=damaged)], reader, limit=1000)
    assert whole.block_cut and whole.digest_problem is None and whole.block == block[:1000]
    assert bad.block_cut and (bad.digest_problem or "").startswith(f"WARC-Block-Digest sha1:{b32(block)} does not")


@pytest.mark.parametrize("reader", READERS)
def test_a_payload_digested_without_its_chunk_framing_is_accepted(reader):
    block = http_block(200, [("Content-Type", "text/html"), ("Transfer-Encoding", "chunked")], chunked(BODY, 5))
    stored = block[block.index(b"\r\n\r\n") + 4 :]
    # As stored (Heritrix, wget, warcio), or the de-chunked body (some writers); then neither.
    found = read_records(
        [response(f"WARC-Payload-Digest: sha1:{b32(payload)}", block=block) for payload in (stored, BODY, BODY + b"!")],
        reader,
    )
    assert [entry.digest_problem is None for entry in found] == [True, True, False]


@pytest.mark.parametrize("reader", READERS)
def test_what_cannot_be_checked_against_the_record_is_not(reader):
    wrong = f"sha1:{b32(b'another payload')}"
    truncated = response("WARC-Truncated: length", f"WARC-Payload-Digest: {wrong}", f"WARC-Block-Digest: sha1:{b32(BLOCK)}")
    builder = WarcBuilder()
    builder.revisit("https://example.com/")  # its payload digest names the earlier capture's payload
    unknown = response("WARC-Block-Digest: crc32:1234abcd", "WARC-Payload-Digest: sha1:not-a-digest")
    found = read_records([truncated, builder.getvalue(), unknown], reader)
    assert [(entry.kind, entry.digest_problem) for entry in found] == [("response", None), ("revisit", None),
                                                                       ("response", None)]  # fmt: skip


@pytest.mark.parametrize("reader", ["warcio", "warcio, gzip per record", "fast"])
def test_every_record_warcio_writes_matches_its_digests(tmp_path, reader):
    builder = WarcBuilder(gzip=reader != "warcio")
    builder.warcinfo(isPartOf="digests")
    builder.request("https://example.com/")
    builder.response("https://example.com/c", http_block(200, [("Transfer-Encoding", "chunked")], chunked(BODY)))
    builder.metadata("https://example.com/")
    builder.dns("example.com")
    builder.resource("urn:x-wget:log")
    data = builder.getvalue()
    if reader == "fast":
        found = read_records([gzip.decompress(data[start:end]) for start, end in members(builder)], "fast")
    else:
        found = read(data, tmp_path=tmp_path)
    assert len(found) == 6 and all("WARC-Block-Digest" in e.fields for e in found)
    assert [entry.digest_problem for entry in found] == [None] * 6


def members(builder: WarcBuilder) -> list[tuple[int, int]]:
    offsets = [offset for _, offset in builder.records]
    return list(zip(offsets, [*offsets[1:], len(builder.getvalue())], strict=True))


@pytest.mark.parametrize(
    "value, algorithm, size",
    [
        ("sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", "sha1", 20),
        ("sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709", "sha1", 20),
        ("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256", 32),
        ("md5:d41d8cd98f00b204e9800998ecf8427e", "md5", 16),
        (" SHA-256:47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU ", "sha256", 32),
    ],
)
def test_digest_values_are_parsed(value, algorithm, size):
    digest = parse("WARC-Block-Digest", value)
    assert digest is not None and (digest.algorithm, len(digest.expected)) == (algorithm, size)


@pytest.mark.parametrize("value", [None, "", "crc32:1234abcd", "sha1:", "sha1:tooshort", "sha256:" + "g" * 64, "xyz"])
def test_digests_that_cannot_be_checked(value):
    assert parse("WARC-Block-Digest", value) is None


@pytest.mark.parametrize("reader", READERS)
def test_a_payload_digest_that_disagrees_with_an_intact_block_is_the_writers_convention_not_damage(reader):
    # The payload is part of the block: the block digest matching, nothing is damaged.
    intact = response(f"WARC-Block-Digest: sha1:{b32(BLOCK)}", f"WARC-Payload-Digest: sha1:{b32(BODY + b'?')}")
    unchecked_block = response("WARC-Block-Digest: crc32:1234abcd", f"WARC-Payload-Digest: sha1:{b32(BODY + b'?')}")
    first, second = read_records([intact, unchecked_block], reader)
    assert first.digest_problem is None
    assert (second.digest_problem or "").startswith("WARC-Payload-Digest ")
