"""``overrides report``: per override, how often it applied, whether the normal path agrees, a verdict.

Built from clean records (the processor's output), whose ``override`` field is
``{host, encoding, mode, reason, review_by, owner, shadow_encoding, shadow_agrees}``
or null.  ``shadow_agrees`` is true when the normal resolution would have given
the same text losslessly, null when the shadow check did not run.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

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
    records: Iterable[Mapping],
    today: dt.date,
    *,
    min_hits: int = DEFAULT_MIN_HITS,
    agree_share: float = DEFAULT_AGREE_SHARE,
) -> list[ReportRow]:
    """One row per override of *config* (in file order), then one per override met only in *records*.

    Records are counted for an override when host, encoding and mode all match:
    records written under an earlier definition judge another decision.
    """
    tally: dict[tuple[str, str, str], list] = {}
    for record in records:
        applied = _override_of(record)
        if applied is None:
            continue
        key = (str(applied.get("host", "")).lower(), str(applied.get("encoding", "")), str(applied.get("mode", "")))
        counts = tally.setdefault(key, [0, 0, 0, applied.get("review_by")])
        counts[0] += 1
        agrees = applied.get("shadow_agrees")
        if agrees is not None:
            counts[1 if agrees else 2] += 1
    rows = [_row(o.host, o.encoding, o.mode.value, o.review_by, True, tally.pop((o.host, o.encoding, o.mode.value), None),
                 today, min_hits, agree_share) for o in config.overrides]
    for (host, encoding, mode), counts in sorted(tally.items()):
        rows.append(_row(host, encoding, mode, _date(counts[3]), False, counts, today, min_hits, agree_share))
    return rows


def _row(host, encoding, mode, review_by, in_config, counts, today, min_hits, agree_share) -> ReportRow:
    hits, agreements, disagreements = counts[:3] if counts else (0, 0, 0)
    return ReportRow(
        host=host,
        encoding=encoding,
        mode=mode,
        review_by=review_by,
        overdue=review_by is not None and today > review_by,
        hits=hits,
        agreements=agreements,
        disagreements=disagreements,
        verdict=verdict_for(agreements, disagreements, min_hits=min_hits, agree_share=agree_share),
        in_config=in_config,
    )


def _override_of(record: Mapping) -> Mapping | None:
    applied = record.get("override")
    if not isinstance(applied, Mapping):
        return None
    # Avro JSON encodes a union branch as {"<type name>": value}; accept that form too.
    if "host" not in applied and len(applied) == 1:
        (inner,) = applied.values()
        return inner if isinstance(inner, Mapping) else None
    return applied


def _date(value) -> dt.date | None:
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
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in lines)


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
