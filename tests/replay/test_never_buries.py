"""Replay never leaves a record behind its cursor: what is still lossy is read again by the next run.

The issue this pins (38, item 3): a replay run before the needed override moved its cursor past the still-lossy
records, so after the override the same command read nothing.  Now every record the cursor passes is released or
written again ahead of it, and ``--rewind-to`` brings back what an older replay left behind, never twice.
"""

from __future__ import annotations

from collections import Counter

from confluent_kafka import TopicPartition

from consumer.decoding import OverrideTable
from consumer.kafka import make_consumer

from replay_helpers import (
    assert_lossy,
    committed_offsets,
    damaged_utf8_page,
    end_offsets,
    legacy_case,
    raw,
    summary_of,
    write_overrides,
)


def legacy_items(n: int, prefix: str = "legacy"):
    case = legacy_case(n)
    items = []
    for i in range(n):
        url, body = case.page(i)
        assert_lossy(url, body, fixed_by=OverrideTable([case.override()]))
        items.append((f"{prefix}-{i}".encode(), raw(url, body)))
    return items, case


def damaged_items(n: int) -> list[tuple[bytes, dict]]:
    items = []
    for i in range(n):
        url, body = damaged_utf8_page(i, 4)
        assert_lossy(url, body, replacements=4)
        items.append((f"damaged-{i}".encode(), raw(url, body)))
    return items


def bury(kafka_connection, topic: str, group: str) -> None:
    """What an old replay did: the cursor of *group* committed past every record of *topic*'s partition 0."""
    buried = make_consumer(kafka_connection, group)
    try:
        buried.commit(offsets=[TopicPartition(topic, 0, end_offsets(kafka_connection, topic)[0])], asynchronous=False)
    finally:
        buried.close()


def test_a_record_still_lossy_is_released_by_the_same_command_once_the_override_exists(
    quarantine, replay, outputs, tmp_path
):
    legacy, case = legacy_items(6)
    quarantine(legacy)

    status, out = replay()  # no overrides file yet
    counts = summary_of(out)
    assert status == 0 and counts["still lossy"] == 6 and counts["released"] == 0
    assert counts["requarantined"] == 6
    assert not outputs.clean()
    copies = outputs.quarantine()[6:]
    assert sorted(r["key"] for r in copies) == sorted(k for k, _ in legacy), "written again with their original keys"
    assert {r["replay_count"] for r in copies} == {1}

    write_overrides(tmp_path / "overrides.yaml", case.override())
    status, out = replay()
    counts = summary_of(out)
    assert status == 0 and counts["read"] == 6 and counts["released"] == 6 and counts["still lossy"] == 0
    clean = outputs.clean()
    assert Counter(r["key"] for r in clean) == Counter(k for k, _ in legacy), "every record released exactly once"
    assert all(case.title in r["text"] for r in clean)

    for again in ((), ("--from-offset", "0:0")):
        status, out = replay(*again)
        assert status == 0 and summary_of(out)["read"] == 0 and summary_of(out)["released"] == 0
    assert len(outputs.clean()) == 6, "a rerun releases nothing twice"


def test_max_replays_carries_records_forward_unchanged_so_a_later_run_still_decides_them(
    quarantine, replay, outputs
):
    items = damaged_items(3)
    quarantine(items)

    status, out = replay("--max-replays", "1")
    assert status == 0 and summary_of(out)["still lossy"] == 3 and summary_of(out)["requarantined"] == 3
    first = outputs.quarantine()[3:]
    assert [r["replay_count"] for r in first] == [1, 1, 1]

    status, out = replay("--max-replays", "1")
    counts = summary_of(out)
    assert counts["skipped by max-replays"] == 3 and counts["carried forward"] == 3 and counts["requarantined"] == 0
    carried = outputs.quarantine()[6:]
    strip = ("offset", "quarantined_at")
    assert [{k: v for k, v in r.items() if k not in strip} for r in carried] == [
        {k: v for k, v in r.items() if k not in strip} for r in first
    ], "carried forward byte for byte: replay_count unchanged"
    assert [r["quarantined_at"] for r in carried] == [r["quarantined_at"] for r in first]

    status, out = replay()  # no limit: decided again
    assert summary_of(out)["still lossy"] == 3
    assert [r["replay_count"] for r in outputs.quarantine()[9:]] == [2, 2, 2]
    assert [r["attempt"]["replacements"] for r in outputs.quarantine()[9:]] == [4, 4, 4]
    assert not outputs.clean()


