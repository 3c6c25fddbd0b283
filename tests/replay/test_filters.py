"""Each filter selects what it says; what it does not select is carried forward for a later run."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from replay_helpers import assert_lossy, damaged_utf8_page, raw, summary_of

HOSTS = ("a.example.de", "b.example.de", "www.example.at")


@pytest.fixture
def mixed(quarantine):
    """12 lossy pages over three hosts, landed in two time slices; returns (keys by host, boundary ms)."""
    by_host: dict[str, list[bytes]] = {host: [] for host in HOSTS}
    early = int(time.time() * 1000) - 3_600_000
    late = early + 1_800_000
    for stamp in (early, late):
        items = []
        for host in HOSTS:
            for j in range(2):
                url, body = damaged_utf8_page(len(by_host[host]), 2, host=host)
                assert_lossy(url, body, replacements=2)
                key = f"{host}-{stamp}-{j}".encode()
                by_host[host].append(key)
                items.append((key, raw(url, body)))
        quarantine(items, timestamp_ms=stamp)
    return by_host, late


def released(outputs) -> Counter:
    return Counter(r["key"] for r in outputs.clean())


def test_host_filter_releases_only_that_host_and_a_later_run_sees_the_rest_once(mixed, replay, outputs):
    by_host, _ = mixed
    status, out = replay("--threshold", "2", "--host", "*.example.de", "--host", "nothing.example.org")
    assert status == 0
    assert released(outputs) == Counter(by_host["a.example.de"] + by_host["b.example.de"])
    counts = summary_of(out)
    assert counts["skipped by filter"] == counts["carried forward"] == 4
    status, out = replay("--threshold", "2")
    assert summary_of(out)["read"] == 4, "only the carried records are left for the next run"
    assert released(outputs) == Counter(k for keys in by_host.values() for k in keys), "every record exactly once"


def test_a_filtered_dry_run_counts_the_records_the_real_run_carries_forward(mixed, replay, outputs):
    ends = outputs.ends()
    status, out = replay("--dry-run", "--threshold", "2", "--host", "*.example.de")
    assert status == 0 and outputs.ends() == ends, "a dry run writes nothing"
    dry = summary_of(out)
    assert dry["would be released"] == 8 and dry["skipped by filter"] == dry["would be carried forward"] == 4
    status, out = replay("--threshold", "2", "--host", "*.example.de")
    real = summary_of(out)
    assert real["released"] == 8 and real["carried forward"] == 4, "what the dry run announced"
    copies = [r for r in outputs.quarantine() if r["offset"] >= ends["quarantine"][0]]
    assert sorted(r["key"] for r in copies) == sorted(mixed[0]["www.example.at"]), "the 4 copies were written"


def test_exact_host_does_not_cover_subdomains(mixed, replay, outputs):
    by_host, _ = mixed
    replay("--threshold", "2", "--host", "example.de", "--host", "www.example.at")
    assert released(outputs) == Counter(by_host["www.example.at"])


def test_reason_filter(mixed, replay, outputs):
    _status, out = replay("--threshold", "2", "--reason", "too-large")
    assert summary_of(out)["released"] == 0 and summary_of(out)["skipped by filter"] == 12
    _status, out = replay("--threshold", "2", "--reason", "lossy")
    assert summary_of(out)["released"] == 12, "the carried records are found by the next run"
    assert len(released(outputs)) == 12 and max(released(outputs).values()) == 1


def test_since_and_until_compare_the_landing_timestamp(mixed, replay, outputs):
    by_host, boundary = mixed
    late_keys = {k for keys in by_host.values() for k in keys if str(boundary).encode() in k}
    iso = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(boundary / 1000))
    replay("--threshold", "2", "--until", iso)
    assert set(released(outputs)) == {k for keys in by_host.values() for k in keys} - late_keys
    replay("--threshold", "2", "--since", iso)
    assert set(released(outputs)) == {k for keys in by_host.values() for k in keys}
    assert max(released(outputs).values()) == 1


def test_offsets_and_max_bound_the_run(mixed, replay, outputs):
    quarantined = outputs.quarantine()
    by_offset = {r["offset"]: r["key"] for r in quarantined}
    offsets = sorted(by_offset)
    _status, out = replay("--threshold", "2", "--from-offset", f"0:{offsets[2]}", "--to-offset", str(offsets[6]))
    assert set(released(outputs)) == {by_offset[o] for o in offsets[2:6]}
    assert summary_of(out)["carried forward"] == 2, "the two records before --from-offset are carried"
    assert summary_of(out)["read"] == 6, "nothing at or after --to-offset is read"
    _status, out = replay("--threshold", "2", "--max", "3")
    assert summary_of(out)["released"] == 3
    _status, out = replay("--threshold", "2")
    assert len(released(outputs)) == 12 and max(released(outputs).values()) == 1, "every record exactly once"
