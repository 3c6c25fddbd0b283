"""Undo a Content-Encoding the crawler left on, without ever exceeding a size limit.

Crawlers sometimes store the body as it came over the wire (``Content-Encoding:
gzip``).  Decompression is bounded: a body that would expand past the limit is a
compression bomb and is quarantined, never materialised.  RFC 9110 §8.4 lists
codings in the order they were applied, so they are undone in reverse.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import brotli

#: The codings this module undoes ("identity" is a no-op; x-gzip is gzip, RFC 9110 §8.4.1.3).
SUPPORTED = frozenset({"gzip", "x-gzip", "deflate", "br", "identity"})


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a body cannot be decoded; ``reason`` is a quarantine reason."""

    reason: str
    detail: str


def codings(header_value: str | None) -> list[str]:
    """The content codings named by a Content-Encoding header value, in applied order."""
    if not header_value:
        return []
    return [c.strip().lower() for c in header_value.split(",") if c.strip() and c.strip().lower() != "identity"]


def undo(body: bytes, header_value: str | None, limit: int) -> bytes | Refusal:
    """Return the decoded body, or a ``Refusal`` (too large, bomb, corrupt, unsupported)."""
    if len(body) > limit:
        return Refusal("too-large", f"body of {len(body)} bytes exceeds the limit of {limit}")
    for coding in reversed(codings(header_value)):
        if coding not in SUPPORTED:
            return Refusal("unsupported-content-encoding", f"Content-Encoding {coding!r} is not supported")
        try:
            body = _DECODERS[coding](body, limit)
        except _TooLarge:
            return Refusal("compression-bomb", f"{coding} body expands past the limit of {limit} bytes")
        except (zlib.error, brotli.error, EOFError) as exc:
            return Refusal("corrupt-content-encoding", f"{coding} body does not decompress: {exc}")
    return body


class _TooLarge(Exception):
    pass


def _inflate(body: bytes, limit: int, wbits: int) -> bytes:
    decompressor = zlib.decompressobj(wbits)
    # max_length caps the output, so a bomb never allocates more than limit + 1 bytes.
    out = decompressor.decompress(body, limit + 1)
    if len(out) > limit or decompressor.unconsumed_tail:
        raise _TooLarge
    out += decompressor.flush()
    if len(out) > limit:
        raise _TooLarge
    if not decompressor.eof:
        raise EOFError("truncated stream")
    return out


def _gunzip(body: bytes, limit: int) -> bytes:
    return _inflate(body, limit, 16 + zlib.MAX_WBITS)


def _deflate(body: bytes, limit: int) -> bytes:
    # "deflate" is meant to be zlib-wrapped (RFC 9110 §8.4.1.2) but servers send raw
    # deflate too; browsers accept both, so try the zlib header first.
    try:
        return _inflate(body, limit, zlib.MAX_WBITS)
    except zlib.error:
        return _inflate(body, limit, -zlib.MAX_WBITS)


def _unbrotli(body: bytes, limit: int) -> bytes:
    decompressor = brotli.Decompressor()
    out: bytes = decompressor.process(body, output_buffer_limit=limit + 1)
    if len(out) > limit or not decompressor.is_finished():
        if len(out) > limit or not decompressor.can_accept_more_data():
            raise _TooLarge
        raise EOFError("truncated stream")
    return out


_DECODERS = {"gzip": _gunzip, "x-gzip": _gunzip, "deflate": _deflate, "br": _unbrotli}
