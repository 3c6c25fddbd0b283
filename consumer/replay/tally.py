"""What a replay run did (or, dry, would do): the closing summary and the per-host table."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field, fields

from .rewind import RewindCounts

#: Outcomes of one record, as counted in the summary.
RELEASED = "released"
STILL_LOSSY = "still_lossy"
STILL_UNREADABLE = "still_unreadable"
SKIPPED_BY_FILTER = "skipped_by_filter"
SKIPPED_BY_MAX_REPLAYS = "skipped_by_max_replays"

NO_HOST = "(no host)"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The decision on one quarantined record."""

    kind: str
    host: str | None = None
    #: ``encoding/source`` of the quarantined attempt and of the new decode ("-" when none).
    before: str = "-"
    after: str = "-"
    requarantined: bool = False
    #: The record is written again unchanged so that a later replay still sees it (a dry run:
    #: would be; the summary counts it either way, so a dry run shows what the real run copies).
    carried: bool = False
    reason: str | None = None


@dataclass
class Summary:
    read: int = 0
    released: int = 0
    still_lossy: int = 0
    still_unreadable: int = 0
    skipped_by_filter: int = 0
    skipped_by_max_replays: int = 0
    requarantined: int = 0
    carried_forward: int = 0
    #: Per host: outcome kind -> count, and (before, after) -> count for released records.
    hosts: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    changes: dict[str, Counter[tuple[str, str]]] = field(default_factory=lambda: defaultdict(Counter))
    #: Reasons of records still quarantined (lossy, too-large, ...).
    still_reasons: Counter[str] = field(default_factory=Counter)
    #: What ``--rewind-to`` found behind the cursor (None: no rewind asked).
    rewind: RewindCounts | None = None

    def add(self, outcome: Outcome) -> None:
        self.read += 1
        setattr(self, outcome.kind, getattr(self, outcome.kind) + 1)
        self.requarantined += outcome.requarantined
        self.carried_forward += outcome.carried
        host = outcome.host or NO_HOST
        self.hosts[host][outcome.kind] += 1
        if outcome.kind == RELEASED:
            self.changes[host][(outcome.before, outcome.after)] += 1
        elif outcome.kind in (STILL_LOSSY, STILL_UNREADABLE) and outcome.reason:
            self.still_reasons[outcome.reason] += 1

    def counts(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in COUNTS}


COUNTS = tuple(f.name for f in fields(Summary) if f.type == "int")


def format_summary(summary: Summary, *, dry_run: bool) -> str:
    """The closing summary, one ``name: count`` per line; a dry run's writes read "would be ..."."""
    would = "would be " if dry_run else ""
    lines = [
        f"read: {summary.read}",
        f"{would}released: {summary.released}",
        f"still lossy: {summary.still_lossy}",
        f"still unreadable: {summary.still_unreadable}",
        f"skipped by filter: {summary.skipped_by_filter}",
        f"skipped by max-replays: {summary.skipped_by_max_replays}",
        f"{would}requarantined: {summary.requarantined}",
        f"{would}carried forward: {summary.carried_forward}",
    ]
    if summary.rewind is not None:
        found = summary.rewind
        lines += [
            f"rewind, {would}brought back: {found.brought_back}",
            f"rewind, already released: {found.already_released}",
            f"rewind, still queued: {found.still_queued}",
        ]
    if summary.still_reasons:
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(summary.still_reasons.items()))
        lines.append("still quarantined by reason: " + reasons)
    return "\n".join(lines)


def summary_fields(summary: Summary, *, dry_run: bool) -> dict[str, object]:
    """The closing summary as the fields of the "replay finished" log line: ``format_summary``'s figures."""
    found: dict[str, object] = {
        **summary.counts(),
        "still_quarantined_by_reason": dict(summary.still_reasons),
        "dry_run": dry_run,
    }
    if summary.rewind is not None:
        found["rewind"] = vars(summary.rewind)
    return found


def format_hosts(summary: Summary) -> str:
    """Per host: how many would be released, how many stay, and what changes (old -> new encoding/source)."""
    rows = [("host", "release", "still lossy", "changes (quarantined attempt -> new decode)")]
    for host in sorted(summary.hosts, key=lambda h: (-summary.hosts[h][RELEASED], h)):
        counts = summary.hosts[host]
        changes = "; ".join(
            f"{before} -> {after} ({n})" for (before, after), n in summary.changes[host].most_common()
        )
        stays = counts[STILL_LOSSY] + counts[STILL_UNREADABLE]
        if counts[RELEASED] or stays:
            rows.append((host, str(counts[RELEASED]), str(stays), changes or "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return "\n".join(
        f"{row[0]:<{widths[0]}}  {row[1]:>{widths[1]}}  {row[2]:>{widths[2]}}  {row[3]}" for row in rows
    )
