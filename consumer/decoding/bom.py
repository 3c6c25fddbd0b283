"""Byte order marks: implements the Encoding Standard's "BOM sniff".

https://encoding.spec.whatwg.org/#bom-sniff
"""

from __future__ import annotations

# Longest first is not needed: no BOM is a prefix of another one.
_BOMS = (
    (b"\xef\xbb\xbf", "UTF-8"),
    (b"\xfe\xff", "UTF-16BE"),
    (b"\xff\xfe", "UTF-16LE"),
)
#: Every byte order mark, for a ``startswith`` that rules them all out at once.
BYTE_ORDER_MARKS = tuple(bom for bom, _ in _BOMS)


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
