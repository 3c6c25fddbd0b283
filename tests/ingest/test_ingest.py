"""WARC and ARC files to the real broker's landing topic: what lands, what is counted, what a rerun does."""

from __future__ import annotations

import gzip
import random

import pytest

from consumer.ingest import Ingester, IngestOptions
from consumer.ingest.checkpoint import CheckpointStore
from consumer.ingest.source import open_source
from consumer.ingest.warc import MALFORMED
from consumer.serialization.avro import AvroSerializer

from ingest_helpers import read_all
from warc_samples import WarcBuilder, arc_file, broken_warc_header, chunked, hand_written_response, http_block

DATE = "2024-05-06T07:08:09Z"
FETCHED_MS = 1714979289000


def mixed_archive(gzip_members: bool) -> WarcBuilder:
    """Every kind of record a crawl leaves, two malformed ones and the HTTP shapes that need care."""
    builder = WarcBuilder(gzip=gzip_members)
    builder.warcinfo(isPartOf="heritrix-job-7", software="tests")
    builder.request("https://example.com/")
    builder.page("https://example.com/", "<p>Grüße</p>".encode(), date=DATE, ip="192.0.2.1")
    builder.response(
        "https://example.com/chunked-gzip",
        http_block(200, [("Content-Type", "text/html"), ("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")],
                   chunked(gzip.compress(b"<p>zipped</p>", mtime=0), 4)),
        date=DATE,
    )  # fmt: skip
    builder.response("https://example.com/cut", http_block(200, [("Content-Type", "text/html")], b"<p>half"),
                     date=DATE, WARC_Truncated="length")  # fmt: skip
    builder.metadata("https://example.com/")
    builder.revisit("https://example.com/")
    builder.dns("example.com")
    builder.raw(MALFORMED, broken_warc_header(gzip_members))
    builder.raw(
        MALFORMED,
        hand_written_response("https://example.com/not-http", b"<html>no status line</html>", gzip=gzip_members),
    )
    builder.resource("urn:x-wget:log")
    builder.page("https://example.com/last", b"<p>last</p>", date=DATE)
    return builder


@pytest.mark.parametrize("gzip_members", [False, True], ids=["warc", "warc.gz"])
def test_each_http_response_lands_once_as_the_processor_reads_it(tmp_path, ingest, landing, gzip_members):
    builder = mixed_archive(gzip_members)
    path = tmp_path / ("crawl.warc.gz" if gzip_members else "crawl.warc")
    path.write_bytes(builder.getvalue())

    ingester = ingest([str(path)])

    records = {record["url"]: record for record in landing()}
    assert sorted(records) == sorted(
        [
            "https://example.com/",
            "https://example.com/chunked-gzip",
            "https://example.com/cut",
            "https://example.com/last",
        ]
    )
    home = records["https://example.com/"]
    assert home["body"] == "<p>Grüße</p>".encode()
    assert (home["status"], home["ip"], home["crawl_id"]) == (200, "192.0.2.1", "heritrix-job-7")
    assert home["fetched_at"].timestamp() * 1000 == FETCHED_MS
    assert home["headers"] == [
        {"name": "Content-Type", "value": "text/html; charset=utf-8"},
        {"name": "Content-Length", "value": "14"},
    ]
    assert home["key"] == b"https://example.com/"
    assert home["kafka_headers"]["warc-offset"] == str(builder.records[2][1]).encode()
    assert home["kafka_headers"]["warc-file"] == str(path).encode()
    assert home["kafka_headers"]["warc-record-id"].startswith(b"<urn:uuid:")
    assert records["https://example.com/chunked-gzip"]["body"] == gzip.compress(b"<p>zipped</p>", mtime=0), (
        "chunks undone, gzip kept"
    )
    assert records["https://example.com/cut"]["truncated"] and not home["truncated"]

    tally = ingester.tally
    assert tally.written == 4 and tally.files_done == 1
    assert tally.skipped() == {"request": 1, "metadata": 1, "revisit": 1, "dns": 1, "warcinfo": 1, "resource": 1}
    assert [(m.offset, m.name) for m in tally.malformed] == [
        (builder.records[8][1], str(path)),
        (builder.records[9][1], str(path)),
    ], "both malformed records reported at their offsets"
    assert tally.kinds[MALFORMED] == 2
    assert tally.records == len(builder.records)


def test_crawl_id_from_the_flag_wins_over_the_warcinfo(tmp_path, ingest, landing):
    path = tmp_path / "crawl.warc.gz"
    path.write_bytes(mixed_archive(True).getvalue())
    ingest([str(path)], crawl_id="backfill-2024")
    assert {record["crawl_id"] for record in landing()} == {"backfill-2024"}


def test_a_rerun_writes_nothing_twice_even_under_another_name(tmp_path, ingest, landing):
    data = mixed_archive(True).getvalue()
    (tmp_path / "a.warc.gz").write_bytes(data)
    (tmp_path / "copy-of-a.warc.gz").write_bytes(data)
    ingest([str(tmp_path / "a.warc.gz")])
    before = landing()

    again = ingest([str(tmp_path / "a.warc.gz"), str(tmp_path / "copy-of-a.warc.gz")])

    assert again.tally.files_already_done == 2 and again.tally.written == 0
    assert len(landing()) == len(before) == 4


