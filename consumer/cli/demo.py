"""``crawl-decoder demo``: the processor on the embedded default (a local broker and the samples)."""

from __future__ import annotations

import argparse

from ..demo import format_rows, run_demo


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="run the processor on bundled sample responses against a local Kafka and print where each went",
        description="Start a local single-node Kafka (or use KAFKA_BOOTSTRAP_SERVERS), produce the bundled "
        "sample responses (pages in many encodings, the seed study's traps, a poison record, a compression "
        "bomb, an oversize body, an image and a PDF, which are not text), run the processor, and print page, "
        "encoding, source and destination.",
    )
    parser.add_argument(
        "--logs",
        action="store_true",
        help="show the processor's and the Kafka clients' logs (info and above) on stderr",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rows = run_demo(show_logs=args.logs)
    print(format_rows(rows))
    print(f"\n{len(rows)} records: {sum(r.destination == 'clean' for r in rows)} clean, "
          f"{sum(r.destination == 'quarantine' for r in rows)} quarantined, "
          f"{sum(r.destination == 'skipped' for r in rows)} skipped (not text)")
    return 0
