"""Errors of the ingest layer (WARC backfill and the crawler-side landing writer).

Bad content is not an exception here either: a malformed WARC record is an ``Entry`` of kind
``malformed`` that the run counts and reports with its offset.  These are for faults of the
caller, of I/O and of Kafka.
"""

from __future__ import annotations

from ..exceptions import CrawlDecoderError


class IngestError(CrawlDecoderError):
    """Root of the ingest layer's errors."""


class InvalidResponseError(IngestError, ValueError):
    """Values a crawler passed to the landing writer make no valid RawResponse (a bug of the caller)."""


class DeliveryError(IngestError):
    """Records the landing writer accepted were not delivered by the time it closed."""

    def __init__(self, message: str, *, failed: int, undelivered: int) -> None:
        super().__init__(message)
        self.failed = failed
        self.undelivered = undelivered


class SourceError(IngestError):
    """An input cannot be opened, read or positioned (a whole-file gzip, an unreadable file, stdin rewound too far)."""


class CheckpointError(IngestError):
    """The checkpoint topic cannot be read, or holds a value that is not one of our checkpoints."""


class IngestAborted(IngestError):
    """A transaction could not be committed and retrying did not help: nothing of it is visible; rerun to resume."""
