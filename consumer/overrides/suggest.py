"""``overrides suggest``: from a host's quarantined records to the override that would decode them.

Per host, the records an override could fix are tried under each candidate
encoding: quarantined ones with reason ``lossy`` or ``declaration-doubted``
(their raw record is kept), and clean ones published with
``mojibake_suspected`` (their bytes rebuilt, ``clean_body``).  Each is tried
forced as an override would force it, through the decoder itself (``decode``
with a ``force`` override: what the processor would do once the entry is in
the file).  A record is *clean* under a candidate when the override decided
(``source`` "override": a BOM still wins, and a candidate that does not decode
strictly gives way to the next step), nothing was replaced, no mojibake is
suspected, and, for a legacy candidate, the body is neither damaged UTF-8 (the
resolution's own rule: mostly well-formed UTF-8 with a few errors is reported
lossy, never read as another encoding) nor valid UTF-8 with multi-byte
sequences (a legacy encoding reads those bytes without an error, and not
always as mojibake: EUC-KR makes Hangul of them).

Candidates: what the host's records declared (header, ``<meta>``, XML) and each
record's leaders: UTF-8 for a body that is valid multi-byte UTF-8 (the
resolution reads such a body as UTF-8 unless a declaration says otherwise, and
the detector ranks legacy encodings only), then the detector's
(``detection.ranked``).  A single-byte encoding decodes nearly any bytes
"cleanly", so clean is not right: candidates are taken in order of
plausibility, the number of records whose first leader each is (ties: the
records it leads or is close to, then the declarations), and the suggestion is
the first whose clean share reaches *min_share*.  The others that reach it are listed too, for the operator to see.

Limits: on a short body the detector's evidence is thin; a short page cut
mid-character may be read "cleanly" by a legacy single-byte encoding that a
longer one would have ruled out.  The evidence (records, share, a sample of the
text) is printed so that a person judges before the entry ships.

A clean record does not keep the body, only its text, the encoding it was read
with and the body's SHA-256: encoding the text again gives the bytes back,
checked against the hash (``recheck.body_of_clean``).  When the body was still
content-coded (gzip...) the hash is of the coded bytes and cannot check; the
bytes are then taken only for UTF-8 and single-byte encodings, whose lossless
decode maps distinct bytes to distinct characters (a table test holds this),
so the text encoded again is the body.  Other clean records are counted as
not rebuildable, never guessed.  A host whose mojibake is in its own UTF-8
(double-encoded upstream) gets no suggestion, and that reason: no override
repairs it.

A force entry applies to every page of the host, not only to the records it
was suggested from.  It never makes a page lossy (a forced encoding that does
not decode a page strictly gives way to the page's own declarations), but it
may read one differently.  The host's other clean records read (non-ASCII
text, no mojibake suspected; up to ``CONTROLS_PER_HOST`` each,
``CONTROL_BYTES`` in all) are decoded under each candidate too, and those
whose text would change are counted (``Trial.changes``): a fix of mojibake the
check missed, or a page read wrong; the operator looks (``overrides recheck``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..decoding import Decoded, Override, OverrideMode, OverrideTable, decode
from ..decoding.codecs.utf8 import decode_strict
from ..decoding.data.whatwg import SINGLE_BYTE
from ..decoding.detection import ranked
from ..decoding.hosts import host_of, tld_of
from ..decoding.resolve import damaged_utf8
from ..processor import content_encoding
from ..processor.records import header_value
from .recheck import body_of_clean, encode_as

#: Share of a host's records that must decode cleanly under the suggested encoding (``--min-share``).
DEFAULT_MIN_SHARE = 0.9
#: Newest records of each partition of the clean topic read for mojibake-suspected ones (``--clean-last``):
#: the clean topic holds every page, so it is never read whole.
DEFAULT_CLEAN_LAST = 10_000
#: The host's other clean records kept to check a candidate against (``Collected.controls``), per host and in
#: bytes over all hosts: the clean topic is read record by record, never held whole.
CONTROLS_PER_HOST = 5
CONTROL_BYTES = 64 << 20
#: Days between today and the suggested entry's ``review_by``.
REVIEW_DAYS = 90
#: Characters of decoded text shown as a sample.
SAMPLE_CHARS = 80

#: Other candidates named in the text output.
_SHOWN = 5

#: ``Sample.kind``: why a record is tried.  The quarantine reasons are the ones an override can fix.
LOSSY = "lossy"
DOUBTED = "declaration-doubted"
MOJIBAKE = "mojibake"
QUARANTINE_REASONS = (LOSSY, DOUBTED)
#: How each kind is named in the output.
_KIND_NAMES = {LOSSY: "lossy", DOUBTED: "declaration-doubted", MOJIBAKE: "mojibake-suspected clean"}

_TAG = re.compile(r"<[^>]*>|&[a-z]+;")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Sample:
    """One record an override could fix, ready to decode again."""

    url: str
    body: bytes
    content_type: str | None
    declared: tuple[str, ...]  # encodings the record declared (header, meta, xml), strongest first
    leaders: tuple[str, ...]  # the leading candidates, best first (UTF-8 for valid UTF-8, the detector's)
    kind: str = LOSSY  # LOSSY, DOUBTED (quarantined with that reason) or MOJIBAKE (a clean record)


@dataclass(frozen=True, slots=True)
class Control:
    """One of a host's other clean records: its bytes and the SHA-256 of the text it was published with."""

    url: str
    body: bytes
    content_type: str | None
    text_sha256: bytes


