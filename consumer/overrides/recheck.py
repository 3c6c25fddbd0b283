"""``overrides recheck``: what would change for a host without its override, on real records.

Quarantine records keep the raw bytes.  Clean records keep the text, the encoding
and the SHA-256 of the body: encoding the text again gives the original bytes
whenever the hash says so, which is how a clean record "keeps enough to tell".
A record whose bytes cannot be rebuilt exactly is reported as such, never guessed.
"""

from __future__ import annotations

import codecs
import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ..decoding import OverrideTable, decode
from ..decoding.codecs.cpython import ENCODERS
from ..decoding.data.whatwg import NO_CODE_POINT, SINGLE_BYTE
from ..decoding.hosts import host_matches, host_of, parse_host_pattern
from ..processor.records import header_value

_BOMS = {"UTF-8": b"\xef\xbb\xbf", "UTF-16LE": b"\xff\xfe", "UTF-16BE": b"\xfe\xff"}


@dataclass(frozen=True, slots=True)
class Recheck:
    url: str
    where: str  # "clean" or "quarantine"
    before: str  # "encoding/source" as recorded
    after: str | None  # "encoding/source" of the normal path without overrides; None: bytes unavailable
    same_text: bool | None
    lossy: bool | None

    @property
    def changes(self) -> bool:
        return self.after is not None and (not self.same_text or self.before != self.after)


def body_of_clean(record: Mapping) -> bytes | None:
    """The original body of a clean record, when re-encoding its text reproduces the recorded hash."""
    encoding = record["encoding"]
    try:
        body = _encode(record["text"], encoding)
    except (UnicodeEncodeError, LookupError, KeyError):
        return None
    if record["source"] == "bom":
        body = _BOMS.get(encoding, b"") + body
    return body if hashlib.sha256(body).hexdigest() == record["body_sha256"] else None


def _encode(text: str, encoding: str) -> bytes:
    if encoding in SINGLE_BYTE:
        table = {char: 0x80 + i for i, char in enumerate(SINGLE_BYTE[encoding]) if char != NO_CODE_POINT}
        table.update({chr(i): i for i in range(0x80)})
        return bytes(table[char] for char in text)
    # Where a CPython encoder differs from the standard's, the SHA-256 check above catches it:
    # the record is reported unrebuildable, never rebuilt wrong.
    return codecs.encode(text, ENCODERS[encoding])


def recheck(
    records: Iterable[tuple[str, Mapping]], matches: Callable[[str], bool], current: OverrideTable
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


def _compare(raw: Mapping, body: bytes | None, where: str, before: str, text_now: str | None, current) -> Recheck:
    if body is None:
        return Recheck(raw["url"], where, before, None, None, None)
    content_type = header_value(raw["headers"], "content-type")
    if text_now is None:  # a quarantined record: compare with what the current overrides give
        text_now = decode(body, content_type, raw["url"], current).text
    normal = decode(body, content_type, raw["url"], None)
    return Recheck(
        raw["url"], where, before, f"{normal.encoding}/{normal.source}", normal.text == text_now, normal.lossy
    )


def host_matcher(pattern: str) -> Callable[[str], bool]:
    """Whether a URL's host is *pattern* (exact, or ``*.suffix`` for its sub-domains), as overrides match.

    *pattern* is written as in the overrides file; ValueError says what is wrong with it.
    """
    pattern = parse_host_pattern(pattern)
    return lambda url: host_matches(pattern, host_of(url))
