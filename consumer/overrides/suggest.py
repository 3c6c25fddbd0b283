"""``overrides suggest``: from a host's quarantined records to the override that would decode them.

Per host, the lossy records (reason ``lossy``, raw bytes kept) are tried under
each candidate encoding, forced as an override would force it, through the
decoder itself (``decode`` with a ``force`` override: what the processor would
do once the entry is in the file).  A record is *clean* under a candidate when
the override decided (``source`` "override": a BOM still wins, and a candidate
that does not decode strictly gives way to the next step), nothing was replaced,
no mojibake is suspected, and, for a legacy candidate, the body is not damaged
UTF-8 (the resolution's own rule: mostly well-formed UTF-8 with a few errors is
reported lossy, never read as another encoding).

Candidates: what the host's records declared (header, ``<meta>``, XML) and the
detector's leaders for each record (``detection.ranked``).  A single-byte
encoding decodes nearly any bytes "cleanly", so clean is not right: candidates
are taken in order of plausibility, the number of records whose detector
leader each is (ties: the records it leads or is close to, then the
declarations), and the suggestion is the first whose clean share reaches
*min_share*.  The others that reach it are listed too, for the operator to see.

Limits: on a short body the detector's evidence is thin; a short page cut
mid-character may be read "cleanly" by a legacy single-byte encoding that a
longer one would have ruled out.  The evidence (records, share, a sample of the
text) is printed so that a person judges before the entry ships.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..decoding import Decoded, Override, OverrideMode, OverrideTable, decode
from ..decoding.detection import ranked
from ..decoding.hosts import host_of, tld_of
from ..decoding.resolve import damaged_utf8
from ..processor import content_encoding
from ..processor.records import header_value

#: Share of a host's records that must decode cleanly under the suggested encoding (``--min-share``).
DEFAULT_MIN_SHARE = 0.9
#: Days between today and the suggested entry's ``review_by``.
REVIEW_DAYS = 90
#: Characters of decoded text shown as a sample.
SAMPLE_CHARS = 80

#: Other candidates named in the text output.
_SHOWN = 5

_TAG = re.compile(r"<[^>]*>|&[a-z]+;")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Sample:
    """One quarantined lossy record, ready to decode again."""

    url: str
    body: bytes
    content_type: str | None
    declared: tuple[str, ...]  # encodings the record declared (header, meta, xml), strongest first
    leaders: tuple[str, ...]  # the detector's leading candidates, best first


@dataclass(frozen=True, slots=True)
class Trial:
    """One candidate encoding tried on every record of a host."""

    encoding: str
    clean: int
    records: int
    votes: int  # records whose detector leader it is
    sample: str = ""  # decoded text of the first clean record
    truncated: int = 0  # records whose only replacement ends the text (cut bodies)

    @property
    def share(self) -> float:
        return self.clean / self.records if self.records else 0.0


@dataclass(frozen=True, slots=True)
class Suggestion:
    """What ``suggest`` says about one host: an encoding (``chosen``) or why none (``why_none``)."""

    host: str
    records: int
    declared: tuple[str, ...]
    trials: tuple[Trial, ...]  # most plausible first
    chosen: Trial | None
    why_none: str | None = None
    entry: dict[str, Any] | None = None  # the overrides file entry, when an encoding is chosen

    def as_dict(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "records": self.records,
            "declared": list(self.declared),
            "encoding": self.chosen.encoding if self.chosen else None,
            "clean": self.chosen.clean if self.chosen else 0,
            "clean_share": round(self.chosen.share, 4) if self.chosen else 0.0,
            "sample": self.chosen.sample if self.chosen else "",
            "why_none": self.why_none,
            "candidates": [
                {"encoding": t.encoding, "clean": t.clean, "records": t.records, "votes": t.votes,
                 "truncated": t.truncated}
                for t in self.trials
            ],
            "entry": self.entry,
        }


@dataclass
class Collected:
    """The lossy records by host, and what was read but not usable, by reason."""

    hosts: dict[str, list[Sample]] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)


def collect(records: Iterable[Mapping[str, Any]], max_body_bytes: int) -> Collected:
    """Group the lossy quarantined records with their raw record by host; count the rest by reason."""
    found = Collected()
    for record in records:
        raw = record.get("raw")
        if record.get("reason") != "lossy" or raw is None:
            found.skipped[str(record.get("reason"))] += 1
            continue
        host = host_of(raw["url"])
        if not host:  # no override could name it
            found.skipped["no host in url"] += 1
            continue
        sample = _sample(raw, max_body_bytes)
        if sample is None:
            found.skipped["content-encoding"] += 1
            continue
        found.hosts.setdefault(host, []).append(sample)
    return found


def _sample(raw: Mapping[str, Any], max_body_bytes: int) -> Sample | None:
    """The body as the processor decoded it (Content-Encoding undone), its declarations and detector leaders."""
    coding = None if raw.get("content_encoding_removed") else header_value(raw["headers"], "content-encoding")
    body = content_encoding.undo(raw["body"], coding, max_body_bytes)
    if isinstance(body, content_encoding.Refusal):
        return None
    content_type = header_value(raw["headers"], "content-type")
    normal = decode(body, content_type, raw["url"], None)
    declared = tuple(dict.fromkeys(e for place in ("header", "meta", "xml") if (e := normal.declared.get(place))))
    return Sample(raw["url"], body, content_type, declared, ranked(body, tld_of(host_of(raw["url"]))))


def suggest(
    collected: Collected,
    today: dt.date,
    *,
    min_share: float = DEFAULT_MIN_SHARE,
    owner: str = "",
    ticket: str = "",
) -> list[Suggestion]:
    """One suggestion per host, hosts in name order."""
    return [
        _suggest_host(host, samples, today, min_share, owner, ticket)
        for host, samples in sorted(collected.hosts.items())
    ]


def _suggest_host(host: str, samples: list[Sample], today: dt.date, min_share: float, owner: str,
                  ticket: str) -> Suggestion:
    declared = tuple(dict.fromkeys(e for s in samples for e in s.declared))
    trials = tuple(_try(host, encoding, samples, votes) for encoding, votes in _candidates(samples, declared))
    chosen = next((t for t in trials if t.clean and t.share >= min_share), None)
    if chosen is None:
        return Suggestion(host, len(samples), declared, trials, None, _why_none(trials, samples, min_share))
    return Suggestion(host, len(samples), declared, trials, chosen, None,
                      entry(host, chosen, declared, today, owner, ticket))


def _candidates(samples: list[Sample], declared: tuple[str, ...]) -> list[tuple[str, int]]:
    """(encoding, votes), most plausible first: detector leads, then closeness, then the declarations."""
    votes = Counter(s.leaders[0] for s in samples if s.leaders)
    near = Counter(e for s in samples for e in s.leaders)
    order = list(dict.fromkeys([*near, *declared]))
    rank = {e: i for i, e in enumerate(declared)}
    order.sort(key=lambda e: (-votes[e], -near[e], rank.get(e, len(rank))))
    return [(e, votes[e]) for e in order]


def _try(host: str, encoding: str, samples: list[Sample], votes: int) -> Trial:
    """The records of *host* decoded with *encoding* forced, as an override in the file would force it."""
    table = OverrideTable([Override(host, encoding, OverrideMode.FORCE, "tried by overrides suggest", dt.date.max)])
    clean, truncated, sample = 0, 0, ""
    for s in samples:
        decoded = decode(s.body, s.content_type, s.url, table)
        if _clean(decoded, encoding, s.body):
            clean += 1
            sample = sample or _visible(decoded.text)
        elif decoded.source == "override" and decoded.replacements == 1 and decoded.text.endswith("\ufffd"):
            truncated += 1
    return Trial(encoding, clean, len(samples), votes, sample, truncated)


def _clean(decoded: Decoded, encoding: str, body: bytes) -> bool:
    if decoded.source != "override" or decoded.lossy or decoded.mojibake_suspected:
        return False
    # Damaged UTF-8 is never read as a legacy encoding (the resolution order's rule, resolve.py).
    return encoding == "UTF-8" or not damaged_utf8(body)


def _visible(text: str) -> str:
    """The text without tags, whitespace collapsed, cut to ``SAMPLE_CHARS``."""
    words = _SPACE.sub(" ", _TAG.sub(" ", text)).strip()
    return words[:SAMPLE_CHARS] + ("…" if len(words) > SAMPLE_CHARS else "")


def _why_none(trials: tuple[Trial, ...], samples: list[Sample], min_share: float) -> str:
    if not trials:
        return "no candidate encoding: nothing declared and nothing detected"
    best = max(trials, key=lambda t: t.clean)
    said = (f"no candidate decodes {min_share:.0%} of its records cleanly (best: {best.encoding}, {best.clean} of "
            f"{best.records}; tried {', '.join(t.encoding for t in trials)})")
    cut = max(trials, key=lambda t: t.truncated)
    if cut.truncated:
        said += (f"; under {cut.encoding} {cut.truncated} record(s) lose only their last character: truncated"
                 " bodies, which no encoding repairs")
    damaged = sum(damaged_utf8(s.body) for s in samples)
    if damaged:
        said += f"; {damaged} record(s) are mostly well-formed UTF-8 with errors: damaged UTF-8, not another encoding"
    return said


def entry(host: str, chosen: Trial, declared: tuple[str, ...], today: dt.date, owner: str = "",
          ticket: str = "") -> dict[str, Any]:
    """The overrides file entry for *chosen*; ``reason`` says the evidence.  Without *owner* or *ticket* it
    has neither, and the loader refuses it until someone says who answers for it."""
    said = f"declared {', '.join(declared)}" if declared else "declared nothing"
    reason = (f"{chosen.clean} of {chosen.records} quarantined records of this host decode cleanly as "
              f"{chosen.encoding}, the detector's first choice for {chosen.votes} (they {said}); suggested by "
              f"'crawl-decoder overrides suggest' on {today.isoformat()}")
    found = {
        "host": host,
        "encoding": chosen.encoding,
        "mode": OverrideMode.FORCE.value,
        "reason": reason,
        "review_by": (today + dt.timedelta(days=REVIEW_DAYS)).isoformat(),
    }
    if owner:
        found["owner"] = owner
    if ticket:
        found["ticket"] = ticket
    return found


def entries_yaml(entries: list[dict[str, Any]], indent: int = 2) -> str:
    """The entries as items of the file's ``overrides:`` list, each item's ``-`` at column *indent*.

    An entry without owner or ticket gets an empty ``owner:`` with a comment: the file refuses it until filled.
    """
    out = []
    for found in entries:
        text = yaml.safe_dump([found], sort_keys=False, allow_unicode=True, width=110)
        if "owner" not in found and "ticket" not in found:
            text += "  owner:  # to fill: who answers for this override (required: owner or ticket)\n"
        out.append("".join(" " * indent + line + "\n" for line in text.splitlines()))
    return "".join(out)


def format_suggestions(suggestions: list[Suggestion], collected: Collected) -> str:
    """Per host: the suggestion and its evidence, or why none; then the ready entries."""
    lines = []
    for s in suggestions:
        if s.chosen is None:
            lines.append(f"{s.host}: no suggestion ({s.records} lossy record(s)): {s.why_none}")
            continue
        lines.append(f"{s.host}: {s.chosen.encoding} (force): {s.chosen.clean} of {s.records} lossy record(s) decode "
                     f"cleanly ({s.chosen.share:.0%}); declared: {', '.join(s.declared) or 'nothing'}")
        lines.append(f"  detector's first choice for {s.chosen.votes} of {s.records}; sample: {s.chosen.sample}")
        others = [t for t in s.trials if t is not s.chosen]
        if others:
            shown = ", ".join(f"{t.encoding} {t.clean}/{t.records}" for t in others[:_SHOWN])
            more = f" and {len(others) - _SHOWN} more (--json lists them)" if len(others) > _SHOWN else ""
            lines.append(f"  also tried (clean/records; clean is not right: a single-byte encoding reads any bytes): "
                         f"{shown}{more}")
    if not suggestions:
        lines.append("no lossy quarantined records read")
    if collected.skipped:
        lines.append("not tried (not lossy, or unreadable): "
                     + ", ".join(f"{n} {reason}" for reason, n in sorted(collected.skipped.items())))
    ready = [s.entry for s in suggestions if s.entry is not None]
    if ready:
        lines += ["", "overrides:", entries_yaml(ready).rstrip("\n")]
    return "\n".join(lines)
