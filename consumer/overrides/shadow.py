"""The shadow check: is each override still needed?

For a record decoded under an override, the processor also runs the normal
resolution (no overrides) and reports whether it would have produced the same
text losslessly.  When, over enough records, it always would, the host's
declarations have been fixed upstream and the override only risks corrupting
correct text; when it often would not, the override is still doing its job.
"""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from ..decoding.overrides import Override

#: Records a verdict needs before it says more than "unknown".
DEFAULT_MIN_HITS = 100
#: Share of agreeing records from which an override is "no longer needed".  Not
#: 1.0: one truncated body in ten thousand should not keep a dead override alive.
DEFAULT_AGREE_SHARE = 0.99


class Verdict(str, enum.Enum):
    STILL_NEEDED = "still needed"
    NO_LONGER_NEEDED = "no longer needed"
    UNKNOWN = "unknown"


def verdict_for(
    agreements: int,
    disagreements: int,
    *,
    min_hits: int = DEFAULT_MIN_HITS,
    agree_share: float = DEFAULT_AGREE_SHARE,
) -> Verdict:
    """Judge from shadow-checked records.

    Fewer than *min_hits* checked records: unknown.  Otherwise no longer needed
    when at least *agree_share* of them agree (the normal path gives the same
    text without replacement characters), still needed when more disagree.
    """
    checked = agreements + disagreements
    if checked < max(min_hits, 1):
        return Verdict.UNKNOWN
    if agreements >= agree_share * checked:
        return Verdict.NO_LONGER_NEEDED
    return Verdict.STILL_NEEDED


@dataclass(frozen=True, slots=True)
class ShadowCounts:
    """What the shadow check saw for one override (by host pattern) since it was last (re)defined."""

    encoding: str
    mode: str
    hits: int = 0
    agreements: int = 0
    disagreements: int = 0
    last_seen: float | None = None

    @property
    def agreement(self) -> float | None:
        checked = self.agreements + self.disagreements
        return self.agreements / checked if checked else None


class ShadowStats:
    """Per-override counters, bounded: one entry per override host, at most *max_overrides*.

    Keyed by the override's host pattern.  When a host's override is redefined
    (other encoding or mode, after a reload), its counters start again: the old
    ones judged another decision.  A lock makes ``record`` (the processor loop)
    and ``snapshot`` (a metrics scrape) safe to call from two threads.
    """

    def __init__(self, *, clock: Callable[[], float] = time.time, max_overrides: int = 1024) -> None:
        self._clock = clock
        self._max = max_overrides
        self._counts: dict[str, ShadowCounts] = {}
        self._lock = threading.Lock()

    def record(self, override: Override, *, same_text: bool, shadow_lossless: bool) -> None:
        """Count one record decoded under *override*; it agrees when the normal path gives the same text losslessly."""
        agrees = same_text and shadow_lossless
        with self._lock:
            counts = self._current(override)
            self._counts[override.host] = replace(
                counts,
                hits=counts.hits + 1,
                agreements=counts.agreements + agrees,
                disagreements=counts.disagreements + (not agrees),
                last_seen=self._clock(),
            )

    def counts(self, override: Override) -> ShadowCounts:
        """The counters of *override*; zeros when unseen or when they belonged to an earlier definition."""
        with self._lock:
            counts = self._counts.get(override.host)
        if counts is None or (counts.encoding, counts.mode) != (override.encoding, override.mode.value):
            return ShadowCounts(override.encoding, override.mode.value)
        return counts

    def verdict(
        self,
        override: Override,
        *,
        min_hits: int = DEFAULT_MIN_HITS,
        agree_share: float = DEFAULT_AGREE_SHARE,
    ) -> Verdict:
        counts = self.counts(override)
        return verdict_for(counts.agreements, counts.disagreements, min_hits=min_hits, agree_share=agree_share)

    def snapshot(self) -> dict[str, ShadowCounts]:
        """All counters by host pattern (immutable values; safe to read while records arrive)."""
        with self._lock:
            return dict(self._counts)

    def retain(self, overrides: Iterable[Override]) -> None:
        """Forget counters of hosts no longer overridden (call after a reload) so the set stays bounded."""
        keep = {override.host for override in overrides}
        with self._lock:
            for host in [host for host in self._counts if host not in keep]:
                del self._counts[host]

    def _current(self, override: Override) -> ShadowCounts:
        counts = self._counts.get(override.host)
        if counts is not None and (counts.encoding, counts.mode) == (override.encoding, override.mode.value):
            return counts
        if counts is None and len(self._counts) >= self._max:
            # Evict the override seen longest ago; with overrides few this never happens in practice.
            oldest = min(self._counts, key=lambda host: self._counts[host].last_seen or 0.0)
            del self._counts[oldest]
        return ShadowCounts(override.encoding, override.mode.value)
