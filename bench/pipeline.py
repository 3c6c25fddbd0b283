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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench_broker import broker_for_bench  # noqa: E402
from confluent_kafka import KafkaException, TopicPartition  # noqa: E402

from consumer.kafka import KafkaConnection, ensure_topics, make_admin, make_consumer, make_producer  # noqa: E402
from consumer.serialization.avro import AvroSerializer  # noqa: E402
from consumer.serialization.schemas import SchemaStore  # noqa: E402

MiB = 1024 * 1024
PARTITIONS = 3  # of every benchmark topic
#: The issue's throughput target: the processor's records/s at least this share of the pass-through's.
TARGET_RATIO = 0.8
#: Issue 31's targets on the crawl mix, against the naive loop: records/s at least, CPU a record at most.
CRAWL_TARGET_RATIO, CRAWL_TARGET_CPU = 0.7, 1.4
#: The crawl mix's landing topic (issue 31: a real crawl's topic has more partitions than the other mixes').
CRAWL_PARTITIONS = 6
WORDS = {
    "en": "the of and to in is that for it with as was on be by this are from at or have an they which one had".split(),
    "fr": "le de la et les des en un une du est que pour qui dans par sur pas au avec ce sont été être élève très".split(),
    "de": "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch Straße größer".split(),
    "ja": "日本 東京 天気 予報 今日 晴れ 曇り 会社 情報 検索 時間 世界 生活 経済 政治 文化 技術 研究 学校 電話".split(),
    "zh": "中国 北京 天气 预报 今天 公司 信息 搜索 时间 世界 生活 经济 政治 文化 技术 研究 学校 电话 新闻 网站".split(),
    "ru": "и в не на я быть он с что а по это она этот к но они мы как из у который то за свой весь год".split(),
    "ko": "한국 서울 날씨 예보 오늘 회사 정보 검색 시간 세계 생활 경제 정치 문화 기술 연구 학교 전화 뉴스".split(),
    "pl": "i w nie na się jest że to do z być jak co ale dla już który może żółć łódź źródło świat książka".split(),
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


def corpus(records: int, kb: int, seed: int = 1, distinct: int = 200, mix: str = "web") -> list:
    """(url, body, content type) for *records* records, drawn from *distinct* generated pages; the
    crawl mix's ``CrawlPage``s (their own sizes and pool: ``crawl_pages``)."""
    if mix == "crawl":
        pool = crawl_pages(seed)
        return [pool[i % len(pool)] for i in range(records)]
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


# -- the crawl mix (issue 31) ------------------------------------------------------------------

#: A crawl's legacy pages: (language, WHATWG label, Python codec writing it, TLD).
CRAWL_LEGACY = [("ja", "Shift_JIS", "cp932", "jp"), ("ko", "EUC-KR", "cp949", "kr"), ("zh", "GBK", "gbk", "cn"),
                ("zh_tw", "Big5", "big5", "tw"), ("ru", "windows-1251", "cp1251", "ru"),
                ("fr", "windows-1252", "cp1252", "fr"), ("pl", "ISO-8859-2", "iso8859_2", "pl")]  # fmt: skip
CRAWL_UTF8 = [("en", "com"), ("fr", "fr"), ("de", "de"), ("ja", "jp"), ("zh", "cn"), ("ru", "ru"), ("ko", "kr"),
              ("pl", "pl")]  # fmt: skip
#: Distinct pages the crawl mix cycles through, and every how many of them is a trap.
CRAWL_POOL, CRAWL_TRAP_EVERY = 1000, 66
#: The traps, in turn: what a crawler meets that the shares above do not show.
TRAPS = ("utf8-under-latin1-header", "meta-past-1024", "bom-against-header", "latin1-label-cp1252-text")


@dataclass(frozen=True)
class CrawlPage:
    """One distinct page of the crawl mix: what the crawler fetched and the text its author wrote."""

    url: str  # a prefix: the record's number is appended, so that every record has its own key
    body: bytes
    content_type: str
    text: str
    kind: str


def crawl_pages(seed: int = 1, distinct: int = CRAWL_POOL) -> list[CrawlPage]:
    """~85% UTF-8 pages (half declared in the header, 30% only in a <meta>, 20% declaring nothing),
    ~15% legacy ones (a third each: header, <meta> only, nothing), 5-60 KB, one trap in CRAWL_TRAP_EVERY."""
    rng = random.Random(seed)
    legacy = int(distinct * 0.15)
    ways = ["header"] * 50 + ["meta"] * 30 + ["none"] * 20
    kinds = [("legacy", ("header", "meta", "none")[i % 3]) for i in range(legacy)]
    kinds += [("utf-8", ways[i % 100]) for i in range(distinct - legacy)]
    rng.shuffle(kinds)
    pages = []
    for i, (family, how) in enumerate(kinds):
        kb = rng.randint(5, 60)
        if i % CRAWL_TRAP_EVERY == CRAWL_TRAP_EVERY - 1:
            pages.append(_trap(rng, i, TRAPS[(i // CRAWL_TRAP_EVERY) % len(TRAPS)], kb))
        elif family == "legacy":
            lang, label, codec, tld = CRAWL_LEGACY[i % len(CRAWL_LEGACY)]
            text = page(rng, kb, lang, label if how == "meta" else None)
            header = f"text/html; charset={label}" if how == "header" else "text/html"
            pages.append(CrawlPage(f"https://legacy{i}.{tld}/{i}/", text.encode(codec), header, text, f"{label}/{how}"))
        else:
            lang, tld = rng.choice(CRAWL_UTF8)
            text = page(rng, kb, lang, "utf-8" if how == "meta" else None)
            header = "text/html; charset=utf-8" if how == "header" else "text/html"
            pages.append(CrawlPage(f"https://site{i}.{tld}/{i}/", text.encode(), header, text, f"UTF-8/{how}"))
    return pages


def _trap(rng: random.Random, i: int, kind: str, kb: int) -> CrawlPage:
    url = f"https://trap{i}.example/{i}/"
    if kind == "utf8-under-latin1-header":  # a server default the page's author never saw
        text = page(rng, kb, rng.choice(["ja", "ru", "de"]), "utf-8")
        return CrawlPage(url, text.encode(), "text/html; charset=ISO-8859-1", text, kind)
    if kind == "meta-past-1024":  # a long <head> pushes the <meta> past the prescan's 1024 bytes
        text = page(rng, kb, "ru", "windows-1251")
        filler = "<script>/* " + "x" * 1500 + " */</script>"
        text = text.replace("<head>", f"<head>{filler}", 1)
        return CrawlPage(url, text.encode("cp1251"), "text/html", text, kind)
    if kind == "bom-against-header":  # the BOM beats the header (WHATWG decode)
        text = page(rng, kb, "de", None)
        return CrawlPage(url, b"\xef\xbb\xbf" + text.encode(), "text/html; charset=windows-1252", text, kind)
    # "latin1-label-cp1252-text": the label iso-8859-1 means windows-1252 (curly quotes, the euro sign)
    text = page(rng, kb, "fr", None).replace("<p>", "<p>\u201cPrix\u00a0: 10\u00a0\u20ac\u201d \u2013 ")
    return CrawlPage(url, text.encode("cp1252"), "text/html; charset=iso-8859-1", text, kind)


def produce(connection: KafkaConnection, topic: str, items, *, rate: float | None = None, prefix: str = "r") -> int:
    """Produce Avro RawResponse records keyed ``<prefix>-<i>``; paced at *rate* per second when given."""
    if items and isinstance(items[0], CrawlPage):
        return produce_crawl(connection, topic, items, rate=rate, prefix=prefix)
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


def produce_crawl(connection: KafkaConnection, topic: str, pages: list[CrawlPage], *, rate: float | None,
                  prefix: str) -> int:  # fmt: skip
    """Write the crawl through ``LandingWriter``, as a crawler does: each record's URL (its key) is its
    page's with ``<prefix><i>`` appended. Returns the body bytes written."""
    from consumer.ingest import LandingWriter

    started, total = time.monotonic(), 0
    with LandingWriter(topic, connection, flush_timeout_s=120) as landing:
        for i, crawled in enumerate(pages):
            if rate:
                delay = started + i / rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)  # pacing the offered load
            landing.write(f"{crawled.url}{prefix}{i}", 200, [("Content-Type", crawled.content_type)], crawled.body)
            total += len(crawled.body)
    return total


def right_text_judge(kind: str, pages: list[CrawlPage]) -> Callable[[str, bytes, bytes], bool] | None:
    """Whether an output record carries its page's known text (None for the pass-through: no text).
    The processor's quarantine records carry bytes, not text: never right."""
    texts = {crawled.url.rsplit("/", 2)[1]: crawled.text for crawled in pages}

    def expected(key: bytes) -> str:
        return texts[key.decode().rsplit("/", 2)[1]]

    if kind == "naive":
        import json

        return lambda topic, key, value: json.loads(value)["text"] == expected(key)
    if kind.startswith("processor"):
        from consumer.serialization.avro import AvroDeserializer

        read = AvroDeserializer(SchemaStore(), "DecodedResponse")
        return lambda topic, key, value: topic.startswith("bench-clean-") and read(value)["text"] == expected(key)
    return None


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


# -- the naive loop (a child process): the floor every user can write in an afternoon ------------


def requests_encoding(content_type: str | None) -> str | None:
    """The encoding requests' ``Response.text`` uses: the header's charset, else ISO-8859-1 for text/*
    (``requests.utils.get_encoding_from_headers``; its guess runs only for non-text types)."""
    if not content_type:
        return None
    mime, *params = (part.strip() for part in content_type.split(";"))
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            return value.strip("'\" ")
    return "ISO-8859-1" if "text" in mime else None


def requests_text(body: bytes, content_type: str | None) -> str:
    """``Response.text``: Python's codec for that label, errors replaced; an unknown label: UTF-8."""
    try:
        return str(body, requests_encoding(content_type) or "utf-8", errors="replace")
    except (LookupError, TypeError):
        return str(body, errors="replace")


def naive_main(args: argparse.Namespace) -> int:
    """A plain confluent-kafka loop: consume a batch, decode as requests does, JSON out, flush,
    commit (at-least-once). The Avro read is the processor's; the clients have librdkafka's
    defaults, as an afternoon's code does: no compression (the floor's CPU is then the lowest;
    with the processor's zstd its librdkafka threads took ~200 us a record more, bench/RESULTS.md)."""
    import json

    from confluent_kafka import Consumer, Producer

    from consumer.serialization.avro import AvroDeserializer

    conf = KafkaConnection.from_env().as_librdkafka_dict()
    consumer = Consumer({**conf, "group.id": args.group, "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    producer = Producer(conf)
    deserialize = AvroDeserializer(SchemaStore(), "RawResponse")
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    consumer.subscribe([args.landing])
    while not stopping.is_set():
        messages = consumer.consume(args.batch_size, 0.2)
        for message in messages:
            if message.error() is not None:
                continue
            raw = deserialize(message.value())
            content_type = next((h["value"] for h in raw["headers"] if h["name"].lower() == "content-type"), None)
            text = requests_text(raw["body"], content_type)
            value = json.dumps({"url": raw["url"], "status": raw["status"], "text": text})
            while True:
                try:
                    producer.produce(args.output, value.encode(), message.key())
                    break
                except BufferError:
                    producer.poll(0.05)
        if messages:
            producer.flush()
            consumer.commit(asynchronous=False)
    consumer.close()
    return 0


# -- measuring -------------------------------------------------------------------------------


@dataclass
class Reader:
    """A read_committed reader in a thread: when each output key became visible."""

    connection: KafkaConnection
    topics: list[str]
    seen: dict[bytes, float] = field(default_factory=dict)
    #: (topic, key, value) -> whether the output's text is right; its answers in ``right``.
    judge: Callable[[str, bytes, bytes], bool] | None = None
    right: dict[bytes, bool] = field(default_factory=dict)

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
                            if self.judge is not None:
                                self.right[message.key()] = self.judge(message.topic(), message.key(), message.value())
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
    #: The crawl mix: share of the records whose output carries the page's known text.
    right: float = float("nan")


class Contender:
    """One child process (processor, pass-through or naive loop) on fresh topics."""

    def __init__(
        self, kind: str, mode: str, connection: KafkaConnection, batch_size: int, max_body: int,
        partitions: int = PARTITIONS, judge: Callable[[str, bytes, bytes], bool] | None = None,
        kafka_config: dict[str, str] | None = None, settings: dict[str, object] | None = None,
    ) -> None:  # fmt: skip
        self.kind, self.mode, self.connection = kind, mode, connection
        # A processor's further settings (by field name), given as CRAWL_DECODER_* variables.
        self.settings = settings or {}
        # A processor variant's librdkafka settings (its kafka_config), given as CRAWL_DECODER_KAFKA_CONFIG_*.
        self.kafka_config = kafka_config or {}
        self.partitions, self.judge = partitions, judge
        suffix = uuid.uuid4().hex[:10]
        self.landing = f"bench-landing-{suffix}"
        self.outputs = {
            "processor": [f"bench-clean-{suffix}", f"bench-quarantine-{suffix}"], "naive": [f"bench-json-{suffix}"],
        }.get(kind.split()[0], [f"bench-copy-{suffix}"])  # fmt: skip
        ensure_topics(make_admin(connection), [self.landing, *self.outputs], partitions=partitions)
        self.group, self.txn = f"bench-{suffix}", f"bench-txn-{suffix}"
        self.batch_size, self.max_body = batch_size, max_body
        self.process: subprocess.Popen | None = None
        self.cpu_s = float("nan")  # the child's CPU time when it was stopped
        self.rdkafka_cpu_s = float("nan")  # the part of it its librdkafka threads used
        # Shares of the measured time its main thread ran and waited for a core (the rest it was blocked).
        self.main_ran = self.main_waited = float("nan")
        self.right = float("nan")  # share of right texts, once the round's outputs are checked

    def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CRAWL_DECODER_")}
        env["KAFKA_BOOTSTRAP_SERVERS"] = self.connection.bootstrap_servers
        if self.kind.startswith("processor"):
            for name, value in self.kafka_config.items():
                env[f"CRAWL_DECODER_KAFKA_CONFIG_{name.upper().replace('.', '_')}"] = value
            env.update({
                "CRAWL_DECODER_LANDING_TOPIC": self.landing, "CRAWL_DECODER_CLEAN_TOPIC": self.outputs[0],
                "CRAWL_DECODER_QUARANTINE_TOPIC": self.outputs[1], "CRAWL_DECODER_GROUP_ID": self.group,
                "CRAWL_DECODER_TRANSACTIONAL_ID": self.txn, "CRAWL_DECODER_PROCESSING_MODE": self.mode,
                "CRAWL_DECODER_BATCH_SIZE": str(self.batch_size), "CRAWL_DECODER_HTTP_PORT": "0",
                "CRAWL_DECODER_OVERRIDES_PATH": "/nonexistent/overrides.yaml", "CRAWL_DECODER_LOG_LEVEL": "warning",
                "CRAWL_DECODER_MAX_BODY_BYTES": str(self.max_body),
            })  # fmt: skip
            env.update({f"CRAWL_DECODER_{name.upper()}": str(value) for name, value in self.settings.items()})
            command = [sys.executable, "-m", "consumer.cli", "run"]
        else:
            command = [
                sys.executable, __file__, "--naive" if self.kind == "naive" else "--passthrough", "--landing", self.landing, "--output", self.outputs[0],
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
    progress = Progress(contender.connection, contender.group, contender.landing, contender.partitions)
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
        contender.right = _check_outputs(contender, len(items), timeout)
        return done / seconds, total_bytes / MiB * done / len(items) / seconds, peak, busy
    finally:
        progress.close()
        if contender.process.poll() is None:
            contender.stop()


def _check_outputs(contender: Contender, count: int, timeout: float) -> float:
    """Every landing record has an output (untimed, after the round): a commit without its
    outputs would make the round's rate a lie. Returns the share of records whose output has the
    right text, when the contender has a judge (NaN otherwise)."""
    reader = Reader(contender.connection, contender.outputs, judge=contender.judge)
    try:
        if not reader.wait_for(count, timeout):
            print(f"  {contender.kind}/{contender.mode}: only {len(reader.seen)} of {count} outputs", flush=True)
    finally:
        reader.close()
    return sum(reader.right.values()) / count if contender.judge is not None else float("nan")


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
    crawl = args.mix == "crawl"
    # The crawl mix adds the naive loop, the floor its targets are measured against.
    kinds = ("pass-through", "naive", "processor") if crawl else ("pass-through", "processor")
    # Each --variant is one more processor contender, alternated with the others in every round.
    kinds += tuple(f"processor {name}" for name in args.variant)
    partitions = CRAWL_PARTITIONS if crawl else PARTITIONS
    for mode in args.modes:
        rounds: dict[str, list[Result]] = {kind: [] for kind in kinds}
        # Alternating rounds, so that the machine's swings (it is shared) hit every contender alike.
        for round_number in range(1, args.rounds + 1):
            for kind in kinds:
                judge = right_text_judge(kind, items) if crawl else None
                contender = Contender(kind, mode, connection, args.batch_size, args.max_body, partitions, judge,
                                      args.variant.get(kind.removeprefix("processor ")))  # fmt: skip
                result = Result(kind, mode)
                result.records_s, result.mb_s, result.peak_rss_mb, result.machine_busy = throughput(
                    contender, items, args.timeout
                )
                result.cpu_us = contender.cpu_s / len(items) * 1e6
                result.cpu_rdkafka_us = contender.rdkafka_cpu_s / len(items) * 1e6
                result.cpu_python_us = result.cpu_us - result.cpu_rdkafka_us
                result.main_ran, result.main_waited = contender.main_ran, contender.main_waited
                result.right = contender.right
                contender.delete_topics()
                rounds[kind].append(result)
                print(f"  round {round_number} {kind:12} {mode:13} {result.records_s:9.0f} rec/s "
                      f"{result.mb_s:8.1f} MB/s {result.cpu_us:6.0f} CPU us/record (Python threads "
                      f"{result.cpu_python_us:.0f}, librdkafka {result.cpu_rdkafka_us:.0f}); "
                      f"machine {result.machine_busy:.0%} busy; main thread ran {result.main_ran:.0%}, "
                      f"waited for a core {result.main_waited:.0%}, blocked "
                      f"{1 - result.main_ran - result.main_waited:.0%}"
                      + (f"; right text {result.right:.1%}" if result.right == result.right else ""), flush=True)  # fmt: skip
        if crawl:
            crawl_summary(mode, rounds)
        pairs = list(zip(rounds["processor"], rounds["pass-through"], strict=True))
        # A round the sampler never saw between the first commit and the last has no rate: left out, said.
        ratios = [p.records_s / q.records_s for p, q in pairs if p.records_s and q.records_s]
        if len(ratios) < len(pairs):
            print(f"  {mode}: {len(pairs) - len(ratios)} round(s) not timed, left out of the ratios", flush=True)
        print(f"  {mode}: processor / pass-through records/s by round: "
              + ", ".join(f"{r:.2f}x" for r in ratios) + f"; {ratio_summary(ratios)}", flush=True)  # fmt: skip
        results.extend(_median_result(rounds[kind]) for kind in kinds)
        if not args.latency_records:
            continue
        rates = {result.name: result.records_s for result in results[-len(kinds) :]}
        rate = 0.5 * min(rates.values())
        for result in results[-len(kinds) :]:
            contender = Contender(result.name, mode, connection, args.batch_size, args.max_body, partitions,
                                  kafka_config=args.variant.get(result.name.removeprefix("processor ")))  # fmt: skip
            result.p50_ms, result.p99_ms = latency(contender, latency_items, rate, args.timeout)
            contender.delete_topics()
            print(f"  {result.name:12} {mode:13} latency at {rate:.0f} rec/s: p50 {result.p50_ms:.0f} ms, p99 {result.p99_ms:.0f} ms", flush=True)
    if args.big:
        results.append(big_messages(args, connection))
    return results


def crawl_summary(mode: str, rounds: dict[str, list[Result]]) -> None:
    """Each processor (the default and every variant) against the naive loop, round by round: records/s,
    CPU a record; then every contender's right text."""
    processors = [kind for kind in rounds if kind.startswith("processor")]
    for kind in processors:
        pairs = [(p, q) for p, q in zip(rounds[kind], rounds["naive"], strict=True) if p.records_s and q.records_s]
        rates = [p.records_s / q.records_s for p, q in pairs]
        cpus = [p.cpu_us / q.cpu_us for p, q in pairs]
        print(f"  {mode}: {kind} / naive loop records/s by round: " + ", ".join(f"{r:.2f}x" for r in rates)
              + f"; {ratio_summary(rates, CRAWL_TARGET_RATIO)}", flush=True)  # fmt: skip
        print(f"  {mode}: {kind} / naive loop CPU a record by round: " + ", ".join(f"{r:.2f}x" for r in cpus)
              + f"; {ratio_summary(cpus, CRAWL_TARGET_CPU, above=True)}", flush=True)  # fmt: skip
    for kind in ("naive", *processors):
        rights = [r.right for r in rounds[kind]]
        print(f"  {mode}: {kind} right text {min(rights):.1%}-{max(rights):.1%} over the rounds", flush=True)


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


def ratio_summary(ratios: list[float], target: float = TARGET_RATIO, above: bool = False) -> str:
    """The median ratio with its 95% interval, and how many rounds missed the target (fell below it,
    or rose above it when *above*: a CPU ratio)."""
    interval = median_interval(ratios)
    spread = f" (95% interval {interval[0]:.2f}x-{interval[1]:.2f}x)" if interval else ""
    missed = sum(r > target if above else r < target for r in ratios)
    side = "above" if above else "below"
    return f"median {statistics.median(ratios):.2f}x{spread}; {missed} of {len(ratios)} rounds {side} {target}x"


def _median_result(rounds: list[Result]) -> Result:
    """The contender's median round by records/s (its own MB/s, CPU and RSS with it), RSS the highest seen."""
    middle = sorted(rounds, key=lambda r: r.records_s)[len(rounds) // 2]
    return Result(middle.name, middle.mode, middle.records_s, middle.mb_s,
                  peak_rss_mb=max(r.peak_rss_mb for r in rounds), cpu_us=middle.cpu_us,
                  cpu_python_us=middle.cpu_python_us, cpu_rdkafka_us=middle.cpu_rdkafka_us,
                  machine_busy=middle.machine_busy, main_ran=middle.main_ran,
                  main_waited=middle.main_waited, right=middle.right)  # fmt: skip


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
        f"{'contender':16} {'mode':14} {'rec/s':>8} {'MB/s':>7} {'p50 ms':>8} {'p99 ms':>8} {'peak RSS MB':>12} {'CPU us/rec':>11} {'right':>7}",
    ]
    for r in results:
        lines.append(
            f"{r.name:16} {r.mode:14} {r.records_s:8.0f} {r.mb_s:7.1f} {r.p50_ms:8.0f} {r.p99_ms:8.0f} {r.peak_rss_mb:12.0f}"
            f" {r.cpu_us:11.0f} " + (f"{r.right:7.1%}" if r.right == r.right else f"{'':>7}")
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
    if any(r.name == "naive" for r in results):
        lines.append("ratio processor (and each variant) / naive loop (median rounds)")
        for mode in dict.fromkeys(r.mode for r in results if r.name == "naive"):
            q = next(r for r in results if r.name == "naive" and r.mode == mode)
            for p in (r for r in results if r.name.startswith("processor") and r.mode == mode and r.name != "processor 16MB"):
                lines.append(f"  {p.name:20} {mode:14} records/s {p.records_s / q.records_s:5.2f}x   CPU a record "
                             f"{p.cpu_us / q.cpu_us:5.2f}x   peak RSS {p.peak_rss_mb / q.peak_rss_mb:5.2f}x")  # fmt: skip
    return "\n".join(lines)


def variant(text: str) -> tuple[str, dict[str, str]]:
    """--variant's NAME:PROPERTY=VALUE[,PROPERTY=VALUE...]."""
    name, _, settings = text.partition(":")
    pairs = [setting.partition("=") for setting in settings.split(",") if setting]
    if not name or not pairs or any(not key or not sep for key, sep, _ in pairs):
        raise argparse.ArgumentTypeError(f"expected NAME:PROPERTY=VALUE[,PROPERTY=VALUE...], not {text!r}")
    return name, {key: value for key, _, value in pairs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20000, help="records in each throughput run")
    parser.add_argument("--kb", type=int, default=30, help="approximate size of each page")
    parser.add_argument("--latency-records", type=int, default=2000, help="records in each latency run (0: skip it)")
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3, help="alternating throughput rounds per mode (median reported)")
    parser.add_argument("--big", type=int, default=4, help="16 MB bodies in the last run (0: skip it)")
    parser.add_argument("--max-body", type=int, default=16 * MiB, help="processor max_body_bytes")
    parser.add_argument(
        "--modes", nargs="+", default=["at-least-once", "exactly-once"], choices=["at-least-once", "exactly-once"]
    )
    parser.add_argument("--timeout", type=float, default=600.0, help="per run")
    parser.add_argument("--variant", action="append", type=variant, default=[], metavar="NAME:PROPERTY=VALUE[,...]",
                        help="one more processor contender with these librdkafka settings (its kafka_config), "
                             "e.g. lz4:compression.type=lz4; repeatable")  # fmt: skip
    parser.add_argument("--mix", choices=sorted([*MIXES, "crawl"]), default="web",
                        help="web: ~10%% legacy pages (Shift_JIS, GBK, windows-1251, EUC-KR, windows-1252); "
                             "cjk: 30%% Shift_JIS, EUC-JP, Big5 and GBK pages, as a .jp/.tw crawl; "
                             "crawl: issue 31's crawl (5-60 KB, ~15%% legacy in seven encodings, traps, "
                             "6 partitions), with the naive loop as a third contender")  # fmt: skip
    # The pass-through child's own options.
    parser.add_argument("--passthrough", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--naive", action="store_true", help=argparse.SUPPRESS)
    for name in ("--landing", "--output", "--group", "--txn", "--mode"):
        parser.add_argument(name, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.variant = dict(args.variant)
    if args.passthrough:
        return passthrough_main(args)
    if args.naive:
        return naive_main(args)

    bootstrap, stop_broker = broker_for_bench()
    try:
        legacy = sum(str(item[0] if isinstance(item, tuple) else item.url).startswith("https://legacy")
                     for item in corpus(args.records, args.kb, mix=args.mix))  # fmt: skip
        print(f"broker {bootstrap}; {args.records} records of ~{args.kb} KB, mix {args.mix} "
              f"({legacy / args.records:.0%} legacy pages), batch {args.batch_size}", flush=True)  # fmt: skip
        results = run(args, KafkaConnection(bootstrap))
    finally:
        stop_broker()
    print()
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
