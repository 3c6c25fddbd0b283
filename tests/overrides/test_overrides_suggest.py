"""``overrides suggest`` on the real broker: pages quarantined by the real processor, suggestions read back.

Three hosts land in one module-scoped run of the processor:

- ``cdn.shop.example.com``: its CDN says ``charset=utf-8``, its pages are Shift_JIS (short titles the
  detector is not confident enough about to overrule the header, so they are quarantined lossy);
- ``news.example.org``: the same lie, pages in windows-1251;
- ``archive.example.net``: Shift_JIS declared truthfully, bodies cut mid-character by the crawler: lossy
  under every candidate, no suggestion.

The Shift_JIS host's records land a month before the others (``--since``), and first (``--max-records``).
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import uuid
from dataclasses import asdict
from pathlib import Path

import pytest
import yaml

from consumer.app import App
from consumer.cli import main
from consumer.decoding import decode
from consumer.kafka import ensure_topics, make_admin, make_consumer, make_producer
from consumer.overrides import load_overrides
from consumer.overrides.topics import window_records
from consumer.serialization.avro import AvroSerializer
from consumer.settings import Settings

LIAR = "cdn.shop.example.com"
CYRILLIC = "news.example.org"
TRUNCATED = "archive.example.net"
UTF8_HEADER = "text/html; charset=utf-8"
OLD = int(dt.datetime(2026, 11, 1, tzinfo=dt.UTC).timestamp() * 1000)
NEW = int(dt.datetime(2026, 12, 4, tzinfo=dt.UTC).timestamp() * 1000)
TODAY = "2026-12-05"

SHIFT_JIS_TITLES = "仙台 新宿 本 駅 山 空 地図 札幌 渋谷".split()
CYRILLIC_TITLES = "Лес Юг Ель Хлеб Вид".split()
JAPANESE = "東京都の天気予報です。今日は晴れのち曇り、明日は雨が降るでしょう。"


def titled(title: str, codec: str) -> bytes:
    return b"<html><head><title>" + title.encode(codec) + b"</title></head><body>item</body></html>"


def cut(i: int) -> bytes:
    """A long Shift_JIS page the crawler cut after a lead byte: only its last character is lost."""
    body = b"<html><body><p>" + (JAPANESE * 120).encode("shift_jis")[: 5000 + 7 * i]
    while not (0x81 <= body[-1] <= 0x9F or 0xE0 <= body[-1] <= 0xEF):
        body = body[:-1]
    return body


def pages() -> list[tuple[int, str, bytes, str]]:
    """(landing timestamp, url, body, content type), in the order they land."""
    found = [(OLD, f"https://{LIAR}/p/{i}", titled(t, "shift_jis"), UTF8_HEADER)
             for i, t in enumerate(SHIFT_JIS_TITLES)]
    found += [(NEW, f"https://{CYRILLIC}/a/{i}", titled(t, "windows-1251"), UTF8_HEADER)
              for i, t in enumerate(CYRILLIC_TITLES)]
    found += [(NEW, f"https://{TRUNCATED}/t/{i}", cut(i), "text/html; charset=shift_jis") for i in range(3)]
    for _, url, body, content_type in found:  # the premise: each is quarantined lossy today
        if not decode(body, content_type, url).lossy:
            pytest.fail(f"{url} decodes cleanly by default (the detector changed?): pick other titles")
    return found


@pytest.fixture(scope="module")
def quarantined(kafka_connection, store, tmp_path_factory) -> Path:
    """Every page run through the real processor into a fresh quarantine topic; the settings file."""
    names = {which: f"test-suggest-{which}-{uuid.uuid4().hex}" for which in ("landing", "clean", "quarantine")}
    ensure_topics(make_admin(kafka_connection), list(names.values()), partitions=1)
    directory = tmp_path_factory.mktemp("suggest")
    settings = Settings(landing_topic=names["landing"], clean_topic=names["clean"],
                        quarantine_topic=names["quarantine"], group_id=f"test-group-{uuid.uuid4().hex}",
                        transactional_id=f"test-tx-{uuid.uuid4().hex}", http_port=0,
                        overrides_path=str(directory / "none.yaml"), batch_size=200, batch_timeout_ms=100,
                        shutdown_timeout_s=20)
    landing = pages()
    producer = make_producer(kafka_connection)
    serialize = AvroSerializer(store, "RawResponse")
    for stamp, url, body, content_type in landing:
        value = serialize({"url": url, "fetched_at": stamp, "status": 200, "body": body,
                           "headers": [{"name": "Content-Type", "value": content_type}]})
        producer.produce(names["landing"], value, url.encode(), timestamp=stamp)
    assert producer.flush(60) == 0
    _process(kafka_connection, settings, names["quarantine"], len(landing))
    config = directory / "config.yaml"
    config.write_text(yaml.safe_dump({k: getattr(v, "value", v) for k, v in asdict(settings).items()}))
    return config


def _process(connection, settings: Settings, quarantine: str, expected: int) -> None:
    """Run the processor until *expected* records are in quarantine (read_committed)."""
    watcher = make_consumer(connection, f"watch-{uuid.uuid4().hex}")
    watcher.subscribe([quarantine])
    app = App(settings, connection)
    thread = threading.Thread(target=app.run, daemon=True)
    thread.start()
    seen, deadline = 0, dt.datetime.now() + dt.timedelta(seconds=120)
    try:
        while seen < expected:
            assert dt.datetime.now() < deadline, f"{seen} of {expected} records quarantined in 120 s"
            message = watcher.poll(0.5)
            seen += message is not None and message.error() is None
    finally:
        watcher.close()
        app.stop()
        thread.join(60)
    assert not thread.is_alive()


@pytest.fixture
def suggest(quarantined, kafka_bootstrap, monkeypatch, capsys):
    """``suggest(*args) -> (status, stdout, stderr)``: ``crawl-decoder overrides suggest`` in this process."""
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", kafka_bootstrap)

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        status = main(["overrides", "suggest", "--config", str(quarantined), "--today", TODAY, *args])
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


def by_host(out: str) -> dict[str, dict]:
    return {found["host"]: found for found in json.loads(out)["hosts"]}


def test_a_cdn_lying_about_its_charset_gets_the_pages_real_encoding(suggest):
    status, out, _ = suggest("--json")
    assert status == 0
    hosts = by_host(out)
    liar, cyrillic = hosts[LIAR], hosts[CYRILLIC]
    assert (liar["encoding"], liar["records"], liar["clean"]) == ("Shift_JIS", 9, 9)
    assert liar["declared"] == ["UTF-8"]
    assert "仙台" in liar["sample"] or "新宿" in liar["sample"]
    assert (cyrillic["encoding"], cyrillic["records"], cyrillic["clean"]) == ("windows-1251", 5, 5)
    assert any(title in cyrillic["sample"] for title in CYRILLIC_TITLES)
    entry = liar["entry"]
    assert entry["mode"] == "force" and entry["review_by"] == "2027-03-05"  # 90 days after --today
    assert "9 of 9 quarantined records" in entry["reason"] and "declared UTF-8" in entry["reason"]


def test_truncated_bodies_get_no_suggestion_and_the_reason(suggest):
    status, out, _ = suggest("--json")
    truncated = by_host(out)[TRUNCATED]
    assert status == 0
    assert truncated["encoding"] is None and truncated["entry"] is None
    assert "truncated" in truncated["why_none"] and "0 of 3" in truncated["why_none"]


def test_the_text_output_gives_evidence_and_entries_that_say_the_owner_is_missing(suggest):
    status, out, _ = suggest()
    assert status == 0
    assert f"{LIAR}: Shift_JIS (force): 9 of 9 lossy record(s) decode cleanly (100%)" in out
    assert f"{TRUNCATED}: no suggestion (3 lossy record(s))" in out
    listed = yaml.safe_load(out[out.index("\noverrides:\n"):])["overrides"]
    assert [e["host"] for e in listed] == [LIAR, CYRILLIC]
    assert all(e["owner"] is None for e in listed)  # printed to fill: the file refuses it until then


def test_host_filters(suggest):
    status, out, _ = suggest("--json", "--host", CYRILLIC)
    assert status == 0
    assert list(by_host(out)) == [CYRILLIC]


def test_since_bounds_by_landing_time(suggest):
    _, out, _ = suggest("--json", "--since", "2026-12-01")
    assert set(by_host(out)) == {CYRILLIC, TRUNCATED}  # the Shift_JIS pages landed in November


def test_max_records_stops_after_that_many(suggest):
    _, out, _ = suggest("--json", "--max-records", "3")
    document = json.loads(out)
    assert document["read"] == 3
    assert list(by_host(out)) == [LIAR]  # the first three to land
    assert by_host(out)[LIAR]["records"] == 3


def test_max_records_counts_the_records_selected(suggest):
    _, out, _ = suggest("--json", "--max-records", "2", "--since", "2026-12-01", "--host", TRUNCATED)
    assert json.loads(out)["read"] == 2
    assert by_host(out)[TRUNCATED]["records"] == 2


def test_write_appends_entries_that_validate(suggest, tmp_path):
    target = tmp_path / "overrides.yaml"
    original = Path("config/overrides.yaml").read_text(encoding="utf-8")
    target.write_text(original, encoding="utf-8")
    status, out, err = suggest("--write", str(target), "--owner", "crawl-quality")
    assert status == 0, err
    assert "2 entries appended" in out
    written = target.read_text(encoding="utf-8")
    assert written.startswith(original.rstrip("\n"))  # what was there is kept, comments included
    config = load_overrides(target)
    assert {o.host: o.encoding for o in config.overrides} == {
        "static.cdn.example.com": "UTF-8", "*.example.jp": "Shift_JIS", LIAR: "Shift_JIS", CYRILLIC: "windows-1251"}
    assert config.get(LIAR).owner == "crawl-quality"


def test_write_refuses_a_result_that_would_not_validate_and_leaves_the_file(suggest, tmp_path):
    target = tmp_path / "overrides.yaml"
    target.write_text(f"overrides:\n  - host: {LIAR}\n    encoding: EUC-JP\n    mode: force\n"
                      "    reason: an older guess\n    review_by: 2027-01-01\n    owner: someone\n")
    before = target.read_bytes()
    status, _, err = suggest("--write", str(target), "--owner", "crawl-quality")
    assert status == 1
    assert "not written" in err and "conflicting entries" in err
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["overrides.yaml"]  # no temporary file left behind


def test_write_needs_an_owner_or_a_ticket(suggest, tmp_path):
    target = tmp_path / "overrides.yaml"
    status, _, err = suggest("--write", str(target))
    assert status == 2 and "--owner or --ticket" in err
    assert not target.exists()


# -- the reader: read_committed, to the end as of its start -------------------------------------------------


def test_the_reader_stops_at_the_end_seen_at_its_start(kafka_connection, topic_factory):
    topic = topic_factory(partitions=2)
    producer = make_producer(kafka_connection)
    for i in range(6):
        producer.produce(topic, f"before {i}".encode(), partition=i % 2)
    assert producer.flush(30) == 0
    found = window_records(kafka_connection, topic, lambda value: {"value": value})
    first = next(found)
    for i in range(4):  # written while it reads: not this read's
        producer.produce(topic, f"after {i}".encode(), partition=i % 2)
    assert producer.flush(30) == 0
    values = [first[1]["value"]] + [record["value"] for _, record, _ in found]
    assert sorted(values) == [f"before {i}".encode() for i in range(6)]


def test_the_reader_skips_aborted_transactions(kafka_connection, topic_factory):
    topic = topic_factory()
    producer = make_producer(kafka_connection, transactional_id=f"test-tx-{uuid.uuid4().hex}")
    producer.init_transactions(30)
    for outcome in ("aborted", "committed"):
        producer.begin_transaction()
        producer.produce(topic, outcome.encode())
        producer.flush(30)
        (producer.abort_transaction if outcome == "aborted" else producer.commit_transaction)(30)
    values = [record["value"] for _, record, _ in window_records(kafka_connection, topic, lambda v: {"value": v})]
    assert values == [b"committed"]


def test_the_reader_starts_at_since(kafka_connection, topic_factory):
    topic = topic_factory()
    producer = make_producer(kafka_connection)
    for stamp in (OLD, NEW):
        producer.produce(topic, str(stamp).encode(), timestamp=stamp)
    assert producer.flush(30) == 0
    found = window_records(kafka_connection, topic, lambda v: {"value": v}, since_ms=NEW - 1)
    assert [record["value"] for _, record, _ in found] == [str(NEW).encode()]


def test_a_missing_quarantine_topic_is_an_error(quarantined, kafka_bootstrap, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", kafka_bootstrap)
    config = tmp_path / "config.yaml"
    values = yaml.safe_load(quarantined.read_text())
    config.write_text(yaml.safe_dump({**values, "quarantine_topic": f"test-missing-{uuid.uuid4().hex}"}))
    assert main(["overrides", "suggest", "--config", str(config)]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_write_with_nothing_to_suggest_leaves_the_file(suggest, tmp_path):
    target = tmp_path / "overrides.yaml"
    target.write_text("overrides: []\n")
    status, out, _ = suggest("--write", str(target), "--owner", "crawl-quality", "--host", TRUNCATED)
    assert status == 0 and "nothing to append" in out
    assert target.read_text() == "overrides: []\n"
