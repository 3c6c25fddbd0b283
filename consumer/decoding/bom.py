"""Byte order marks: implements the Encoding Standard's "BOM sniff".

https://encoding.spec.whatwg.org/#bom-sniff
"""

from __future__ import annotations

#: Each encoding a byte order mark names -> its BOM, the one table of them (mime_sniff.py's
#: text-or-binary rule and the overrides' recheck read it too).  Longest first is not needed: no BOM
#: is a prefix of another one.
BOM_OF: dict[str, bytes] = {"UTF-8": b"\xef\xbb\xbf", "UTF-16BE": b"\xfe\xff", "UTF-16LE": b"\xff\xfe"}
_BOMS = tuple((bom, encoding) for encoding, bom in BOM_OF.items())
#: Every byte order mark, for a ``startswith`` that rules them all out at once.
BYTE_ORDER_MARKS = tuple(BOM_OF.values())


def sniff_bom(body: bytes) -> tuple[str | None, int]:
    """Return the encoding a byte order mark at the start of *body* names, and its length.

    ``(None, 0)`` when *body* starts with no BOM.  The standard's decode
    algorithm strips the BOM it found before decoding, hence the length.
    There is no UTF-32 here: the Encoding Standard has no UTF-32, and
    ``FF FE 00 00`` is UTF-16LE's BOM followed by U+0000.
    """
    if not body.startswith(BYTE_ORDER_MARKS):  # most bodies: one call instead of three
        return None, 0
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return encoding, len(bom)
    return None, 0
