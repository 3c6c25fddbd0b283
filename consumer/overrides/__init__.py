"""Per-host encoding overrides as operators configure them (issue 4).

``config/overrides.yaml`` is read and validated by ``loader`` into an immutable
``OverrideConfig``; ``reload.OverridesWatcher`` keeps the live one current as the
file (a Kubernetes ConfigMap) changes; ``review`` says which entries are due or
overdue and which still apply; ``shadow`` counts whether the normal resolution
would agree with each override; ``report`` turns clean records into the
``overrides report`` table; ``suggest`` turns quarantined records into suggested
entries, which ``append`` writes into a file.  The data model itself (``Override``,
``OverrideTable``) is ``consumer.decoding.overrides``: the pure core consults it.
"""

from __future__ import annotations

from .config import ExpiredPolicy, OverrideConfig, empty_config
from .exceptions import OverridesError, Problem
from .loader import load_overrides, parse_overrides
from .reload import OverridesWatcher
from .report import ReportRow, format_report, report_from_records
from .review import active_table, due, overdue
from .shadow import ShadowCounts, ShadowStats, Verdict, verdict_for

__all__ = [
    "ExpiredPolicy",
    "OverrideConfig",
    "OverridesError",
    "OverridesWatcher",
    "Problem",
    "ReportRow",
    "ShadowCounts",
    "ShadowStats",
    "Verdict",
    "active_table",
    "due",
    "empty_config",
    "format_report",
    "load_overrides",
    "overdue",
    "parse_overrides",
    "report_from_records",
    "verdict_for",
]
