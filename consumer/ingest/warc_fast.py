"""The common case of ``read_entries`` without warcio: a WARC gzip-compressed per record, every member one whole record.

Profiling ``crawl-decoder ingest`` on a ``.warc.gz`` (bench/RESULTS.md, issue 39) put warcio's record
reading, in pure Python line by line through its buffered readers, at over half of the run; inflating
took a fifth.  Here each gzip member is inflated with one ``zlib`` call (``unused_data`` says exactly
where the member ends: the offsets checkpoints keep, as warcio reports them), and its WARC header is
split once, with warcio's rules (each line decoded as UTF-8, else ISO-8859-1; trailing white space
stripped; ``name: value`` split at the first colon; lines without one dropped).

Anything else leaves the rest of the input to warcio (``warc.read_entries``) at the record where it
is met: ARC, an uncompressed WARC, a member that does not inflate or is cut short, a member holding
anything but exactly one record (``Content-Length`` bytes between the header's blank line and a
closing CRLF CRLF, as a whole-file gzip would not), folded header lines, a WARC version other than
1.0 or 1.1.  Every unusual record is therefore read, reported and stepped over exactly as before;
this path only ever yields records warcio would have yielded the same.
"""

from __future__ import annotations

import zlib
from collections.abc import Generator, Iterator

from .source import Source
from .warc import Entry, _kind, read_entries

RESPONSE = "response"
WARCINFO = "warcinfo"
#: Compressed bytes read from the input at a time, and handed to zlib at a time.
_READ = 1024 * 1024
_FEED = 32 * 1024
#: A WARC header longer than this is left to warcio.
_HEADER_MAX = 64 * 1024
#: A member longer than this when compressed is left to warcio (each try here inflates it from its start).
_MEMBER_MAX = 8 * 1024 * 1024
_GZIP = b"\x1f\x8b\x08"
_VERSIONS = (b"WARC/1.0\r\n", b"WARC/1.1\r\n")


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
        for entry in read_entries(source, previous, block_limit):
            if entry.offset < offset:
                continue  # the record before, read again for warcio's sake
            yield entry
            previous, offset = entry.offset, entry.end
            break
        else:
            return


def fast_entries(source: Source, start: int, block_limit: int) -> Generator[Entry, None, int]:
    """The records of *source* from *start* while they are the common case; returns where warcio takes over
    (the end of the input when every record was)."""
    source.seek(start)
    stream = source.stream
    buffer, at, base = stream.read(_READ), 0, start
    keep = _HEADER_MAX + block_limit + 1
    while True:
        if len(buffer) - at < _FEED:
            buffer, base, at = buffer[at:] + stream.read(_READ), base + at, 0
        if not buffer.startswith(_GZIP, at):
            return base + at  # the end, or something warcio must read (trailing blank lines included)
        member = _inflate(buffer, at, keep)
        while member is None:  # the member goes past what is buffered: read on
            more = stream.read(_READ)
            if not more or len(buffer) - at > _MEMBER_MAX:
                return base + at  # cut short (warcio reports it), or too big to inflate again and again
            buffer, base, at = buffer[at:] + more, base + at, 0
            member = _inflate(buffer, at, keep)
        if isinstance(member, int):
            return base + at
        data, total, used = member
        entry = _record(data, total, base + at, base + at + used, block_limit)
        if entry is None:
            return base + at
        at += used
        yield entry


def _inflate(buffer: bytes, at: int, keep: int) -> tuple[bytes, int, int] | int | None:
    """The gzip member at *at*: (its first *keep* inflated bytes, all its inflated bytes, its compressed length);
    None when it goes past *buffer*; -1 when it does not inflate."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    view = memoryview(buffer)
    parts: list[bytes] = []
    kept = total = 0
    position = at
    try:
        while not inflater.eof:
            if position >= len(buffer):
                return None
            chunk = view[position : position + _FEED]
            out = inflater.decompress(chunk)
            consumed = len(chunk) - len(inflater.unused_data)
            position += consumed
            total += len(out)
            if kept < keep:
                parts.append(out[: keep - kept])
                kept += len(parts[-1])
    except zlib.error:
        return -1
    return b"".join(parts), total, position - at


def _record(data: bytes, total: int, offset: int, end: int, block_limit: int) -> Entry | None:
    """The Entry of the one whole record *data* inflates to, or None for anything warcio must read."""
    if not data.startswith(_VERSIONS):
        return None
    head_end = data.find(b"\r\n\r\n", 0, _HEADER_MAX)
    if head_end < 0:
        return None
    fields: dict[str, str] = {}
    for raw in data[10:head_end].split(b"\n"):
        if raw[:1] in (b" ", b"\t"):
            return None  # a folded line: warcio's rules for it are not repeated here
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            line = raw.decode("iso-8859-1")
        name, colon, value = line.rstrip().partition(":")
        if colon:
            fields[name.rstrip(" \t")] = value.lstrip()
    lower = {name.lower(): value for name, value in fields.items()}
    length = lower.get("content-length", "")
    if not length.isdigit():
        return None
    block_start = head_end + 4
    # Exactly one record: its block, then CRLF CRLF, then the member's end.
    if total != block_start + int(length) + 4:
        return None
    if len(data) == total and not data.endswith(b"\r\n\r\n"):
        return None
    kind = _kind(lower.get("warc-type"), fields)
    block, cut = b"", False
    if kind in (RESPONSE, WARCINFO):
        block_length = int(length)
        block = data[block_start : block_start + min(block_length, block_limit)]
        cut = block_length > block_limit
    return Entry(kind, offset, end, fields, "warc", block, cut)
