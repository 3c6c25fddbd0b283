"""One input of ``crawl-decoder ingest``: a WARC or ARC file, or standard input, and its identity.

Offsets are byte positions in the input as stored (a gzip member's start for per-record gzip):
what warcio reports, what checkpoints record and where a rerun resumes.

A file is seeked.  Standard input cannot be, yet a rerun must skip what was written and a
malformed record must be stepped over from just after its start; ``Rewindable`` keeps the last
``REWIND_BYTES`` read so both work there too (a rerun skips forward by reading).

The identity of an input is the SHA-256 of its first ``IDENTITY_BYTES``: a WARC starts with a
warcinfo or response record that carries a unique WARC-Record-ID and a date, an ARC with its
filedesc line naming the file, so two different archives differ there, and the same archive
renamed, moved or piped keeps its identity (and its checkpoint).
"""

from __future__ import annotations

import hashlib
import io
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from typing_extensions import Buffer  # collections.abc.Buffer from Python 3.12

from .exceptions import SourceError
from .remote import RangeReader, is_remote, open_remote

IDENTITY_BYTES = 64 * 1024
#: How far back standard input can be re-read: past a malformed record's start, up to its end.
REWIND_BYTES = 32 * 1024 * 1024
STDIN = "-"
_SKIP_BYTES = 1024 * 1024
#: A remote input's read buffer: a seek within it makes no request.
REMOTE_BUFFER = 1024 * 1024


class Rewindable(io.RawIOBase):
    """A forward-only stream that can be re-read up to ``keep`` bytes back, and skipped forward."""

    def __init__(self, raw: BinaryIO, keep: int = REWIND_BYTES) -> None:
        super().__init__()
        self._raw = raw
        self._keep = keep
        self._kept = bytearray()
        #: Offset of ``_kept[0]``; ``_kept`` ends where the raw stream is.
        self._base = 0
        self._position = 0

    @property
    def earliest(self) -> int:
        """The first offset still kept."""
        return self._base

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence != io.SEEK_SET:
            raise OSError("only absolute positions")
        if offset < self._base:
            raise SourceError(
                f"standard input cannot go back to offset {offset}: only bytes from {self._base} are kept"
            )
        while offset > self._base + len(self._kept):
            self._position = self._base + len(self._kept)  # skipping forward: what is kept is behind the reader
            if not self._fill(min(offset - self._position, _SKIP_BYTES)):
                break
        self._position = min(offset, self._base + len(self._kept))
        self._trim()
        return self._position

    def readinto(self, buffer: Buffer) -> int:
        view = memoryview(buffer).cast("B")
        if self._position == self._base + len(self._kept) and not self._fill(len(view)):
            return 0
        start = self._position - self._base
        count = min(len(view), len(self._kept) - start)
        view[:count] = self._kept[start : start + count]
        self._position += count
        return count

    def _fill(self, wanted: int) -> int:
        chunk = self._raw.read(max(wanted, 64 * 1024))
        if not chunk:
            return 0
        self._kept += chunk
        self._trim()
        return len(chunk)

    def _trim(self) -> None:
        # Only bytes behind the reader are dropped; a bytearray drops its front in place.
        surplus = min(len(self._kept) - self._keep, self._position - self._base)
        if surplus > 0:
            del self._kept[:surplus]
            self._base += surplus


@dataclass
class Source:
    name: str
    stream: BinaryIO
    #: Bytes in the file; None for standard input.
    size: int | None
    identity: str
    #: Standard input's window (None for a file, which seeks anywhere).
    rewindable: Rewindable | None = None
    #: A remote input's connection (None for a file or standard input).
    remote: RangeReader | None = None
    #: The input's first ``IDENTITY_BYTES``, as read for its identity: what can be judged of its start without
    #: reading it again (a remote input's second look at its start would cost a request).
    head: bytes = b""

    def seek(self, offset: int) -> None:
        try:
            self.stream.seek(offset)
        except OSError as exc:
            raise SourceError(f"{self.name}: cannot go to offset {offset}: {exc}") from exc

    def seek_at_or_after(self, offset: int) -> int:
        """Go to *offset*, or to the earliest byte standard input still keeps when *offset* is further back."""
        if self.rewindable is not None and offset < self.rewindable.earliest:
            offset = self.rewindable.earliest
        self.seek(offset)
        return offset

    def close(self) -> None:
        if self.name != STDIN:
            self.stream.close()


def open_source(path: str, stdin: BinaryIO | None = None, *, rewind_bytes: int = REWIND_BYTES) -> Source:
    """The input *path* (``-`` for *stdin*, by default the process's; an ``http(s)://`` or ``s3://`` URL
    read with Range requests, ``remote``), positioned at 0, with its identity.

    Standard input keeps *rewind_bytes* behind the reader: enough to read an aborted batch again.
    """
    rewindable = remote = None
    if is_remote(path):
        remote = open_remote(path)
        stream: BinaryIO = io.BufferedReader(remote, buffer_size=REMOTE_BUFFER)
        size = None
    elif path == STDIN:
        rewindable = Rewindable(stdin if stdin is not None else sys.stdin.buffer, rewind_bytes)
        stream = io.BufferedReader(rewindable, buffer_size=64 * 1024)
        size = None
    else:
        try:
            stream = open(path, "rb")  # noqa: SIM115 - the Source owns and closes it
            size = os.fstat(stream.fileno()).st_size
        except OSError as exc:
            raise SourceError(f"cannot open {path}: {exc.strerror or exc}") from exc
    try:
        head = remote.head(IDENTITY_BYTES) if remote is not None else stream.read(IDENTITY_BYTES)
        stream.seek(0)
    except OSError as exc:
        stream.close()
        raise SourceError(f"cannot read {path}: {exc}") from exc
    except SourceError:
        stream.close()
        raise
    if not head:
        stream.close()
        raise SourceError(f"{path} is empty")
    if remote is not None:
        size = remote.size
    return Source(path, stream, size, hashlib.sha256(head).hexdigest()[:32], rewindable, remote, head)
