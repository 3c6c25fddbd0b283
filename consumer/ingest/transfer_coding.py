"""Undo the transfer codings of a stored HTTP/1.1 body; leave its Content-Encoding alone.

A transfer coding (RFC 9112 section 7) is a property of the hop: the RawResponse carries the
message body without it and with its content coding as sent (the processor undoes gzip, br,
deflate with a bound).  Codings are undone last applied first: ``Transfer-Encoding: gzip, chunked``
is de-chunked, then gunzipped.

Lenient where archives are: some WARC writers store the body already de-chunked but keep the
``Transfer-Encoding: chunked`` line.  A body whose first line is not a chunk size is taken as
stored (``note`` says so), as warcio's own ``ChunkedDataReader`` does.  A body that ends inside
its chunks (the crawler stopped reading) keeps the chunks read, ``complete`` false.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

#: chunk-size [ chunk-ext ] CRLF (RFC 9112 7.1); a bare LF is accepted, as for every line.
_CHUNK_SIZE = re.compile(rb"[ \t]*([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\n]*)?\r?\n")
_GZIP_WBITS = 16 + zlib.MAX_WBITS


@dataclass(frozen=True, slots=True)
class Unwrapped:
    body: bytes
    #: False when the stored body ended inside a transfer coding: what was read is kept.
    complete: bool = True
    #: A coding left in place, or chunked framing that was not there (None when all went to plan).
    note: str | None = None


def transfer_codings(values: Sequence[str]) -> list[str]:
    """The codings the ``Transfer-Encoding`` field values list, in the order applied (lowercase)."""
    codings = [part.strip().lower() for value in values for part in value.split(",")]
    return [coding for coding in codings if coding and coding != "identity"]


def remove_transfer_codings(body: bytes, codings: Sequence[str], limit: int) -> Unwrapped:
    """*body* with *codings* undone (last first); decompression stops past *limit* bytes."""
    complete = True
    for coding in reversed(codings):
        if coding == "chunked":
            step = dechunk(body)
            if step is None:
                return Unwrapped(
                    body, complete, "Transfer-Encoding chunked, but the body is not chunked: kept as stored"
                )
            body, ended = step
            complete = complete and ended
        elif coding in ("gzip", "x-gzip", "deflate"):
            step = _inflate(body, coding, limit)
            if step is None:
                return Unwrapped(body, complete, f"transfer coding {coding!r} does not decompress: kept as stored")
            body, ended = step
            complete = complete and ended
        else:
            return Unwrapped(body, complete, f"transfer coding {coding!r} is not supported: kept as stored")
    return Unwrapped(body, complete)


def dechunk(data: bytes) -> tuple[bytes, bool] | None:
    """(content, whether the last chunk was reached), or None when *data* does not start with a chunk.

    RFC 9112 7.1.3's decoding algorithm; trailer fields are dropped (no RawResponse field holds them).
    """
    match = _CHUNK_SIZE.match(data)
    if match is None:
        return None
    parts: list[bytes] = []
    position = 0
    while match is not None:
        size = int(match.group(1), 16)
        start = match.end()
        if size == 0:
            return b"".join(parts), True
        parts.append(data[start : start + size])
        if start + size > len(data):
            return b"".join(parts), False
        position = _after_line_end(data, start + size)
        match = _CHUNK_SIZE.match(data, position)
    return b"".join(parts), False


def _after_line_end(data: bytes, position: int) -> int:
    if data.startswith(b"\r\n", position):
        return position + 2
    if data.startswith(b"\n", position):
        return position + 1
    return position


def _inflate(data: bytes, coding: str, limit: int) -> tuple[bytes, bool] | None:
    """Decompressed *data* (at most *limit* + 1 bytes: more is cut later anyway) and whether the stream
    ended, or None when it is not that coding.  "deflate" is the zlib format, but servers send raw
    deflate too (RFC 9110 8.4.1.2 notes it): both are tried."""
    attempts = (_GZIP_WBITS,) if coding != "deflate" else (zlib.MAX_WBITS, -zlib.MAX_WBITS)
    for wbits in attempts:
        inflater = zlib.decompressobj(wbits)
        try:
            out = inflater.decompress(data, limit + 1)
        except zlib.error:
            continue
        return out, inflater.eof or len(out) > limit
    return None