@dataclass(frozen=True, slots=True)
class Trial:
    """One candidate encoding tried on every record of a host."""

    encoding: str
    clean: int
    records: int
    votes: int  # records whose detector leader it is
    sample: str = ""  # decoded text of the first clean record
    truncated: int = 0  # records whose only replacement ends the text (cut bodies)
    changes: int = 0  # the host's other clean records (controls) whose text this encoding would change

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
    kinds: tuple[tuple[str, int], ...] = ()  # records of each Sample.kind, in _KIND_NAMES order
    controls: int = 0  # the host's other clean records each candidate was checked against

    @property
    def described(self) -> str:
        """The records as the text output names them: "9 lossy record(s)", or each kind's count."""
        return _described(dict(self.kinds)) if self.kinds else f"{self.records} record(s)"

    def as_dict(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "records": self.records,
            "kinds": dict(self.kinds),
            "controls": self.controls,
            "declared": list(self.declared),
            "encoding": self.chosen.encoding if self.chosen else None,
            "clean": self.chosen.clean if self.chosen else 0,
            "clean_share": round(self.chosen.share, 4) if self.chosen else 0.0,
            "sample": self.chosen.sample if self.chosen else "",
            "why_none": self.why_none,
            "candidates": [
                {"encoding": t.encoding, "clean": t.clean, "records": t.records, "votes": t.votes,
                 "truncated": t.truncated, "changes": t.changes}
                for t in self.trials
            ],
            "entry": self.entry,
        }


@dataclass
class Collected:
    """The records to try by host, and what was read but not usable, by reason."""

    hosts: dict[str, list[Sample]] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)
    #: Per host of ``hosts``, some of its other clean records (non-ASCII, no mojibake suspected): what a force
    #: entry must not break.
    controls: dict[str, list[Control]] = field(default_factory=dict)
    #: Clean records read, and those among them with mojibake suspected (each one tried or skipped).
    clean_read: int = 0
    clean_suspected: int = 0


