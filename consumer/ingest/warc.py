"""The records of a WARC or ARC input, read with warcio, as ``Entry`` values; malformed ones stepped over.

warcio reads WARC 1.0 and 1.1 and ARC, uncompressed or gzip per record, and says where each record
starts and ends: the offsets a checkpoint keeps.  Records are read with ``no_record_parse``: the
HTTP block comes as stored and ``http_response`` parses it.  An ARC record's header line (URL, IP
address, 14-digit date) is given the WARC field names here rather than by warcio's arc2warc, which
would invent a random WARC-Record-ID for it on every read.

A record warcio cannot read (a WARC header that does not parse, a gzip member that does not
inflate) is an ``Entry`` of kind ``malformed`` with its offset and warcio's message.  Reading goes
on at the next place a record can start: the next gzip member whose first bytes inflate to a record
header in a gzip file, the next ``WARC/`` or ARC header line at the start of a line otherwise.

Lenient where archives are, as warcio and jwarc are:

- field names are matched without regard to case (WARC 1.1 section 4 makes them case-insensitive):
  ``warc-date`` is given as WARC-Date; a folded value (a continuation line) is joined by warcio;
- a file gzip-compressed as one stream instead of a member per record (``one_stream``) is read
  record by record from its start, offsets counted in its uncompressed bytes; a damaged point ends
  it with a malformed entry, the records before it kept;
- what warcio prints to stderr while a record is read becomes the entry's ``notes`` (``library_output``);
- a record's WARC-Block-Digest and WARC-Payload-Digest are checked as its bytes stream by
  (``digest``); a mismatch is the entry's ``digest_problem``.
"""

from __future__ import annotations

import hashlib
import io
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO, NoReturn, cast

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.recordloader import ArcWarcRecord

if TYPE_CHECKING:
    from typing_extensions import Buffer  # collections.abc.Buffer from Python 3.12

from . import digest
from .exceptions import SourceError
from .http_response import ResponseHead, body_start, parse_head
from .library_output import captured, notes
from .source import REWIND_BYTES, Rewindable, Source
from .transfer_coding import dechunk, transfer_codings

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
_GZIP_WBITS = 16 + zlib.MAX_WBITS
_RECORD_START = re.compile(
    rb"\nWARC/(?:1\.[01]|0\.1[78])\r?\n"  # a WARC header (0.17 and 0.18: ClueWeb09's drafts)
    rb"|\n[a-z][a-z0-9+.-]*:[^ \r\n]* [^ \r\n]+ \d{14} [^ \r\n]* \d+\r?\n"  # ARC: URL IP date type length
)
_SCAN_BYTES = 1024 * 1024
_OVERLAP = 64 * 1024
_CHUNK = 64 * 1024
#: WARC 1.1's field names (section 5) by their lower-case form: a writer's ``warc-date`` is read as WARC-Date.
FIELD_NAMES = {
    name.lower(): name
    for name in (
        "WARC-Type", "WARC-Record-ID", "WARC-Date", "Content-Length", "Content-Type", "WARC-Concurrent-To",
        "WARC-Block-Digest", "WARC-Payload-Digest", "WARC-IP-Address", "WARC-Refers-To",
        "WARC-Refers-To-Target-URI", "WARC-Refers-To-Date", "WARC-Target-URI", "WARC-Truncated",
        "WARC-Warcinfo-ID", "WARC-Filename", "WARC-Profile", "WARC-Identified-Payload-Type",
        "WARC-Segment-Number", "WARC-Segment-Origin-ID", "WARC-Segment-Total-Length",
    )
}  # fmt: skip


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
    #: What warcio printed while reading the record, one message each ("Record not followed by newline...").
    notes: tuple[str, ...] = ()
    #: The record's WARC-Block-Digest or WARC-Payload-Digest does not match its bytes: which, and what was read.
    digest_problem: str | None = None


