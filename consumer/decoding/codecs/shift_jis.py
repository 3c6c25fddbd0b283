"""Shift_JIS: implements the Encoding Standard's Shift_JIS decoder
(https://encoding.spec.whatwg.org/#shift_jis-decoder) in pure Python.

This is the reference the compiled decoder (``_native/multibyte.c``) is tested equal
to, and what runs where it was not built.
"""

from __future__ import annotations

from ..data.whatwg import INDEX_JIS0208
from ._stream import decode_with, index_code_point


def decode(data: bytes, fatal: bool = False) -> tuple[str, int] | None:
    """Decode *data* to (text, errors); with *fatal*, None at the first error."""
    return decode_with(step, data, fatal)


def step(data: bytes, i: int, byte: int, n: int) -> tuple[str | None, int]:
    """The code point (None: error) at *i* and how many bytes it consumes."""
    if byte == 0x80:
        return "\x80", 1
    if 0xA1 <= byte <= 0xDF:
        return chr(0xFF61 - 0xA1 + byte), 1
    if not (0x81 <= byte <= 0x9F or 0xE0 <= byte <= 0xFC):
        return None, 1
    if i + 1 == n:
        return None, 1
    trail = data[i + 1]
    if 0x40 <= trail <= 0x7E or 0x80 <= trail <= 0xFC:
        offset = 0x40 if trail < 0x7F else 0x41
        lead_offset = 0x81 if byte < 0xA0 else 0xC1
        pointer = (byte - lead_offset) * 188 + trail - offset
        # Pointers 8836..10715 (leads F0..F9) are the user-defined area: PUA.
        if 8836 <= pointer <= 10715:
            return chr(0xE000 - 8836 + pointer), 2
        code_point = index_code_point(INDEX_JIS0208, pointer)
        if code_point is not None:
            return code_point, 2
    # An ASCII trail byte is prepended back: decoded afresh.
    return None, 1 if trail < 0x80 else 2

#: Bytes this encoding decodes to themselves, one character a byte.
is_plain = bytes.isascii
