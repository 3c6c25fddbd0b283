"""Profile: the processor's decision on the crawl mix, stage by stage, against the naive loop's.

    .venv/bin/python bench/crawl_profile.py [--records 3000] [--repeat 5] [--malloc keep|glibc]

In process, no Kafka: the crawl mix's records (``bench/pipeline.py --mix crawl``: the same
pages, the same RawResponse values ``LandingWriter`` writes) are decided by the processor's
``Decider``, built as ``consumer.app`` builds it, and each stage is timed alone over the same
records: the Avro read, the decode (and within it, by kind of page), the clean record (with its
SHA-256), the Avro write, the collector.  The naive loop's stages beside them: requests'
``Response.text`` and ``json.dumps``.  Each figure is the calling thread's CPU time (not wall
time: the machine is shared), best of --repeat passes, in microseconds a record of the mix.
What Kafka adds (fetching, compression, transactions) is measured by ``bench/pipeline.py``.
--malloc keep (the default) runs with glibc's allocator as every crawl-decoder command sets it
(consumer/cli/allocator.py), --malloc glibc with glibc's defaults.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from pipeline import CrawlPage, corpus, crawl_pages, requests_text  # noqa: E402

from consumer.cli import allocator  # noqa: E402
from consumer.decoding import decode  # noqa: E402
from consumer.ingest.raw_response import raw_response  # noqa: E402
from consumer.processor.decide import Decider  # noqa: E402
from consumer.processor.records import clean_record  # noqa: E402
from consumer.processor.route import Router  # noqa: E402
from consumer.serialization.avro import AvroDeserializer, AvroSerializer  # noqa: E402
from consumer.serialization.schemas import SchemaStore  # noqa: E402

BATCH = 500  # the engine holds a batch's decisions until it is handed to the writer


class Message:
    """What the Decider reads of a confluent-kafka Message."""

    __slots__ = ("_key", "_offset", "_value")

    def __init__(self, key: bytes, value: bytes, offset: int) -> None:
        self._key, self._value, self._offset = key, value, offset

    def key(self) -> bytes:
        return self._key

    def value(self) -> bytes:
        return self._value

    def offset(self) -> int:
        return self._offset

    def headers(self) -> None:
        return None

    def topic(self) -> str:
        return "landing"

    def partition(self) -> int:
        return 0

    def timestamp(self) -> tuple[int, int]:
        return 1, 1_700_000_000_000  # TIMESTAMP_CREATE_TIME


def cpu_us(work: Callable[[], object], records: int, repeat: int) -> float:
    """The calling thread's CPU time for *work*, best of *repeat*, in microseconds a record."""
    best = float("inf")
    for _ in range(repeat):
        started = time.thread_time()
        work()
        best = min(best, time.thread_time() - started)
    return best / records * 1e6


def kind_of(page: CrawlPage) -> str:
    family, _, how = page.kind.partition("/")
    if not how:
        return "trap"
    return f"UTF-8, {how}" if family == "UTF-8" else f"legacy, {how}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--malloc", choices=allocator.CHOICES, default="keep", help="as allocator.py's variable")
    args = parser.parse_args()
    n, repeat = args.records, args.repeat
    malloc = allocator.keep_freed_memory({**os.environ, allocator.ENV: args.malloc})

    pages = corpus(n, 0, mix="crawl")
    store = SchemaStore()
    write_raw = AvroSerializer(store, "RawResponse")
    messages = [
        Message(url.encode(), write_raw(raw_response(url, 200, [("Content-Type", p.content_type)], p.body, None)), i)
        for i, p in enumerate(pages)
        for url in [f"{p.url}t{i}"]
    ]
    read_raw = AvroDeserializer(store, "RawResponse")
    write_clean = AvroSerializer(store, "DecodedResponse")
    decider = Decider(
        deserialize=read_raw, serialize_clean=write_clean, serialize_quarantine=AvroSerializer(store, "QuarantinedResponse"),
        router=Router(max_body_bytes=16 << 20), overrides=lambda: None, clean_topic="clean",
        quarantine_topic="quarantine", message_limit=20 << 20,
    )  # fmt: skip
    raws = [read_raw(m.value()) for m in messages]
    types = [r["headers"][0]["value"] for r in raws]
    decodes = [decode(r["body"], t, r["url"], None, lazy_text=True) for r, t in zip(raws, types, strict=True)]
    utf8s = [d.utf8 for d in decodes]  # what the router hands the writer (route.Routed.text_utf8)
    records = [clean_record(r, d, decoded_at_ms=0, text_utf8=u) for r, d, u in zip(raws, decodes, utf8s, strict=True)]

    def batched() -> None:
        held: list = []  # the engine keeps a batch's decisions alive: the collector walks them
        for message in messages:
            held.append(decider(message))
            if len(held) == BATCH:
                held.clear()

    gc.collect()
    gc.freeze()  # as consumer.app does after start-up
    stages = {
        "processor: whole decision, batches of 500": batched,
        "  Avro read (RawResponse)": lambda: [read_raw(m.value()) for m in messages],
        "  decode (lazy text)": lambda: [
            decode(r["body"], t, r["url"], None, lazy_text=True) for r, t in zip(raws, types, strict=True)
        ],
        "  SHA-256 of the body": lambda: [hashlib.sha256(r["body"]).hexdigest() for r in raws],
        "  clean record, SHA-256 included": lambda: [
            clean_record(r, d, decoded_at_ms=0, text_utf8=u) for r, d, u in zip(raws, decodes, utf8s, strict=True)
        ],
        "  Avro write (DecodedResponse)": lambda: [
            write_clean(r, utf8_text=u) for r, u in zip(records, utf8s, strict=True)
        ],
        "naive loop: Avro read + text + JSON": lambda: [
            json.dumps({"url": r["url"], "status": r["status"], "text": requests_text(r["body"], t)}).encode()
            for r, t in zip((read_raw(m.value()) for m in messages), types, strict=True)
        ],
        "  requests' text": lambda: [requests_text(r["body"], t) for r, t in zip(raws, types, strict=True)],
        "  json.dumps + encode": lambda: [
            json.dumps({"url": r["url"], "status": r["status"], "text": text}).encode()
            for r, text in zip(
                raws, [requests_text(r["body"], t) for r, t in zip(raws, types, strict=True)], strict=True
            )
        ],
    }
    print(f"{n} records of the crawl mix, thread CPU time, best of {repeat}; malloc: {malloc}")
    for name, work in stages.items():
        print(f"{name:45} {cpu_us(work, n, repeat):8.1f} us/record")
    gc.disable()
    print(f"{'processor: the same, collector off':45} {cpu_us(batched, n, repeat):8.1f} us/record")
    gc.enable()

    # The decode by kind of page: the median of each distinct page's time, weighted by its share.
    distinct = crawl_pages()
    times: dict[str, list[float]] = defaultdict(list)
    for page in distinct:
        best = float("inf")
        for _ in range(repeat):
            started = time.thread_time_ns()
            decode(page.body, page.content_type, f"{page.url}t0", None, lazy_text=True)
            best = min(best, time.thread_time_ns() - started)
        times[kind_of(page)].append(best / 1e3)
    print("\ndecode by kind of page: share of the mix, median us a page, us a record of the mix")
    for kind, spent in sorted(times.items()):
        share = len(spent) / len(distinct)
        print(f"  {kind:16} {share:6.1%} {statistics.median(spent):8.1f} {statistics.mean(spent) * share:8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
