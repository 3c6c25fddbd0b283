"""EUC-KR: implements the Encoding Standard's EUC-KR decoder
(https://encoding.spec.whatwg.org/#euc-kr-decoder) in pure Python.

The standard's index EUC-KR is windows-949 (Unified Hangul Code), so leads
0x81..0xFE take trails 0x41..0xFE.  This is the reference the compiled
decoder (``_native/multibyte.c``) is tested equal to, and what runs where it was not
built.
"""

from __future__ import annotations

from ..data.whatwg import INDEX_EUC_KR
from ._stream import decode_with, index_code_point


def decode(data: bytes, fatal: bool = False) -> tuple[str, int] | None:
    """Decode *data* to (text, errors); with *fatal*, None at the first error."""
    return decode_with(step, data, fatal)


def step(data: bytes, i: int, byte: int, n: int) -> tuple[str | None, int]:
    """The code point (None: error) at *i* and how many bytes it consumes."""
    if not 0x81 <= byte <= 0xFE or i + 1 == n:
        return None, 1
    trail = data[i + 1]
    if 0x41 <= trail <= 0xFE:
        code_point = index_code_point(INDEX_EUC_KR, (byte - 0x81) * 190 + trail - 0x41)
        if code_point is not None:
            return code_point, 2
    # An ASCII trail byte is prepended back: decoded afresh.
    return None, 1 if trail < 0x80 else 2

#: Bytes this encoding decodes to themselves, one character a byte.
is_plain = bytes.isascii
