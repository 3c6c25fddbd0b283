"""``overrides recheck``: what would change for a host without its override, on real records.

Quarantine records keep the raw bytes.  Clean records keep the text, the encoding
and the SHA-256 of the body: encoding the text again gives the original bytes
whenever the hash says so, which is how a clean record "keeps enough to tell".
A record whose bytes cannot be rebuilt exactly is reported as such, never guessed.

Each record is put in one of three kinds (``Recheck.change``): its text would
change without overrides (``TEXT``); only the decision would, the encoding or
its source (``override`` becoming ``meta``, say), the text staying the same
(``SOURCE_ONLY``, what an override no longer needed looks like); or nothing
would change (``NONE``).  The summary counts the kinds apart.
"""

from __future__ import annotations

import codecs
import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..decoding import OverrideTable, decode
from ..decoding.bom import BOM_OF
from ..decoding.codecs.cpython import ENCODERS
from ..decoding.data.whatwg import NO_CODE_POINT, SINGLE_BYTE
from ..decoding.hosts import host_matches, host_of, parse_host_pattern
from ..processor.records import header_value

#: ``Recheck.change``: what would change without overrides.
TEXT = "text"
SOURCE_ONLY = "source only"
NONE = "none"



@dataclass(frozen=True, slots=True)
class Recheck:
    """One record decoded again without overrides.

    *before* is what the record says: "encoding/source" of a clean record,
    "encoding/reason" of a quarantined one.  *now* is the decision compared
    against: a clean record's recorded one; for a quarantined record (which has
    no decision to keep) what the current overrides give its bytes.  *after* is
    the normal resolution's.  *after*, *now*, *same_text* and *lossy* are None
    when the bytes could not be rebuilt.
    """

    url: str
    where: str  # "clean" or "quarantine"
    before: str
    after: str | None  # "encoding/source" of the normal path without overrides; None: bytes unavailable
    same_text: bool | None
    lossy: bool | None
    now: str | None = None  # "encoding/source" compared against (see above)

    @property
    def change(self) -> str | None:
        """``TEXT``, ``SOURCE_ONLY`` (same text, another encoding or source) or ``NONE``; None: not rebuilt."""
        if self.after is None:
            return None
        if not self.same_text:
            return TEXT
        return SOURCE_ONLY if self.now != self.after else NONE

    @property
    def changes(self) -> bool:
        """Anything would change: the text, or only the encoding/source."""
        return self.change in (TEXT, SOURCE_ONLY)


@dataclass(frozen=True, slots=True)
class RecheckCounts:
    """How many records of each kind (``Recheck.change``)."""

    records: int
    text: int
    source_only: int
    unchanged: int
    unrebuildable: int

    @classmethod
    def of(cls, results: Iterable[Recheck]) -> RecheckCounts:
        kinds = [result.change for result in results]
        return cls(len(kinds), kinds.count(TEXT), kinds.count(SOURCE_ONLY), kinds.count(NONE), kinds.count(None))

    def summary(self, host: str) -> str:
        """One line; it starts as it always did ("N record(s) of HOST: M would change without overrides")."""
        return (
            f"{self.records} record(s) of {host}: {self.text + self.source_only} would change without overrides"
            f" ({self.text} their text, {self.source_only} only their encoding/source with the same text),"
            f" {self.unchanged} would not, {self.unrebuildable} could not be rebuilt"
        )


def body_of_clean(record: Mapping[str, Any]) -> bytes | None:
    """The original body of a clean record, when re-encoding its text reproduces the recorded hash."""
    encoding = record["encoding"]
    try:
        body = encode_as(record["text"], encoding)
    except (UnicodeEncodeError, LookupError, KeyError):
        return None
    if record["source"] == "bom":
        body = BOM_OF.get(encoding, b"") + body
    return body if hashlib.sha256(body).hexdigest() == record["body_sha256"] else None


def encode_as(text: str, encoding: str) -> bytes:
    """*text* encoded as the Encoding Standard's *encoding* (strict: a character it lacks raises)."""
    if encoding in SINGLE_BYTE:
        table = {char: 0x80 + i for i, char in enumerate(SINGLE_BYTE[encoding]) if char != NO_CODE_POINT}
        table.update({chr(i): i for i in range(0x80)})
        return bytes(table[char] for char in text)
    # Where a CPython encoder differs from the standard's, the SHA-256 check above catches it:
    # the record is reported unrebuildable, never rebuilt wrong.
    return codecs.encode(text, ENCODERS[encoding])


def recheck(
    records: Iterable[tuple[str, Mapping[str, Any]]], matches: Callable[[str], bool], current: OverrideTable | None
) -> list[Recheck]:
    """Re-run the normal resolution (no overrides) on each record of the host."""
    out = []
    for where, record in records:
        raw = record if where == "clean" else record.get("raw")
        if raw is None or not matches(raw["url"]):
            continue
        if where == "clean":
            body, before = body_of_clean(record), f"{record['encoding']}/{record['source']}"
            text_now = record["text"]
        else:
            attempt = record.get("attempt") or {}
            body, before = raw["body"], f"{attempt.get('encoding', '-')}/{record['reason']}"
            text_now = None
        out.append(_compare(raw, body, where, before, text_now, current))
    return out


def _compare(
    raw: Mapping[str, Any],
    body: bytes | None,
    where: str,
    before: str,
    text_now: str | None,
    current: OverrideTable | None,
) -> Recheck:
    if body is None:
        return Recheck(raw["url"], where, before, None, None, None)
    content_type = header_value(raw["headers"], "content-type")
    now = before
    if text_now is None:  # a quarantined record: compare with what the current overrides give
        decided = decode(body, content_type, raw["url"], current)
        text_now, now = decided.text, f"{decided.encoding}/{decided.source}"
    normal = decode(body, content_type, raw["url"], None)
    after = f"{normal.encoding}/{normal.source}"
    return Recheck(raw["url"], where, before, after, normal.text == text_now, normal.lossy, now)


def host_matcher(pattern: str) -> Callable[[str], bool]:
    """Whether a URL's host is *pattern* (exact, or ``*.suffix`` for its sub-domains), as overrides match.

    *pattern* is written as in the overrides file; ValueError says what is wrong with it.
    """
    pattern = parse_host_pattern(pattern)
    return lambda url: host_matches(pattern, host_of(url))
