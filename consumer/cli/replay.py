"""``crawl-decoder replay``: decode the quarantine topic again with today's decoder and overrides.

Reads the quarantine topic under its own consumer group from its committed
offsets up to the end offsets seen at start; records that now decode go to the
clean topic exactly once (one transaction per batch, offsets inside it).
Records still lossy are written again to the quarantine topic with
replay_count + 1, so the next run decides them again (after an override is
added, the same command releases them).  Filtered runs carry the records they
do not select forward, so a later run still sees them; --dry-run writes nothing.
The design is in ``consumer.replay``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from ..decoding import OverrideTable
from ..decoding.hosts import parse_host_pattern
from ..engine import EngineFatalError
from ..kafka.config import KafkaConnection
from ..observability.logging import get_logger
from ..overrides import active_table, load_overrides
from ..processor.route import QUARANTINE, Router
from ..replay import (
    DEFAULT_MAX_REPLAYS,
    Replayer,
    ReplayOptions,
    Selection,
    format_hosts,
    format_summary,
    parse_offset,
    parse_time,
)
from ..serialization.serde import build_serde
from ..settings import Settings
from .environment import load_settings

if TYPE_CHECKING:
    from structlog.typing import FilteringBoundLogger

_T = TypeVar("_T")

EPILOG = """\
what moves the cursor:
  The replay group's committed offsets are a cursor.  It moves past a record
  only in the transaction that writes what became of it: released to the clean
  topic; still lossy or unreadable, written again to the quarantine topic with
  replay_count + 1; not selected by a filter (--host, --reason, --since,
  --until, --from-offset) or replayed --max-replays times, carried forward
  (written again unchanged).  So nothing behind the cursor waits for a replay:
  every record still quarantined has exactly one copy ahead of it, which the
  next run reads, and a released record is never read again.  --to-offset and
  --max stop reading instead (nothing after is touched); --dry-run and a
  failed or stopped batch move nothing.  The cursor never moves back.

rewinding:
  --rewind-to [P:]OFFSET looks again behind the cursor, from OFFSET, before the
  run: a record there is written again ahead of the cursor (and so decided by
  this run) unless a copy of it is already ahead of the cursor (same origin) or
  the clean topic holds it (same URL, fetched_at and body SHA-256): a released
  record is never released twice, and a rerun brings back nothing twice.  For
  records an older crawl-decoder left behind the cursor, or after the group's
  offsets were reset forward.  It reads the clean topic from the first rewound
  record's time (less an hour): Read on the clean topic too.  Run no other
  replay of the quarantine topic meanwhile.

filters:
  Records a filter does not select are carried forward, so a later run,
  filtered differently or not at all, still sees each of them once.
  --since/--until compare the landing message's Kafka timestamp (origin.timestamp;
  quarantined_at when it had none); ISO 8601, UTC unless a zone is given;
  since inclusive, until exclusive.  --from-offset/--to-offset are quarantine
  topic offsets, OFFSET (every partition) or PARTITION:OFFSET, half-open
  [from, to); reading never starts before the cursor.

