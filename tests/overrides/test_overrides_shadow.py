"""Shadow-check statistics and verdicts: is an override still needed?"""

from __future__ import annotations

import dataclasses
import threading

import pytest

from consumer.decoding.overrides import OverrideMode
from consumer.overrides import ShadowStats, Verdict, parse_overrides, verdict_for

from overrides_samples import document, entry

CDN, JP = parse_overrides(document(entry(host="cdn.example.com"), entry(host="'*.example.jp'"))).overrides


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("agreements, disagreements, verdict", [
    (0, 0, Verdict.UNKNOWN),
    (99, 0, Verdict.UNKNOWN),  # below min_hits, however unanimous
    (100, 0, Verdict.NO_LONGER_NEEDED),
    (990, 10, Verdict.NO_LONGER_NEEDED),  # 99 % agree: a few truncated bodies do not keep it alive
    (989, 11, Verdict.STILL_NEEDED),
    (0, 100, Verdict.STILL_NEEDED),
    (50, 50, Verdict.STILL_NEEDED),
])
def test_verdict_for(agreements, disagreements, verdict):
    assert verdict_for(agreements, disagreements, min_hits=100, agree_share=0.99) is verdict


def test_counts_and_verdicts_per_override():
    clock = FakeClock()
    stats = ShadowStats(clock=clock)
    for _ in range(20):
        stats.record(CDN, same_text=True, shadow_lossless=True)
    clock.now = 2000.0
    for _ in range(20):
        stats.record(JP, same_text=False, shadow_lossless=True)
    counts = stats.counts(CDN)
    assert (counts.hits, counts.agreements, counts.disagreements, counts.last_seen) == (20, 20, 0, 1000.0)
    assert stats.counts(JP).last_seen == 2000.0
    assert stats.verdict(CDN, min_hits=10) is Verdict.NO_LONGER_NEEDED
    assert stats.verdict(JP, min_hits=10) is Verdict.STILL_NEEDED
    assert stats.verdict(CDN, min_hits=50) is Verdict.UNKNOWN


def test_same_text_but_lossy_shadow_is_a_disagreement():
    # The normal path produced the same text only because both replaced bytes: not a clean agreement.
    stats = ShadowStats()
    for _ in range(10):
        stats.record(CDN, same_text=True, shadow_lossless=False)
    assert stats.counts(CDN).disagreements == 10
    assert stats.verdict(CDN, min_hits=10) is Verdict.STILL_NEEDED


def test_unseen_override_is_unknown():
    stats = ShadowStats()
    assert stats.counts(CDN).hits == 0
    assert stats.counts(CDN).agreement is None
    assert stats.verdict(CDN, min_hits=1) is Verdict.UNKNOWN


def test_redefined_override_starts_again():
    stats = ShadowStats()
    for _ in range(10):
        stats.record(CDN, same_text=True, shadow_lossless=True)
    redefined = dataclasses.replace(CDN, mode=OverrideMode.FALLBACK)
    assert stats.counts(redefined).hits == 0
    stats.record(redefined, same_text=False, shadow_lossless=True)
    assert (stats.counts(redefined).hits, stats.counts(redefined).disagreements) == (1, 1)
    assert len(stats.snapshot()) == 1


def test_retain_forgets_removed_overrides():
    stats = ShadowStats()
    stats.record(CDN, same_text=True, shadow_lossless=True)
    stats.record(JP, same_text=True, shadow_lossless=True)
    stats.retain([JP])
    assert set(stats.snapshot()) == {"*.example.jp"}


def test_bounded():
    clock = FakeClock()
    stats = ShadowStats(clock=clock, max_overrides=2)
    third = dataclasses.replace(CDN, host="third.example")
    for override in (CDN, JP, third):
        clock.now += 1
        stats.record(override, same_text=True, shadow_lossless=True)
    assert set(stats.snapshot()) == {"*.example.jp", "third.example"}  # the one seen longest ago went


def test_recording_from_two_threads_loses_nothing():
    stats = ShadowStats()
    start = threading.Barrier(2)

    def work(agrees: bool) -> None:
        start.wait()
        for _ in range(5000):
            stats.record(CDN, same_text=agrees, shadow_lossless=True)

    threads = [threading.Thread(target=work, args=(flag,)) for flag in (True, False)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    counts = stats.counts(CDN)
    assert (counts.hits, counts.agreements, counts.disagreements) == (10000, 5000, 5000)
