"""``overrides suggest`` on the real broker, from records an override could fix that are not lossy: clean
records published with mojibake suspected, and records quarantined as ``declaration-doubted``.

The clean records are written as a processor wrote them before it read UTF-8 under a left-over legacy
declaration as UTF-8 (the clean topic keeps months of them); the doubted records as the quarantine keeps
them, raw record included:

- ``shop.example.fr``: migrated to UTF-8, left ``charset=iso-8859-1`` in its header: published as
  windows-1252 mojibake ("CafÃ©"); its ASCII pages, and one old page in true windows-1252, are clean and not
  suspected;
- ``gz.example.fr``: the same, its bodies still gzip-coded in the raw records (the hash cannot check);
- ``double.example.com``: its own UTF-8 is mojibake (double-encoded upstream): no override repairs it;
- ``broken.example.org``: a record whose bytes cannot be rebuilt (the hash does not match);
- ``old.example.fr``: like the first, landed a month earlier (``--since``);
- ``news.example.kr``: EUC-KR served as windows-1252, quarantined ``declaration-doubted``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import gzip
import hashlib
import json
import uuid
from pathlib import Path

import pytest
import yaml

from consumer.cli import main
from consumer.decoding import Override, OverrideMode, OverrideTable, decode
from consumer.kafka import ensure_topics, make_admin, make_producer
from consumer.processor.records import Origin, clean_record, quarantine_record
from consumer.serialization.avro import AvroSerializer
from consumer.settings import Settings

MIGRATED, GZIPPED, DOUBLE, BROKEN, OLD_HOST, DOUBTED = (
    "shop.example.fr", "gz.example.fr", "double.example.com", "broken.example.org", "old.example.fr",
    "news.example.kr",
)
OLD = int(dt.datetime(2026, 11, 1, tzinfo=dt.UTC).timestamp() * 1000)
NEW = int(dt.datetime(2026, 12, 4, tzinfo=dt.UTC).timestamp() * 1000)
TODAY = "2026-12-05"
FRENCH = "<p>Café crème brûlée, déjà vu à la carte, naïve façade, page {i}</p>"
KOREAN = "<p>대한민국의 수도는 서울이며, 인구는 약 천만 명이다. 한국어는 한글로 적는다. {i}</p>"
LATIN1 = "text/html; charset=iso-8859-1"


def raw(url: str, body: bytes, content_type: str, **headers: str) -> dict:
    listed = [{"name": "Content-Type", "value": content_type}]
    listed += [{"name": name.replace("_", "-"), "value": value} for name, value in headers.items()]
    return {"url": url, "fetched_at": NEW, "status": 200, "body": body, "headers": listed}


def published(record: dict, body: bytes, encoding: str, source: str) -> dict:
    """The clean record of *body* read as *encoding* (decided by *source*), as the processor wrote it."""
    url = record["url"]
    forced = decode(body, record["headers"][0]["value"], url,
                    OverrideTable([Override(url.split("/")[2], encoding, OverrideMode.FORCE, "as it was read",
                                            dt.date.max)]))
    decoded = forced._replace(source=source, override=None)
    return clean_record(record, decoded, decoded_at_ms=NEW)


def clean_records() -> list[tuple[int, dict]]:
    """(landing timestamp, clean record), in the order they are written."""
    found = []
    for i in range(6):
        body = FRENCH.format(i=i).encode()
        found.append((NEW, published(raw(f"https://{MIGRATED}/p/{i}", body, LATIN1), body, "windows-1252",
                                     "http-header")))
    for i in range(3):  # ASCII pages of the same host: nothing to suspect
        body = f"<p>page {i}</p>".encode()
        found.append((NEW, published(raw(f"https://{MIGRATED}/a/{i}", body, LATIN1), body, "windows-1252",
                                     "http-header")))
    body = "<p>Caf\xe9 cr\xe8me, page d'avant</p>".encode("cp1252")  # not UTF-8: an override must leave it
    found.append((NEW, published(raw(f"https://{MIGRATED}/old", body, LATIN1), body, "windows-1252",
                                 "http-header")))
    for i in range(3):
        body = FRENCH.format(i=i).encode()
        coded = raw(f"https://{GZIPPED}/p/{i}", gzip.compress(body), LATIN1, Content_Encoding="gzip")
        found.append((NEW, published(coded, body, "windows-1252", "http-header")))
    for i in range(4):
        body = FRENCH.format(i=i).encode().decode("cp1252").encode()
        found.append((NEW, published(raw(f"https://{DOUBLE}/p/{i}", body, "text/html; charset=utf-8"), body,
                                     "UTF-8", "http-header")))
    body = FRENCH.format(i=0).encode()
    broken = published(raw(f"https://{BROKEN}/p/0", body, LATIN1), body, "windows-1252", "http-header")
    found.append((NEW, {**broken, "body_sha256": hashlib.sha256(b"another body").hexdigest()}))
    for i in range(2):
        body = FRENCH.format(i=i).encode()
        found.append((OLD, published(raw(f"https://{OLD_HOST}/p/{i}", body, LATIN1), body, "windows-1252",
                                     "http-header")))
    found.sort(key=lambda item: item[0])  # a topic's timestamps grow with its offsets: --since finds the first
    return found


def doubted_records() -> list[dict]:
    found = []
    for i in range(4):
        body = KOREAN.format(i=i).encode("euc-kr")
        record = raw(f"https://{DOUBTED}/n/{i}", body, "text/html; charset=windows-1252")
        found.append(quarantine_record(
            reason="declaration-doubted", origin=Origin("landing", 0, i, NEW), quarantined_at_ms=NEW, raw=record,
            decoded=decode(body, "text/html; charset=windows-1252", record["url"]),
            error="windows-1252 is declared; the text reads as EUC-KR",
        ))
    return found


@pytest.fixture(scope="module")
def topics(kafka_connection, store, tmp_path_factory) -> Path:
    """The clean and quarantine topics written; the settings file naming them."""
    names = {which: f"test-suggest-published-{which}-{uuid.uuid4().hex}" for which in ("landing", "clean",
                                                                                       "quarantine")}
    ensure_topics(make_admin(kafka_connection), list(names.values()), partitions=1)
    producer = make_producer(kafka_connection)
    serialize_clean = AvroSerializer(store, "DecodedResponse")
    for stamp, record in clean_records():
        if record["url"].split("/")[2] in (MIGRATED, GZIPPED, OLD_HOST) and record["url"].split("/")[3] == "p":
            assert record["mojibake_suspected"], f"{record['url']}: the premise, mojibake suspected"
        producer.produce(names["clean"], serialize_clean(record), record["url"].encode(), timestamp=stamp)
    serialize_quarantine = AvroSerializer(store, "QuarantinedResponse")
    for record in doubted_records():
        producer.produce(names["quarantine"], serialize_quarantine(record), timestamp=NEW)
    assert producer.flush(60) == 0
    directory = tmp_path_factory.mktemp("suggest-published")
    settings = Settings(landing_topic=names["landing"], clean_topic=names["clean"],
                        quarantine_topic=names["quarantine"], group_id=f"test-group-{uuid.uuid4().hex}",
                        overrides_path=str(directory / "none.yaml"))
    config = directory / "config.yaml"
    config.write_text(yaml.safe_dump({k: getattr(v, "value", v) for k, v in dataclasses.asdict(settings).items()}))
    return config


@pytest.fixture
def suggest(topics, kafka_bootstrap, monkeypatch, capsys):
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", kafka_bootstrap)

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        status = main(["overrides", "suggest", "--config", str(topics), "--today", TODAY, *args])
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


def as_json(suggest, *args: str) -> dict:
    status, out, err = suggest("--json", *args)
    assert status == 0, err
    return json.loads(out)


def by_host(document: dict) -> dict[str, dict]:
    return {found["host"]: found for found in document["hosts"]}


def test_a_host_published_as_mojibake_gets_utf8(suggest):
    hosts = by_host(as_json(suggest))
    shop = hosts[MIGRATED]
    assert (shop["encoding"], shop["records"], shop["clean"], shop["kinds"]) == ("UTF-8", 6, 6, {"mojibake": 6})
    assert shop["declared"] == ["windows-1252"]
    assert "Café crème" in shop["sample"]
    assert "6 of 6 records published with mojibake suspected" in shop["entry"]["reason"]
    assert "windows-1252" not in [c["encoding"] for c in shop["candidates"] if c["clean"]]
    # Its true windows-1252 page: a forced UTF-8 gives way on it, its text stays.
    assert shop["controls"] == 1 and shop["candidates"][0]["changes"] == 0


def test_content_coded_bodies_are_rebuilt_from_a_one_to_one_decode(suggest):
    gz = by_host(as_json(suggest))[GZIPPED]
    assert (gz["encoding"], gz["records"], gz["clean"]) == ("UTF-8", 3, 3)


def test_mojibake_in_the_pages_own_utf8_gets_no_suggestion_and_the_reason(suggest):
    double = by_host(as_json(suggest))[DOUBLE]
    assert double["encoding"] is None and double["entry"] is None
    assert "double-encoded upstream" in double["why_none"]
    # A legacy encoding reads these valid UTF-8 bytes without an error, and not as mojibake: never clean.
    assert all(c["clean"] == 0 for c in double["candidates"])


def test_declaration_doubted_records_are_tried_as_lossy_ones_are(suggest):
    news = by_host(as_json(suggest))[DOUBTED]
    assert (news["encoding"], news["records"], news["clean"]) == ("EUC-KR", 4, 4)
    assert news["kinds"] == {"declaration-doubted": 4}
    assert "4 of 4 quarantined records" in news["entry"]["reason"]
    assert "한국어" in news["sample"]


def test_what_was_read_and_not_tried_is_counted(suggest):
    document = as_json(suggest)
    assert (document["read"], document["clean_read"], document["clean_suspected"]) == (4, 20, 16)
    assert document["skipped"] == {"clean, bytes not rebuildable": 1}
    assert BROKEN not in by_host(document)


def test_the_text_output_names_the_kind_of_records(suggest):
    status, out, _ = suggest()
    assert status == 0
    assert f"{MIGRATED}: UTF-8 (force): 6 of 6 mojibake-suspected clean record(s) decode cleanly (100%)" in out
    assert f"{DOUBTED}: EUC-KR (force): 4 of 4 declaration-doubted record(s) decode cleanly (100%)" in out
    assert f"{DOUBLE}: no suggestion (4 mojibake-suspected clean record(s))" in out
    assert "clean records read: 20, 16 with mojibake suspected" in out
    assert "of the host's 1 other clean record(s) read (no mojibake suspected), 0 would read differently" in out


def test_clean_last_bounds_the_clean_records_read(suggest):
    none = as_json(suggest, "--clean-last", "0")
    assert none["clean_read"] == 0 and set(by_host(none)) == {DOUBTED}
    few = as_json(suggest, "--clean-last", "4")
    assert few["clean_read"] == 4  # the newest four of the one partition


def test_host_and_since_select_clean_records_too(suggest):
    only = as_json(suggest, "--host", MIGRATED)
    assert set(by_host(only)) == {MIGRATED} and only["clean_read"] == 10
    assert OLD_HOST in by_host(as_json(suggest))
    assert OLD_HOST not in by_host(as_json(suggest, "--since", "2026-12-01"))


def test_a_missing_clean_topic_is_an_error(topics, kafka_bootstrap, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", kafka_bootstrap)
    config = tmp_path / "config.yaml"
    values = yaml.safe_load(topics.read_text())
    config.write_text(yaml.safe_dump({**values, "clean_topic": f"test-missing-{uuid.uuid4().hex}"}))
    assert main(["overrides", "suggest", "--config", str(config)]) == 1
    assert "cannot read the clean topic" in capsys.readouterr().err