def test_rewind_brings_back_what_was_left_behind_the_cursor_and_releases_each_record_once(
    quarantine, replay, outputs, tmp_path, kafka_connection, settings_for
):
    legacy, case = legacy_items(4)
    damaged = damaged_items(1)
    quarantine(legacy)
    quarantine(damaged)  # after the others: --max 2 below releases two of them
    status, out = replay()
    assert summary_of(out)["still lossy"] == 5
    write_overrides(tmp_path / "overrides.yaml", case.override())
    status, out = replay("--max", "2")
    assert summary_of(out)["released"] == 2
    released_first = {r["key"] for r in outputs.clean()}

    # What an older replay did (or kafka-consumer-groups --reset-offsets --to-latest): the cursor at the end,
    # with two fixable records and the damaged one behind it and no copy ahead.
    topic, group = settings_for().quarantine_topic, f"{settings_for().group_id}-replay"
    bury(kafka_connection, topic, group)
    status, out = replay()
    assert status == 0 and summary_of(out)["read"] == 0, "left behind the cursor: a plain run cannot see them"
    cursor = committed_offsets(kafka_connection, group, topic)

    status, out = replay("--rewind-to", "0")
    counts = summary_of(out)
    assert status == 0
    # Originals of the two released and their copies: released; the other three originals: brought back;
    # their copies from the first run (same origin): queued once the originals are brought back.
    assert (counts["rewind, brought back"], counts["rewind, already released"], counts["rewind, still queued"]) == (
        3, 4, 3)
    assert counts["released"] == 2 and counts["still lossy"] == 1
    assert committed_offsets(kafka_connection, group, topic)[0] > cursor[0], "the cursor never moved back"
    clean = outputs.clean()
    assert Counter(r["key"] for r in clean) == Counter(k for k, _ in legacy), "each record released exactly once"
    assert released_first < {r["key"] for r in clean}

    status, out = replay("--rewind-to", "0")
    counts = summary_of(out)
    assert counts["rewind, brought back"] == 0, "a rerun brings back nothing twice"
    # The damaged record's original, its copy of the first run and the brought-back one: queued behind its newest.
    assert counts["rewind, still queued"] == 3 and counts["rewind, already released"] == 10
    assert counts["released"] == 0 and counts["still lossy"] == 1
    assert len(outputs.clean()) == 4


def test_a_dry_run_rewind_counts_and_writes_nothing(quarantine, replay, outputs, kafka_connection, settings_for):
    quarantine(damaged_items(2))
    topic, group = settings_for().quarantine_topic, f"{settings_for().group_id}-replay"
    bury(kafka_connection, topic, group)
    ends = outputs.ends()
    status, out = replay("--dry-run", "--rewind-to", "0")
    assert status == 0 and summary_of(out)["rewind, would be brought back"] == 2
    assert outputs.ends() == ends
    status, out = replay("--rewind-to", "0")
    assert summary_of(out)["rewind, brought back"] == 2 and summary_of(out)["still lossy"] == 2


def test_a_rewind_refuses_when_the_clean_topic_no_longer_reaches_back(
    quarantine, replay, outputs, kafka_connection, settings_for, topics
):
    from consumer.kafka import make_admin, make_producer

    quarantine(damaged_items(1))
    topic, group = settings_for().quarantine_topic, f"{settings_for().group_id}-replay"
    bury(kafka_connection, topic, group)
    # What retention does to the clean topic: its oldest records, from the rewound span's time, are gone.
    producer = make_producer(kafka_connection)
    for partition in (0, 1):
        producer.produce(topics["clean"], b"released, then deleted", partition=partition)
    assert producer.flush(30) == 0
    admin = make_admin(kafka_connection)  # kept: the futures are answered through it
    deleted = admin.delete_records([TopicPartition(topics["clean"], p, 1) for p in (0, 1)])
    for future in deleted.values():
        future.result(timeout=60)
    ends = outputs.ends()
    status, _ = replay("--rewind-to", "0")
    assert status == 2 and "no longer holds what was released" in replay.err
    assert outputs.ends() == ends, "nothing written"