def collect(
    records: Iterable[Mapping[str, Any]], max_body_bytes: int, clean: Iterable[Mapping[str, Any]] = ()
) -> Collected:
    """Group by host the quarantined records an override could fix (``QUARANTINE_REASONS``) and the *clean*
    records published with mojibake suspected; count the rest by reason (clean records without mojibake
    suspected only in ``clean_read``)."""
    found = Collected()
    for record in records:
        raw = record.get("raw")
        reason = record.get("reason")
        if reason not in QUARANTINE_REASONS or raw is None:
            found.skipped[str(reason)] += 1
            continue
        _add(found, raw["url"], _quarantined_body(raw, max_body_bytes), raw["headers"], str(reason))
    control_bytes = 0
    for record in clean:
        found.clean_read += 1
        if not record.get("mojibake_suspected"):
            control_bytes += _add_control(found, record, CONTROL_BYTES - control_bytes)
            continue
        found.clean_suspected += 1
        body = clean_body(record)
        if body is None:
            found.skipped["clean, bytes not rebuildable"] += 1
            continue
        _add(found, record["url"], body, record["headers"], MOJIBAKE)
    found.controls = {host: kept for host, kept in found.controls.items() if host in found.hosts}
    return found


def _add_control(found: Collected, record: Mapping[str, Any], budget: int) -> int:
    """Keep *record* as a control of its host if it has room and its bytes can be known; the bytes kept."""
    text = record.get("text")
    host = host_of(record["url"])
    if not host or text is None or text.isascii() or len(found.controls.get(host, ())) >= CONTROLS_PER_HOST:
        return 0  # an ASCII page reads the same under every candidate
    body = clean_body(record)
    if body is None or len(body) > budget:
        return 0
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
    kept = Control(record["url"], body, header_value(record["headers"], "content-type"), digest)
    found.controls.setdefault(host, []).append(kept)
    return len(body)


def _add(found: Collected, url: str, body: bytes | None, headers: list[Mapping[str, str]], kind: str) -> None:
    host = host_of(url)
    if not host:  # no override could name it
        found.skipped["no host in url"] += 1
    elif body is None:
        found.skipped["content-encoding"] += 1
    else:
        found.hosts.setdefault(host, []).append(_sample(url, body, header_value(headers, "content-type"), kind))


def _quarantined_body(raw: Mapping[str, Any], max_body_bytes: int) -> bytes | None:
    """The body as the processor decoded it (Content-Encoding undone); None if that is refused."""
    coding = None if raw.get("content_encoding_removed") else header_value(raw["headers"], "content-encoding")
    body = content_encoding.undo(raw["body"], coding, max_body_bytes)
    return None if isinstance(body, content_encoding.Refusal) else body


def clean_body(record: Mapping[str, Any]) -> bytes | None:
    """The body a clean record was decoded from (Content-Encoding undone), or None when it cannot be known.

    Checked against the record's SHA-256 (``recheck.body_of_clean``); when the
    body was content-coded, that hash is of the coded bytes, and the text
    encoded again is taken only where a lossless decode is one-to-one: UTF-8
    and the single-byte encodings.
    """
    body = body_of_clean(record)
    if body is not None:
        return body
    coding = header_value(record["headers"], "content-encoding")
    if coding is None or coding.strip().lower() in ("", "identity") or record.get("replacements"):
        return None  # the hash could check, and did not match; or the text holds U+FFFD of the decode
    if record["source"] == "bom" or not (record["encoding"] == "UTF-8" or record["encoding"] in SINGLE_BYTE):
        return None
    try:
        return encode_as(record["text"], record["encoding"])
    except (UnicodeEncodeError, LookupError, KeyError):
        return None


def _sample(url: str, body: bytes, content_type: str | None, kind: str) -> Sample:
    """*body* with its declarations and leading candidates."""
    normal = decode(body, content_type, url, None)
    declared = tuple(dict.fromkeys(e for place in ("header", "meta", "xml") if (e := normal.declared.get(place))))
    leading = leaders(body, tld_of(host_of(url)))
    if normal.doubted is not None:  # the encoding the evidence favours over the declared one leads
        leading = (normal.doubted, *(e for e in leading if e != normal.doubted))
    return Sample(url, body, content_type, declared, leading, kind)


