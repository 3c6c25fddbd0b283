"""Review dates: which overrides are due, which are overdue, and which still apply.

An override is overdue the day after its ``review_by`` date (``Override.overdue``);
on the date itself it is due.  Whether an overdue override keeps applying is the
file's ``settings.expired`` policy.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from functools import lru_cache

from ..decoding.overrides import Override, OverrideTable
from .config import ExpiredPolicy, OverrideConfig


def overdue(config: OverrideConfig, today: dt.date) -> list[Override]:
    """Overrides past their review date, oldest first."""
    return _by_date(override for override in config.overrides if override.overdue(today))


def due(config: OverrideConfig, today: dt.date, within: dt.timedelta) -> list[Override]:
    """Overrides not yet overdue whose review date falls on *today* .. *today* + *within*, soonest first."""
    last = today + within
    return _by_date(
        override for override in config.overrides if not override.overdue(today) and override.review_by <= last
    )


def active_table(config: OverrideConfig, today: dt.date) -> OverrideTable:
    """The table the resolution should consult on *today*.

    With ``expired: apply`` (or nothing overdue) that is ``config.table`` itself;
    with ``expired: ignore`` the overdue overrides are left out, so their hosts go
    through the normal resolution again.  Cheap enough to call once per batch:
    the filtered table is built once per (config, day).
    """
    if config.expired is ExpiredPolicy.APPLY or not any(o.overdue(today) for o in config.overrides):
        return config.table
    return _without_overdue(config, today)


@lru_cache(maxsize=4)
def _without_overdue(config: OverrideConfig, today: dt.date) -> OverrideTable:
    return OverrideTable(override for override in config.overrides if not override.overdue(today))


def _by_date(overrides: Iterable[Override]) -> list[Override]:
    return sorted(overrides, key=lambda override: (override.review_by, override.host))
