"""The standard's data and decoders, independent of the package under test.

Expectations come from the standard's own files, vendored unchanged in
``consumer/decoding/data/whatwg/``, parsed here independently of the package's
generator, and from literal transcriptions of the standard's UTF-8 and UTF-16
decoders.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from functools import cache
from pathlib import Path

WHATWG_DIR = Path(__file__).resolve().parents[3] / "consumer" / "decoding" / "data" / "whatwg"


@cache
def read_index(name: str) -> dict[int, int]:
    """``index-<name>.txt`` as pointer -> code point (comments may hold U+0085: split on LF)."""
    index: dict[int, int] = {}
    text = (WHATWG_DIR / f"index-{name}.txt").read_text(encoding="utf-8")
    for line in text.split("\n"):
        if line.strip() and not line.startswith("#"):
            pointer, code_point = line.split("\t")[:2]
            index[int(pointer)] = int(code_point, 16)
    return index


@cache
def single_byte_encodings() -> tuple[str, ...]:
    groups = json.loads((WHATWG_DIR / "encodings.json").read_text(encoding="utf-8"))
    (group,) = [g for g in groups if g["heading"] == "Legacy single-byte encodings"]
    return tuple(encoding["name"] for encoding in group["encodings"])


@cache
def all_encodings() -> frozenset[str]:
    groups = json.loads((WHATWG_DIR / "encodings.json").read_text(encoding="utf-8"))
    return frozenset(encoding["name"] for group in groups for encoding in group["encodings"])


def gb18030_ranges_code_point(pointer: int) -> int | None:
    """The standard's "index gb18030 ranges code point", over the ranges file."""
    if 39419 < pointer < 189000 or pointer > 1237575:
        return None
    if pointer == 7457:
        return 0xE7C7
    pointers, code_points = _gb18030_ranges()
    at = bisect_right(pointers, pointer) - 1
    return code_points[at] + pointer - pointers[at]


@cache
def _gb18030_ranges() -> tuple[list[int], list[int]]:
    ranges = sorted(read_index("gb18030-ranges").items())
    return [p for p, _ in ranges], [c for _, c in ranges]


def gb18030_four_bytes(pointer: int) -> bytes:
    """The four bytes whose gb18030 pointer arithmetic gives *pointer*."""
    first, rest = divmod(pointer, 12600)
    second, rest = divmod(rest, 1260)
    third, fourth = divmod(rest, 10)
    return bytes((first + 0x81, second + 0x30, third + 0x81, fourth + 0x30))


def spec_utf8_decode(data: bytes) -> tuple[str, int]:
    """The standard's UTF-8 decoder, step by step (https://encoding.spec.whatwg.org/#utf-8-decoder)."""
    out: list[str] = []
    errors = code_point = needed = seen = 0
    lower, upper = 0x80, 0xBF
    i = 0
    while True:
        byte = data[i] if i < len(data) else None
        i += 1
        if byte is None:
            if needed:
                out.append("\ufffd")
                errors += 1
            return "".join(out), errors
        if needed == 0:
            if byte <= 0x7F:
                out.append(chr(byte))
            elif 0xC2 <= byte <= 0xDF:
                needed, code_point = 1, byte & 0x1F
            elif 0xE0 <= byte <= 0xEF:
                lower = 0xA0 if byte == 0xE0 else lower
                upper = 0x9F if byte == 0xED else upper
                needed, code_point = 2, byte & 0xF
            elif 0xF0 <= byte <= 0xF4:
                lower = 0x90 if byte == 0xF0 else lower
                upper = 0x8F if byte == 0xF4 else upper
                needed, code_point = 3, byte & 0x7
            else:
                out.append("\ufffd")
                errors += 1
            continue
        if not lower <= byte <= upper:
            code_point = needed = seen = 0
            lower, upper = 0x80, 0xBF
            i -= 1  # prepend byte to stream
            out.append("\ufffd")
            errors += 1
            continue
        lower, upper = 0x80, 0xBF
        code_point = (code_point << 6) | (byte & 0x3F)
        seen += 1
        if seen == needed:
            out.append(chr(code_point))
            code_point = needed = seen = 0


def spec_utf16_decode(data: bytes, big_endian: bool) -> tuple[str, int]:
    """The standard's shared UTF-16 decoder (https://encoding.spec.whatwg.org/#shared-utf-16-decoder)."""
    out: list[str] = []
    errors = 0
    lead_byte: int | None = None
    lead_surrogate: int | None = None
    queue = list(data)
    while True:
        byte = queue.pop(0) if queue else None
        if byte is None:
            if lead_byte is not None or lead_surrogate is not None:
                out.append("\ufffd")
                errors += 1
            return "".join(out), errors
        if lead_byte is None:
            lead_byte = byte
            continue
        unit = (lead_byte << 8) + byte if big_endian else (byte << 8) + lead_byte
        lead_byte = None
        if lead_surrogate is not None:
            lead, lead_surrogate = lead_surrogate, None
            if 0xDC00 <= unit <= 0xDFFF:
                out.append(chr(0x10000 + ((lead - 0xD800) << 10) + (unit - 0xDC00)))
                continue
            high, low = unit >> 8, unit & 0xFF
            queue[:0] = [high, low] if big_endian else [low, high]
            out.append("\ufffd")
            errors += 1
            continue
        if 0xD800 <= unit <= 0xDBFF:
            lead_surrogate = unit
        elif 0xDC00 <= unit <= 0xDFFF:
            out.append("\ufffd")
            errors += 1
        else:
            out.append(chr(unit))
