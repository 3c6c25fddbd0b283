"""``LandingWriter``, the API crawlers write with: records the processor reads, reports, flush, failures said."""

from __future__ import annotations

import datetime as dt
import gzip

import pytest

from consumer.ingest import Delivery, DeliveryError, InvalidResponseError, LandingWriter
from consumer.kafka import KafkaConnection

from ingest_helpers import read_raw_values

FETCHED = dt.datetime(2025, 6, 1, 12, 0, tzinfo=dt.UTC)
PAGE = "<html><head><meta charset=shift_jis></head><body>日本語のページ</body></html>".encode("shift_jis")


def test_written_records_are_what_the_processor_reads_with_a_report_each(kafka_connection, topics, landing):
    reports: list[Delivery] = []
    with LandingWriter(topics["landing"], kafka_connection, crawl_id="crawl-1", on_delivery=reports.append) as writer:
        writer.write("https://example.jp/", 200, [("Content-Type", "text/html"), ("Server", "nginx")], PAGE, FETCHED,
                     ip="192.0.2.1")  # fmt: skip
        writer.write("https://example.jp/gone", 404, {"Content-Type": "text/plain"}, b"gone", FETCHED, crawl_id="other")

    by_url = {record["url"]: record for record in landing()}
    page = by_url["https://example.jp/"]
    assert (page["status"], page["body"], page["ip"], page["crawl_id"]) == (200, PAGE, "192.0.2.1", "crawl-1")
    assert page["headers"] == [{"name": "Content-Type", "value": "text/html"}, {"name": "Server", "value": "nginx"}]
    assert page["fetched_at"] == FETCHED and page["key"] == b"https://example.jp/"
    assert by_url["https://example.jp/gone"]["crawl_id"] == "other"
    assert sorted(report.url for report in reports) == sorted(by_url)
    assert all(report.ok and report.offset is not None and report.topic == topics["landing"] for report in reports)
    assert (writer.delivered, writer.failed, writer.pending) == (2, 0, 0)


def test_the_processor_decodes_what_the_writer_wrote(kafka_connection, topics, processor, decoded):
    body = gzip.compress(PAGE)
    with LandingWriter(topics["landing"], kafka_connection) as writer:
        writer.write("https://example.jp/gz", 200, [("Content-Type", "text/html"), ("Content-Encoding", "gzip")], body)
    processor()
    where, record = decoded({"https://example.jp/gz"})["https://example.jp/gz"]
    assert where == "clean" and "日本語のページ" in record["text"]
    assert record["encoding"] == "Shift_JIS"


def test_records_that_cannot_be_delivered_are_said_at_close(topics):
    unreachable = KafkaConnection("127.0.0.1:9")  # discard port: nothing answers
    reports: list[Delivery] = []
    writer = LandingWriter(
        topics["landing"], unreachable, on_delivery=reports.append, flush_timeout_s=30,
        producer_config={"message.timeout.ms": 1500, "log_level": 0},
    )  # fmt: skip
    writer.write("https://example.com/", 200, [], b"x")
    with pytest.raises(DeliveryError) as raised:
        writer.close()
    assert (raised.value.failed, raised.value.undelivered) == (1, 0)
    assert [(report.url, report.ok) for report in reports] == [("https://example.com/", False)]
    assert "timed out" in reports[0].error.lower()


def test_an_exception_in_the_with_block_is_not_hidden_and_queued_records_still_go(kafka_connection, topics, landing):
    with pytest.raises(RuntimeError, match="crawler bug"), LandingWriter(topics["landing"], kafka_connection) as writer:
        writer.write("https://example.com/before", 200, [], b"ok")
        raise RuntimeError("crawler bug")
    assert [record["url"] for record in landing()] == ["https://example.com/before"]


def test_bad_values_are_refused_before_anything_is_queued(topics):
    writer = LandingWriter(topics["landing"], KafkaConnection("127.0.0.1:9"))
    with pytest.raises(InvalidResponseError, match="naive"):
        writer.write("https://example.com/", 200, [], b"", dt.datetime(2025, 1, 1))
    assert writer.pending == 0
    writer.close()  # nothing was queued: nothing to fail


def test_framing_follows_the_registry_setting(kafka_connection, topics):
    with LandingWriter(topics["landing"], kafka_connection) as plain:
        plain.write("https://example.com/plain", 200, [], b"")
    with LandingWriter(topics["landing"], kafka_connection, schema_registry_url="mock://landing-writer") as registered:
        registered.write("https://example.com/registry", 200, [], b"")
    values = read_raw_values(kafka_connection, topics["landing"])
    assert values[b"https://example.com/plain"][:2] == b"\xc3\x01", "Avro single-object encoding"
    assert values[b"https://example.com/registry"][:1] == b"\x00", "Confluent wire format"
