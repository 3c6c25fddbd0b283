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
- ``suggest [--since ISO] [--max-records N] [--clean-last N] [--host H] [--write FILE]``:
  per host of the quarantine topic's lossy and declaration-doubted records and
  the clean topic's newest records published with mojibake suspected, the
  encoding under which (most of) them decode cleanly, with the evidence and a
  ready entry; ``--write`` appends the entries to an overrides file once the
  result validates.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import itertools
import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from confluent_kafka import KafkaException

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
    from ..overrides.recheck import Recheck
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


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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

    _register_suggest(commands)


SUGGEST_EPILOG = """\
how it decides:
  Reads the quarantine topic (read_committed, a throwaway group that commits
  nothing) up to its end as of the start, and the newest --clean-last records
  of each partition of the clean topic.  Per host, every lossy or
  declaration-doubted quarantined record, and every clean record published
  with mojibake suspected (its bytes rebuilt from its text and checked against
  its SHA-256), is decoded again with each candidate forced, as an override
  would force it: UTF-8 for valid UTF-8 bodies, what the host's pages declared
  and the detector's leaders.  Clean means no replacement and no mojibake
  suspected.  Candidates are taken most plausible
  first (the detector's votes); the first whose clean share reaches
  --min-share is suggested, with mode force.  A host lossy under every
  candidate (truncated bodies) gets no suggestion, and the reason.

the entries:
  reason is written from the evidence, review_by is 90 days ahead, owner or
  ticket come from --owner/--ticket.  Without them the printed entry has an
  empty owner, which the file refuses until someone fills it; --write needs one.

exit status:
  0 done (with or without suggestions); 1 the quarantine or clean topic is missing or could not be read to
  its end, or --write refused (the file unchanged); 2 usage error."""


def _register_suggest(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ..overrides.suggest import DEFAULT_CLEAN_LAST, DEFAULT_MIN_SHARE

    suggest = commands.add_parser(
        "suggest", help="from the quarantine and clean topics, the override each host's lossy, doubted or "
        "mojibake records need, ready to paste",
        description="Groups by host the quarantine topic's lossy and declaration-doubted records and the clean "
        "topic's records published with mojibake suspected, tries each host's candidate encodings and suggests "
        "the one under which its records decode cleanly, with the evidence and an overrides entry.",
        epilog=SUGGEST_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    suggest.add_argument("--config", help="processor settings file (topics; default $CRAWL_DECODER_CONFIG)")
    suggest.add_argument("--since", type=_time_arg, metavar="ISO",
                         help="only records whose landing timestamp >= ISO (as replay --since)")
    suggest.add_argument("--max-records", type=_positive, metavar="N",
                         help="stop after N selected records, oldest first (as replay --max; start later with"
                         " --since)")
    suggest.add_argument("--clean-last", type=_count, default=DEFAULT_CLEAN_LAST, metavar="N",
                         help="read the newest N records of each partition of the clean topic (at or after --since)"
                         f" for those published with mojibake suspected; 0: not at all (default {DEFAULT_CLEAN_LAST})")
    suggest.add_argument("--host", type=_host_arg, action="append", default=[], metavar="PATTERN",
                         help="only this host: exact, or *.suffix for sub-domains (repeatable)")
    suggest.add_argument("--min-share", type=_share, default=DEFAULT_MIN_SHARE, metavar="S",
                         help=f"share of a host's records that must decode cleanly (default {DEFAULT_MIN_SHARE})")
    suggest.add_argument("--owner", default="", help="owner of the suggested entries")
    suggest.add_argument("--ticket", default="", help="ticket of the suggested entries")
    suggest.add_argument("--write", metavar="FILE", type=Path,
                         help="append the entries to this overrides file, if the result validates (atomically)")
    suggest.add_argument("--json", action="store_true", help="one JSON document instead of text")
    _add_today(suggest)
    suggest.set_defaults(func=run_suggest)


def run_suggest(args: argparse.Namespace) -> int:
    from ..overrides.append import append_entries
    from ..overrides.suggest import collect, format_suggestions, suggest

    if args.write is not None and not (args.owner.strip() or args.ticket.strip()):
        print("--write needs --owner or --ticket: an override says who answers for it, and a placeholder would "
              "pass validation unnoticed", file=sys.stderr)
        return 2
    settings = _processor_settings(args)
    _check_readers(settings, {settings.quarantine_topic: "quarantine", settings.clean_topic: "clean"})
    try:
        records = _quarantine_window(args, settings)
    except (TimeoutError, LookupError, KafkaException) as exc:
        print(f"cannot read the quarantine topic {settings.quarantine_topic!r}: {exc}", file=sys.stderr)
        return 1
    try:  # the clean records are read as collect consumes them, keeping only the mojibake-suspected ones
        collected = collect(records, settings.max_body_bytes, _clean_window(args, settings))
    except (TimeoutError, LookupError, KafkaException) as exc:
        print(f"cannot read the clean topic {settings.clean_topic!r}: {exc}", file=sys.stderr)
        return 1
    suggestions = suggest(collected, args.today or _utc_today(), min_share=args.min_share,
                          owner=args.owner.strip(), ticket=args.ticket.strip())
    entries = [s.entry for s in suggestions if s.entry is not None]
    written = None
    if args.write is not None and entries:
        try:
            written = append_entries(args.write, entries)
        except OverridesError as exc:
            print(f"{args.write}: not written, the result would not be valid:\n{exc}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps({"read": len(records), "clean_read": collected.clean_read,
                          "clean_suspected": collected.clean_suspected, "hosts": [s.as_dict() for s in suggestions],
                          "skipped": dict(collected.skipped),
                          "written": str(args.write) if written is not None else None}, ensure_ascii=False))
    else:
        print(format_suggestions(suggestions, collected))
        if written is not None:
            print(f"\n{args.write}: {len(entries)} entr{'y' if len(entries) == 1 else 'ies'} appended; "
                  f"valid, {len(written)} override(s)")
        elif args.write is not None:
            print(f"\n{args.write}: nothing to append, left as it was")
    return 0