def leaders(body: bytes, tld: str | None) -> tuple[str, ...]:
    """UTF-8 first for a body that is valid UTF-8 with multi-byte sequences, then the detector's leaders."""
    detected = ranked(body, tld)
    if _multibyte_utf8(body):
        return ("UTF-8", *(e for e in detected if e != "UTF-8"))
    return detected


def _multibyte_utf8(body: bytes) -> bool:
    return not body.isascii() and decode_strict(body) is not None


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
        _suggest_host(host, samples, today, min_share, owner, ticket, collected.controls.get(host, []))
        for host, samples in sorted(collected.hosts.items())
    ]


def _suggest_host(host: str, samples: list[Sample], today: dt.date, min_share: float, owner: str,
                  ticket: str, controls: Sequence[Control] = ()) -> Suggestion:
    declared = tuple(dict.fromkeys(e for s in samples for e in s.declared))
    trials = tuple(_try(host, encoding, samples, votes, controls)
                   for encoding, votes in _candidates(samples, declared))
    chosen = next((t for t in trials if t.clean and t.share >= min_share), None)
    counted = Counter(s.kind for s in samples)
    kinds = tuple((kind, counted[kind]) for kind in _KIND_NAMES if counted[kind])
    if chosen is None:
        why = _why_none(trials, samples, min_share)
        return Suggestion(host, len(samples), declared, trials, None, why, kinds=kinds, controls=len(controls))
    return Suggestion(host, len(samples), declared, trials, chosen, None,
                      entry(host, chosen, declared, today, owner, ticket, dict(kinds)), kinds, len(controls))


def _candidates(samples: list[Sample], declared: tuple[str, ...]) -> list[tuple[str, int]]:
    """(encoding, votes), most plausible first: detector leads, then closeness, then the declarations."""
    votes = Counter(s.leaders[0] for s in samples if s.leaders)
    near = Counter(e for s in samples for e in s.leaders)
    order = list(dict.fromkeys([*near, *declared]))
    rank = {e: i for i, e in enumerate(declared)}
    order.sort(key=lambda e: (-votes[e], -near[e], rank.get(e, len(rank))))
    return [(e, votes[e]) for e in order]


def _try(host: str, encoding: str, samples: list[Sample], votes: int, controls: Sequence[Control] = ()) -> Trial:
    """The records of *host* decoded with *encoding* forced, as an override in the file would force it; the
    *controls* (its other clean records) too, counting those whose text it would change."""
    table = OverrideTable([Override(host, encoding, OverrideMode.FORCE, "tried by overrides suggest", dt.date.max)])
    changes = sum(_changes(c, table) for c in controls)
    clean, truncated, sample = 0, 0, ""
    for s in samples:
        decoded = decode(s.body, s.content_type, s.url, table)
        if _clean(decoded, encoding, s.body):
            clean += 1
            sample = sample or _visible(decoded.text)
        elif decoded.source == "override" and decoded.replacements == 1 and decoded.text.endswith("\ufffd"):
            truncated += 1
    return Trial(encoding, clean, len(samples), votes, sample, truncated, changes)


def _changes(control: Control, table: OverrideTable) -> bool:
    decoded = decode(control.body, control.content_type, control.url, table)
    if decoded.source != "override":  # the forced encoding gave way: the page resolves as it did
        return False
    return hashlib.sha256(decoded.text.encode("utf-8", "surrogatepass")).digest() != control.text_sha256


