"""EUC-JP: implements the Encoding Standard's EUC-JP decoder
(https://encoding.spec.whatwg.org/#euc-jp-decoder) in pure Python.

0x8E + A1..DF is halfwidth katakana, 0x8F + two bytes is JIS X 0212 (index
jis0212), two bytes A1..FE is JIS X 0208 (index jis0208).  This is the
reference the compiled decoder (``_native/multibyte.c``) is tested equal to, and what
runs where it was not built.
"""

from __future__ import annotations

from ..data.whatwg import INDEX_JIS0208, INDEX_JIS0212
from ._stream import decode_with, index_code_point


def decode(data: bytes, fatal: bool = False) -> tuple[str, int] | None:
    """Decode *data* to (text, errors); with *fatal*, None at the first error."""
    return decode_with(step, data, fatal)


def step(data: bytes, i: int, byte: int, n: int) -> tuple[str | None, int]:
    """The code point (None: error) at *i* and how many bytes it consumes."""
    if not (byte == 0x8E or byte == 0x8F or 0xA1 <= byte <= 0xFE) or i + 1 == n:
        return None, 1
    second = data[i + 1]
    if byte == 0x8E and 0xA1 <= second <= 0xDF:
        return chr(0xFF61 - 0xA1 + second), 2
    if byte == 0x8F and 0xA1 <= second <= 0xFE:
        # The jis0212 flag is set and the second byte becomes the lead.
        if i + 2 == n:
            return None, 2
        code_point, size = _two_bytes(INDEX_JIS0212, second, data[i + 2])
        return code_point, size + 1
    return _two_bytes(INDEX_JIS0208, byte, second)


def _two_bytes(index: str, lead: int, byte: int) -> tuple[str | None, int]:
    if 0xA1 <= lead <= 0xFE and 0xA1 <= byte <= 0xFE:
        code_point = index_code_point(index, (lead - 0xA1) * 94 + byte - 0xA1)
        if code_point is not None:
            return code_point, 2
    # An ASCII byte is prepended back: decoded afresh.
    return None, 1 if byte < 0x80 else 2

#: Bytes this encoding decodes to themselves, one character a byte.
is_plain = bytes.isascii