def read_entries(source: Source, start: int, block_limit: int) -> Iterator[Entry]:
    """Every record of *source* from offset *start* on (a record boundary), malformed ones included."""
    offset: int | None = start
    while offset is not None:
        source.seek(offset)
        iterator = ArchiveIterator(source.stream, no_record_parse=True)
        records = iter(iterator)
        # Where the record being read starts: the previous one's end.  warcio's own offset is not used for
        # it: after a damaged gzip member it can point anywhere, even before the start of the input.
        expected = last_start = offset
        printed: list[str] = []
        try:
            while True:
                with captured() as output:
                    try:
                        record = next(records, None)
                        entry = _entry(record, iterator, expected, block_limit, source) if record is not None else None
                    finally:
                        printed += notes(output)
                if entry is None:
                    break
                if printed:
                    entry, printed = _with_notes(entry, printed), []
                expected, last_start = entry.end, entry.offset
                yield entry
            if printed or _damage(source):  # warcio complained at the end, or the input ended early: no record there
                raise ArchiveLoadFailed(_damage(source) or printed[0])
            if _only_blank_after(source, expected):
                return
            # warcio ended early without a word (a damaged gzip header can swallow the rest as one empty member).
            raise ArchiveLoadFailed("no record could be read here")
        except _UNREADABLE as exc:
            message = _damage(source) or str(exc).strip() or type(exc).__name__
            if _one_gzip_stream(source, expected) or (
                _WHOLE_FILE_GZIP in message and not _one_record_member(source, expected, last_start)
            ):
                raise SourceError(
                    f"{source.name}: a gzip member holds several records past the start of the file: recompress "
                    f"it with `warcio recompress {source.name} OUT.warc.gz`"
                ) from exc
            offset = _next_record_start(source, expected)
            end = offset if offset is not None else _end_of(source)
            yield Entry(MALFORMED, expected, end, problem=_first_line(message), notes=tuple(printed))
            iterator.close()


def one_stream(source: Source, rewind_bytes: int = REWIND_BYTES) -> Source | None:
    """*source* inflated, when it is gzip-compressed as one stream rather than a member per record; else None.

    Its offsets are positions in the uncompressed bytes (the input's identity is unchanged, so a checkpoint
    of it holds such an offset, and a rerun finds it the same way); going back is possible *rewind_bytes*
    behind the reader, as on standard input.  warcio refuses such a file ("non-chunked gzip file", since a
    record of it cannot be reached without inflating all before); it is read whole here, from the start.

    It is judged from the input's first bytes as read for its identity (``Source.head``) when they hold the
    first member's end or a second record in it, as they do unless the first record is large: only then is
    the input read from its start and set back there (for a remote input, one more request; a rerun resuming
    at its checkpoint would otherwise fetch the start again).
    """
    several = _first_member_holds_several_records(io.BytesIO(source.head)) if source.head else None
    if several is None:
        try:
            source.seek(0)
            several = bool(_first_member_holds_several_records(source.stream))
        finally:
            source.seek(0)
    if not several:
        return None
    # Rewindable reads its raw stream with read(n) alone, which a RawIOBase answers with what one readinto gives.
    rewindable = Rewindable(cast(BinaryIO, _Inflating(source.stream)), rewind_bytes)
    return Source(source.name, cast(BinaryIO, _Gathering(rewindable)), None, source.identity, rewindable, source.remote)


def _first_member_holds_several_records(stream: BinaryIO) -> bool | None:
    """Whether the gzip member that *stream* starts with holds more than one record; None when *stream* ends
    inside that member before a second record (*stream* being the first bytes of the input only)."""
    if stream.read(3) != _GZIP_MEMBER:
        return False
    stream.seek(0)
    inflating = _Inflating(stream, first_member_only=True)
    with captured():  # whatever warcio says here, it says again when the records are read
        iterator = ArchiveIterator(_Gathering(inflating), no_record_parse=True)
        try:
            for count, _record in enumerate(iterator, 1):
                if count == 2:
                    return True
        except _UNREADABLE:
            pass
    return None if inflating.cut_short else False


