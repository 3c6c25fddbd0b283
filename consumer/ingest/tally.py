"""What an ingest run did: records by kind, bytes, malformed records with their offsets; the closing tally."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, fields

from .warc import KINDS, MALFORMED, RESPONSE

#: Malformed records listed one per line in the tally; past this, only counted.
LISTED_MALFORMED = 20


@dataclass(frozen=True, slots=True)
class MalformedRecord:
    name: str
    offset: int
    reason: str


@dataclass
class RecordCounts:
    """What the records read came to: a batch's, added to the run's ``Tally`` once the batch commits."""

    #: Records read, by kind (``warc.KINDS``); malformed ones include HTTP blocks that did not parse.
    kinds: Counter[str] = field(default_factory=Counter)
    #: RawResponse records committed to the landing topic.
    written: int = 0
    #: Bodies cut at the body limit (written with ``truncated`` set).
    cut: int = 0
    #: Responses whose transfer coding was left as stored (not chunked after all, an unknown coding).
    coding_kept: int = 0
    #: Responses whose WARC-Date could not be read: written with ``from_warc.UNKNOWN_FETCHED_AT``.
    dates_unread: int = 0
    #: Records whose WARC-Block-Digest or WARC-Payload-Digest did not match (responses written marked).
    digest_mismatches: int = 0
    #: Messages a library printed while a record was read (warcio's "Record not followed by newline"), logged.
    library_warnings: int = 0
    malformed: list[MalformedRecord] = field(default_factory=list)

    def add(self, other: RecordCounts) -> None:
        """*other*'s counts added to these."""
        self.kinds.update(other.kinds)
        for name in _COUNTED:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.malformed.extend(other.malformed)


_COUNTED = tuple(f.name for f in fields(RecordCounts) if f.type == "int")


@dataclass
class Tally(RecordCounts):
    """The run's: its records' counts, and its inputs'."""

    #: Inputs gzip-compressed as one stream, read from their start record by record.
    files_one_gzip_stream: int = 0
    #: Input bytes read (the file as stored: compressed for .warc.gz).
    bytes_read: int = 0
    files_done: int = 0
    files_already_done: int = 0
    files_resumed: int = 0
    files_failed: int = 0

    @property
    def records(self) -> int:
        return sum(self.kinds.values())

    def skipped(self) -> dict[str, int]:
        """Records read and not written, by kind (malformed apart)."""
        return {kind: self.kinds[kind] for kind in KINDS if kind not in (RESPONSE, MALFORMED) and self.kinds[kind]}


def tally_fields(tally: Tally, seconds: float) -> dict[str, object]:
    """The closing tally as the fields of one log line (JSON logging): the figures of ``format_tally``."""
    return {
        "files_done": tally.files_done,
        "files_resumed": tally.files_resumed,
        "files_already_done": tally.files_already_done,
        "files_failed": tally.files_failed,
        "records_read": tally.records,
        "bytes_read": tally.bytes_read,
        "seconds": round(seconds, 3),
        "written": tally.written,
        "bodies_cut": tally.cut,
        "skipped": tally.skipped(),
        "malformed": tally.kinds[MALFORMED],
        "transfer_coding_kept": tally.coding_kept,
        "dates_unread": tally.dates_unread,
        "digest_mismatches": tally.digest_mismatches,
        "library_warnings": tally.library_warnings,
        "files_one_gzip_stream": tally.files_one_gzip_stream,
    }


def format_tally(tally: Tally, seconds: float) -> str:
    rate = tally.bytes_read / seconds / 1e6 if seconds > 0 else 0.0
    skipped = tally.skipped()
    lines = [
        (
            f"files: {tally.files_done} done, {tally.files_resumed} resumed, {tally.files_already_done} already done, "
            f"{tally.files_failed} failed"
        ),
        f"records read: {tally.records} ({tally.bytes_read / 1e6:.1f} MB in {seconds:.1f} s, {rate:.1f} MB/s)",
        f"written to the landing topic: {tally.written} responses"
        + (f" ({tally.cut} bodies cut at the limit)" if tally.cut else ""),
        "skipped: " + (", ".join(f"{kind} {count}" for kind, count in skipped.items()) if skipped else "none"),
        f"malformed: {tally.kinds[MALFORMED]}",
    ]
    if tally.coding_kept:
        lines.append(f"transfer coding kept as stored: {tally.coding_kept}")
    if tally.dates_unread:
        lines.append(f"WARC-Date unreadable (fetched_at set to 1970-01-01T00:00:00Z): {tally.dates_unread}")
    if tally.digest_mismatches:
        lines.append(f"digest mismatches (marked for quarantine): {tally.digest_mismatches}")
    if tally.library_warnings:
        lines.append(f"library warnings (see the log): {tally.library_warnings}")
    if tally.files_one_gzip_stream:
        lines.append(f"files gzip-compressed as one stream (read whole): {tally.files_one_gzip_stream}")
    for record in tally.malformed[:LISTED_MALFORMED]:
        lines.append(f"  {record.name} at offset {record.offset}: {record.reason}")
    if len(tally.malformed) > LISTED_MALFORMED:
        lines.append(f"  ... and {len(tally.malformed) - LISTED_MALFORMED} more (see the log)")
    return "\n".join(lines)