def test_stop_on_malformed_commits_what_came_before_and_a_rerun_without_it_goes_on(tmp_path, ingest, landing):
    builder = WarcBuilder(gzip=True)
    builder.page("https://example.com/1", b"<p>1</p>")
    builder.page("https://example.com/2", b"<p>2</p>")
    bad = builder.raw(MALFORMED, broken_warc_header(True))
    builder.page("https://example.com/3", b"<p>3</p>")
    path = tmp_path / "crawl.warc.gz"
    path.write_bytes(builder.getvalue())

    stopped = ingest([str(path)], stop_on_malformed=True)
    assert stopped.stopped_at_malformed and [m.offset for m in stopped.tally.malformed] == [bad]
    assert sorted(r["url"] for r in landing()) == ["https://example.com/1", "https://example.com/2"]

    stopped_again = ingest([str(path)], stop_on_malformed=True)
    assert stopped_again.stopped_at_malformed and stopped_again.tally.written == 0, "resumed at the malformed record"

    finished = ingest([str(path)])
    assert finished.tally.files_resumed == 1 and finished.tally.written == 1
    assert sorted(r["url"] for r in landing()) == [f"https://example.com/{n}" for n in (1, 2, 3)]


@pytest.mark.parametrize("gzip_members", [False, True], ids=["arc", "arc.gz"])
def test_arc_files(tmp_path, ingest, landing, gzip_members):
    block = http_block(200, [("Content-Type", "text/html; charset=iso-8859-1")], "<p>Café</p>".encode("latin-1"))
    path = tmp_path / "old.arc"
    path.write_bytes(
        arc_file([("http://example.com/old", "93.184.216.34", "20040102030405", block)], gzip=gzip_members)
    )

    ingester = ingest([str(path)], crawl_id="ia-2004")

    [record] = landing()
    assert (record["url"], record["status"], record["ip"], record["crawl_id"]) == (
        "http://example.com/old",
        200,
        "93.184.216.34",
        "ia-2004",
    )
    assert record["body"] == "<p>Café</p>".encode("latin-1")
    assert record["fetched_at"].isoformat() == "2004-01-02T03:04:05+00:00"
    assert "warc-record-id" not in record["kafka_headers"], "ARC records have no id to carry"
    assert ingester.tally.skipped() == {"warcinfo": 1}


def test_bodies_over_the_limit_are_cut_and_marked(tmp_path, ingest, landing):
    builder = WarcBuilder(gzip=True)
    builder.page("https://example.com/big", b"<p>" + b"x" * 5000)
    path = tmp_path / "big.warc.gz"
    path.write_bytes(builder.getvalue())
    ingester = ingest([str(path)], body_limit=1000)
    [record] = landing()
    assert (len(record["body"]), record["truncated"], ingester.tally.cut) == (1000, True, 1)


def test_an_unreadable_input_fails_alone_and_the_others_are_ingested(tmp_path, ingest, landing):
    good = tmp_path / "good.warc.gz"
    good.write_bytes(mixed_archive(True).getvalue())
    ingester = ingest([str(tmp_path / "missing.warc"), str(good)])
    assert (ingester.tally.files_failed, ingester.tally.files_done) == (1, 1)
    assert len(landing()) == 4


def test_a_batch_the_broker_refuses_is_aborted_whole_and_retried_from_the_last_checkpoint(
    tmp_path, topic_factory, kafka_connection, store, checkpoint_topic
):
    # The topic takes records up to 2000 bytes: the batch holding the big page cannot commit.
    landing_topic = topic_factory(partitions=1, config={"max.message.bytes": "2000"})
    builder = WarcBuilder(gzip=True)
    for n in (1, 2, 3):
        builder.page(f"https://example.com/{n}", b"<p>small</p>")
    builder.page("https://example.com/big", random.Random(1).randbytes(5000), "image/png")  # zstd cannot shrink it
    path = tmp_path / "crawl.warc.gz"
    path.write_bytes(builder.getvalue())
    options = IngestOptions(landing_topic, checkpoint_topic, batch_records=2, transactional_id_prefix="test-abort")

    ingester = Ingester(kafka_connection, options, AvroSerializer(store, "RawResponse"))
    tally = ingester.run([str(path)])

    assert (tally.files_failed, tally.files_done, tally.written) == (1, 0, 2)
    assert sorted(m.key() for m in read_all(kafka_connection, landing_topic)) == [
        b"https://example.com/1", b"https://example.com/2"
    ], "the first batch committed; nothing of the refused one is visible, however often it was tried"
    checkpoints = CheckpointStore(kafka_connection, checkpoint_topic)
    checkpoints.refresh()
    assert checkpoints.get(open_source(str(path)).identity).offset == builder.records[2][1]
    checkpoints.close()
