"""Big5: implements the Encoding Standard's Big5 decoder
(https://encoding.spec.whatwg.org/#big5-decoder) in pure Python.

The standard's index Big5 is Big5 with the HKSCS extensions (leads from 0x87).
This is the reference the compiled decoder (``_native/multibyte.c``) is tested equal
to, and what runs where it was not built.
"""

from __future__ import annotations

from ..data.whatwg import INDEX_BIG5
from ._stream import decode_with, index_code_point

# Four pointers decode to a base letter and a combining mark: two code points.
_TWO_CODE_POINTS = {
    1133: "\u00ca\u0304",
    1135: "\u00ca\u030c",
    1164: "\u00ea\u0304",
    1166: "\u00ea\u030c",
}


def decode(data: bytes, fatal: bool = False) -> tuple[str, int] | None:
    """Decode *data* to (text, errors); with *fatal*, None at the first error."""
    return decode_with(step, data, fatal)


def step(data: bytes, i: int, byte: int, n: int) -> tuple[str | None, int]:
    """The code point(s) (None: error) at *i* and how many bytes they consume."""
    if not 0x81 <= byte <= 0xFE or i + 1 == n:
        return None, 1
    trail = data[i + 1]
    if 0x40 <= trail <= 0x7E or 0xA1 <= trail <= 0xFE:
        offset = 0x40 if trail < 0x7F else 0x62
        pointer = (byte - 0x81) * 157 + trail - offset
        code_point = _TWO_CODE_POINTS.get(pointer) or index_code_point(INDEX_BIG5, pointer)
        if code_point is not None:
            return code_point, 2
    # An ASCII trail byte is prepended back: decoded afresh.
    return None, 1 if trail < 0x80 else 2

#: Bytes this encoding decodes to themselves, one character a byte.
is_plain = bytes.isascii
