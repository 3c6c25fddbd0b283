"""Benchmark: the stream processor against a pass-through copier, same broker, same client settings, same run.

    .venv/bin/python bench/pipeline.py [--records 20000] [--kb 30] [--big 4] [--batch-size 500] [--rounds 3]

Both contenders run as child processes through the same batch engine
(``consumer.engine``: the same factories, batch size and delivery policy, one
transaction per batch in exactly-once, produce-flush-commit in at-least-once,
each batch committed by the writer thread while the next ones are read and
made, commits back to back).  The pass-through's decision copies each landing
record unchanged to one output topic; the processor is ``crawl-decoder run``.

Per contender and mode:
- throughput: the landing topic is filled first, then the contender starts;
  records/s and MB/s (landing value bytes) from its first commit to its last,
  read from its group's committed landing offsets every 20 ms (a record is
  done when its offset is committed: with its outputs in exactly-once, after
  they are flushed in at-least-once; start-up and group join excluded). The
  outputs are read afterwards, untimed, to check that every record has one:
  a reader during the round took ~100 us of CPU a record from the two cores
  the contender and the broker share, and slowed both contenders (without it
  both run faster; their ratio did not move). --rounds alternating rounds
  (pass-through, processor, pass-through, ...), each contender's median round
  reported, with the median of the per-round ratios, its distribution-free
  95% interval (order statistics; six rounds at least) and how many rounds
  fell below the 0.8x target;
- CPU: user + system time of the child process per record, from the first
  commit to the end, read from /proc, in all and split between its Python
  threads and its librdkafka threads ("rdk:*": compression, fetching);
  with the share of the whole machine that was busy meanwhile (the broker
  and the contender share its two cores: when it is near 100%, records/s
  follows total CPU per record), and how the
  contender's main thread spent the time: running, runnable but waiting
  for a core, or blocked (in consume, flush or the transaction calls);
- latency: records produced at half the slower contender's measured rate while it runs;
  each record's latency is from its landing Kafka timestamp to the moment a
  read_committed reader receives its output (p50, p99);
- peak RSS: VmHWM of the child process, read from /proc before it is stopped.
A last run sends a few 16 MB bodies through the processor (max_body_bytes 16 MiB) for its peak RSS.

The corpus is generated: ~90% UTF-8 pages (declared in the header, in a meta,
or not at all) and ~10% legacy pages (Shift_JIS, GBK, windows-1251, EUC-KR,
windows-1252) declared in a meta; each about --kb KB.  With --mix cjk, 30% are
legacy pages in Shift_JIS, EUC-JP, Big5 and GBK (a .jp/.tw crawl).  Uses
KAFKA_BOOTSTRAP_SERVERS, or starts a LocalBroker.  No assertions: numbers only.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from confluent_kafka import KafkaException, TopicPartition  # noqa: E402

from consumer.kafka import KafkaConnection, ensure_topics, make_admin, make_consumer, make_producer  # noqa: E402
from consumer.serialization.avro import AvroSerializer  # noqa: E402
from consumer.serialization.schemas import SchemaStore  # noqa: E402

MiB = 1024 * 1024
PARTITIONS = 3  # of every benchmark topic
#: The issue's throughput target: the processor's records/s at least this share of the pass-through's.
TARGET_RATIO = 0.8
WORDS = {
    "en": "the of and to in is that for it with as was on be by this are from at or have an they which one had".split(),
    "fr": "le de la et les des en un une du est que pour qui dans par sur pas au avec ce sont été être élève très".split(),
    "de": "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch Straße größer".split(),
    "ja": "日本 東京 天気 予報 今日 晴れ 曇り 会社 情報 検索 時間 世界 生活 経済 政治 文化 技術 研究 学校 電話".split(),
    "zh": "中国 北京 天气 预报 今天 公司 信息 搜索 时间 世界 生活 经济 政治 文化 技术 研究 学校 电话 新闻 网站".split(),
    "ru": "и в не на я быть он с что а по это она этот к но они мы как из у который то за свой весь год".split(),
    "ko": "한국 서울 날씨 예보 오늘 회사 정보 검색 시간 세계 생활 경제 정치 문화 기술 연구 학교 전화 뉴스".split(),
    "zh_tw": "臺灣 臺北 天氣 預報 今天 公司 資訊 搜尋 時間 世界 生活 經濟 政治 文化 技術 研究 學校 電話 新聞 網站".split(),
}
LEGACY = [("ja", "Shift_JIS", "cp932"), ("zh", "GBK", "gbk"), ("ru", "windows-1251", "cp1251"),
          ("ko", "EUC-KR", "cp949"), ("fr", "windows-1252", "cp1252")]  # fmt: skip
UTF8_LANGUAGES = ["en", "fr", "de", "ja", "zh", "ru", "ko"]  # the UTF-8 pages' (as before zh_tw was added)
#: The legacy pages of a .jp/.tw/.cn crawl (--mix cjk).
CJK_LEGACY = [("ja", "Shift_JIS", "cp932"), ("ja", "EUC-JP", "euc_jp"), ("zh_tw", "Big5", "big5"),
              ("zh", "GBK", "gbk")]  # fmt: skip
#: --mix: (share of legacy pages, their encodings).
MIXES = {"web": (0.1, LEGACY), "cjk": (0.3, CJK_LEGACY)}


# -- corpus -------------------------------------------------------------------------


def page(rng: random.Random, kb: int, lang: str, meta: str | None) -> str:
    words = WORDS[lang]
    paragraphs, size = [], 0
    while size < kb * 1024:
        text = " ".join(rng.choice(words) for _ in range(rng.randint(40, 120)))
        paragraphs.append(f"<p>{text}</p>\n")
        size += len(text.encode("utf-8")) + 8
    head = f'<meta charset="{meta}">' if meta else ""
    return f"<!DOCTYPE html><html><head>{head}<title>{lang}</title></head><body>{''.join(paragraphs)}</body></html>\n"


def corpus(records: int, kb: int, seed: int = 1, distinct: int = 200, mix: str = "web") -> list[tuple[str, bytes, str]]:
    """(url, body, content type) for *records* records, drawn from *distinct* generated pages."""
    rng = random.Random(seed)
    share, legacy = MIXES[mix]
    pool = []
    for i in range(distinct):
        drawn = rng.random() < share
        # The cjk mix takes exactly its share (three pages in ten); web keeps its draws, as in earlier runs.
        if (i % 10 < 10 * share) if mix == "cjk" else drawn:
            lang, label, codec = legacy[i % len(legacy)]
            body = page(rng, kb, lang, label).encode(codec, "replace")
            pool.append((f"https://legacy{i}.example/", body, "text/html"))
            continue
        lang = rng.choice(UTF8_LANGUAGES)
        how = i % 3
        text = page(rng, kb, lang, "utf-8" if how == 1 else None)
        content_type = "text/html; charset=utf-8" if how == 0 else "text/html"
        pool.append((f"https://site{i}.example/{lang}", text.encode("utf-8"), content_type))
    return [pool[i % distinct] for i in range(records)]


def produce(connection: KafkaConnection, topic: str, items, *, rate: float | None = None, prefix: str = "r") -> int:
    """Produce Avro RawResponse records keyed ``<prefix>-<i>``; paced at *rate* per second when given."""
    serialize = AvroSerializer(SchemaStore(), "RawResponse")
    producer = make_producer(connection, extra={"linger.ms": 5})
    started, total = time.monotonic(), 0
    for i, (url, body, content_type) in enumerate(items):
        if rate:
            delay = started + i / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)  # pacing the offered load
        record = {
            "url": url, "fetched_at": int(time.time() * 1000), "status": 200,
            "headers": [{"name": "Content-Type", "value": content_type}], "body": body,
        }  # fmt: skip
        value = serialize(record)
        total += len(value)
        while True:
            try:
                producer.produce(topic, value, f"{prefix}-{i}".encode())
                break
            except BufferError:
                producer.poll(0.05)
        producer.poll(0)
    producer.flush(120)
    return total


# -- the pass-through contender (a child process) ---------------------------------------------


def passthrough_main(args: argparse.Namespace) -> int:
    """Copy landing -> output through the processor's engine, factories, batch size and delivery policy."""
    from consumer.engine import AtLeastOnce, BatchEngine, ConsumerPositions, Decision, ExactlyOnce, Output

    connection = KafkaConnection.from_env()

    def policy():
        if args.mode == "exactly-once":
            return ExactlyOnce(make_producer(connection, transactional_id=args.txn), timeout=30)
        return AtLeastOnce(make_producer(connection), timeout=30)

    engine = BatchEngine(
        consumer=lambda: make_consumer(connection, args.group),
        offsets=ConsumerPositions([args.landing]),
        decide=lambda m: Decision((Output(args.output, m.key(), m.value(), m.headers()),), None),
        policy=policy,
        batch_size=args.batch_size,
        batch_timeout_s=0.2,
        timeout_s=30,
    )
    signal.signal(signal.SIGTERM, lambda *_: engine.stop())
    engine.run()
    return 0