class _Inflating(io.RawIOBase):
    """The bytes a gzip stream inflates to, member after member (with *first_member_only*, the first alone).

    Damage (deflate data that does not inflate, a CRC that does not match, the input ending inside a
    member) raises ``zlib.error`` once; the stream ends there.
    """

    def __init__(self, raw: BinaryIO, *, first_member_only: bool = False) -> None:
        super().__init__()
        self._raw = raw
        self._first_only = first_member_only
        self._inflater = zlib.decompressobj(_GZIP_WBITS)
        self._out = b""
        self._ended = False
        #: Damage met after the bytes in ``_out``: raised once they are read.
        self._damage: str | None = None
        #: The input ended inside a gzip member.
        self.cut_short = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Buffer) -> int:
        view = memoryview(buffer).cast("B")
        while not self._out and not self._ended:
            self._out = self._inflate_more()
        count = min(len(view), len(self._out))
        view[:count] = self._out[:count]
        self._out = self._out[count:]
        return count

    def _inflate_more(self) -> bytes:
        if self._damage is not None:
            self._fail(self._damage)
        if self._inflater.eof:
            rest = self._inflater.unused_data
            while not self._first_only and len(rest) < len(_GZIP_MEMBER) and (more := self._raw.read(_CHUNK)):
                rest += more
            if self._first_only or not rest.strip(b"\0 \t\r\n"):
                self._ended = True  # NUL or blank padding after the last member is no record
                return b""
            if not rest.startswith(_GZIP_MEMBER):
                self._fail("bytes after a gzip member are not another member")
            self._inflater = zlib.decompressobj(_GZIP_WBITS)
            data = rest
        else:
            data = self._inflater.unconsumed_tail or self._raw.read(_CHUNK)
            if not data:
                self.cut_short = True
                self._fail("the input ends inside a gzip member: it was cut short")
        saved = self._inflater.copy()
        try:
            return self._inflater.decompress(data, 4 * _CHUNK)
        except zlib.error:
            pass
        # zlib gives nothing of a call that meets damage: inflate again a byte at a time, to keep what precedes it.
        self._inflater, out = saved, bytearray()
        for at in range(len(data)):
            try:
                out += self._inflater.decompress(data[at : at + 1])
            except zlib.error as exc:
                self._damage = f"the gzip stream is damaged here: {exc}"
                break
        return bytes(out)

    def _fail(self, message: str) -> NoReturn:
        self._ended = True
        raise zlib.error(message)


class _Gathering(io.RawIOBase):
    """Reads of *raw* gathered to the size asked (short only at the end); damage ends the stream, and
    ``damage`` says what it was.  Every byte before a damaged point is delivered (``io.BufferedReader``
    would drop those gathered for a read when a later raw read of the same call raises)."""

    def __init__(self, raw: io.RawIOBase | Rewindable) -> None:
        super().__init__()
        self._raw = raw
        #: What ended the stream early, once met: ``read_entries`` makes the record it cut malformed.
        self.damage: str | None = None

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self._raw.seekable()

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._raw.seek(offset, whence)

    def tell(self) -> int:
        return self._raw.tell()

    def read(self, size: int | None = -1) -> bytes:
        parts: list[bytes] = []
        wanted = _CHUNK if size is None or size < 0 else size
        while wanted > 0:
            try:
                chunk = self._raw.read(wanted)
            except zlib.error as exc:
                self.damage = str(exc)
                break
            if not chunk:
                break
            parts.append(chunk)
            if size is not None and size >= 0:
                wanted -= len(chunk)
        return b"".join(parts)

    def readinto(self, buffer: Buffer) -> int:
        view = memoryview(buffer).cast("B")
        data = self.read(len(view))
        view[: len(data)] = data
        return len(data)


def _damage(source: Source) -> str | None:
    """What ended an inflated one-stream input early (``one_stream``), once reading has met it."""
    return source.stream.damage if isinstance(source.stream, _Gathering) else None


def _with_notes(entry: Entry, printed: list[str]) -> Entry:
    return Entry(
        entry.kind, entry.offset, entry.end, entry.fields, entry.format, entry.block, entry.block_cut, entry.problem,
        tuple(printed), entry.digest_problem,
    )  # fmt: skip


