"""Benchmark: how long a rolling restart leaves partitions waiting, for each way the chart can run the group.

    .venv/bin/python bench/rollout.py [--rate 100] [--partitions 4] [--after 60] [--scenarios ...]

Real processes (``crawl-decoder run``, exactly-once) against a real broker, replaced as Kubernetes would:

- ``deployment-static``: a Deployment with static membership (the chart's default before issue 38). The
  rollout surges (maxSurge 1, maxUnavailable 0): a new pod with a new name, so a new group.instance.id,
  starts and becomes ready, then the old one gets SIGTERM; a static member does not leave the group;
- ``deployment-dynamic``: the same rollout without static membership (the chart's default Deployment now):
  the old pod leaves the group as it stops;
- ``statefulset-static``: a StatefulSet with static membership (its default): the pod gets SIGTERM, exits,
  and its replacement starts with the same name (group.instance.id and transactional.id).

Two members share a landing topic of --partitions partitions fed at --rate records/s (1 KB UTF-8 pages),
steadily, from before the members start to --after seconds past the replacement. Each record's latency is
from its landing timestamp (CreateTime) to its output's (the processor's produce time, in the transaction
that commits it). Printed per scenario: the latency before the step (p50, max: the steady state, from 2 s after
both members were ready) and the largest latency of a record produced from the step's start on: the longest a
record waited because of the rollout, i.e. the pause of the partitions the replaced member held; the p99 after
the step; and how long the replacement took to be ready (/readyz 200) from the step's start.
Uses KAFKA_BOOTSTRAP_SERVERS, or starts a LocalBroker. No assertions: numbers only.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench_broker import broker_for_bench  # noqa: E402
from confluent_kafka import Consumer  # noqa: E402

from consumer.kafka import KafkaConnection, ensure_topics, make_admin, make_producer  # noqa: E402
from consumer.serialization.avro import AvroSerializer  # noqa: E402
from consumer.serialization.schemas import SchemaStore  # noqa: E402

SCENARIOS = ("deployment-static", "deployment-dynamic", "statefulset-static")
PAGE = ("<!DOCTYPE html><html><head><meta charset=utf-8><title>t</title></head><body>"
        + "<p>" + "caf\u00e9 na\u00efve r\u00e9sum\u00e9 " * 60 + "</p></body></html>").encode()


class Member:
    """One ``crawl-decoder run`` process: a pod of the chart, named *name*."""

    def __init__(self, name: str, topics: dict[str, str], group: str, static: bool, bootstrap: str, logs: Path):
        self.name = name
        env = {k: v for k, v in os.environ.items() if not k.startswith("CRAWL_DECODER_")}
        env.update({
            "KAFKA_BOOTSTRAP_SERVERS": bootstrap,
            "CRAWL_DECODER_LANDING_TOPIC": topics["landing"], "CRAWL_DECODER_CLEAN_TOPIC": topics["clean"],
            "CRAWL_DECODER_QUARANTINE_TOPIC": topics["quarantine"], "CRAWL_DECODER_GROUP_ID": group,
            # The pod name, as the chart sets both.
            "CRAWL_DECODER_TRANSACTIONAL_ID": f"{group}-{name}", "CRAWL_DECODER_HTTP_PORT": "0",
            "CRAWL_DECODER_ALARMS": "off", "CRAWL_DECODER_OVERRIDES_PATH": "/nonexistent/overrides.yaml",
        })  # fmt: skip
        if static:
            env["CRAWL_DECODER_GROUP_INSTANCE_ID"] = f"{group}-{name}"
        self.log_path = logs / f"{group}-{name}-{uuid.uuid4().hex[:6]}.log"
        self._log = self.log_path.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "consumer.cli", "run"], cwd=REPO, env=env, stdin=subprocess.DEVNULL,
            stdout=self._log, stderr=subprocess.STDOUT,
        )
        self.started = time.time()

    def port(self) -> int | None:
        for line in self.log_path.read_text().splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "processor starting":
                return int(event["http_port"])
        return None

    def wait_ready(self, timeout: float = 120) -> float:
        """Until /readyz answers 200 (the chart's readiness probe); the time it did."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited: see {self.log_path}")
            port = self.port()
            if port:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as response:
                        if response.status == 200:
                            return time.time()
                except (urllib.error.URLError, OSError):
                    pass
            time.sleep(0.1)  # polling the probe, as the kubelet does
        raise RuntimeError(f"{self.name} not ready within {timeout} s: see {self.log_path}")

    def terminate(self, timeout: float = 60) -> float:
        """SIGTERM, as Kubernetes sends it, and wait for the exit; the time it exited."""
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()
        return time.time()


@dataclass
class Feed:
    """Records produced at a steady rate in a thread: key -> landing timestamp (s)."""

    connection: KafkaConnection
    topic: str
    rate: float
    sent: dict[bytes, float] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        serialize = AvroSerializer(SchemaStore(), "RawResponse")
        # Every delivery reported: its timestamp is the landing time measured from.
        producer = make_producer(self.connection, extra={"linger.ms": 5, "delivery.report.only.error": False})

        def delivered(error, message) -> None:
            if error is None:
                self.sent[message.key()] = message.timestamp()[1] / 1000

        started, i = time.monotonic(), 0
        while not self.stop.is_set():
            delay = started + i / self.rate - time.monotonic()
            if delay > 0:
                self.stop.wait(delay)  # pacing the offered load
            record = {"url": f"https://site{i % 50}.example/{i}", "fetched_at": int(time.time() * 1000),
                      "status": 200, "headers": [{"name": "Content-Type", "value": "text/html"}], "body": PAGE}
            producer.produce(self.topic, serialize(record), f"r-{i}".encode(), on_delivery=delivered)
            producer.poll(0)
            i += 1
        producer.flush(60)


def outputs(connection: KafkaConnection, topics: list[str], keys: set[bytes], timeout: float) -> dict[bytes, float]:
    """key -> the output's timestamp (s), read_committed, until every key has one or *timeout*."""
    consumer = Consumer({
        **connection.as_librdkafka_dict(), "group.id": f"rollout-reader-{uuid.uuid4().hex}",
        "auto.offset.reset": "earliest", "enable.auto.commit": False, "isolation.level": "read_committed",
    })  # fmt: skip
    consumer.subscribe(topics)
    found: dict[bytes, float] = {}
    deadline = time.monotonic() + timeout
    try:
        while not keys <= found.keys() and time.monotonic() < deadline:
            for message in consumer.consume(500, timeout=0.5):
                if message.error() is None:
                    found.setdefault(message.key(), message.timestamp()[1] / 1000)
    finally:
        consumer.close()
    return found


def scenario(name: str, connection: KafkaConnection, args: argparse.Namespace, logs: Path) -> dict[str, float]:
    suffix = uuid.uuid4().hex[:8]
    topics = {kind: f"rollout-{kind}-{suffix}" for kind in ("landing", "clean", "quarantine")}
    ensure_topics(make_admin(connection), list(topics.values()), partitions=args.partitions)
    group = f"rollout-{name}-{suffix}"
    static = name.endswith("static")
    feed = Feed(connection, topics["landing"], args.rate)
    feeding = threading.Thread(target=feed.run, daemon=True)
    feeding.start()
    start = lambda pod: Member(pod, topics, group, static, connection.bootstrap_servers, logs)  # noqa: E731
    members = {pod: start(pod) for pod in ("pod-0", "pod-1")}
    ready = max(member.wait_ready() for member in members.values())
    time.sleep(args.before)  # the steady state before the step, measured below
    step = time.time()
    if name.startswith("deployment"):
        # maxSurge 1, maxUnavailable 0: the new pod (a new name) ready first, then the old one stops.
        replacement = start(f"pod-1-{uuid.uuid4().hex[:5]}")
        took_over = replacement.wait_ready()
        members["pod-1"].terminate()
    else:
        # A StatefulSet: the pod stops, then its replacement starts under the same name.
        members["pod-1"].terminate()
        replacement = start("pod-1")
        took_over = replacement.wait_ready()
    members["pod-1"] = replacement
    time.sleep(args.after)  # longer than a session timeout (45 s), or its pause would not show
    feed.stop.set()
    feeding.join()
    out = outputs(connection, [topics["clean"], topics["quarantine"]], set(feed.sent), timeout=120)
    for member in members.values():
        member.terminate()
    # The steady state: records produced once both members were ready, before the step.
    latencies_before = [out[k] - t for k, t in feed.sent.items() if k in out and ready + 2 <= t < step]
    after = [out[k] - t for k, t in feed.sent.items() if k in out and t >= step]
    missing = len(set(feed.sent) - out.keys())
    return {
        "before_p50": statistics.median(latencies_before), "before_max": max(latencies_before),
        "pause": max(after), "after_p99": statistics.quantiles(after, n=100)[98], "ready_s": took_over - step,
        "records": len(feed.sent), "missing": missing,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rate", type=float, default=100.0, help="landing records per second (default 100)")
    parser.add_argument("--partitions", type=int, default=4, help="partitions of the landing topic (default 4)")
    parser.add_argument("--before", type=float, default=15.0, help="seconds of steady state before the step")
    parser.add_argument("--after", type=float, default=60.0, help="seconds fed after the replacement is ready")
    parser.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--logs", type=Path, default=Path("/tmp/crawl-decoder-rollout"))
    args = parser.parse_args()
    args.logs.mkdir(parents=True, exist_ok=True)
    bootstrap, stop_broker = broker_for_bench()
    try:
        connection = KafkaConnection(bootstrap)
        print(f"{args.partitions} partitions, 2 members, {args.rate:g} records/s, exactly-once; seconds")
        print(f"{'scenario':20} {'before p50':>10} {'before max':>10} {'pause':>7} {'after p99':>9} "
              f"{'ready':>6} {'records':>8} {'missing':>7}")
        for name in args.scenarios:
            r = scenario(name, connection, args, args.logs)
            print(f"{name:20} {r['before_p50']:10.2f} {r['before_max']:10.2f} {r['pause']:7.1f} "
                  f"{r['after_p99']:9.2f} {r['ready_s']:6.1f} {r['records']:8d} {r['missing']:7d}", flush=True)
    finally:
        stop_broker()
    return 0


if __name__ == "__main__":
    sys.exit(main())
