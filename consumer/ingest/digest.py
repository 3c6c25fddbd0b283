"""A WARC record's ``WARC-Block-Digest`` and ``WARC-Payload-Digest``, checked as the record streams by.

WARC 1.1 (ISO 28500:2017) section 5.8 gives a digest as ``algorithm ":" value`` and leaves the
encoding of the value to the writer.  What archives hold, and what is read here:

- the algorithm ``sha1`` (also written ``sha-1``), ``sha256`` (``sha-256``), ``sha512`` or ``md5``,
  any case; a value without ``algorithm:`` is taken by its length (40 hex or 32 base32 digits are SHA-1,
  64 hex or 52 base32 digits SHA-256);
- the value in base32 (what Heritrix, wget and warcio write for SHA-1), hex, or base64, padded or not.

A digest of another algorithm, or a value that is none of these, is not checked (``parse`` gives None).

The block is every byte of the record's content (Content-Length of them); the payload of an
``application/http`` block is what follows the HTTP head, as stored: transfer coding included, as
Heritrix, wget and warcio compute it.  Some writers digest the de-chunked body instead, so a
payload digest that matches that is accepted too (``ingest.warc`` checks it).  Pure: bytes in.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

#: Algorithm names as written (lower-cased, dashes removed) to hashlib's.
_ALGORITHMS = {"sha1": "sha1", "sha256": "sha256", "sha512": "sha512", "md5": "md5"}
#: A value without ``algorithm:``, by its digits: hex, then base32.
_BY_LENGTH = {40: "sha1", 64: "sha256", 32: "sha1", 52: "sha256"}
#: Each algorithm's digest size in bytes (``hashlib.new(name).digest_size``, without making a hash object).
_SIZES = {"sha1": 20, "sha256": 32, "sha512": 64, "md5": 16}
#: RFC 4648's base32 alphabet, either case, to the digits ``int(text, 32)`` reads (0-9, then a-v), value for value.
_ALPHABET, _DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "0123456789abcdefghijklmnopqrstuv"
_BASE32_DIGITS = str.maketrans(_ALPHABET + _ALPHABET[:26].lower(), _DIGITS + _DIGITS[:26])
_HEX = re.compile(r"[0-9a-fA-F]+")
_BASE32 = re.compile(r"[A-Za-z2-7]+=*")


@dataclass(frozen=True, slots=True)
class Digest:
    """One digest a record declares: which field, the algorithm, the value's bytes, and the text as written."""

    field: str
    algorithm: str
    expected: bytes
    written: str

    def mismatch(self, computed: bytes) -> str:
        """The sentence that says this digest does not match (*computed*, in the written algorithm)."""
        found = base64.b32encode(computed).decode() if self.algorithm == "sha1" else computed.hex()
        return f"{self.field} {self.written} does not match the bytes read ({self.algorithm}:{found})"


def parse(field: str, value: str | None) -> Digest | None:
    """The digest *value* of the field *field*, or None when there is none or it cannot be checked."""
    if not value or not value.strip():
        return None
    written = value.strip()
    name, colon, digits = written.partition(":")
    if not colon:
        name, digits = "", name
    digits = digits.strip()
    algorithm = (
        _ALGORITHMS.get(name.strip().lower().replace("-", "")) if name else _BY_LENGTH.get(len(digits.rstrip("=")))
    )
    if algorithm is None:
        return None
    expected = _decode(digits, _SIZES[algorithm])
    return Digest(field, algorithm, expected, written) if expected is not None else None


def base32(digits: str, size: int) -> bytes:
    """*size* bytes from RFC 4648 base32 *digits* (either case, no padding, ``ceil(8 * size / 5)`` of them), as
    ``base64.b32decode`` reads them padded: the bits past the last byte are dropped.  One ``int`` parse, where
    ``b32decode`` loops in Python over every 8 digits (7 us of the 14 a digest took to read)."""
    return (int(digits.translate(_BASE32_DIGITS), 32) >> (5 * len(digits) - 8 * size)).to_bytes(size, "big")


def _decode(digits: str, size: int) -> bytes | None:
    """*digits* as *size* bytes, read as hex, base32 or base64 (the one whose length fits)."""
    bare = digits.rstrip("=")
    try:
        if len(digits) == 2 * size and _HEX.fullmatch(digits):
            return bytes.fromhex(digits)
        if len(bare) == -(-size * 8 // 5) and _BASE32.fullmatch(digits):
            return base32(bare, size)
        if len(bare) == -(-size * 4 // 3):
            # base64 or its URL-safe alphabet; validate refuses any other character.
            padded = (bare + "=" * (-len(bare) % 4)).replace("-", "+").replace("_", "/")
            return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None
    return None
