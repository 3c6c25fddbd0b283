"""``crawl-decoder broker``: run a local Kafka broker until SIGINT or SIGTERM.

Prints the bootstrap address as the only line on stdout, so scripts can read
it (``BOOTSTRAP=$(crawl-decoder broker | head -1)`` or from a log file).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from ..devbroker import DEFAULT_KAFKA_VERSION, start_dev_broker
from ..devbroker.provider import DevBroker


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "broker",
        help="run a single-node Kafka for development until interrupted",
        description="Start a single-node Kafka broker on 127.0.0.1 (a container when a Docker engine answers, "
        "otherwise Apache Kafka from its Maven Central jars, which needs Java 17 and Maven), print its "
        "bootstrap address, and stop it on SIGINT or SIGTERM.",
    )
    parser.add_argument(
        "--kafka-version",
        default=DEFAULT_KAFKA_VERSION,
        help=f"Apache Kafka release to run from jars (default {DEFAULT_KAFKA_VERSION})",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="keep data, cluster id and ports here across runs (default: a temporary directory, removed on exit)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    broker = None
    try:
        bootstrap, broker = start_dev_broker(kafka_version=args.kafka_version, data_dir=args.data_dir)
        print(bootstrap, flush=True)
        return _wait(broker, stop)
    finally:
        if broker is not None:
            broker.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _wait(broker: DevBroker, stop: threading.Event) -> int:
    """Block until a signal arrives (status 0) or the broker process dies on its own (status 1)."""
    is_running = getattr(broker, "is_running", lambda: True)
    while not stop.wait(1.0):
        if not is_running():
            print("crawl-decoder broker: the broker process exited unexpectedly", file=sys.stderr)
            tail = getattr(broker, "log_tail", lambda: "")()
            if tail:
                print(tail, file=sys.stderr)
            return 1
    return 0
