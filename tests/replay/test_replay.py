"""Replay on the real broker: released exactly once, re-runs add nothing, still-lossy records counted."""

from __future__ import annotations

import json
from collections import Counter

from consumer.decoding import OverrideTable

from replay_helpers import (
    DE_HOST,
    LEGACY_HOST,
    assert_lossy,
    committed_offsets,
    damaged_utf8_page,
    legacy_case,
    raw,
    summary_of,
    write_overrides,
)


def legacy_items(n: int):
    """*n* pages lossy until an override forces their real encoding, and that case."""
    case = legacy_case(n)
    items = []
    for i in range(n):
        url, body = case.page(i)
        assert_lossy(url, body, fixed_by=OverrideTable([case.override()]))
        items.append((f"legacy-{i}".encode(), raw(url, body)))
    return items, case


def damaged_items(n: int, bad_bytes: int, prefix: str) -> list[tuple[bytes, dict]]:
    items = []
    for i in range(n):
        url, body = damaged_utf8_page(i, bad_bytes)
        assert_lossy(url, body, replacements=bad_bytes)
        items.append((f"{prefix}-{i}".encode(), raw(url, body)))
    return items


def test_an_override_releases_quarantined_pages_exactly_once_and_a_rerun_adds_nothing(
    quarantine, replay, outputs, settings_for, tmp_path, kafka_connection
):
    legacy, case = legacy_items(8)
    still = damaged_items(3, 2, "de")
    quarantined = quarantine(legacy + still)
    assert {r["reason"] for r in quarantined} == {"lossy"}
    write_overrides(tmp_path / "overrides.yaml", case.override())

    status, out = replay()
    assert status == 0
    counts = summary_of(out)
    assert counts["read"] == 11 and counts["released"] == 8 and counts["still lossy"] == 3
    clean = outputs.clean()
    assert Counter(r["key"] for r in clean) == Counter(k for k, _ in legacy), "each released record exactly once"
    for record in clean:
        assert case.title in record["text"]
        assert (record["encoding"], record["source"]) == (case.encoding, "override")
        assert record["override"]["host"] == LEGACY_HOST and record["override"]["encoding"] == case.encoding
        assert record["kafka_headers"] == [("trace", record["key"])], "original Kafka headers kept"
        assert record["url"].startswith(f"https://{LEGACY_HOST}/")
        assert record["replacement_threshold"] == 0
    left = outputs.quarantine()
    assert len(left) == 14, "the 3 still-lossy records are written again ahead of the cursor"
    assert [r["key"] for r in left[11:]] == [k for k, _ in still] and {r["replay_count"] for r in left[11:]} == {1}
    group = f"{settings_for().group_id}-replay"
    cursor = committed_offsets(kafka_connection, group, settings_for().quarantine_topic)
    assert left[10]["offset"] < cursor[0] <= left[11]["offset"], "the cursor is past the originals, not the copies"

    status, out = replay()
    counts = summary_of(out)
    assert status == 0 and counts["read"] == 3 and counts["still lossy"] == 3, "only the copies are read again"
    assert len(outputs.clean()) == 8, "a re-run adds no duplicate"


def test_a_threshold_releases_pages_with_few_replacements_and_is_recorded(quarantine, replay, outputs):
    few = damaged_items(4, 3, "few")
    many = damaged_items(2, 9, "many")
    quarantine(few + many)

    status, out = replay("--threshold", "5")
    assert status == 0
    assert summary_of(out)["released"] == 4 and summary_of(out)["still lossy"] == 2
    clean = outputs.clean()
    assert sorted(r["key"] for r in clean) == sorted(k for k, _ in few)
    for record in clean:
        assert record["replacements"] == 3 and record["replacement_threshold"] == 5
        assert record["text"].count("\ufffd") == 3
        assert (record["encoding"], record["source"]) == ("UTF-8", "meta-prescan")


def test_with_json_logging_the_summary_is_also_a_json_line(quarantine, replay):
    quarantine(damaged_items(4, 3, "few") + damaged_items(2, 9, "many"))

    status, out = replay("--threshold", "5")  # stderr is not a terminal here: the logs are JSON
    assert status == 0 and summary_of(out)["released"] == 4, "the table for a person stays on stdout"
    lines = [json.loads(line) for line in replay.err.splitlines() if line.startswith("{")]
    [finished] = [line for line in lines if line["event"] == "replay finished"]
    assert (finished["read"], finished["released"], finished["still_lossy"]) == (6, 4, 2)
    assert finished["still_quarantined_by_reason"] == {"lossy": 2}
    assert finished["dry_run"] is False and finished["interrupted"] is False


