"""Archives' quirks through the real broker (issue 39): a digest mismatch quarantined by the processor with
its own reason, ClueWeb09's dates, an unreadable date, a WARC gzipped as one stream resumed at its
uncompressed offsets, and warcio's plain-text warning turned into a JSON log line of the real command."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json

import pytest

from consumer.ingest.source import open_source
from consumer.ingest.warc import MALFORMED
from consumer.ingest.warc_fast import fast_entries

from warc_samples import HTTP, WarcBuilder, broken_warc_header, http_block, warc_record

PAGE = "<!DOCTYPE html><html><head><meta charset=utf-8><title>t</title></head><body>Grüße aus dem Archiv</body></html>"


def sha1(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def fast_path_end(path) -> int:
    """Where the fast path (``warc_fast``) stops reading *path* and would leave the rest to warcio."""
    source = open_source(str(path))
    try:
        reader = fast_entries(source, 0, 1 << 20)
        while True:
            next(reader)
    except StopIteration as stop:
        return stop.value
    finally:
        source.close()


def response(url: str, lines: list[str], block: bytes, **kwargs) -> bytes:
    return warc_record(["WARC-Type: response", f"WARC-Target-URI: {url}", f"Content-Type: {HTTP}", *lines],
                       block, **kwargs)  # fmt: skip


@pytest.mark.parametrize("reader", ["fast", "warcio"], ids=["warc.gz, fast path", "warc, warcio"])
def test_a_response_whose_digest_does_not_match_is_quarantined_as_digest_mismatch(
    tmp_path, ingest, landing, processor, decoded, reader
):
    block = http_block(200, [("Content-Type", "text/html; charset=utf-8")], PAGE.encode())
    payload = block[block.index(b"\r\n\r\n") + 4 :]
    damaged = block.replace("Grüße".encode(), "Grüsse".encode())  # one bit flipped on disk would do as much
    members = reader == "fast"  # gzip per record, the common case, is the fast path's; warcio reads the rest
    write = gzip.compress if members else bytes
    builder = WarcBuilder(gzip=members)
    builder.page("https://example.com/whole", PAGE.encode())
    bad = builder.raw("response", write(response(
        "https://example.com/damaged", ["WARC-Date: 2024-05-06T07:08:09Z", f"WARC-Block-Digest: {sha1(block)}",
                                        f"WARC-Payload-Digest: {sha1(payload)}"], damaged)))  # fmt: skip
    builder.raw("response", write(response(
        "https://example.com/clueweb09", ["WARC-Date: 2008-10-294T05:21:46-0700", f"WARC-Payload-Digest: {sha1(payload)}"],
        block, version="WARC/0.18")))  # fmt: skip
    builder.raw("response", write(response(
        "https://example.com/undated", ["warc-date: sometime in 2009"], block)))  # fmt: skip
    path = tmp_path / ("crawl.warc.gz" if members else "crawl.warc")
    path.write_bytes(builder.getvalue())
    if members:
        assert fast_path_end(path) == len(builder.getvalue()), "every record the fast path's, none left to warcio"

    tally = ingest([str(path)]).tally

    assert (tally.written, tally.digest_mismatches, tally.dates_unread, tally.kinds[MALFORMED]) == (4, 1, 1, 0)
    landed = {record["url"]: record for record in landing()}
    mark = landed["https://example.com/damaged"]["kafka_headers"]["warc-digest-mismatch"].decode()
    assert mark.startswith(f"WARC-Block-Digest {sha1(block)} does not match")
    assert landed["https://example.com/damaged"]["kafka_headers"]["warc-offset"] == str(bad).encode()
    assert all("warc-digest-mismatch" not in r["kafka_headers"] for url, r in landed.items() if "damaged" not in url)
    assert landed["https://example.com/clueweb09"]["fetched_at"].timestamp() == 1224505306  # 2008-10-20T12:21:46Z
    assert landed["https://example.com/undated"]["fetched_at"].timestamp() == 0

    processor()
    found = decoded(set(landed))
    where, quarantined = found["https://example.com/damaged"]
    assert (where, quarantined["reason"]) == ("quarantine", "digest-mismatch")
    assert quarantined["error"] == mark and quarantined["attempt"] is None, "not decoded as if whole"
    assert quarantined["raw"]["body"] == damaged[damaged.index(b"\r\n\r\n") + 4 :], "kept whole for inspection"
    for url in ("https://example.com/whole", "https://example.com/clueweb09", "https://example.com/undated"):
        assert found[url][0] == "clean" and "Grüße aus dem Archiv" in found[url][1]["text"], url


def test_a_warc_gzipped_as_one_stream_lands_whole_and_resumes_at_its_uncompressed_offsets(tmp_path, ingest, landing):
    builder = WarcBuilder()
    builder.warcinfo(isPartOf="one-stream")
    for n in range(5):
        builder.page(f"https://example.com/{n}", f"<p>{n}</p>".encode())
    bad = builder.raw(MALFORMED, broken_warc_header(False))
    for n in range(5, 8):
        builder.page(f"https://example.com/{n}", f"<p>{n}</p>".encode())
    path = tmp_path / "whole.warc.gz"
    path.write_bytes(gzip.compress(builder.getvalue()))

    stopped = ingest([str(path)], stop_on_malformed=True, batch_records=2)
    assert stopped.stopped_at_malformed and [m.offset for m in stopped.tally.malformed] == [bad]
    assert stopped.tally.files_one_gzip_stream == 1 and stopped.tally.written == 5
    again = ingest([str(path)], stop_on_malformed=True)
    assert again.stopped_at_malformed and again.tally.written == 0, "resumed at the malformed record's offset"
    rest = ingest([str(path)])
    assert rest.tally.written == 3 and rest.tally.files_done == 1
    assert sorted(record["url"] for record in landing()) == [f"https://example.com/{n}" for n in range(8)]
    done = ingest([str(path)]).tally
    assert (done.files_already_done, done.files_one_gzip_stream) == (1, 0), "known as done before it is inflated"


def test_every_line_the_command_writes_to_stderr_is_json_library_warnings_included(tmp_path, run_ingest, landing):
    block = http_block(200, [("Content-Type", "text/html")], b"<p>short</p>")
    builder = WarcBuilder()
    builder.page("https://example.com/a", b"<p>a</p>")
    short = builder.raw("response", response("https://example.com/short", ["WARC-Date: 2024-05-06T07:08:09Z"], block,
                                              length=len(block) - 4))  # fmt: skip
    builder.page("https://example.com/c", b"<p>c</p>")
    (tmp_path / "short.warc").write_bytes(builder.getvalue())

    done = run_ingest(str(tmp_path / "short.warc"))

    assert done.returncode == 0, done.stderr.decode()[-3000:]
    lines = done.stderr.decode().splitlines()
    events = [json.loads(line) for line in lines]  # a line that is not JSON fails here
    [warned] = [event for event in events if event["event"] == "library warning"]
    assert warned["offset"] == short and warned["library"] == "warcio"
    assert warned["message"].startswith("WARNING: Record not followed by newline")
    [finished] = [event for event in events if event["event"] == "ingest finished"]
    assert (finished["library_warnings"], finished["written"]) == (1, 3)
    assert "library warnings (see the log): 1" in done.stdout.decode()
