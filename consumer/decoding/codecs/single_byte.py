"""Single-byte decoders: the legacy single-byte encodings and x-user-defined.

Implements the Encoding Standard's single-byte decoder
(https://encoding.spec.whatwg.org/#single-byte-decoder) and the x-user-defined
decoder (https://encoding.spec.whatwg.org/#x-user-defined-decoder).

Both are a fixed byte -> code point table built from the standard's index, not
from Python's codecs.  The compiled decoder (``_native/single_byte.c``, when the
extension was built: ``COMPILED``) runs it with an ASCII fast path and counts
the errors as it replaces them, 2-3x ``codecs.charmap_decode`` on pages and
orders of magnitude on bodies full of unmapped bytes, where charmap_decode
calls an error handler per byte.  Without it, ``codecs.charmap_decode`` over a
256-character table is the decoder, and it stays the reference the compiled
one is tested against (``reference_decode``).  Python's own single-byte codecs
differ from the standard in many places (e.g. windows-1252 0x81/0x8D/0x8F/
0x90/0x9D are U+0081.. in the standard but errors in Python's cp1252; koi8-u
0xAE is U+045E in the standard but U+255D in Python), so none of them is used.
"""

from __future__ import annotations

import codecs
import sys
from array import array
from collections.abc import Callable

from .. import _native
from ..data.whatwg import NO_CODE_POINT, SINGLE_BYTE

#: Whether the compiled single-byte decoder runs (else codecs.charmap_decode).
COMPILED = _native.extension("single_byte") is not None
if COMPILED:
    from .._native.single_byte import decode as _compiled

_ASCII = "".join(map(chr, range(0x80)))
# x-user-defined: byte 0x80 + n is U+F780 + n.
_X_USER_DEFINED = _ASCII + "".join(chr(0xF780 + n) for n in range(0x80))

# charmap_decode treats U+FFFE in a str table as "undefined": an error, which
# is exactly the standard's "index single-byte code point is null".
assert NO_CODE_POINT == "\ufffe"

#: encoding name -> 256-character decoding table.
TABLES: dict[str, str] = {name: _ASCII + high for name, high in SINGLE_BYTE.items()}
TABLES["x-user-defined"] = _X_USER_DEFINED

# No index maps a byte to U+FFFD, so every U+FFFD in the output is an error.
assert not any("\ufffd" in table for table in TABLES.values())



def _code_points(table: str) -> array[int]:
    """*table* as the extension takes it: 256 native 16-bit code points (every one is in the BMP)."""
    units = array("H")
    units.frombytes(table.encode("utf-16-le"))
    if sys.byteorder == "big":
        units.byteswap()
    return units


#: encoding name -> the table as an array('H'), for the compiled decoder.
CODE_POINTS: dict[str, array[int]] = {name: _code_points(table) for name, table in TABLES.items()}

_charmap_decode = codecs.charmap_decode


def reference_decode(table: str, data: bytes) -> tuple[str, int]:
    """Decode *data* with *table*, one U+FFFD per byte the index lacks (charmap_decode: the reference)."""
    text = _charmap_decode(data, "replace", table)[0]
    return text, text.count("\ufffd")


def reference_decode_strict(table: str, data: bytes) -> str | None:
    """Decode *data* with *table*, or None if a byte is not in the index (charmap_decode: the reference)."""
    try:
        return _charmap_decode(data, "strict", table)[0]
    except UnicodeDecodeError:
        return None


def decoders(name: str) -> tuple[Callable[[bytes], tuple[str, int]], Callable[[bytes], str | None]]:
    """(lossy, strict) decoders of single-byte encoding *name*: compiled when built, else the reference."""
    if COMPILED:
        units = CODE_POINTS[name]

        def lossy(data: bytes) -> tuple[str, int]:
            result = _compiled(units, data, False)
            assert result is not None  # not fatal: never None
            return result

        def strict(data: bytes) -> str | None:
            result = _compiled(units, data, True)
            return None if result is None else result[0]

        return lossy, strict
    table = TABLES[name]
    return (lambda data: reference_decode(table, data)), (lambda data: reference_decode_strict(table, data))
