"""--requarantine writes still-lossy records again with replay_count + 1; --max-replays ends the loop."""

from __future__ import annotations

from replay_helpers import assert_lossy, damaged_utf8_page, raw, summary_of


def test_requarantine_raises_replay_count_until_max_replays_stops_it(quarantine, replay, outputs):
    items = []
    for i in range(3):
        url, body = damaged_utf8_page(i, 4)
        assert_lossy(url, body, replacements=4)
        items.append((f"k{i}".encode(), raw(url, body)))
    quarantine(items)

    for count in (1, 2):
        status, out = replay("--requarantine", "--max-replays", "2")
        assert status == 0
        assert summary_of(out)["requarantined"] == 3 and summary_of(out)["still lossy"] == 3
        newest = outputs.quarantine()[-3:]
        assert [r["replay_count"] for r in newest] == [count] * 3
        assert [r["key"] for r in newest] == [k for k, _ in items], "original keys kept"
        assert all(r["attempt"]["replacements"] == 4 and r["raw"]["url"] for r in newest)
        assert all(r["kafka_headers"] == [("trace", r["key"])] for r in newest), "original headers kept"

    written = len(outputs.quarantine())
    status, out = replay("--requarantine", "--max-replays", "2")
    counts = summary_of(out)
    assert counts["skipped by max-replays"] == 3 and counts["requarantined"] == 0
    assert len(outputs.quarantine()) == written, "nothing written again: the loop has ended"
    status, out = replay("--requarantine", "--max-replays", "2")
    assert summary_of(out)["read"] == 0
    assert not outputs.clean()