def _quarantine_window(args: argparse.Namespace, settings: Settings) -> list[dict[str, Any]]:
    """The quarantine topic's readable records in the bounds given, filtered as replay filters."""
    from ..kafka import KafkaConnection
    from ..overrides.topics import window_records
    from ..replay import Selection
    from ..serialization.serde import build_serde

    selection = Selection(hosts=tuple(args.host), since_ms=args.since)
    found = window_records(KafkaConnection.from_env(), settings.quarantine_topic,
                           build_serde(settings).deserialize_quarantine, since_ms=args.since)
    selected = (r for _, r, _ in found if r is not None and selection.selects(r, r.get("raw"), 0, 0))
    with contextlib.closing(found):  # stopping early closes the reader's consumer
        return list(itertools.islice(selected, args.max_records))


def _clean_window(args: argparse.Namespace, settings: Settings) -> Iterator[dict[str, Any]]:
    """The clean topic's readable records of the hosts selected: the newest ``--clean-last`` of each
    partition written at or after ``--since``; read as they are consumed (a clean record carries its text)."""
    from ..decoding.hosts import host_matches, host_of
    from ..kafka import KafkaConnection
    from ..overrides.topics import recent_records
    from ..serialization.serde import build_serde

    if not args.clean_last:
        return iter(())
    found = recent_records(KafkaConnection.from_env(extra=settings.kafka_config), settings.clean_topic,
                           build_serde(settings).deserialize_clean, per_partition=args.clean_last,
                           since_ms=args.since)
    return (r for _, r, _ in found
            if r is not None and (not args.host or any(host_matches(p, host_of(r["url"])) for p in args.host)))


def _time_arg(text: str) -> int:
    from ..replay import parse_time

    try:
        return parse_time(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _host_arg(text: str) -> str:
    from ..decoding.hosts import parse_host_pattern

    try:
        return parse_host_pattern(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def _share(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not a share in (0, 1]")
    return value


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
            settings = _processor_settings(args)
            _check_readers(settings, {settings.clean_topic: "clean"})
            records = _topic_records(args, settings, "clean")
        else:
            records = list(_jsonl(args.from_jsonl))
    except (OverridesError, TopicUnread) as exc:
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
    try:
        _check_readers(settings, {settings.clean_topic: "clean", settings.quarantine_topic: "quarantine"})
        records = [("clean", r) for r in _topic_records(args, settings, "clean")]
        records += [("quarantine", r) for r in _topic_records(args, settings, "quarantine")]
    except TopicUnread as exc:
        print(exc, file=sys.stderr)
        return 1
    print(format_recheck(recheck(records, matches, current), args.host))
    return 0


def format_recheck(results: list[Recheck], host: str) -> str:
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


def _check_readers(settings: Settings, topics: dict[str, str]) -> None:
    """``MissingPermissions`` (exit 2, every missing ACL named) before anything is read."""
    from ..kafka import KafkaConnection
    from ..kafka.permissions import check_permissions
    from ..overrides.topics import reader_permissions

    check_permissions(KafkaConnection.from_env(extra=settings.kafka_config), reader_permissions(topics))


class TopicUnread(Exception):
    """A topic could not be read to its end: missing, a stalled partition, a Kafka error (the message says)."""


def _topic_records(args: argparse.Namespace, settings: Settings, which: str) -> list[dict[str, Any]]:
    """Readable records of the clean or quarantine topic named by the processor's settings; ``TopicUnread``
    rather than a partial read."""
    from ..kafka import KafkaConnection
    from ..overrides.topics import recent_records
    from ..serialization.serde import build_serde

    serde = build_serde(settings)
    topic, deserialize = {
        "clean": (settings.clean_topic, serde.deserialize_clean),
        "quarantine": (settings.quarantine_topic, serde.deserialize_quarantine),
    }[which]
    connection = KafkaConnection.from_env(extra=settings.kafka_config)
    try:
        return [record for _, record, _ in recent_records(connection, topic, deserialize, per_partition=args.last)
                if record is not None]  # fmt: skip
    except (TimeoutError, LookupError, KafkaException) as exc:
        raise TopicUnread(f"cannot read {which} topic {topic!r}: {exc}") from exc


def _load(path: str) -> OverrideConfig | None:
    try:
        return load_overrides(path)
    except OverridesError as exc:
        print(exc, file=sys.stderr)
        return None


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
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


def _record(line: str, name: str, number: int) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise OverridesError(name, [Problem(number, f"not JSON: {exc.msg}")]) from exc
    if not isinstance(record, dict):
        raise OverridesError(name, [Problem(number, "a record must be a JSON object")])
    return record


def _utc_today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def _table(rows: Sequence[tuple[str, ...]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows)
