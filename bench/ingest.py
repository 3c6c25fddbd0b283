"""Benchmark: `crawl-decoder ingest` against reading the same WARC file, same run.

    .venv/bin/python bench/ingest.py [--records 5000] [--kb 30] [--rounds 3]

Two generated WARC files of the same pages (``--records`` responses of about ``--kb`` KB of HTML
word salad in several languages, each with its request record, as crawlers write them): gzip per
record, and uncompressed.  For each file, in alternating rounds (median reported):

- read: the file's bytes in 1 MiB reads (from the page cache after the first round: the ceiling);
- gunzip (the .gz file): every member inflated, nothing parsed;
- warcio: every record read with warcio as the ingest reads it (no HTTP parsing), blocks read whole;
- fastwarc: the same with FastWARC, when it is installed (``pip install fastwarc``): the alternative
  library, measured on the same file for the choice of reader;
- reader: the ingest's own reading (``consumer.ingest.warc_fast.entries``: the zlib fast path for
  gzip-per-record WARCs, warcio for the rest), blocks read, digests checked (the generated records
  carry warcio's WARC-Block-Digest: each block hashed whole), nothing converted or produced;
- reader, no digests: the same with no digest checked (``checked_digests`` answering "none" for
  this row only): what checking them costs;
- inflate (ISA-L): every member inflated as the reader inflates it, nothing parsed: the floor of
  the reader (gunzip, Python's gzip module on zlib, stays the baseline);
- ingest: ``Ingester.run`` to a fresh landing topic with the default batches (1000 records, one
  transaction each, with its checkpoint), start-up included, to the last commit, the producer
  compressing with the default codec (zstd, level 1);
- ingest, lz4 / ingest, no compression: the same with ``compression.type`` lz4 or none (what an
  operator can set in ``kafka_config``): what the landing topic's compression costs.

"x gunzip" is each row's speed over gunzip's in the same run (issue 39's target: ingest >= 0.6x).
"CPU s" is the process's CPU time (all its threads: librdkafka's compression included, the broker's
not): the per-core figure on a machine whose cores the broker and other work share; "other
threads" is the part of it not spent in the calling thread (librdkafka's: compression, the wire).

MB/s are of the file as stored (compressed for .warc.gz), and of the response payload (uncompressed
HTTP blocks).  Uses KAFKA_BOOTSTRAP_SERVERS, or starts a LocalBroker.  No assertions: numbers only.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import io
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # PYTHONPATH, when given, is searched first: another version's code to measure
    sys.path.append(str(REPO))

from bench_broker import broker_for_bench  # noqa: E402
from warcio.archiveiterator import ArchiveIterator  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402

import consumer  # noqa: E402
from consumer.ingest import Ingester, IngestOptions  # noqa: E402
from consumer.kafka import KafkaConnection, ensure_topics, make_admin  # noqa: E402
from consumer.observability.logging import configure_logging  # noqa: E402
from consumer.serialization.avro import AvroSerializer  # noqa: E402
from consumer.serialization.schemas import SchemaStore  # noqa: E402

MiB = 1024 * 1024
WORDS = (
    "the of and to in is that for it with as was on be by this are from at or have an they which one had "
    "le de la et les des en un une du est que pour qui dans par sur pas au avec ce sont été être très "
    "der die und den von zu das mit sich des auf für ist im dem nicht ein eine als auch Straße größer "
    "日本 東京 天気 予報 今日 晴れ 会社 情報 検索 時間 "
    "世界 生活 経済 政治 文化 技術 研究 学校"
).split()


def page(rng: random.Random, n: int, kb: int) -> bytes:
    """About *kb* KB of UTF-8 HTML: paragraphs of words drawn from several languages."""
    head = f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>page {n}</title></head><body>\n'
    parts, size = [head], len(head)
    while size < kb * 1024:
        paragraph = "<p>" + " ".join(rng.choice(WORDS) for _ in range(60)) + "</p>\n"
        parts.append(paragraph)
        size += len(paragraph.encode())
    return ("".join(parts) + "</body></html>").encode()


def write_warc(path: Path, records: int, kb: int, *, compress: bool) -> int:
    """The WARC at *path*; returns the bytes of its response blocks (the payload)."""
    rng = random.Random(7)
    payload = 0
    with open(path, "wb") as out:
        writer = WARCWriter(out, gzip=compress)
        writer.write_record(
            writer.create_warcinfo_record(path.name, {"isPartOf": "bench", "software": "bench/ingest.py"})
        )
        for n in range(records):
            url = f"https://www.example.com/{n}"
            body = page(rng, n, kb)
            block = (
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n" % len(body)
                + body
            )
            request = f"GET /{n} HTTP/1.1\r\nHost: www.example.com\r\n\r\n".encode()
            for kind, data in (("request", request), ("response", block)):
                content_type = f"application/http; msgtype={kind}"
                record = writer.create_warc_record(
                    url, kind, payload=io.BytesIO(data), length=len(data), warc_content_type=content_type
                )
                writer.write_record(record)
            payload += len(block)
    return payload


def read_raw(path: Path) -> None:
    with open(path, "rb") as f:
        while f.read(MiB):
            pass


def gunzip(path: Path) -> None:
    with gzip.open(path, "rb") as f:
        while f.read(MiB):
            pass


def parse_warcio(path: Path) -> None:
    with open(path, "rb") as f:
        iterator = ArchiveIterator(f, no_record_parse=True)
        for record in iterator:
            if record.rec_type == "response":
                record.rec_headers.get_header("WARC-Target-URI")
                record.raw_stream.read()
            iterator.read_to_end()


def parse_fastwarc(path: Path) -> None:
    from fastwarc.warc import ArchiveIterator as FastIterator
    from fastwarc.warc import WarcRecordType

    with open(path, "rb") as f:
        for record in FastIterator(f, parse_http=False):
            if record.record_type == WarcRecordType.response:
                record.headers.get("WARC-Target-URI")
                record.reader.read()


def read_entries_fast(path: Path) -> None:
    from consumer.ingest.source import open_source
    from consumer.ingest.warc_fast import entries

    source = open_source(str(path))
    try:
        for _ in entries(source, 0, 17 * MiB):
            pass
    finally:
        source.close()


def read_entries_fast_no_digests(path: Path) -> None:
    from unittest import mock

    from consumer.ingest import warc, warc_fast

    def nothing(kind: str, fields: dict[str, str]) -> tuple[None, None]:
        return None, None

    with mock.patch.object(warc_fast, "checked_digests", nothing), mock.patch.object(warc, "checked_digests", nothing):
        read_entries_fast(path)


def inflate_isal(path: Path) -> None:
    from isal import isal_zlib

    with open(path, "rb") as f:
        data = f.read()
    view, at = memoryview(data), 0
    while at < len(data):
        inflater = isal_zlib.decompressobj(16 + isal_zlib.MAX_WBITS)
        while not inflater.eof:
            chunk = view[at : at + 32 * 1024]
            inflater.decompress(chunk)
            at += len(chunk) - len(inflater.unused_data)


def fastwarc_installed() -> bool:
    try:
        import fastwarc  # noqa: F401
    except ImportError:
        return False
    return True


def ingest(connection: KafkaConnection, serializer: AvroSerializer) -> Callable[[Path], None]:
    def run(path: Path) -> None:
        topic = f"bench-ingest-{uuid.uuid4().hex}"
        ensure_topics(make_admin(connection), [topic], partitions=3)
        options = IngestOptions(topic, transactional_id_prefix=f"bench-{uuid.uuid4().hex[:8]}")
        tally = Ingester(connection, options, serializer).run([str(path)])
        if tally.files_done != 1:
            raise RuntimeError(f"ingest did not finish: {tally}")

    return run


CPU: dict[str, list[float]] = {}
#: CPU time of the threads other than the caller's (librdkafka's), by row.
OTHER_CPU: dict[str, list[float]] = {}


def timed(function: Callable[[Path], None], path: Path, name: str = "") -> float:
    started, cpu, own = time.perf_counter(), time.process_time(), time.thread_time()
    function(path)
    spent = time.process_time() - cpu
    CPU.setdefault(name, []).append(spent)
    OTHER_CPU.setdefault(name, []).append(spent - (time.thread_time() - own))
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=5000, help="response records in each file")
    parser.add_argument("--kb", type=int, default=30, help="size of each page")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (median reported)")
    args = parser.parse_args()
    configure_logging("error", json=False)  # librdkafka warns that consumers ignore compression.type

    bootstrap, stop_broker = broker_for_bench()
    try:
        with tempfile.TemporaryDirectory() as workdir:
            run(args, KafkaConnection(bootstrap), Path(workdir))
    finally:
        stop_broker()
    return 0


def run(args: argparse.Namespace, connection: KafkaConnection, workdir: Path) -> None:
    contenders: dict[str, Callable[[Path], None]] = {
        "read": read_raw, "gunzip": gunzip, "inflate (ISA-L)": inflate_isal, "warcio": parse_warcio,
        "reader": read_entries_fast, "reader, no digests": read_entries_fast_no_digests,
    }
    if fastwarc_installed():
        contenders["fastwarc"] = parse_fastwarc
    serializer = AvroSerializer(SchemaStore(), "RawResponse")
    contenders["ingest"] = ingest(connection, serializer)
    for codec, name in (("lz4", "ingest, lz4"), ("none", "ingest, no compression")):
        extra = {**connection.extra, "compression.type": codec}
        contenders[name] = ingest(dataclasses.replace(connection, extra=extra), serializer)
    print(
        f"broker {connection.bootstrap_servers}; {args.records} pages of {args.kb} KB, {args.rounds} rounds; "
        f"code {Path(consumer.__file__).parents[1]}",
        flush=True,
    )
    if "fastwarc" not in contenders:
        print("fastwarc not installed: its row is left out (pip install fastwarc)")
    for compress in (True, False):
        path = workdir / ("bench.warc.gz" if compress else "bench.warc")
        payload = write_warc(path, args.records, args.kb, compress=compress)
        size = path.stat().st_size
        times: dict[str, list[float]] = {
            name: [] for name in contenders if compress or name not in ("gunzip", "inflate (ISA-L)")
        }
        for _ in range(args.rounds):
            for name in times:
                times[name].append(timed(contenders[name], path, name))
        print()
        print(f"{path.name}: {size / 1e6:.1f} MB of file, {payload / 1e6:.1f} MB of responses")
        print(table(times, size, payload))
        CPU.clear()
        OTHER_CPU.clear()


def table(times: dict[str, list[float]], size: int, payload: int) -> str:
    read = statistics.median(times["read"])
    gunzip_s = statistics.median(times["gunzip"]) if "gunzip" in times else None
    gunzip_cpu = statistics.median(CPU["gunzip"]) if "gunzip" in CPU else None
    rows = [("", "s (median)", "CPU s", "other threads", "MB/s of file", "MB/s of responses", "x read", "x warcio",
             "x gunzip", "x gunzip (CPU)")]  # fmt: skip
    for name, runs in times.items():
        seconds, cpu, other = statistics.median(runs), statistics.median(CPU[name]), statistics.median(OTHER_CPU[name])
        rows.append((
            name, f"{seconds:.3f}", f"{cpu:.3f}", f"{other:.3f}", f"{size / seconds / 1e6:.1f}",
            f"{payload / seconds / 1e6:.1f}",
            f"{read / seconds:.4f}", f"{statistics.median(times['warcio']) / seconds:.2f}",
            f"{gunzip_s / seconds:.2f}" if gunzip_s else "-", f"{gunzip_cpu / cpu:.2f}" if gunzip_cpu else "-",
        ))  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)) for row in rows)


if __name__ == "__main__":
    sys.exit(main())
