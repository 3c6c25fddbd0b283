"""The head of an HTTP/1.x response as a WARC ``response`` record stores it: status and header lines.

Implements RFC 9112's message parsing (section 2.2, status line 4, field lines 5) leniently, as a
recipient that must read what servers really sent:

- lines end in CRLF or a bare LF (2.2 allows a recipient to accept LF);
- a line that starts with SP or HTAB continues the previous field value (obs-fold, 5.2), replaced
  by one SP;
- a line without a colon is dropped, as browsers drop it;
- the reason phrase may be missing ("HTTP/1.1 200"), and "HTTP/2 200" (how some archivers record
  an HTTP/2 exchange) is accepted.

Names and values are decoded as ISO-8859-1, byte 0xNN to U+00NN: the RawResponse schema's rule, so
no byte of a header is lost or reinterpreted (warcio's own parser tries UTF-8 first, which is why
records are read with ``no_record_parse`` and parsed here).  Pure: bytes in, a value out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_STATUS_LINE = re.compile(rb"HTTP/\d(?:\.\d)?[ \t]+(\d{3})(?:[ \t].*)?$", re.IGNORECASE)
_OWS = " \t"


@dataclass(frozen=True, slots=True)
class ResponseHead:
    status: int
    #: Field lines in the order received, repeats kept: (name, value), ISO-8859-1 decoded.
    headers: tuple[tuple[str, str], ...]
    #: Where the body starts in the block.
    body_start: int

    def values(self, name: str) -> list[str]:
        """Every value of the field *name* (ASCII case-insensitive), in order."""
        wanted = name.lower()
        return [value for field, value in self.headers if field.lower() == wanted]


@dataclass(frozen=True, slots=True)
class NotHttp:
    """Why a block is not an HTTP response (the record is reported as malformed)."""

    reason: str


def parse_head(block: bytes) -> ResponseHead | NotHttp:
    """The status and field lines at the start of *block*; the body is ``block[head.body_start:]``.

    A block that ends before the empty line ending the head is read as a head without a body (a
    response cut inside its head still says its status).
    """
    end, body_start = _head_end(block)
    lines = block[:end].split(b"\n")
    status_line = lines[0].rstrip(b"\r")
    match = _STATUS_LINE.match(status_line)
    if match is None:
        return NotHttp(f"not an HTTP status line: {status_line[:80]!r}")
    return ResponseHead(int(match.group(1)), _fields(lines[1:]), body_start)


def body_start(block: bytes) -> int | None:
    """Where the body starts in *block* (after the empty line ending the head), or None when no head ends in it."""
    end, start = _head_end(block)
    return start if start > end else None


def _head_end(block: bytes) -> tuple[int, int]:
    """(end of the last field line, start of the body): the first empty line, CRLF or LF."""
    crlf = block.find(b"\r\n\r\n")
    # Only a bare-LF blank line before the CRLF one can end the head: the body is not searched.
    lf = block.find(b"\n\n", 0, crlf + 1 if crlf >= 0 else len(block))
    if crlf < 0 and lf < 0:
        return len(block), len(block)
    if lf < 0 or 0 <= crlf < lf:
        return crlf, crlf + 4
    return lf, lf + 2


def _fields(lines: list[bytes]) -> tuple[tuple[str, str], ...]:
    fields: list[list[str]] = []
    for raw in lines:
        line = raw.rstrip(b"\r").decode("iso-8859-1")
        if not line:
            continue
        if line[0] in _OWS:
            if fields:
                fields[-1][1] = (fields[-1][1] + " " + line.strip(_OWS)).strip(_OWS)
            continue
        name, colon, value = line.partition(":")
        if colon and name.strip(_OWS):
            # Whitespace before the colon is invalid (RFC 9112 5.1); servers send it, browsers accept it.
            fields.append([name.rstrip(_OWS), value.strip(_OWS)])
    return tuple((name, value) for name, value in fields)