dry run and progress:
  --dry-run decides every record as the real run would and writes nothing; its
  summary says what the real run would write ("would be released", "would be
  requarantined", "would be carried forward": the copies a filtered run makes).
  The progress line (stderr; a "replay progress" log line when not a terminal)
  counts quarantine offsets, which reach 100% at the end; records read are
  fewer than offsets, as transaction markers take offsets too.

exit status:
  0 done; 1 stopped before the end (SIGTERM/SIGINT after the current batch) or a
  fatal Kafka error: run it again, it goes on from the committed offsets and
  nothing is lost or duplicated; 2 invalid settings, overrides or arguments, or
  a Kafka permission missing (each one named; docs/kafka.md lists them).
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="decode quarantined records again; release what now decodes, exactly once",
        description=__doc__.split("\n\n")[1].replace("\n", " "),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", help="settings YAML file (default: $CRAWL_DECODER_CONFIG)")
    parser.add_argument("--overrides", metavar="FILE", help="overrides file (default: the settings' overrides_path)")
    parser.add_argument("--threshold", type=_non_negative, metavar="N",
                        help="accept decodes with at most N replacement characters (default: replacement_threshold"
                        " setting); recorded in the clean record's replacement_threshold")
    parser.add_argument("--group", help="consumer group of the replay cursor (default: <group_id>-replay); a new group"
                        " starts at the earliest offset and would release again what another group already released")
    parser.add_argument("--transactional-id", help="producer transactional.id (default: <transactional_id>-replay)")
    parser.add_argument("--host", type=_arg(parse_host_pattern), action="append", default=[], metavar="PATTERN",
                        help="only records of this host: exact, or *.suffix for sub-domains (repeatable)")
    parser.add_argument("--reason", action="append", default=[], metavar="R",
                        help="only records quarantined for this reason, e.g. lossy (repeatable)")
    parser.add_argument("--since", type=_arg(parse_time), metavar="ISO",
                        help="only records whose landing timestamp >= ISO")
    parser.add_argument("--until", type=_arg(parse_time), metavar="ISO",
                        help="only records whose landing timestamp < ISO")
    parser.add_argument("--from-offset", type=_arg(parse_offset), action="append", default=[], metavar="[P:]OFFSET",
                        help="only quarantine records at or after this offset (repeatable per partition)")
    parser.add_argument("--to-offset", type=_arg(parse_offset), action="append", default=[], metavar="[P:]OFFSET",
                        help="stop reading at this quarantine offset, exclusive (repeatable per partition)")
    parser.add_argument("--max", type=_positive, metavar="N", help="stop after N selected records")
    parser.add_argument("--max-replays", type=_non_negative, default=DEFAULT_MAX_REPLAYS, metavar="N",
                        help="do not decide records already replayed N times: carry them forward unchanged, so a"
                        " run with a higher N (or none) still finds them (default: no limit)")
    parser.add_argument("--rewind-to", type=_arg(parse_offset), action="append", default=[], metavar="[P:]OFFSET",
                        help="first bring back the records behind the cursor from OFFSET that are neither released"
                        " nor queued ahead of it (repeatable per partition; see rewinding below)")
    parser.add_argument("--requarantine", action="store_true",
                        help="no effect, kept for older scripts: still-lossy records are always written again to the"
                        " quarantine topic with replay_count + 1")
    parser.add_argument("--batch-size", type=_positive, metavar="N",
                        help="records per transaction (default: batch_size)")
    parser.add_argument("--dry-run", action="store_true",
                        help="decide everything, write and commit nothing; print per host what would change and"
                        " count what would be written (released, requarantined, carried forward)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    settings = load_settings(args.config, stream=sys.stderr)
    log = get_logger(component="replay")
    options = _options(args, settings)
    threshold = settings.replacement_threshold if args.threshold is None else args.threshold
    replayer = Replayer(
        settings,
        KafkaConnection.from_env(extra=settings.kafka_config),
        options,
        serde=build_serde(settings),
        # Never non_text=skip: a replayed record that turns out binary stays in quarantine, never dropped.
        router=Router(max_body_bytes=settings.max_body_bytes, replacement_threshold=threshold, non_text=QUARANTINE),
        overrides=_overrides(args.overrides, settings.overrides_path, log),
    )
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, replayer.stop)
        signal.signal(signal.SIGINT, replayer.stop)
    try:
        summary = replayer.run()
    except EngineFatalError as exc:
        log.error("replay stopped on a fatal error", error=str(exc))
        return 1
    if options.dry_run:
        print("dry run: nothing was written or committed")
        print(format_hosts(summary))
    print(format_summary(summary, dry_run=options.dry_run))
    if replayer.interrupted:
        print("stopped before the end: run again to go on from the committed offsets (nothing is lost)")
        return 1
    return 0


def _options(args: argparse.Namespace, settings: Settings) -> ReplayOptions:
    selection = Selection(
        hosts=tuple(args.host),
        reasons=frozenset(args.reason),
        since_ms=args.since,
        until_ms=args.until,
        from_offsets=dict(args.from_offset),
    )
    return ReplayOptions(
        group_id=args.group or f"{settings.group_id}-replay",
        transactional_id=args.transactional_id or f"{settings.transactional_id}-replay",
        selection=selection,
        to_offsets=dict(args.to_offset),
        max_records=args.max,
        max_replays=args.max_replays,
        rewind_to=dict(args.rewind_to),
        dry_run=args.dry_run,
        batch_size=args.batch_size or settings.batch_size,
    )


def _overrides(path: str | None, default_path: str, log: FilteringBoundLogger) -> OverrideTable:
    """An explicit file must exist; the settings' default may be absent (then no overrides apply)."""
    if path is None and not os.path.exists(default_path):
        log.info("no overrides file; replaying without overrides", path=default_path)
        return OverrideTable()
    return active_table(load_overrides(path or default_path), dt.date.today())


def _arg(parse: Callable[[str], _T]) -> Callable[[str], _T]:
    """argparse shows an ArgumentTypeError's message; a ValueError only as "invalid value"."""

    def parsed(text: str) -> _T:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from exc

    parsed.__name__ = parse.__name__
    return parsed


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value