def warc_fields(block: bytes) -> dict[str, str]:
    """``name: value`` lines of an ``application/warc-fields`` block (a warcinfo record's)."""
    out: dict[str, str] = {}
    for line in block.decode("utf-8", "replace").splitlines():
        name, colon, value = line.partition(":")
        if colon and name.strip():
            out.setdefault(name.strip(), value.strip())
    return out


def _entry(record: ArcWarcRecord, iterator: ArchiveIterator, start: int, block_limit: int, source: Source) -> Entry:
    if record.format == "arc":
        fields = _arc_fields(dict(record.rec_headers.headers))
        kind = WARCINFO if record.rec_type == "arc_header" else _kind(RESPONSE, fields)
        digests: tuple[digest.Digest | None, digest.Digest | None] = (None, None)
    else:
        fields = standard_names(record.rec_headers.headers)
        kind = _kind(record.rec_type, fields)
        digests = checked_digests(kind, fields)
    keep = kept_bytes(kind, block_limit)
    if digests == (None, None):
        block = record.raw_stream.read(keep) if keep else b""
        cut = bool(keep) and bool(record.raw_stream.read(1))
        problem = None
    else:
        block, cut, problem = _read_checked(record.raw_stream, keep, DigestCheck(fields, *digests))
    iterator.read_to_end()  # the rest of the record: now iterator.offset is where the next one starts
    damage = _damage(source)
    if damage is not None and getattr(record.raw_stream, "limit", 0) > 0:
        raise ArchiveLoadFailed(damage)  # the block ended before its Content-Length: cut by the damage
    if iterator.offset <= start:
        raise ArchiveLoadFailed(f"record ends at offset {iterator.offset}, before it starts: its gzip member is broken")
    return Entry(kind, start, iterator.offset, fields, record.format, block, cut, digest_problem=problem)


def kept_bytes(kind: str, block_limit: int) -> int:
    """How much of a record's block its Entry keeps: *block_limit* bytes of a response's or warcinfo's, none else."""
    return block_limit if kind in (RESPONSE, WARCINFO) else 0


def standard_names(headers: list[tuple[str, str]]) -> dict[str, str]:
    """The WARC header fields, the standard's names in the standard's case, values without surrounding space."""
    return {FIELD_NAMES.get(name.strip().lower(), name): value.strip() for name, value in headers}


def checked_digests(kind: str, fields: dict[str, str]) -> tuple[digest.Digest | None, digest.Digest | None]:
    """(WARC-Block-Digest, WARC-Payload-Digest) of a WARC record, each None when it cannot be checked against
    the record's bytes; both None: nothing to check.

    The payload is part of the block: a block that matches its digest holds it intact (a payload digest that
    disagrees then is its writer's way of computing it, not damage), so the payload's is checked only without
    a checkable block digest, at half the hashing.  A revisit's payload digest is the earlier capture's; a
    truncated record's covers bytes it does not hold for some writers and not for others: neither can be
    checked against this record.
    """
    block_digest = digest.parse("WARC-Block-Digest", fields.get("WARC-Block-Digest"))
    checkable = block_digest is None and kind != REVISIT and "WARC-Truncated" not in fields
    payload_digest = digest.parse("WARC-Payload-Digest", fields.get("WARC-Payload-Digest")) if checkable else None
    return block_digest, payload_digest


