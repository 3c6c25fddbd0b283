"""gb18030 and GBK: implements the Encoding Standard's gb18030 decoder
(https://encoding.spec.whatwg.org/#gb18030-decoder), which GBK shares
(https://encoding.spec.whatwg.org/#gbk-decoder), in pure Python.

One byte: ASCII, 0x80 = U+20AC.  Two bytes: index gb18030.  Four bytes
(lead, 0x30..0x39, 0x81..0xFE, 0x30..0x39): the "index gb18030 ranges code
point" algorithm.  This is the reference the compiled decoder
(``_native/multibyte.c``) is tested equal to, and what runs where it was not built.
"""

from __future__ import annotations

from bisect import bisect_right

from ..data.whatwg import GB18030_RANGES, INDEX_GB18030
from ._stream import decode_with, index_code_point

_RANGE_POINTERS = [pointer for pointer, _ in GB18030_RANGES]
_RANGE_CODE_POINTS = [code_point for _, code_point in GB18030_RANGES]


def decode(data: bytes, fatal: bool = False) -> tuple[str, int] | None:
    """Decode *data* to (text, errors); with *fatal*, None at the first error."""
    return decode_with(step, data, fatal)


def ranges_code_point(pointer: int) -> str | None:
    """Implements the standard's "index gb18030 ranges code point"."""
    if 39419 < pointer < 189000 or pointer > 1237575:
        return None
    if pointer == 7457:
        return "\ue7c7"
    at = bisect_right(_RANGE_POINTERS, pointer) - 1
    return chr(_RANGE_CODE_POINTS[at] + pointer - _RANGE_POINTERS[at])


def step(data: bytes, i: int, byte: int, n: int) -> tuple[str | None, int]:
    """The code point (None: error) at *i* and how many bytes it consumes."""
    if byte == 0x80:
        return "\u20ac", 1
    if byte == 0xFF or i + 1 == n:
        return None, 1
    second = data[i + 1]
    if 0x30 <= second <= 0x39:
        return _four_bytes(data, i, byte, second, n)
    if 0x40 <= second <= 0x7E or 0x80 <= second <= 0xFE:
        offset = 0x40 if second < 0x7F else 0x41
        code_point = index_code_point(INDEX_GB18030, (byte - 0x81) * 190 + second - offset)
        if code_point is not None:
            return code_point, 2
    # An ASCII second byte is prepended back: decoded afresh.
    return None, 1 if second < 0x80 else 2


def _four_bytes(data: bytes, i: int, first: int, second: int, n: int) -> tuple[str | None, int]:
    # At the end of the stream a pending sequence is one error that consumes it.
    if i + 2 == n:
        return None, 2
    third = data[i + 2]
    # A bad third or fourth byte drops the first byte only: the others are
    # prepended back and decoded afresh.
    if not 0x81 <= third <= 0xFE:
        return None, 1
    if i + 3 == n:
        return None, 3
    fourth = data[i + 3]
    if not 0x30 <= fourth <= 0x39:
        return None, 1
    pointer = (((first - 0x81) * 10 + second - 0x30) * 126 + third - 0x81) * 10 + fourth - 0x30
    return ranges_code_point(pointer), 4

#: Bytes this encoding decodes to themselves, one character a byte.
is_plain = bytes.isascii
