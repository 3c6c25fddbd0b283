"""The common case of ``read_entries`` without warcio: a WARC gzip-compressed per record, every member one whole record.

Profiling ``crawl-decoder ingest`` on a ``.warc.gz`` (bench/RESULTS.md, issue 39) put warcio's record
reading, in pure Python line by line through its buffered readers, at over half of the run; inflating
took a fifth.  Here each gzip member is inflated by one decompressor (``unused_data`` says exactly
where the member ends: the offsets checkpoints keep, as warcio reports them): ISA-L's (``isal``), which
inflates these files 2.5 times as fast as zlib and refuses what zlib refuses but a header with reserved
flag bits set, left to warcio here (``_inflate``); and its WARC header is
split once, with warcio's rules (each line decoded as UTF-8, else ISO-8859-1; trailing white space
stripped; ``name: value`` split at the first colon; lines without one dropped).

What ``warc`` makes of a record is made of it here by the same functions: field names in the
standard's case whatever the writer's (``standard_names``), the kind, and the digests checked over
the whole block as it inflates (``checked_digests``, ``DigestCheck``), a mismatch the entry's
``digest_problem``.  Dates are read later, from the fields, by ``from_warc`` for both.

Anything else leaves the rest of the input to warcio (``warc.read_entries``) at the record where it
is met: ARC, an uncompressed WARC, a member that does not inflate or is cut short, a member holding
anything but exactly one record (``Content-Length`` bytes between the header's blank line and a
closing CRLF CRLF, as a whole-file gzip would not), folded header lines, a WARC version other than
1.0, 1.1 and ClueWeb09's 0.17 and 0.18.  Every unusual record is therefore read, reported and
stepped over exactly as before; this path only ever yields records warcio would have yielded the same.
"""

from __future__ import annotations

import zlib
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from types import ModuleType

from .source import Source
from .warc import FIELD_NAMES, DigestCheck, Entry, _kind, checked_digests, kept_bytes, read_entries

#: The gzip members' inflater: ISA-L's, installed on CPython only (pyproject.toml); elsewhere zlib, the same bytes.
inflating: ModuleType = zlib
try:
    from isal import isal_zlib

    inflating = isal_zlib
except ImportError:
    pass

#: Compressed bytes read from the input at a time, and handed to zlib at a time.
_READ = 1024 * 1024
_FEED = 32 * 1024
#: A WARC header longer than this is left to warcio.
_HEADER_MAX = 64 * 1024
#: A member longer than this when compressed is left to warcio (each try here inflates it from its start).
_MEMBER_MAX = 8 * 1024 * 1024
_GZIP = b"\x1f\x8b\x08"
#: RFC 1952's FLG bits 5 to 7, reserved: zlib refuses a member that sets one, ISA-L reads it.
_RESERVED_FLAGS = 0xE0
_INFLATE_ERRORS: tuple[type[Exception], ...] = (zlib.error, inflating.error)
#: WARC 1.0 and 1.1, and ClueWeb09's drafts 0.17 and 0.18, as warcio reads them.
_VERSIONS = (b"WARC/1.0\r\n", b"WARC/1.1\r\n", b"WARC/0.17\r\n", b"WARC/0.18\r\n")


def entries(source: Source, start: int, block_limit: int) -> Iterator[Entry]:
    """What ``warc.read_entries`` yields, the common case read here.

    A record this path leaves is read by warcio started at the record before it (warcio words and
    sometimes judges a record by what it read before: started afresh on garbage it may see an ARC
    header), then this path goes on after it.  An input whose first record is not the common case is
    warcio's to its end.
    """
    offset, previous = start, None
    while True:
        reader = fast_entries(source, offset, block_limit)
        while True:
            try:
                entry = next(reader)
            except StopIteration as stop:
                offset = stop.value
                break
            previous = entry.offset
            yield entry
        if source.size is not None and offset >= source.size:
            return  # read to the end (a remote input would otherwise be asked for its last record again)
        if previous is None:
            yield from read_entries(source, offset, block_limit)
            return
        handed = _first_at_or_after(read_entries(source, previous, block_limit), offset)
        if handed is None or handed.offset < offset:
            # warcio, started at the record before, read past where this path stopped as one record: after a
            # damaged member its offsets can fall short of the member's end, and started there it reads garbage
            # to the end of the input.  Started where this path stopped (a member's start), it reads what follows.
            handed = next(read_entries(source, offset, block_limit), None)
            if handed is None:
                return
        yield handed
        previous, offset = handed.offset, handed.end


