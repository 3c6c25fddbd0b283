"""Pieces shared by the pure-Python multi-byte decoders.

Each decoder walks the bytes with a position instead of a queue: the
standard's "prepend byte to stream" always prepends the bytes just read, so it
is "advance by fewer bytes".  Runs of ASCII are copied with one regex match,
which is where most of the bytes of a web page are.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..data.whatwg import NO_CODE_POINT

ASCII_RUN = re.compile(rb"[\x00-\x7f]+")
REPLACEMENT = "\ufffd"


def index_code_point(index: str, pointer: int) -> str | None:
    """The standard's "index code point" for *pointer*: None when the index lacks it."""
    if pointer < len(index):
        code_point = index[pointer]
        if code_point != NO_CODE_POINT:
            return code_point
    return None


#: A decoder's step: (data, i, byte, n) -> (code point(s) or None for an error,
#: bytes consumed), for a non-ASCII *byte* at position *i* of *data*.
Step = Callable[[bytes, int, int, int], "tuple[str | None, int]"]


def decode_with(step: Step, data: bytes, fatal: bool) -> tuple[str, int] | None:
    """Run a stateless-between-characters decoder over *data*.

    Returns (text, errors), or None at the first error when *fatal* (the
    standard's error mode "fatal").  ASCII bytes outside a sequence are
    themselves in every encoding that uses this loop.
    """
    out: list[str] = []
    append = out.append
    match_ascii = ASCII_RUN.match
    errors = 0
    i, n = 0, len(data)
    while i < n:
        byte = data[i]
        if byte < 0x80:
            end = match_ascii(data, i).end()  # type: ignore[union-attr]  # data[i] is ASCII: it matches
            append(data[i:end].decode("ascii"))
            i = end
            continue
        code_point, size = step(data, i, byte, n)
        i += size
        if code_point is None:
            if fatal:
                return None
            errors += 1
            code_point = REPLACEMENT
        append(code_point)
    return "".join(out), errors
