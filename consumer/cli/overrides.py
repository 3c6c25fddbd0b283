"""``crawl-decoder overrides validate|due|report``: check and review the per-host overrides file.

FILE defaults to ``$CRAWL_DECODER_OVERRIDES_PATH``, else ``config/overrides.yaml``.

- ``validate FILE``: exit 0 with a one-line summary when the file is valid; exit 1
  with every problem as ``FILE:LINE: message`` on stderr when not (CI runs it).
- ``due [FILE] [--within 30d] [--today YYYY-MM-DD]``: overdue entries, then those
  whose review date falls within the window.  Exit 0 when nothing is overdue
  (entries merely due soon included), 3 when at least one is overdue (so cron
  and CI can alert), 1 when the file is missing or invalid, 2 on a usage error.
- ``report [FILE] --from-topic | --from-jsonl RECORDS``: per override, hits,
  agreement of the shadow check and a verdict, from the newest clean records of
  the clean topic (settings and ``KAFKA_*`` as for ``run``), or from clean
  records exported one JSON object per line (``-`` for stdin).
- ``recheck HOST [--last N]``: the newest records of HOST in the clean and
  quarantine topics, decoded again without overrides: per record what would
  change (the text; only the encoding/source, same text; nothing), and the
  count of each.
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
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from ..settings import Settings

ENV_PATH = "CRAWL_DECODER_OVERRIDES_PATH"
DEFAULT_PATH = "config/overrides.yaml"

#: ``overrides due``'s exit status when at least one override is past its review date.
EXIT_OVERDUE = 3
DUE_EXIT_STATUSES = """\
exit status:
  0  nothing is overdue (overrides merely due within the window are listed, still 0)
  1  the overrides file is missing, unreadable or invalid (its problems on stderr)
  2  usage error (a bad --within or --today)
  3  at least one override is overdue: alert on it (cron, CI)"""


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

    due_parser = commands.add_parser(
        "due", help="list overrides overdue or due for review soon; exit 3 if any is overdue",
        description="Lists overrides past their review_by date (OVERDUE), then those whose review_by\n"
        "falls within the window (due).  An override is overdue the day after its review_by date.",
        epilog=DUE_EXIT_STATUSES, formatter_class=argparse.RawDescriptionHelpFormatter)
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
    sources.add_argument("--from-topic", action="store_true",
                         help="the newest records of the clean topic (see --last, --config)")
    _add_kafka(report)
    report.add_argument("--min-hits", type=int, default=DEFAULT_MIN_HITS,
                        help=f"shadow-checked records a verdict needs (default {DEFAULT_MIN_HITS})")
    report.add_argument("--agree-share", type=float, default=DEFAULT_AGREE_SHARE,
                        help="agreeing share from which an override is no longer needed"
                        f" (default {DEFAULT_AGREE_SHARE})")
    _add_today(report)
    report.set_defaults(func=run_report)

    recheck = commands.add_parser(
        "recheck", help="decode a host's recent records again without overrides and show what would change",
        description="Reads the newest records of HOST (exact or *.suffix) from the clean topic (whose bytes "
        "are rebuilt from the text when the recorded SHA-256 confirms them) and the quarantine topic (raw bytes), "
        "runs the normal resolution without overrides and prints, per record, the decision recorded, the one "
        "with overrides (for a quarantined record: the current ones) and the one without, and what would "
        "change: 'text', 'source only' (same text, another encoding or source) or 'none'; then the count of each.")
    recheck.add_argument("host", metavar="HOST")
    _add_kafka(recheck)
    recheck.set_defaults(func=run_recheck)


def _add_file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", nargs="?", default=None,
                        help=f"the overrides file (default: ${ENV_PATH} or {DEFAULT_PATH})")


def _add_kafka(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="processor settings file (topics; default $CRAWL_DECODER_CONFIG)")
    parser.add_argument("--last", type=int, default=1000, metavar="N",
                        help="read the newest N records of each partition (default 1000)")


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
    return EXIT_OVERDUE if late else 0


def run_report(args: argparse.Namespace) -> int:
    config = _load(args.file or default_path())
    if config is None:
        return 1
    try:
        if args.from_topic:
            records = _topic_records(args, _processor_settings(args), "clean")
        else:
            records = list(_jsonl(args.from_jsonl))
    except OverridesError as exc:
        print(exc, file=sys.stderr)
        return 1
    rows = report_from_records(config, records, args.today or _utc_today(),
                               min_hits=args.min_hits, agree_share=args.agree_share)
    print(format_report(rows))
    return 0


def run_recheck(args: argparse.Namespace) -> int:
    from ..overrides.recheck import host_matcher, recheck

    try:
        matches = host_matcher(args.host)
    except ValueError as exc:  # written as in the overrides file, or refused as there
        print(exc, file=sys.stderr)
        return 1
    config = _load(default_path())
    current = config.table if config is not None else None
    settings = _processor_settings(args)
    records = [("clean", r) for r in _topic_records(args, settings, "clean")]
    records += [("quarantine", r) for r in _topic_records(args, settings, "quarantine")]
    print(format_recheck(recheck(records, matches, current), args.host))
    return 0


def format_recheck(results, host: str) -> str:
    """``overrides recheck``'s table, one record a row, then the counts: text changes apart from the records
    whose encoding/source only would change (same text)."""
    from ..overrides.recheck import RecheckCounts

    # WITH OVERRIDES: a clean record's recorded decision; what the current overrides give a quarantined one.
    rows = [("WHERE", "URL", "RECORDED", "WITH OVERRIDES", "WITHOUT OVERRIDES", "CHANGE", "LOSSY")]
    for r in results:
        after = r.after or "bytes not rebuildable"
        rows.append((r.where, r.url, r.before, r.now or "-", after, r.change or "-", _yes_no(r.lossy)))
    return _table(rows) + "\n\n" + RecheckCounts.of(results).summary(host)


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def _processor_settings(args: argparse.Namespace) -> Settings:
    """The processor's settings, which name the topics read; a misspelt variable is said, as at the
    processor's start (it would leave a topic's name at its default)."""
    from ..settings import Settings
    from .environment import warn_unknown_env

    settings = Settings.load(args.config)
    warn_unknown_env()
    return settings


def _topic_records(args: argparse.Namespace, settings: Settings, which: str) -> list[dict]:
    """Readable records of the clean or quarantine topic named by the processor's settings."""
    from ..kafka import KafkaConnection
    from ..overrides.topics import recent_records
    from ..serialization.serde import build_serde

    serde = build_serde(settings)
    topic, deserialize = {
        "clean": (settings.clean_topic, serde.deserialize_clean),
        "quarantine": (settings.quarantine_topic, serde.deserialize_quarantine),
    }[which]
    connection = KafkaConnection.from_env(extra=settings.kafka_config)
    found = recent_records(connection, topic, deserialize, per_partition=args.last)
    return [record for _, record, _ in found if record is not None]


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
        file = contextlib.nullcontext(sys.stdin) if str(path) == "-" else open(path, encoding="utf-8")  # noqa: SIM115 - the with below closes it
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
    return dt.datetime.now(dt.UTC).date()


def _table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows)
