"""``overrides report``: per override, how often it applied, whether the normal path agrees, a verdict.

Built from clean records (the processor's output), whose ``override`` field is
``{host, encoding, mode, reason, review_by, owner, shadow_encoding, shadow_agrees}``
or null.  ``shadow_agrees`` is true when the normal resolution would have given
the same text losslessly, null when the shadow check did not run.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .config import OverrideConfig
from .shadow import DEFAULT_AGREE_SHARE, DEFAULT_MIN_HITS, Verdict, verdict_for


@dataclass(frozen=True, slots=True)
class ReportRow:
    """One line of the report.  *in_config* is false for an override seen in records but no
    longer in the file (removed or redefined since those records were written)."""

    host: str
    encoding: str
    mode: str
    review_by: dt.date | None
    overdue: bool
    hits: int
    agreements: int
    disagreements: int
    verdict: Verdict
    in_config: bool = True

    @property
    def agreement(self) -> float | None:
        checked = self.agreements + self.disagreements
        return self.agreements / checked if checked else None


def report_from_records(
    config: OverrideConfig,
    records: Iterable[Mapping[str, Any]],
    today: dt.date,
    *,
    min_hits: int = DEFAULT_MIN_HITS,
    agree_share: float = DEFAULT_AGREE_SHARE,
) -> list[ReportRow]:
    """One row per override of *config* (in file order), then one per override met only in *records*.

    Records are counted for an override when host, encoding and mode all match:
    records written under an earlier definition judge another decision.
    """
    tallies = _tally(records)
    judge = functools.partial(verdict_for, min_hits=min_hits, agree_share=agree_share)
    rows = []
    for override in config.overrides:
        key = (override.host, override.encoding, override.mode.value)
        tally = tallies.pop(key, _Tally())
        tally.review_by = override.review_by  # the file's date, not the one the records were written under
        rows.append(_row(key, tally, True, today, judge))
    rows.extend(_row(key, tally, False, today, judge) for key, tally in sorted(tallies.items()))
    return rows


def _tally(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, str], _Tally]:
    """Counts per (override host, encoding, mode) of the records decoded under an override."""
    tallies: dict[tuple[str, str, str], _Tally] = {}
    for record in records:
        applied = _override_of(record)
        if applied is not None:
            key = (str(applied.get("host", "")).lower(), str(applied.get("encoding", "")), str(applied.get("mode", "")))
            tally = tallies.setdefault(key, _Tally(review_by=_date(applied.get("review_by"))))
            tally.add(applied.get("shadow_agrees"))
    return tallies


def _row(
    key: tuple[str, str, str], tally: _Tally, in_config: bool, today: dt.date, judge: Callable[[int, int], Verdict]
) -> ReportRow:
    host, encoding, mode = key
    return ReportRow(
        host=host,
        encoding=encoding,
        mode=mode,
        review_by=tally.review_by,
        overdue=tally.review_by is not None and today > tally.review_by,
        hits=tally.hits,
        agreements=tally.agreements,
        disagreements=tally.disagreements,
        verdict=judge(tally.agreements, tally.disagreements),
        in_config=in_config,
    )


@dataclass
class _Tally:
    review_by: dt.date | None = None
    hits: int = 0
    agreements: int = 0
    disagreements: int = 0

    def add(self, shadow_agrees: bool | None) -> None:
        self.hits += 1
        if shadow_agrees is True:
            self.agreements += 1
        elif shadow_agrees is False:
            self.disagreements += 1


def _override_of(record: Mapping[str, Any]) -> Mapping[str, Any] | None:
    applied = record.get("override")
    if not isinstance(applied, Mapping):
        return None
    # Avro JSON encodes a union branch as {"<type name>": value}; accept that form too.
    if "host" not in applied and len(applied) == 1:
        (inner,) = applied.values()
        return inner if isinstance(inner, Mapping) else None
    return applied


def _date(value: object) -> dt.date | None:
    """``review_by`` as a clean record holds it: an ISO string, an Avro date (days since 1970), or a date."""
    if isinstance(value, dt.date):
        return value
    if isinstance(value, int):
        return dt.date(1970, 1, 1) + dt.timedelta(days=value)
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return None
    return None


_COLUMNS = ("HOST", "ENCODING", "MODE", "REVIEW_BY", "OVERDUE", "HITS", "AGREEMENT", "VERDICT")


def format_report(rows: Iterable[ReportRow]) -> str:
    """A plain aligned table, one override per line, for a terminal or a ticket."""
    lines = [_COLUMNS] + [_cells(row) for row in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(_COLUMNS))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip() for line in lines
    )


def _cells(row: ReportRow) -> tuple[str, ...]:
    agreement = "-" if row.agreement is None else f"{row.agreement:.1%} of {row.agreements + row.disagreements}"
    host = row.host if row.in_config else f"{row.host} (not in file)"
    return (
        host,
        row.encoding,
        row.mode,
        row.review_by.isoformat() if row.review_by else "-",
        "OVERDUE" if row.overdue else "no",
        str(row.hits),
        agreement,
        row.verdict.value,
    )
