"""Quarantine replay (issue 5): decode quarantined records again under today's rules.

``crawl-decoder replay`` reads the quarantine topic under its own consumer
group (default ``<group_id>-replay``) and routes every record through the
processor's ``Router`` with the current decoder, overrides and replacement
threshold.  Per record:

- *released*: it now decodes acceptably; the clean record (the processor's
  shape, original Kafka key and headers) goes to the clean topic.
- *still lossy* / *still unreadable*: written again to the quarantine topic
  with today's decision and ``replay_count + 1``, so the next run decides it
  again (after an override is added, the same command releases it).
- *skipped by max-replays* (only with ``--max-replays N``): carried forward
  unchanged, not decided; a run with a higher limit, or none, still finds it.
- *skipped by filter*: carried forward, see below.

Offsets and exactly-once.  The group's committed offset per partition is a
cursor, and it never buries a record: it moves past a record only in the
transaction that writes what became of it (the clean record, or a copy in
quarantine ahead of the cursor).  So every record behind the cursor is either
released or has exactly one copy ahead of it, and a released record is never
read again.  The alternative, a cursor that stops at the first still-lossy
record, would either hold back every record after it (one hopeless page stops
its partition for good) or read released records again with nothing to tell
them from the rest; copying costs one quarantine write per record still
quarantined per run, and a run's work stays bounded by what lies ahead of the
cursor at its start.  A run reads from the
cursor (first run: the earliest offset) up to the end offsets captured at its
start, so what it re-quarantines itself is left for the next run.  Each batch
is one transaction holding its outputs and the new cursor, through the batch
engine the processor runs on (``consumer.engine``, ``ExactlyOnce``),
read_committed: after a crash, a SIGKILL, a broker restart or an aborted batch
the run starts again at the last committed cursor, and the records of the lost
batch are decided again, never twice.  A run is a member of its group: two
runs of one group share the quarantine partitions (a rebalance commits what is
written before a partition moves) instead of both replaying everything.

Rewinding (``rewind``).  The cursor never moves back: reading behind it again
would release again what was released.  ``--rewind-to`` instead looks behind
it for records an older replay left there (or that a forward offset reset
skipped) and writes those again ahead of it, unless a copy is already queued
there or the clean topic holds the record.

Filters.  Kafka offsets are contiguous, so a cursor cannot step over a record
and come back to it later.  A filtered run (``--host``, ``--reason``,
``--since``/``--until``, ``--from-offset``) therefore *carries forward* every
record it does not select: it writes the quarantine message again, byte for
byte (key, value, headers, ``replay_count`` unchanged), in the same
transaction that moves the cursor past it.  A later replay with other filters,
or none, still sees it exactly once, and there is one cursor per group, so a
record released by a filtered run is never released again by an unfiltered
one (a separate group per filter could not promise that).  The price is a
copy of the unselected records; ``--to-offset`` and ``--max`` stop reading
instead and copy nothing: what follows the stop stays ahead of the cursor.

- ``--since``/``--until`` compare the landing message's Kafka timestamp
  (``origin.timestamp``, kept when re-quarantined; ``quarantined_at`` when the
  origin had none); since inclusive, until exclusive.
- ``--from-offset``/``--to-offset`` are offsets of the quarantine topic,
  ``OFFSET`` for every partition or ``PARTITION:OFFSET``, half-open
  [from, to).  A run never reads before its cursor (those records were
  replayed: reading them again would duplicate them).
- ``--max N`` stops after N selected records.

``--dry-run`` reads the same range under a throwaway group, decides every
record the same way, writes and commits nothing, and prints per host what
would be released and how its decode would change.  Its summary counts what
the real run would write: ``would be requarantined``, ``would be carried
forward`` (the copies a filtered run makes).

Progress (``progress``) is measured in quarantine offsets, not records: the
transaction markers in a partition take offsets that are never delivered, so a
count of records never reaches the planned span, while the cursor does.
"""

from __future__ import annotations

from .exceptions import ReplayError
from .replayer import DEFAULT_MAX_REPLAYS, Replayer, ReplayOptions
from .selection import Selection, parse_offset, parse_time
from .tally import Outcome, Summary, format_hosts, format_summary

__all__ = [
    "DEFAULT_MAX_REPLAYS",
    "Outcome",
    "ReplayError",
    "ReplayOptions",
    "Replayer",
    "Selection",
    "Summary",
    "format_hosts",
    "format_summary",
    "parse_offset",
    "parse_time",
]