def _first_at_or_after(read: Iterator[Entry], offset: int) -> Entry | None:
    """The first entry of *read* that is not wholly before *offset* (the record before it, read again for
    warcio's sake), or None."""
    return next((entry for entry in read if entry.end > offset or entry.offset >= offset), None)


def fast_entries(source: Source, start: int, block_limit: int) -> Generator[Entry, None, int]:
    """The records of *source* from *start* while they are the common case; returns where warcio takes over
    (the end of the input when every record was)."""
    source.seek(start)
    stream = source.stream
    buffer, at, base = stream.read(_READ), 0, start
    while True:
        if len(buffer) - at < _FEED:
            buffer, base, at = buffer[at:] + stream.read(_READ), base + at, 0
        if not buffer.startswith(_GZIP, at):
            return base + at  # the end, or something warcio must read (trailing blank lines included)
        member = _inflate(buffer, at, block_limit)
        while member is None:  # the member goes past what is buffered: read on
            more = stream.read(_READ)
            if not more or len(buffer) - at > _MEMBER_MAX:
                return base + at  # cut short (warcio reports it), or too big to inflate again and again
            buffer, base, at = buffer[at:] + more, base + at, 0
            member = _inflate(buffer, at, block_limit)
        if isinstance(member, int):
            return base + at
        record, used = member
        entry = record.entry(base + at, base + at + used)
        if entry is None:
            return base + at
        at += used
        yield entry


def _inflate(buffer: bytes, at: int, block_limit: int) -> tuple[_Record, int] | int | None:
    """The gzip member at *at*: (its record, its compressed length); None when it goes past *buffer*;
    -1 when it does not inflate or its record is not the common case.

    A member ISA-L inflates to its end zlib inflates to the same bytes, but for reserved flags (refused
    here, for warcio to report): ISA-L checks the header's CRC, the data's CRC-32 and length as zlib does
    (tests/ingest/test_warc_fast.py holds the two equal on damaged members).
    """
    if len(buffer) > at + 3 and buffer[at + 3] & _RESERVED_FLAGS:
        return -1
    inflater = inflating.decompressobj(16 + inflating.MAX_WBITS)
    record = _Record(block_limit)
    view = memoryview(buffer)
    position = at
    try:
        while not inflater.eof:
            if position >= len(buffer):
                return None
            chunk = view[position : position + _FEED]
            out = inflater.decompress(chunk)
            position += len(chunk) - len(inflater.unused_data)
            if not record.add(out):
                return -1
    except _INFLATE_ERRORS:
        return -1
    return record, position - at


