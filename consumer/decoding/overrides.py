"""Per-host encoding overrides: the data model the resolution order consults.

Loading, validating and reloading the operators' file is ``consumer.overrides``;
this module only says what an override is and which one applies to a host.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from .hosts import HostPatterns, is_pattern


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
        return is_pattern(self.host)

    def overdue(self, today: dt.date) -> bool:
        return today > self.review_by


class OverrideTable:
    """Overrides by host; the most specific match wins (an exact host, else the longest ``*.suffix``).

    The matching is ``hosts.HostPatterns``, the same that replay's and recheck's ``--host`` use.
    """

    __slots__ = ("_patterns",)

    def __init__(self, overrides: Iterable[Override] = ()) -> None:
        self._patterns: HostPatterns[Override] = HostPatterns((override.host, override) for override in overrides)

    def __len__(self) -> int:
        return len(self._patterns)

    def __iter__(self) -> Iterator[Override]:
        return self._patterns.values()

    def lookup(self, host: str | None) -> Override | None:
        """The override for *host* (any spelling: case, punycode or not, trailing dot), else None."""
        return self._patterns.lookup(host)


def as_table(overrides: OverrideTable | Iterable[Override] | Mapping[str, Override] | None) -> OverrideTable:
    """Accept what callers naturally hold: a table, a list of overrides, or None."""
    if overrides is None:
        return _EMPTY
    if isinstance(overrides, OverrideTable):
        return overrides
    if isinstance(overrides, Mapping):
        overrides = overrides.values()
    return OverrideTable(overrides)


_EMPTY = OverrideTable()
