"""Peak RSS and records/s of the stream processor per page size: batches bounded by bytes against count only.

    .venv/bin/python bench/batch_memory.py [--rounds 1] [--only 30KB 3MB ...] [--budget 33554432]

Issue 38: a batch bounded by its record count alone (500) held 500 pages of 3 MB,
and peak RSS reached 1,016-1,021 MB, 97% of the chart's 1Gi limit.  Each
workload's landing topic is filled first, then ``crawl-decoder run`` (a child
process, exactly-once, against a real broker: ``KAFKA_BOOTSTRAP_SERVERS``, or a
``LocalBroker`` started here) processes it; two contenders per workload, in
alternating rounds on fresh topics:

- ``count only``: the baseline, as before issue 38: ``batch_max_bytes`` out of
  the way (2 GiB) and the consumer's fetch sizes as they were (1 MiB a
  partition, 8 MiB a fetch, a 16 MiB prefetch queue, through ``kafka_config``);
- ``bytes``: the defaults (``batch_max_bytes`` 16 MiB unless ``--budget``, the
  fetch sizes derived from it).

Workloads (``--only`` picks some): 30 KB pages (the throughput check: records/s
of ``bytes`` over ``count only``, the median of the per-round ratios), 250 pages
of 1.5 MB, 150 pages of 3 MB, and 150 pages of 3 MB with four 16 MiB bodies
among them.  Peak RSS is the child's VmHWM read before it is stopped;
records/s from its first commit to its last (bench/pipeline.py's
``throughput``).  No assertions: numbers only; bench/RESULTS.md keeps them and
the chart's memory request and limit come from them (helm/crawl-decoder/values.yaml).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_broker import broker_for_bench  # noqa: E402
from pipeline import Contender, MiB, corpus, page, throughput  # noqa: E402

from consumer.kafka import KafkaConnection  # noqa: E402

#: The fetch sizes of the processor before issue 38 (consumer/kafka/clients.py), the baseline's.
BEFORE_FETCH = {"max.partition.fetch.bytes": str(MiB), "fetch.max.bytes": str(8 * MiB), "queued.max.messages.kbytes": "16384"}
#: No byte bound in practice: the largest batch_max_bytes the settings take.
UNBOUNDED = 2048 * MiB


def workloads() -> dict[str, list]:
    """Name -> (url, body, content type) items; large pages from a small pool of distinct ones (generating
    each 3 MB page anew would take longer than processing it)."""
    huge = page(random.Random(3), 16 * 1024 - 64, "en", "utf-8").encode("utf-8")[: 16 * MiB - 4096]
    mix = corpus(154, 3 * 1024, seed=5, distinct=8)
    for i in range(4):
        mix[i * 38 + 19] = ("https://huge.example/", huge, "text/html")
    return {
        "30KB": corpus(5000, 30, seed=1),
        "1.5MB": corpus(250, 1536, seed=2, distinct=8),
        "3MB": corpus(150, 3 * 1024, seed=4, distinct=8),
        "3MB+16MiB": mix,
    }


def contender(name: str, connection: KafkaConnection, budget: int) -> Contender:
    if name == "count only":
        return Contender("processor", "exactly-once", connection, 500, 16 * MiB, kafka_config=BEFORE_FETCH,
                         settings={"batch_max_bytes": UNBOUNDED})  # fmt: skip
    return Contender("processor", "exactly-once", connection, 500, 16 * MiB, settings={"batch_max_bytes": budget})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1, help="alternating rounds per workload")
    parser.add_argument("--only", nargs="+", help="workloads to run (30KB, 1.5MB, 3MB, 3MB+16MiB)")
    parser.add_argument("--budget", type=int, default=16 * MiB, help="batch_max_bytes of the 'bytes' contender")
    parser.add_argument("--timeout", type=float, default=600.0, help="per run")
    args = parser.parse_args()

    bootstrap, stop_broker = broker_for_bench()
    connection = KafkaConnection(bootstrap)
    rows = []
    try:
        for workload, items in workloads().items():
            if args.only and workload not in args.only:
                continue
            size = sum(len(body) for _, body, _ in items) / len(items) / MiB
            print(f"{workload}: {len(items)} records, {size:.2f} MiB a record on average", flush=True)
            runs: dict[str, list[tuple[float, float]]] = {"count only": [], "bytes": []}
            for _ in range(args.rounds):
                for name in runs:
                    racer = contender(name, connection, args.budget)
                    records_s, _mb_s, peak, _busy = throughput(racer, items, args.timeout)
                    racer.delete_topics()
                    runs[name].append((records_s, peak))
                    print(f"  {name:10} {records_s:8.1f} records/s  peak RSS {peak:6.0f} MB", flush=True)
            ratios = [b[0] / a[0] for a, b in zip(runs["count only"], runs["bytes"], strict=True)]
            rows.append((workload, runs, statistics.median(ratios)))
    finally:
        stop_broker()
    print()
    print(f"{'workload':11} {'peak RSS MB, count only':>24} {'bytes':>7} {'records/s, count only':>22} {'bytes':>8} {'ratio':>6}")
    for workload, runs, ratio in rows:
        before, after = runs["count only"], runs["bytes"]
        print(
            f"{workload:11} {max(p for _, p in before):24.0f} {max(p for _, p in after):7.0f}"
            f" {statistics.median(r for r, _ in before):22.1f} {statistics.median(r for r, _ in after):8.1f} {ratio:5.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
