"""Single-byte decoders: the legacy single-byte encodings and x-user-defined.

Implements the Encoding Standard's single-byte decoder
(https://encoding.spec.whatwg.org/#single-byte-decoder) and the x-user-defined
decoder (https://encoding.spec.whatwg.org/#x-user-defined-decoder).

Both are a fixed byte -> code point table, so both run as
``codecs.charmap_decode`` (C speed) with a 256-character table built from the
standard's index, not from Python's codecs.  Python's own single-byte codecs
differ from the standard in many places (e.g. windows-1252 0x81/0x8D/0x8F/
0x90/0x9D are U+0081.. in the standard but errors in Python's cp1252; koi8-u
0xAE is U+045E in the standard but U+255D in Python), so none of them is used.
"""

from __future__ import annotations

import codecs

from ..data.whatwg import NO_CODE_POINT, SINGLE_BYTE

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

_charmap_decode = codecs.charmap_decode


def decode(table: str, data: bytes) -> tuple[str, int]:
    """Decode *data* with *table*, one U+FFFD per byte the index lacks."""
    text = _charmap_decode(data, "replace", table)[0]
    return text, text.count("\ufffd")


def decode_strict(table: str, data: bytes) -> str | None:
    """Decode *data* with *table*, or None if a byte is not in the index."""
    try:
        return _charmap_decode(data, "strict", table)[0]
    except UnicodeDecodeError:
        return None
