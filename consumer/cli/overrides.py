"""``crawl-decoder overrides validate|due|report``: check and review the per-host overrides file.

FILE defaults to ``$CRAWL_DECODER_OVERRIDES_PATH``, else ``config/overrides.yaml``.

- ``validate FILE``: exit 0 with a one-line summary when the file is valid; exit 1
  with every problem as ``FILE:LINE: message`` on stderr when not (CI runs it).
- ``due [FILE] [--within 30d] [--today YYYY-MM-DD]``: overdue entries, then those
  whose review date falls within the window.  Exit 0 (1 if the file is invalid).
- ``report [FILE] --from-jsonl RECORDS``: per override, hits, agreement of the
  shadow check and a verdict, from clean records, one JSON object per line
  (``-`` for stdin), e.g. exported from the clean topic.  Reading the topic
  itself (``--from-topic``) belongs to the Kafka layer.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from ..overrides import (
    OverrideConfig,
    OverridesError,
    Problem,
    due,
    format_report,
    load_overrides,
    overdue,
    report_from_records,
)
from ..overrides.shadow import DEFAULT_AGREE_SHARE, DEFAULT_MIN_HITS

ENV_PATH = "CRAWL_DECODER_OVERRIDES_PATH"
DEFAULT_PATH = "config/overrides.yaml"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "overrides",
        help="validate and review the per-host overrides file",
        description=__doc__.split("\n\n")[0],
    )
    commands = parser.add_subparsers(dest="overrides_command", required=True, metavar="ACTION")

    validate = commands.add_parser("validate", help="check a file; exit 1 listing every FILE:LINE problem")
    validate.add_argument("file", metavar="FILE", help="the overrides file")
    validate.set_defaults(func=run_validate)

    due_parser = commands.add_parser("due", help="list overrides overdue or due for review soon")
    _add_file(due_parser)
    due_parser.add_argument("--within", type=parse_within, default=dt.timedelta(days=30),
                            help="window ahead of today: 30d (default), 6w, or a number of days")
    _add_today(due_parser)
    due_parser.set_defaults(func=run_due)

    report = commands.add_parser(
        "report", help="hits, shadow agreement and verdict per override, from clean records",
        description="Per override: host, encoding, mode, review date, overdue?, hits, agreement of the "
        "normal resolution (shadow check) and a verdict.  Records: clean records as JSON, one per line.")
    _add_file(report)
    sources = report.add_mutually_exclusive_group(required=True)
    sources.add_argument("--from-jsonl", metavar="RECORDS", type=Path,
                         help="clean records, one JSON object per line ('-' for stdin)")
    report.add_argument("--min-hits", type=int, default=DEFAULT_MIN_HITS,
                        help=f"shadow-checked records a verdict needs (default {DEFAULT_MIN_HITS})")
    report.add_argument("--agree-share", type=float, default=DEFAULT_AGREE_SHARE,
                        help="agreeing share from which an override is no longer needed"
                        f" (default {DEFAULT_AGREE_SHARE})")
    _add_today(report)
    report.set_defaults(func=run_report)


def _add_file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", nargs="?", default=None,
                        help=f"the overrides file (default: ${ENV_PATH} or {DEFAULT_PATH})")


def _add_today(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--today", type=dt.date.fromisoformat, default=None, metavar="YYYY-MM-DD",
                        help="the date to judge review dates against (default: today, UTC)")


def parse_within(text: str) -> dt.timedelta:
    """``30d``, ``6w`` or ``30`` (days) as a timedelta; argparse turns the ValueError into a usage error."""
    match = re.fullmatch(r"(\d+)([dw]?)", text.strip().lower())
    if match is None:
        raise ValueError(f"not a duration: {text!r}")
    days = int(match.group(1)) * (7 if match.group(2) == "w" else 1)
    return dt.timedelta(days=days)


parse_within.__name__ = "duration"  # argparse names the type in its error message


def default_path() -> str:
    return os.environ.get(ENV_PATH) or DEFAULT_PATH


def run_validate(args: argparse.Namespace) -> int:
    config = _load(args.file)
    if config is None:
        return 1
    for note in config.notes:
        print(note.render(config.source), file=sys.stderr)
    modes = [override.mode.value for override in config.overrides]
    print(f"{config.source}: valid: {len(modes)} override(s) ({modes.count('force')} force, "
          f"{modes.count('fallback')} fallback), expired: {config.expired.value}, sha256 {config.digest[:12]}")
    return 0


def run_due(args: argparse.Namespace) -> int:
    config = _load(args.file or default_path())
    if config is None:
        return 1
    today = args.today or _utc_today()
    late, soon = overdue(config, today), due(config, today, args.within)
    if not late and not soon:
        print(f"nothing due by {(today + args.within).isoformat()} ({len(config)} override(s))")
        return 0
    rows = [("STATUS", "REVIEW_BY", "HOST", "ENCODING", "MODE", "OWNER", "LINE")]
    rows += [("OVERDUE" if o in late else "due", o.review_by.isoformat(), o.host, o.encoding, o.mode.value,
              o.owner, str(config.lines.get(o.host, ""))) for o in late + soon]
    print(_table(rows))
    return 0


def run_report(args: argparse.Namespace) -> int:
    config = _load(args.file or default_path())
    if config is None:
        return 1
    try:
        records = list(_jsonl(args.from_jsonl))
    except OverridesError as exc:
        print(exc, file=sys.stderr)
        return 1
    rows = report_from_records(config, records, args.today or _utc_today(),
                               min_hits=args.min_hits, agree_share=args.agree_share)
    print(format_report(rows))
    return 0


def _load(path: str) -> OverrideConfig | None:
    try:
        return load_overrides(path)
    except OverridesError as exc:
        print(exc, file=sys.stderr)
        return None


def _jsonl(path: Path) -> Iterator[dict]:
    """Clean records, one JSON object per line; a bad line is reported with its number."""
    name = "<stdin>" if str(path) == "-" else str(path)
    try:
        file = contextlib.nullcontext(sys.stdin) if str(path) == "-" else open(path, encoding="utf-8")
    except OSError as exc:
        raise OverridesError(name, [Problem(None, f"cannot read: {exc.strerror or exc}")]) from exc
    with file as lines:
        for number, line in enumerate(lines, 1):
            if line.strip():
                yield _record(line, name, number)


def _record(line: str, name: str, number: int) -> dict:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise OverridesError(name, [Problem(number, f"not JSON: {exc.msg}")]) from exc
    if not isinstance(record, dict):
        raise OverridesError(name, [Problem(number, "a record must be a JSON object")])
    return record


def _utc_today() -> dt.date:
    return dt.datetime.now(dt.timezone.utc).date()


def _table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)
