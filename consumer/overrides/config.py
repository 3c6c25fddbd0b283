"""``OverrideConfig``: one validated, immutable overrides file."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ..decoding.overrides import Override, OverrideTable
from .exceptions import Problem


class ExpiredPolicy(str, enum.Enum):
    """What happens to an override past its ``review_by`` date (``settings.expired``)."""

    #: Keep applying it; logs, metrics and ``overrides report`` flag it as overdue.
    APPLY = "apply"
    #: Stop applying it: pages of that host go through the normal resolution again.
    IGNORE = "ignore"


@dataclass(frozen=True, slots=True)
class OverrideConfig:
    """A whole overrides file after validation.  Never mutated: a reload builds a new one.

    *digest* is the SHA-256 of the file's bytes (hex), what reloads compare and
    what logs quote to say which file is live.  *notes* are informational
    remarks that do not make the file invalid (a label that names another
    encoding than it seems to, such as ``latin1`` meaning windows-1252).
    *lines* maps each override's host to the line of its entry.
    *has_list* is True when the file has a top-level ``overrides:`` list, be it
    ``overrides: []``: it says which overrides it wants, none included.  An empty
    or comments-only file, ``overrides:`` with nothing after it, or a file with
    only ``settings:`` has none: valid at start (no overrides), but a running
    processor refuses it as a likely truncated edit or empty render
    (``reload.OverridesWatcher``).
    """

    overrides: tuple[Override, ...] = ()
    expired: ExpiredPolicy = ExpiredPolicy.APPLY
    digest: str = ""
    source: str = ""
    notes: tuple[Problem, ...] = ()
    has_list: bool = False
    lines: Mapping[str, int] = field(default_factory=dict, compare=False, hash=False)
    table: OverrideTable = field(init=False, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "overrides", tuple(self.overrides))
        object.__setattr__(self, "notes", tuple(self.notes))
        object.__setattr__(self, "lines", MappingProxyType(dict(self.lines)))
        object.__setattr__(self, "table", OverrideTable(self.overrides))

    def __len__(self) -> int:
        return len(self.overrides)

    def get(self, host: str) -> Override | None:
        """The entry whose host (or pattern) is exactly *host*, not the one that would match it."""
        host = host.lower()
        return next((override for override in self.overrides if override.host == host), None)


def empty_config(source: str = "") -> OverrideConfig:
    """No overrides: what an empty file, or a missing one allowed to be missing, means."""
    return OverrideConfig(source=source)
