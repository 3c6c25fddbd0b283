"""The records of a WARC or ARC input, read with warcio, as ``Entry`` values; malformed ones stepped over.

warcio reads WARC 1.0 and 1.1 and ARC, uncompressed or gzip per record, and says where each record
starts and ends: the offsets a checkpoint keeps.  Records are read with ``no_record_parse``: the
HTTP block comes as stored and ``http_response`` parses it.  An ARC record's header line (URL, IP
address, 14-digit date) is given the WARC field names here rather than by warcio's arc2warc, which
would invent a random WARC-Record-ID for it on every read.

A record warcio cannot read (a WARC header that does not parse, a gzip member that does not
inflate) is an ``Entry`` of kind ``malformed`` with its offset and warcio's message.  Reading goes
on at the next place a record can start: the next gzip member whose first bytes inflate to a record
header in a gzip file, the next ``WARC/1.`` or ARC header line at the start of a line otherwise.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.recordloader import ArcWarcRecord

from .exceptions import SourceError
from .source import Source

RESPONSE = "response"
REVISIT = "revisit"
REQUEST = "request"
METADATA = "metadata"
DNS = "dns"
WARCINFO = "warcinfo"
RESOURCE = "resource"
#: conversion, continuation, and responses that are neither HTTP nor DNS (ftp:, whois:...).
OTHER = "other"
MALFORMED = "malformed"
KINDS = (RESPONSE, REVISIT, REQUEST, METADATA, DNS, WARCINFO, RESOURCE, OTHER, MALFORMED)

#: What warcio (and zlib, struct, the int() of a Content-Length) raise on bytes that are no record.
_UNREADABLE = (ArchiveLoadFailed, zlib.error, EOFError, ValueError, IndexError, KeyError)
#: warcio's message for a gzip file that is one stream, not a member per record.
_WHOLE_FILE_GZIP = "non-chunked gzip file"

_GZIP_MEMBER = b"\x1f\x8b\x08"
_RECORD_START = re.compile(
    rb"\nWARC/1\.[01]\r?\n"  # a WARC header
    rb"|\n[a-z][a-z0-9+.-]*:[^ \r\n]* [^ \r\n]+ \d{14} [^ \r\n]* \d+\r?\n"  # ARC: URL IP date type length
)
_SCAN_BYTES = 1024 * 1024
_OVERLAP = 64 * 1024


@dataclass(frozen=True, slots=True)
class Entry:
    kind: str
    #: Where the record starts in the input, and where the next one does (the resume point after it).
    offset: int
    end: int
    #: The record's WARC header fields (an ARC record's under their WARC names), names as written.
    fields: dict[str, str] = field(default_factory=dict)
    #: "warc" or "arc".
    format: str = "warc"
    #: The record block (responses and warcinfo only): at most the limit read.
    block: bytes = b""
    #: True when the block was longer than the limit and the rest was not read.
    block_cut: bool = False
    #: Why a malformed record could not be read.
    problem: str | None = None


def read_entries(source: Source, start: int, block_limit: int) -> Iterator[Entry]:
    """Every record of *source* from offset *start* on (a record boundary), malformed ones included."""
    offset: int | None = start
    while offset is not None:
        source.seek(offset)
        iterator = ArchiveIterator(source.stream, no_record_parse=True)
        # Where the record being read starts: the previous one's end.  warcio's own offset is not used for
        # it: after a damaged gzip member it can point anywhere, even before the start of the input.
        expected = offset
        try:
            for record in iterator:
                entry = _entry(record, iterator, expected, block_limit)
                expected = entry.end
                yield entry
            if _only_blank_after(source, expected):
                return
            # warcio ended early without a word (a damaged gzip header can swallow the rest as one empty member).
            raise ArchiveLoadFailed("no record could be read here")
        except _UNREADABLE as exc:
            message = str(exc).strip() or type(exc).__name__
            if _WHOLE_FILE_GZIP in message or _one_gzip_stream(source, expected):
                raise SourceError(
                    f"{source.name} is gzip-compressed as one stream, not per record: recompress it with "
                    f"`warcio recompress {source.name} OUT.warc.gz`"
                ) from exc
            offset = _next_record_start(source, expected)
            end = offset if offset is not None else _end_of(source)
            yield Entry(MALFORMED, expected, end, problem=_first_line(message))
            iterator.close()


def warc_fields(block: bytes) -> dict[str, str]:
    """``name: value`` lines of an ``application/warc-fields`` block (a warcinfo record's)."""
    out: dict[str, str] = {}
    for line in block.decode("utf-8", "replace").splitlines():
        name, colon, value = line.partition(":")
        if colon and name.strip():
            out.setdefault(name.strip(), value.strip())
    return out


def _entry(record: ArcWarcRecord, iterator: ArchiveIterator, start: int, block_limit: int) -> Entry:
    if record.format == "arc":
        fields = _arc_fields(dict(record.rec_headers.headers))
        kind = WARCINFO if record.rec_type == "arc_header" else _kind(RESPONSE, fields)
    else:
        fields = dict(record.rec_headers.headers)
        kind = _kind(record.rec_type, fields)
    block, cut = b"", False
    if kind in (RESPONSE, WARCINFO):
        block = record.raw_stream.read(block_limit)
        cut = bool(record.raw_stream.read(1))
    iterator.read_to_end()  # the rest of the record: now iterator.offset is where the next one starts
    if iterator.offset <= start:
        raise ArchiveLoadFailed(f"record ends at offset {iterator.offset}, before it starts: its gzip member is broken")
    return Entry(kind, start, iterator.offset, fields, record.format, block, cut)


def _arc_fields(arc: dict[str, str]) -> dict[str, str]:
    """An ARC header line's URL, IP address and date (YYYYMMDDhhmmss, UTC) under their WARC names."""
    date = arc.get("archive-date", "")
    fields = {"WARC-Target-URI": arc.get("uri", ""), "WARC-IP-Address": arc.get("ip-address", "")}
    if len(date) >= 14 and date[:14].isdigit():
        fields["WARC-Date"] = f"{date[:4]}-{date[4:6]}-{date[6:8]}T{date[8:10]}:{date[10:12]}:{date[12:14]}Z"
    return fields


def _kind(rec_type: str | None, fields: dict[str, str]) -> str:
    rec_type = (rec_type or "").lower()
    if rec_type != RESPONSE:
        return rec_type if rec_type in KINDS else OTHER
    uri = target_uri(fields).lower()
    if uri.startswith("dns:"):
        return DNS
    if uri.startswith(("http:", "https:")):
        return RESPONSE
    return OTHER


def target_uri(fields: dict[str, str]) -> str:
    """WARC-Target-URI without the angle brackets WARC 1.1's grammar shows and some writers keep."""
    uri = fields.get("WARC-Target-URI", "").strip()
    if uri.startswith("<") and uri.endswith(">"):
        uri = uri[1:-1].strip()
    return uri


def _next_record_start(source: Source, bad: int) -> int | None:
    """The first offset after *bad* where a record can start, or None when none does before the end.

    A record in a gzip file starts with a member, elsewhere with a header line: the kind of the bad
    record's first bytes says which to look for, so a gzip-encoded body stored in an uncompressed
    WARC is not taken for a member (``_plausible`` checks each candidate besides).
    """
    gzip_members = source.seek_at_or_after(bad) == bad and source.stream.read(3) == _GZIP_MEMBER
    base = source.seek_at_or_after(bad + 1)
    while True:
        source.seek(base)
        data = source.stream.read(_SCAN_BYTES)
        at = _candidate(data, 0, gzip_members)
        while at is not None:
            if _plausible(source, base + at):
                return base + at
            at = _candidate(data, at + 1, gzip_members)
        if len(data) < _SCAN_BYTES:
            return None
        # Windows overlap so that a header line cut by the window's end is found whole in the next.
        base += len(data) - _OVERLAP


def _candidate(data: bytes, start: int, gzip_members: bool) -> int | None:
    if gzip_members:
        found = data.find(_GZIP_MEMBER, start)
        return found if found >= 0 else None
    match = _RECORD_START.search(data, max(start - 1, 0))
    return match.start() + 1 if match is not None else None


def _plausible(source: Source, offset: int) -> bool:
    """Whether the bytes at *offset* begin a record: a WARC or ARC header, or a gzip member holding one."""
    source.seek(offset)
    head = source.stream.read(4096)
    if head.startswith(_GZIP_MEMBER):
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, 4096)
        except zlib.error:
            return False
    return bool(_RECORD_START.match(b"\n" + head))