def test_progress_reaches_the_end_though_transaction_markers_take_offsets(quarantine, replay, outputs):
    quarantine(damaged_items(30, 2, "p"))
    planned = sum(outputs.ends()["quarantine"].values())
    assert planned > 30, "premise: the processor's transactions left markers among the 30 records"

    status, out = replay()
    assert status == 0 and summary_of(out)["read"] == 30
    progress = [entry for entry in json_lines(replay.err) if entry.get("event") == "replay progress"]
    assert progress, replay.err
    last = progress[-1]
    assert last["offsets_done"] == last["offsets_total"] == planned, "100%, markers included"
    assert last["read"] == 30


def json_lines(text: str) -> list[dict]:
    found = []
    for line in text.splitlines():
        try:
            found.append(json.loads(line))
        except ValueError:
            continue  # librdkafka's own lines
    return found


def test_dry_run_writes_and_commits_nothing_and_shows_what_would_change(
    quarantine, replay, outputs, settings_for, tmp_path, kafka_connection
):
    legacy, case = legacy_items(5)
    quarantine(legacy + damaged_items(2, 2, "de"))
    write_overrides(tmp_path / "overrides.yaml", case.override())
    ends = outputs.ends()

    status, out = replay("--dry-run")
    assert status == 0
    assert outputs.ends() == ends, "no record written to any topic"
    group = f"{settings_for().group_id}-replay"
    assert set(committed_offsets(kafka_connection, group, settings_for().quarantine_topic).values()) == {-1001}
    table = {line.split()[0]: line for line in out.splitlines() if line.startswith((LEGACY_HOST, DE_HOST))}
    assert table[LEGACY_HOST].split()[1:3] == ["5", "0"]
    assert f"UTF-8/meta-prescan -> {case.encoding}/override (5)" in table[LEGACY_HOST]
    assert table[DE_HOST].split()[1:3] == ["0", "2"]
    assert summary_of(out)["would be released"] == 5

    status, out = replay()
    assert summary_of(out)["released"] == 5, "the dry run consumed nothing"


def test_an_unreadable_record_is_read_again_and_released_once_its_schema_is_known(
    replay, outputs, settings_for, kafka_connection, store, topics
):
    from consumer.kafka import make_producer
    from consumer.processor.records import Origin, quarantine_record
    from consumer.serialization.avro import AvroSerializer

    url, body = "https://ok.example.org/", "<p>héllo</p>".encode()
    readable_now = AvroSerializer(store, "RawResponse")(raw(url, body, "text/html; charset=utf-8"))
    serialize = AvroSerializer(store, "QuarantinedResponse")
    records = [
        quarantine_record(reason="unknown-schema", origin=Origin(topics["landing"], 0, i, None), quarantined_at_ms=1,
                          key=key, value=value, kafka_headers=[("trace", key)], error="unknown writer schema")
        for i, (key, value) in enumerate([(b"known-now", readable_now), (b"garbage", b"not avro at all")])
    ]
    producer = make_producer(kafka_connection)
    for record in records:
        producer.produce(topics["quarantine"], serialize(record), record["raw_key"])
    assert producer.flush(30) == 0

    status, out = replay()
    assert status == 0
    counts = summary_of(out)
    assert counts["released"] == 1 and counts["still unreadable"] == 1 and counts["requarantined"] == 1
    (clean,) = outputs.clean()
    assert clean["key"] == b"known-now" and clean["text"] == "<p>héllo</p>"
    again = outputs.quarantine()[-1]
    assert again["raw_value"] == b"not avro at all" and again["replay_count"] == 1
    assert again["reason"] == "unreadable-record" and again["raw"] is None


def test_a_missing_quarantine_topic_is_a_clear_error(replay, config_file, tmp_path):
    import yaml

    values = yaml.safe_load(config_file.read_text())
    values["quarantine_topic"] = "test-no-such-topic-" + tmp_path.name
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump(values))
    status, _ = replay("--config", str(other))
    assert status == 2
    assert f"quarantine topic {values['quarantine_topic']!r} does not exist" in replay.err


def test_an_unknown_settings_variable_is_reported_at_start(replay, monkeypatch):
    monkeypatch.setenv("CRAWL_DECODER_BATCHSIZE", "10")
    status, out = replay()
    assert status == 0 and summary_of(out)["read"] == 0
    warnings = [e for e in json_lines(replay.err) if e.get("event") == "unknown settings variable ignored"]
    assert ("CRAWL_DECODER_BATCHSIZE", "CRAWL_DECODER_BATCH_SIZE") in [(e["variable"], e["did_you_mean"]) for e in warnings]