# -- measuring -------------------------------------------------------------------------------


@dataclass
class Reader:
    """A read_committed reader in a thread: when each output key became visible."""

    connection: KafkaConnection
    topics: list[str]
    seen: dict[bytes, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._grew = threading.Condition()  # notified whenever ``seen`` gains keys
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(60)

    def _run(self) -> None:
        consumer = make_consumer(self.connection, f"bench-reader-{uuid.uuid4().hex}")
        consumer.subscribe(self.topics, on_assign=lambda *_: self._ready.set())
        try:
            while not self._stop.is_set():
                messages = consumer.consume(1000, 0.1)
                with self._grew:
                    for message in messages:
                        if message.error() is None:
                            self.seen.setdefault(message.key(), time.time())
                    self._grew.notify_all()
        finally:
            consumer.close()

    def wait_for(self, count: int, timeout: float) -> bool:
        with self._grew:
            return self._grew.wait_for(lambda: len(self.seen) >= count, timeout)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(30)


@dataclass
class Progress:
    """The contender's committed landing offsets, polled in a thread: how many landing records
    were done (outputs written, offsets committed with them) and when.

    A throughput round is timed by this rather than by reading the outputs: a reader fetches and
    decompresses every output (~100 us of CPU a record, measured: ~12% of this two-core machine),
    a load that belongs to neither contender and slowed both. The outputs are read afterwards,
    untimed, to check that every record has one.
    """

    connection: KafkaConnection
    group: str
    landing: str
    partitions: int
    interval: float = 0.02
    samples: list[tuple[float, int]] = field(default_factory=list)  # (time, records done) at each change

    def __post_init__(self) -> None:
        # A consumer carrying the group's id that never subscribes (never joins the group), not the
        # admin client's list_consumer_group_offsets: that dies of SIGSEGV when the coordinator
        # answers NOT_COORDINATOR while it loads (librdkafka #5040; consumer/observability/lag.py).
        # read_uncommitted, as the lag monitor's: a read_committed client asks for stable offsets
        # only and waits while an exactly-once contender's next transaction holds offsets, which
        # back-to-back transactions made last seconds: a whole round went unsampled (0 rec/s).
        self._reader = make_consumer(self.connection, self.group, isolation_level="read_uncommitted")
        self._request = [TopicPartition(self.landing, p) for p in range(self.partitions)]
        self._stop = threading.Event()
        self._grew = threading.Condition()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _done(self) -> int:
        committed = self._reader.committed(self._request, timeout=30)
        return sum(max(tp.offset, 0) for tp in committed)  # -1001: nothing committed yet

    def _run(self) -> None:
        last = 0
        while not self._stop.is_set():
            try:
                done = self._done()
            except (KafkaException, TimeoutError) as exc:  # a slow coordinator: the next poll asks again
                print(f"  (committed offsets of {self.group} not read: {exc})", file=sys.stderr)
                done = last
            if done != last:
                with self._grew:
                    self.samples.append((time.time(), done))
                    self._grew.notify_all()
                last = done
            self._stop.wait(self.interval)  # polling the group coordinator's state

    def wait_for(self, count: int, timeout: float) -> bool:
        with self._grew:
            return self._grew.wait_for(lambda: bool(self.samples) and self.samples[-1][1] >= count, timeout)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(30)
        self._reader.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process (all its threads, ended ones too) has used so far."""
    return _stat_cpu_seconds(Path(f"/proc/{pid}/stat").read_text())


def librdkafka_cpu_seconds(pid: int) -> float:
    """The part of ``cpu_seconds`` its librdkafka threads ("rdk:...", alive for the client's life) used."""
    seconds = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except FileNotFoundError:  # the thread ended meanwhile
            continue
        if stat[stat.index("(") + 1 :].startswith("rdk:"):
            seconds += _stat_cpu_seconds(stat)
    return seconds


def _stat_cpu_seconds(stat: str) -> float:
    fields = stat.rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime (fields 14, 15)


def main_thread_schedstat(pid: int) -> tuple[float, float]:
    """(seconds on a CPU, seconds runnable but waiting for one) of the process's main thread so far,
    from /proc/<pid>/task/<pid>/schedstat; NaNs where the kernel does not keep them."""
    try:
        on_cpu, waiting = Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()[:2]
    except (FileNotFoundError, ValueError):
        return float("nan"), float("nan")
    return int(on_cpu) / 1e9, int(waiting) / 1e9


def machine_busy() -> tuple[int, int]:
    """(all jiffies, idle + iowait jiffies) of the whole machine so far, from /proc/stat."""
    fields = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(fields), fields[3] + fields[4]


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@dataclass
class Result:
    name: str
    mode: str
    records_s: float = 0.0
    mb_s: float = 0.0
    p50_ms: float = float("nan")
    p99_ms: float = float("nan")
    peak_rss_mb: float = float("nan")
    #: CPU time of the contender's process (every thread) per record, microseconds.
    cpu_us: float = float("nan")
    #: The same, split: its librdkafka threads, and the rest (its Python threads, ended ones included).
    cpu_python_us: float = float("nan")
    cpu_rdkafka_us: float = float("nan")
    #: Share of the whole machine's CPU time that was busy while the contender ran (both cores).
    machine_busy: float = float("nan")
    #: Shares of that time its main thread (the one that decodes) ran, and waited for a free core.
    main_ran: float = float("nan")
    main_waited: float = float("nan")


class Contender:
    """One child process (processor or pass-through) on fresh topics."""

    def __init__(self, kind: str, mode: str, connection: KafkaConnection, batch_size: int, max_body: int) -> None:
        self.kind, self.mode, self.connection = kind, mode, connection
        suffix = uuid.uuid4().hex[:10]
        self.landing = f"bench-landing-{suffix}"
        self.outputs = [f"bench-clean-{suffix}", f"bench-quarantine-{suffix}"] if kind == "processor" else [f"bench-copy-{suffix}"]
        ensure_topics(make_admin(connection), [self.landing, *self.outputs], partitions=PARTITIONS)
        self.group, self.txn = f"bench-{suffix}", f"bench-txn-{suffix}"
        self.batch_size, self.max_body = batch_size, max_body
        self.process: subprocess.Popen | None = None
        self.cpu_s = float("nan")  # the child's CPU time when it was stopped
        self.rdkafka_cpu_s = float("nan")  # the part of it its librdkafka threads used
        # Shares of the measured time its main thread ran and waited for a core (the rest it was blocked).
        self.main_ran = self.main_waited = float("nan")

    def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CRAWL_DECODER_")}
        env["KAFKA_BOOTSTRAP_SERVERS"] = self.connection.bootstrap_servers
        if self.kind == "processor":
            env.update({
                "CRAWL_DECODER_LANDING_TOPIC": self.landing, "CRAWL_DECODER_CLEAN_TOPIC": self.outputs[0],
                "CRAWL_DECODER_QUARANTINE_TOPIC": self.outputs[1], "CRAWL_DECODER_GROUP_ID": self.group,
                "CRAWL_DECODER_TRANSACTIONAL_ID": self.txn, "CRAWL_DECODER_PROCESSING_MODE": self.mode,
                "CRAWL_DECODER_BATCH_SIZE": str(self.batch_size), "CRAWL_DECODER_HTTP_PORT": "0",
                "CRAWL_DECODER_OVERRIDES_PATH": "/nonexistent/overrides.yaml", "CRAWL_DECODER_LOG_LEVEL": "warning",
                "CRAWL_DECODER_MAX_BODY_BYTES": str(self.max_body),
            })  # fmt: skip
            command = [sys.executable, "-m", "consumer.cli", "run"]
        else:
            command = [
                sys.executable, __file__, "--passthrough", "--landing", self.landing, "--output", self.outputs[0],
                "--group", self.group, "--txn", self.txn, "--mode", self.mode, "--batch-size", str(self.batch_size),
            ]  # fmt: skip
        self.process = subprocess.Popen(command, cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)

    def stop(self) -> float:
        """Peak RSS (MB) of the child, then SIGTERM and wait."""
        peak = peak_rss_mb(self.process.pid)
        self.cpu_s = cpu_seconds(self.process.pid)
        self.rdkafka_cpu_s = librdkafka_cpu_seconds(self.process.pid)
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return peak

    def delete_topics(self) -> None:
        """Best effort: a slow deletion (a busy broker) must not throw away the measurements."""
        for topic, future in make_admin(self.connection).delete_topics([self.landing, *self.outputs]).items():
            try:
                future.exception(timeout=60)
            except TimeoutError:
                print(f"  (topic {topic} not deleted within 60 s; left to the broker)", file=sys.stderr)


def throughput(contender: Contender, items, timeout: float) -> tuple[float, float, float, float]:
    """(records/s, MB/s, peak RSS, machine busy share) on a landing topic filled beforehand; the
    child's CPU time from its first commit to its stop is left in ``contender.cpu_s`` (its
    librdkafka threads' part in ``contender.rdkafka_cpu_s``)."""
    total_bytes = produce(contender.connection, contender.landing, items, prefix="t")
    progress = Progress(contender.connection, contender.group, contender.landing, PARTITIONS)
    started = time.time()
    contender.start()
    try:
        # CPU is counted from the first commit on, like the rate: start-up (imports, group join) excluded.
        progress.wait_for(1, timeout)
        cpu_at_first = cpu_seconds(contender.process.pid)
        rdkafka_cpu_at_first = librdkafka_cpu_seconds(contender.process.pid)
        machine_at_first = machine_busy()
        main_at_first, clock_at_first = main_thread_schedstat(contender.process.pid), time.monotonic()
        if not progress.wait_for(len(items), timeout):
            done_so_far = progress.samples[-1][1] if progress.samples else 0
            print(f"  {contender.kind}/{contender.mode}: only {done_so_far} of {len(items)} committed", flush=True)
        # Steady state: from the first commit to the last, so process start-up and the group join
        # (the same for both contenders) do not dilute the rate; the first commit's records are
        # not counted, having been made before the clock started.
        samples = progress.samples or [(started, 0)]
        (first_at, first_done), (last_at, last_done) = samples[0], samples[-1]
        seconds = max(last_at - first_at, 1e-9)
        done = last_done - first_done
        machine_at_end = machine_busy()
        main_at_end, clock_at_end = main_thread_schedstat(contender.process.pid), time.monotonic()
        wall = max(clock_at_end - clock_at_first, 1e-9)
        ran, waited = (end - first for end, first in zip(main_at_end, main_at_first, strict=True))
        contender.main_ran, contender.main_waited = ran / wall, waited / wall
        peak = contender.stop()
        contender.cpu_s -= cpu_at_first
        contender.rdkafka_cpu_s -= rdkafka_cpu_at_first
        jiffies, idle = (end - first for end, first in zip(machine_at_end, machine_at_first, strict=True))
        busy = 1 - idle / jiffies if jiffies else float("nan")
        _check_outputs(contender, len(items), timeout)
        return done / seconds, total_bytes / MiB * done / len(items) / seconds, peak, busy
    finally:
        progress.close()
        if contender.process.poll() is None:
            contender.stop()


def _check_outputs(contender: Contender, count: int, timeout: float) -> None:
    """Every landing record has an output (untimed, after the round): a commit without its
    outputs would make the round's rate a lie."""
    reader = Reader(contender.connection, contender.outputs)
    try:
        if not reader.wait_for(count, timeout):
            print(f"  {contender.kind}/{contender.mode}: only {len(reader.seen)} of {count} outputs", flush=True)
    finally:
        reader.close()


def latency(contender: Contender, items, rate: float, timeout: float) -> tuple[float, float]:
    """(p50 ms, p99 ms) from the landing timestamp to read_committed visibility, at *rate* records/s."""
    reader = Reader(contender.connection, contender.outputs)
    contender.start()
    try:
        _wait_assigned(contender)
        produce(contender.connection, contender.landing, items, rate=rate, prefix="l")
        reader.wait_for(len(items), timeout)
        # Landing timestamps (CreateTime, ms) are read back rather than assumed.
        sent_at = _landing_timestamps(contender.connection, contender.landing, len(items))
        lat = sorted((reader.seen[k] - sent_at[k]) * 1000 for k in sent_at if k in reader.seen)
        if not lat:
            return float("nan"), float("nan")
        return statistics.median(lat), lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    finally:
        reader.close()
        contender.stop()


def _wait_assigned(contender: Contender, timeout: float = 60.0) -> None:
    """Wait until the contender's group has a member (it has joined and will fetch)."""
    admin = make_admin(contender.connection)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        description = admin.describe_consumer_groups([contender.group])[contender.group].result(timeout=30)
        if description.members and any(m.assignment.topic_partitions for m in description.members):
            return
        time.sleep(0.2)  # polling the group's state, bounded by the deadline
    raise RuntimeError(f"{contender.group} got no partitions within {timeout:g} s")


def _landing_timestamps(connection: KafkaConnection, topic: str, count: int) -> dict[bytes, float]:
    consumer = make_consumer(connection, f"bench-ts-{uuid.uuid4().hex}", isolation_level="read_uncommitted")
    consumer.subscribe([topic])
    out: dict[bytes, float] = {}
    deadline = time.monotonic() + 120
    try:
        while len(out) < count and time.monotonic() < deadline:
            for message in consumer.consume(1000, 0.5):
                if message.error() is None:
                    out[message.key()] = message.timestamp()[1] / 1000
    finally:
        consumer.close()
    return out


# -- main ------------------------------------------------------------------------------------


def run(args: argparse.Namespace, connection: KafkaConnection) -> list[Result]:
    items = corpus(args.records, args.kb, mix=args.mix)
    latency_items = corpus(args.latency_records, args.kb, seed=2, mix=args.mix)
    results = []
    for mode in args.modes:
        rounds: dict[str, list[Result]] = {"pass-through": [], "processor": []}
        # Alternating rounds, so that the machine's swings (it is shared) hit both contenders alike.
        for round_number in range(1, args.rounds + 1):
            for kind in ("pass-through", "processor"):
                contender = Contender(kind, mode, connection, args.batch_size, args.max_body)
                result = Result(kind, mode)
                result.records_s, result.mb_s, result.peak_rss_mb, result.machine_busy = throughput(
                    contender, items, args.timeout
                )
                result.cpu_us = contender.cpu_s / len(items) * 1e6
                result.cpu_rdkafka_us = contender.rdkafka_cpu_s / len(items) * 1e6
                result.cpu_python_us = result.cpu_us - result.cpu_rdkafka_us
                result.main_ran, result.main_waited = contender.main_ran, contender.main_waited
                contender.delete_topics()
                rounds[kind].append(result)
                print(f"  round {round_number} {kind:12} {mode:13} {result.records_s:9.0f} rec/s "
                      f"{result.mb_s:8.1f} MB/s {result.cpu_us:6.0f} CPU us/record (Python threads "
                      f"{result.cpu_python_us:.0f}, librdkafka {result.cpu_rdkafka_us:.0f}); "
                      f"machine {result.machine_busy:.0%} busy; main thread ran {result.main_ran:.0%}, "
                      f"waited for a core {result.main_waited:.0%}, blocked "
                      f"{1 - result.main_ran - result.main_waited:.0%}", flush=True)  # fmt: skip
        pairs = list(zip(rounds["processor"], rounds["pass-through"], strict=True))
        # A round the sampler never saw between the first commit and the last has no rate: left out, said.
        ratios = [p.records_s / q.records_s for p, q in pairs if p.records_s and q.records_s]
        if len(ratios) < len(pairs):
            print(f"  {mode}: {len(pairs) - len(ratios)} round(s) not timed, left out of the ratios", flush=True)
        print(f"  {mode}: processor / pass-through records/s by round: "
              + ", ".join(f"{r:.2f}x" for r in ratios) + f"; {ratio_summary(ratios)}", flush=True)  # fmt: skip
        results.extend(_median_result(rounds[kind]) for kind in ("pass-through", "processor"))
        rates = {result.name: result.records_s for result in results[-2:]}
        rate = 0.5 * min(rates.values())
        for result in results[-2:]:
            contender = Contender(result.name, mode, connection, args.batch_size, args.max_body)
            result.p50_ms, result.p99_ms = latency(contender, latency_items, rate, args.timeout)
            contender.delete_topics()
            print(f"  {result.name:12} {mode:13} latency at {rate:.0f} rec/s: p50 {result.p50_ms:.0f} ms, p99 {result.p99_ms:.0f} ms", flush=True)
    if args.big:
        results.append(big_messages(args, connection))
    return results


def median_interval(values: list[float], confidence: float = 0.95) -> tuple[float, float] | None:
    """A distribution-free interval for the median: the k-th smallest and k-th largest values, with k
    the largest for which Binomial(n, 1/2) puts at most (1 - confidence) / 2 below k.  None when
    there are too few values for one (fewer than six at 95%)."""
    ordered, n = sorted(values), len(values)
    k, below = 0, 1 / 2**n  # below: P(X <= k) for X ~ Binomial(n, 1/2)
    while below <= (1 - confidence) / 2:
        k += 1
        below += math.comb(n, k) / 2**n
    return None if k == 0 else (ordered[k - 1], ordered[n - k])


def ratio_summary(ratios: list[float]) -> str:
    """The median ratio with its 95% interval, and how many rounds fell below the target."""
    interval = median_interval(ratios)
    spread = f" (95% interval {interval[0]:.2f}x-{interval[1]:.2f}x)" if interval else ""
    below = sum(r < TARGET_RATIO for r in ratios)
    return f"median {statistics.median(ratios):.2f}x{spread}; {below} of {len(ratios)} rounds below {TARGET_RATIO}x"


def _median_result(rounds: list[Result]) -> Result:
    """The contender's median round by records/s (its own MB/s, CPU and RSS with it), RSS the highest seen."""
    middle = sorted(rounds, key=lambda r: r.records_s)[len(rounds) // 2]
    return Result(middle.name, middle.mode, middle.records_s, middle.mb_s,
                  peak_rss_mb=max(r.peak_rss_mb for r in rounds), cpu_us=middle.cpu_us,
                  cpu_python_us=middle.cpu_python_us, cpu_rdkafka_us=middle.cpu_rdkafka_us,
                  machine_busy=middle.machine_busy, main_ran=middle.main_ran,
                  main_waited=middle.main_waited)  # fmt: skip


def big_messages(args: argparse.Namespace, connection: KafkaConnection) -> Result:
    """A few 16 MB bodies (max_body_bytes 16 MiB) among normal pages: the processor's peak RSS."""
    rng = random.Random(3)
    huge = page(rng, 16 * 1024 - 64, "en", "utf-8").encode("utf-8")[: 16 * MiB - 4096]
    items = corpus(200, args.kb, seed=4)
    for i in range(args.big):
        items[i * (len(items) // args.big)] = ("https://huge.example/", huge, "text/html")
    contender = Contender("processor", "exactly-once", connection, args.batch_size, 16 * MiB)
    result = Result("processor 16MB", "exactly-once")
    result.records_s, result.mb_s, result.peak_rss_mb, result.machine_busy = throughput(contender, items, args.timeout)
    contender.delete_topics()
    return result


def table(results: list[Result]) -> str:
    lines = [
        f"{'contender':16} {'mode':14} {'rec/s':>8} {'MB/s':>7} {'p50 ms':>8} {'p99 ms':>8} {'peak RSS MB':>12} {'CPU us/rec':>11}",
    ]
    for r in results:
        lines.append(
            f"{r.name:16} {r.mode:14} {r.records_s:8.0f} {r.mb_s:7.1f} {r.p50_ms:8.0f} {r.p99_ms:8.0f} {r.peak_rss_mb:12.0f}"
            f" {r.cpu_us:11.0f}"
        )
    lines.append("")
    lines.append("ratio processor / pass-through (throughput; latency)")
    for mode in dict.fromkeys(r.mode for r in results if r.name == "pass-through"):
        p = next(r for r in results if r.name == "processor" and r.mode == mode)
        q = next(r for r in results if r.name == "pass-through" and r.mode == mode)
        lines.append(
            f"  {mode:14} records/s {p.records_s / q.records_s:5.2f}x   MB/s {p.mb_s / q.mb_s:5.2f}x   "
            f"p50 {p.p50_ms / q.p50_ms:5.2f}x   p99 {p.p99_ms / q.p99_ms:5.2f}x"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20000, help="records in each throughput run")
    parser.add_argument("--kb", type=int, default=30, help="approximate size of each page")
    parser.add_argument("--latency-records", type=int, default=2000, help="records in each latency run")
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3, help="alternating throughput rounds per mode (median reported)")
    parser.add_argument("--big", type=int, default=4, help="16 MB bodies in the last run (0: skip it)")
    parser.add_argument("--max-body", type=int, default=16 * MiB, help="processor max_body_bytes")
    parser.add_argument(
        "--modes", nargs="+", default=["at-least-once", "exactly-once"], choices=["at-least-once", "exactly-once"]
    )
    parser.add_argument("--timeout", type=float, default=600.0, help="per run")
    parser.add_argument("--mix", choices=sorted(MIXES), default="web",
                        help="web: ~10%% legacy pages (Shift_JIS, GBK, windows-1251, EUC-KR, windows-1252); "
                             "cjk: 30%% Shift_JIS, EUC-JP, Big5 and GBK pages, as a .jp/.tw crawl")  # fmt: skip
    # The pass-through child's own options.
    parser.add_argument("--passthrough", action="store_true", help=argparse.SUPPRESS)
    for name in ("--landing", "--output", "--group", "--txn", "--mode"):
        parser.add_argument(name, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.passthrough:
        return passthrough_main(args)

    from consumer.devbroker import LocalBroker

    broker = None
    bootstrap = os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "").strip()
    if not bootstrap:
        broker = LocalBroker()
        bootstrap = broker.start()
    try:
        legacy = sum(url.startswith("https://legacy") for url, _, _ in corpus(args.records, args.kb, mix=args.mix))
        print(f"broker {bootstrap}; {args.records} records of ~{args.kb} KB, mix {args.mix} "
              f"({legacy / args.records:.0%} legacy pages), batch {args.batch_size}", flush=True)  # fmt: skip
        results = run(args, KafkaConnection(bootstrap))
    finally:
        if broker is not None:
            broker.stop()
    print()
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