class _Record:
    """The one record a gzip member inflates to, fed its bytes as they inflate.

    Its first bytes are kept: the header, then enough of the block for the Entry (*block_limit*) and for the
    digest check's start (``DigestCheck.first_bytes``).  Once they are in, the header is read and, when the
    record declares a digest that can be checked, the rest of the block is hashed as it inflates (never kept).
    """

    def __init__(self, block_limit: int) -> None:
        self.block_limit = block_limit
        self.keep = _HEADER_MAX + 4 + max(block_limit, DigestCheck.first_bytes(0)) + 1
        self.parts: list[bytes] = []
        self.total = 0
        self.head: _Head | None = None
        self.check: DigestCheck | None = None

    def add(self, out: bytes) -> bool:
        """Take the next inflated bytes; False when the record is not the common case (warcio's to read)."""
        at = self.total
        self.total += len(out)
        if at < self.keep:
            self.parts.append(out[: self.keep - at])
            if self.total < self.keep:
                return True
            if not self._begin(b"".join(self.parts)):
                return False
        if self.check is not None and self.head is not None:
            # The bytes past those kept, up to the block's end (the CRLF CRLF after it is no part of it).
            begin, end = max(at, self.keep), min(self.total, self.head.block_start + self.head.length)
            if end > begin:
                self.check.update(memoryview(out)[begin - at : end - at])
        return True

    def _begin(self, data: bytes) -> bool:
        """Read the header at the start of *data* (the bytes kept) and start the digest check on its block."""
        self.parts = [data]
        head = _head(data)
        if head is None:
            return False
        self.head = head
        digests = checked_digests(head.kind, head.fields)
        if digests != (None, None):
            self.check = DigestCheck(head.fields, *digests)
            block = memoryview(data)[head.block_start : head.block_start + head.length]
            first = self.check.first_bytes(kept_bytes(head.kind, self.block_limit))
            self.check.start(bytes(block[:first]))
            if len(block) > first:
                self.check.update(block[first:])
        return True

    def entry(self, offset: int, end: int) -> Entry | None:
        """The Entry of the member read to its end (at *end*), or None for anything warcio must read."""
        data = b"".join(self.parts)
        if self.total < self.keep and not self._begin(data):
            return None
        head = self.head
        assert head is not None  # _begin read it
        # Exactly one record: its block, then CRLF CRLF, then the member's end.
        if self.total != head.block_start + head.length + 4:
            return None
        if len(data) == self.total and not data.endswith(b"\r\n\r\n"):
            return None
        block, cut = b"", False
        if kept_bytes(head.kind, self.block_limit):
            block = data[head.block_start : head.block_start + min(head.length, self.block_limit)]
            cut = head.length > self.block_limit
        problem = self.check.problem() if self.check is not None else None
        return Entry(head.kind, offset, end, head.fields, "warc", block, cut, digest_problem=problem)


@dataclass(frozen=True, slots=True)
class _Head:
    #: The header's fields as ``warc.read_entries`` gives them (``warc.standard_names``).
    fields: dict[str, str]
    kind: str
    #: Where the block starts in the member's inflated bytes, and its Content-Length.
    block_start: int
    length: int


def _head(data: bytes) -> _Head | None:
    """The WARC header *data* starts with, split with warcio's rules; None for anything warcio must read."""
    version_end = data.find(b"\r\n", 0, 16) + 2
    if data[:version_end] not in _VERSIONS:
        return None
    head_end = data.find(b"\r\n\r\n", version_end - 2, _HEADER_MAX)
    if head_end < 0:
        return None
    raw = data[version_end:head_end]
    try:
        # Each line as UTF-8 when the whole header is (a line break is never inside a UTF-8 sequence).
        lines = raw.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        lines = [_text(line) for line in raw.split(b"\n")]
    # What standard_names makes of warcio's (name, value) pairs, made in the one pass.
    fields: dict[str, str] = {}
    rec_type = None
    for line in lines:
        if line[:1] in (" ", "\t"):
            return None  # a folded line: warcio's rules for it are not repeated here
        line = line.rstrip()
        if not line:
            return None  # a blank line (a bare LF, or spaces) ends warcio's header there
        name, colon, value = line.partition(":")
        if colon:
            name = name.rstrip(" \t")
            if rec_type is None and name.lower() == "warc-type":
                rec_type = value.lstrip()  # the first WARC-Type, as warcio takes it (fields keep the last)
            fields[FIELD_NAMES.get(name.strip().lower(), name)] = value.strip()
    length = fields.get("Content-Length", "")
    if not (length.isascii() and length.isdigit()):
        return None
    if "WARC-Target-URI" in fields:
        fields["WARC-Target-URI"] = _target_uri(fields["WARC-Target-URI"])
    return _Head(fields, _kind(rec_type, fields), head_end + 4, int(length))


def _target_uri(uri: str) -> str:
    """WARC-Target-URI as warcio rewrites it in the fields it gives: without angle brackets, spaces as %20 (a
    space ends a URI: an invalid one, as a damaged or careless writer leaves it)."""
    if uri.startswith("<") and uri.endswith(">"):
        uri = uri[1:-1]
    return uri.replace(" ", "%20")


def _text(line: bytes) -> str:
    """A header line as warcio decodes it: UTF-8, else ISO-8859-1."""
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line.decode("iso-8859-1")