def _one_gzip_stream(source: Source, start: int) -> bool:
    """Whether the gzip member at *start* holds more than one record: a file gzipped whole, not per record.

    warcio says so itself at the second record, unless its offsets went wrong first (they do: it subtracts
    the decompressed bytes it holds from the compressed position).
    """
    source.seek_at_or_after(start)
    compressed = source.stream.read(_SCAN_BYTES)
    if not compressed.startswith(_GZIP_MEMBER):
        return False
    try:
        inflated = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(compressed, 4 * _SCAN_BYTES)
    except zlib.error:
        return False
    return _RECORD_START.match(b"\n" + inflated) is not None and _RECORD_START.search(inflated, 1) is not None


def _only_blank_after(source: Source, position: int) -> bool:
    """Whether nothing but line ends and spaces follow *position* (what some writers leave after the last record)."""
    source.seek_at_or_after(position)
    while chunk := source.stream.read(_SCAN_BYTES):
        if chunk.strip():
            return False
    return True


def _end_of(source: Source) -> int:
    while source.stream.read(_SCAN_BYTES):
        pass
    return source.stream.tell()


def _first_line(message: str, width: int = 120) -> str:
    """warcio's message quotes the bad line, binary garbage included: printable ASCII of its first line."""
    line = message.strip().splitlines()[0] if message.strip() else message
    shown = "".join(c if " " <= c <= "~" else "?" for c in line[:width])
    return shown + ("..." if len(line) > width else "")