def _clean(decoded: Decoded, encoding: str, body: bytes) -> bool:
    if decoded.source != "override" or decoded.lossy or decoded.mojibake_suspected:
        return False
    # Damaged UTF-8 is never read as a legacy encoding (the resolution order's rule, resolve.py), nor is
    # valid multi-byte UTF-8: a legacy encoding reads it without an error, and not always as mojibake.
    return encoding == "UTF-8" or not (damaged_utf8(body) or _multibyte_utf8(body))


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
    doubled = sum(_multibyte_utf8(s.body) and decode(s.body, "text/plain; charset=utf-8").mojibake_suspected
                  for s in samples)
    if doubled:
        said += (f"; {doubled} record(s) are valid UTF-8 whose own text is mojibake: double-encoded upstream, which"
                 " no override repairs (the site must)")
    return said


def _described(kinds: Mapping[str, int]) -> str:
    """ "9 lossy record(s)", or "12 record(s): 9 lossy, 3 mojibake-suspected clean"."""
    if len(kinds) == 1:
        ((kind, n),) = kinds.items()
        return f"{n} {_KIND_NAMES[kind]} record(s)"
    return (f"{sum(kinds.values())} record(s): "
            + ", ".join(f"{n} {_KIND_NAMES[kind]}" for kind, n in kinds.items()))


def entry(host: str, chosen: Trial, declared: tuple[str, ...], today: dt.date, owner: str = "",
          ticket: str = "", kinds: Mapping[str, int] | None = None) -> dict[str, Any]:
    """The overrides file entry for *chosen*; ``reason`` says the evidence.  Without *owner* or *ticket* it
    has neither, and the loader refuses it until someone says who answers for it.  *kinds*: the records of
    each ``Sample.kind`` (none: all quarantined)."""
    said = f"declared {', '.join(declared)}" if declared else "declared nothing"
    published = (kinds or {}).get(MOJIBAKE, 0)
    which = ("quarantined records" if not published else
             "records published with mojibake suspected" if published == chosen.records else
             f"records ({chosen.records - published} quarantined, {published} published with mojibake suspected)")
    first = "the evidence's first choice (valid UTF-8)" if chosen.encoding == "UTF-8" else "the detector's first choice"
    reason = (f"{chosen.clean} of {chosen.records} {which} of this host decode cleanly as "
              f"{chosen.encoding}, {first} for {chosen.votes} (they {said}); suggested by "
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
            lines.append(f"{s.host}: no suggestion ({s.described}): {s.why_none}")
            continue
        lines.append(f"{s.host}: {s.chosen.encoding} (force): {s.chosen.clean} of {s.described} decode "
                     f"cleanly ({s.chosen.share:.0%}); declared: {', '.join(s.declared) or 'nothing'}")
        first = "first choice (valid UTF-8)" if s.chosen.encoding == "UTF-8" else "detector's first choice"
        lines.append(f"  {first} for {s.chosen.votes} of {s.records}; sample: {s.chosen.sample}")
        if s.controls:
            lines.append(f"  of the host's {s.controls} other clean record(s) read (no mojibake suspected), "
                         f"{s.chosen.changes} would read differently under it: look at them with 'overrides recheck'")
        others = [t for t in s.trials if t is not s.chosen]
        if others:
            shown = ", ".join(f"{t.encoding} {t.clean}/{t.records}" for t in others[:_SHOWN])
            more = f" and {len(others) - _SHOWN} more (--json lists them)" if len(others) > _SHOWN else ""
            lines.append(f"  also tried (clean/records; clean is not right: a single-byte encoding reads any bytes): "
                         f"{shown}{more}")
    if not suggestions:
        lines.append("no lossy or declaration-doubted quarantined records, nor mojibake-suspected clean ones, read")
    if collected.clean_read:
        lines.append(f"clean records read: {collected.clean_read}, {collected.clean_suspected} with mojibake suspected")
    if collected.skipped:
        lines.append("not tried (another reason, or unreadable): "
                     + ", ".join(f"{n} {reason}" for reason, n in sorted(collected.skipped.items())))
    ready = [s.entry for s in suggestions if s.entry is not None]
    if ready:
        lines += ["", "overrides:", entries_yaml(ready).rstrip("\n")]
    return "\n".join(lines)
