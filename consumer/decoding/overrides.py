"""Per-host encoding overrides: the data model the resolution order consults.

Loading, validating and reloading the operators' file is ``consumer.overrides``;
this module only says what an override is and which one applies to a host.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass


class OverrideMode(str, enum.Enum):
    #: Use the override's encoding whatever the page declares (a BOM aside).
    FORCE = "force"
    #: Use it only where nothing usable is declared, instead of detection.
    FALLBACK = "fallback"


@dataclass(frozen=True, slots=True)
class Override:
    """One operator decision: decode pages of *host* as *encoding*.

    *host* is an exact host name (``www.example.jp``) or a suffix pattern
    (``*.example.jp``, which matches sub-domains but not ``example.jp``).
    *encoding* is a WHATWG encoding name (already resolved from a label).
    """

    host: str
    encoding: str
    mode: OverrideMode
    reason: str
    review_by: dt.date
    owner: str = ""

    @property
    def is_pattern(self) -> bool:
        return self.host.startswith("*.")

    def overdue(self, today: dt.date) -> bool:
        return today > self.review_by


class OverrideTable:
    """Overrides by host; the most specific match wins.

    An exact host beats any pattern; among patterns, the longest suffix wins
    (``*.shop.example.jp`` beats ``*.example.jp``).  Lookup is a dictionary
    probe per label of the host, so it stays cheap with thousands of entries.
    """

    __slots__ = ("_exact", "_suffixes")

    def __init__(self, overrides: Iterable[Override] = ()) -> None:
        self._exact: dict[str, Override] = {}
        self._suffixes: dict[str, Override] = {}
        for override in overrides:
            host = override.host.lower()
            if override.is_pattern:
                self._suffixes[host[1:]] = override  # keep the dot: ".example.jp"
            else:
                self._exact[host] = override

    def __len__(self) -> int:
        return len(self._exact) + len(self._suffixes)

    def __iter__(self):
        yield from self._exact.values()
        yield from self._suffixes.values()

    def lookup(self, host: str | None) -> Override | None:
        if not host:
            return None
        host = _ascii_host(host)
        found = self._exact.get(host)
        if found is not None:
            return found
        dot = host.find(".")
        while dot != -1:
            found = self._suffixes.get(host[dot:])
            if found is not None:
                return found
            dot = host.find(".", dot + 1)
        return None


def _ascii_host(host: str) -> str:
    """Lowercase, no trailing dot, IDN labels as punycode: how the override file stores hosts."""
    host = host.lower().rstrip(".")
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host


def as_table(overrides: OverrideTable | Iterable[Override] | Mapping | None) -> OverrideTable:
    """Accept what callers naturally hold: a table, a list of overrides, or None."""
    if overrides is None:
        return _EMPTY
    if isinstance(overrides, OverrideTable):
        return overrides
    if isinstance(overrides, Mapping):
        overrides = overrides.values()
    return OverrideTable(overrides)


_EMPTY = OverrideTable()