class DigestCheck:
    """A record's block hashed as its bytes go by, against the digests it declares (``checked_digests``).

    Both readers use it (this module's and ``warc_fast``), fed the same way: ``start`` with the block's first
    ``first_bytes`` bytes (the payload's start is found in them, after the HTTP head of an ``application/http``
    block), ``update`` with the rest in order, ``problem`` at the block's end.
    """

    def __init__(
        self, fields: dict[str, str], block_digest: digest.Digest | None, payload_digest: digest.Digest | None
    ) -> None:
        self._http = fields.get("Content-Type", "").strip().lower().startswith("application/http")
        self._block_digest, self._payload_digest = block_digest, payload_digest
        self._block = hashlib.new(block_digest.algorithm) if block_digest else None
        self._payload = hashlib.new(payload_digest.algorithm) if payload_digest else None
        self._first = b""
        self._payload_at: int | None = None
        self._whole = True

    @staticmethod
    def first_bytes(keep: int) -> int:
        """How many of the block's bytes ``start`` is given when the Entry keeps *keep* of them."""
        return keep or _CHUNK

    def start(self, first: bytes) -> None:
        self._first = first
        if self._payload:
            self._payload_at = body_start(first) if self._http else 0
            if self._payload_at is None:
                self._payload = None  # no HTTP head ends in the first bytes: no payload to check
        self._hash(first, self._payload_at or 0)

    def update(self, chunk: Buffer) -> None:
        self._whole = False
        self._hash(chunk, 0)

    def _hash(self, chunk: Buffer, payload_from: int) -> None:
        if self._block:
            self._block.update(chunk)
        if self._payload:
            self._payload.update(memoryview(chunk)[payload_from:])

    def problem(self) -> str | None:
        """The digest that does not match the block's bytes (which, and what was read), or None."""
        if self._block_digest and self._block and self._block.digest() != self._block_digest.expected:
            return self._block_digest.mismatch(self._block.digest())
        expected = self._payload_digest
        if expected and self._payload and self._payload.digest() != expected.expected:
            dechunked = _dechunked_payload(self._first, self._payload_at or 0) if self._whole else None
            if dechunked is None or hashlib.new(expected.algorithm, dechunked).digest() != expected.expected:
                return expected.mismatch(self._payload.digest())
        return None


def _read_checked(stream: BinaryIO, keep: int, check: DigestCheck) -> tuple[bytes, bool, str | None]:
    """(the first *keep* bytes of the block, whether more followed, a digest that does not match or None),
    the whole block read through *check*."""
    first = stream.read(check.first_bytes(keep))
    check.start(first)
    whole = True
    while chunk := stream.read(_CHUNK):
        check.update(chunk)
        whole = False
    return first[:keep], bool(keep) and not whole, check.problem()


def _dechunked_payload(block: bytes, payload_at: int) -> bytes | None:
    """The payload of a chunked HTTP response without its chunk framing (what some writers digest), or None."""
    head = parse_head(block)
    if not isinstance(head, ResponseHead) or "chunked" not in transfer_codings(head.values("Transfer-Encoding")):
        return None
    step = dechunk(block[payload_at:])
    return step[0] if step is not None else None


def _arc_fields(arc: dict[str, str]) -> dict[str, str]:
    """An ARC header line's URL, IP address and date (YYYYMMDDhhmmss, UTC) under their WARC names."""
    date = arc.get("archive-date", "")
    fields = {"WARC-Target-URI": arc.get("uri", ""), "WARC-IP-Address": arc.get("ip-address", "")}
    if len(date) >= 14 and date[:14].isascii() and date[:14].isdigit():
        fields["WARC-Date"] = f"{date[:4]}-{date[4:6]}-{date[6:8]}T{date[8:10]}:{date[10:12]}:{date[12:14]}Z"
    elif date:
        fields["WARC-Date"] = date  # a shorter date: from_warc reads what it can of it
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
    member = _member_head(source, start)
    return member is not None and _RECORD_START.search(member[0], 1) is not None


def _one_record_member(source: Source, *starts: int) -> bool:
    """Whether a gzip member starts at one of *starts* (the record warcio failed on, or the one before it) and
    holds one record: then warcio's "non-chunked gzip file" is about that record's own bytes (what follows its
    block is not the blank lines it expects: a damaged record, not a file gzipped whole)."""
    for start in starts:
        member = _member_head(source, start)
        if member is not None and member[1] and _RECORD_START.search(member[0], 1) is None:
            return True
    return False


def _member_head(source: Source, start: int) -> tuple[bytes, bool] | None:
    """The first inflated bytes of the gzip member at *start*, and whether the member ended within them; None
    when no member that begins with a record starts there."""
    source.seek_at_or_after(start)
    compressed = source.stream.read(_SCAN_BYTES)
    if not compressed.startswith(_GZIP_MEMBER):
        return None
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        inflated = inflater.decompress(compressed, 4 * _SCAN_BYTES)
    except zlib.error:
        return None
    return (inflated, inflater.eof) if _RECORD_START.match(b"\n" + inflated) else None


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
