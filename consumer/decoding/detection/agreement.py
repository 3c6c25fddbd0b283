"""Where a scoring codec and the Encoding Standard's decoder read bytes alike: tables that spare detection's
strict decodes most of CPython's codecs.

Detection scores each multi-byte candidate on its strict decode by a CPython codec (``model._SCORING_CODECS``:
cp932 for Shift_JIS, big5hkscs for Big5...).  Most candidates fail on a page's window, and one reads it, the
declared one under a doubt (``contradiction.doubted``), whose page the standard's compiled decoder has just read.
A CPython codec run cold, in a stream of UTF-8 pages, costs several times what it costs warm (its code and
tables are out of the caches: bench/decode.py's mix lost ~0.3 ms a round to them).  These tables say, per
sequence of bytes, what the codec does with it: fails (``INVALID``), reads it as the standard's decoder does
(``AGREE``), reads it otherwise (``DIFFER``: cp932's 0xA0 is U+F8F0, an error in the standard), or waits for
another byte (``LEAD``).  Walking a window through them (``reading``) tells, exactly, that the codec fails on
it (no decode is run), or that the standard's decoder reads it as the codec would (the compiled decoder reads
it), or neither (the codec decodes it, as before): the same texts, to the character.

The tables are computed from the codecs and the standard's decoders themselves (``build``), over every byte,
pair and triple; the shipped copy (``agreement_data.py``, ``python -m consumer.decoding.detection.agreement``
writes it) is checked against them by tests/decoding/detection/test_scoring_agreement.py.  gb18030 has none: its
four-byte sequences are past a pair and a triple, and it is a candidate only where they appear.
"""

from __future__ import annotations

import argparse
import base64
import codecs
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from ..codecs import decode_strict, multibyte
from .model import _SCORING_CODECS

#: What a scoring codec does with a sequence of bytes (a class of ``Tables``).
INVALID, AGREE, DIFFER, LEAD = range(4)
#: ``reading``'s answers: the codec fails on the bytes; the standard's decoder reads them (up to ``end``) as the
#: codec does; or ask the codec.
FAILS, AGREES, ASK = range(3)

#: The candidates with tables: detection's multi-byte candidates but gb18030.
ENCODINGS = ("Shift_JIS", "EUC-JP", "EUC-KR", "GBK", "Big5")


class Tables(NamedTuple):
    """One codec's classes: of each byte alone, of each pair after a ``LEAD`` byte, and of each third byte after
    the pairs of the one lead that starts three-byte sequences (EUC-JP's 0x8F; ``triple_lead`` -1: none).  Pairs
    and triples are packed four classes a byte, index ``(first << 8) | second``, two bits each from the lowest."""

    singles: bytes
    pairs: bytes
    triple_lead: int
    triples: bytes


def build(encoding: str) -> Tables:
    """*encoding*'s tables, computed from its scoring codec and the standard's decoder: every byte, every pair after
    a lead byte, every triple after a waiting pair."""
    decoder = codecs.getincrementaldecoder(_SCORING_CODECS[encoding])

    def classify(sequence: bytes, waiting: int) -> int:
        try:
            text = decoder("strict").decode(sequence, final=False)
        except UnicodeDecodeError:
            return INVALID
        try:
            whole = decoder("strict").decode(sequence, final=True)
        except UnicodeDecodeError:
            whole = None
        if whole is None:  # the codec waits for more: a lead, or a lead and its second byte
            if text or waiting == 0:
                raise ValueError(f"{encoding}: {sequence!r} read in part")  # never: no table could say so
            return LEAD
        if whole != text:
            raise ValueError(f"{encoding}: {sequence!r} read otherwise when final")
        return AGREE if decode_strict(encoding, sequence) == text else DIFFER

    singles = bytes(classify(bytes([byte]), 1) for byte in range(256))
    if any(singles[byte] != AGREE for byte in range(0x80)):
        raise ValueError(f"{encoding}: an ASCII byte is not read as the standard reads it")  # the walk skips ASCII
    pairs = [INVALID] * 0x10000
    for first in range(256):
        if singles[first] == LEAD:
            for second in range(256):
                pairs[(first << 8) | second] = classify(bytes([first, second]), 1)
    waiting = {index >> 8 for index, value in enumerate(pairs) if value == LEAD}
    if len(waiting) > 1:
        raise ValueError(f"{encoding}: three-byte sequences after more than one lead")
    triple_lead = waiting.pop() if waiting else -1
    triples = [INVALID] * 0x10000
    for index, value in enumerate(pairs):
        if value == LEAD:
            second = index & 0xFF
            for third in range(256):
                triples[(second << 8) | third] = classify(bytes([triple_lead, second, third]), 0)
    return Tables(singles, _packed(pairs), triple_lead, _packed(triples))


def _packed(classes: list[int]) -> bytes:
    """Four classes a byte, the first in the lowest two bits."""
    return bytes(
        classes[i] | classes[i + 1] << 2 | classes[i + 2] << 4 | classes[i + 3] << 6 for i in range(0, len(classes), 4)
    )


def _unpacked(packed: bytes, index: int) -> int:
    return (packed[index >> 2] >> ((index & 3) * 2)) & 3


def reference_reading(data: bytes, tables: Tables) -> tuple[int, int]:
    """``(FAILS, where)``, ``(AGREES, end)`` or ``(ASK, where)`` for *data* under *tables*: whether the codec fails
    on it, or the standard's decoder reads ``data[:end]`` as the codec reads *data* with ``final=False`` (``end``
    before an incomplete sequence at the end), or neither is known.  The compiled ``scoring_reading``'s reference."""
    singles, pairs, triple_lead, triples = tables
    i, n = 0, len(data)
    while i < n:
        byte = data[i]
        kind = singles[byte]
        if kind == AGREE:
            i += 1
            continue
        if kind != LEAD:
            return (FAILS if kind == INVALID else ASK), i
        if i + 1 == n:
            return AGREES, i  # the codec waits for a second byte
        second = data[i + 1]
        kind = _unpacked(pairs, (byte << 8) | second)
        if kind == LEAD:
            if triple_lead < 0:
                return ASK, i  # never: build makes no such table
            if i + 2 == n:
                return AGREES, i
            kind = _unpacked(triples, (second << 8) | data[i + 2])
            width = 3
        else:
            width = 2
        if kind != AGREE:
            return (FAILS if kind == INVALID else ASK), i
        i += width
    return AGREES, n


def _encoded(tables: dict[str, Tables]) -> str:
    """The Python source of ``agreement_data.py`` for *tables*."""
    blob = b"".join(
        bytes([len(name)]) + name.encode("ascii") + bytes([t.triple_lead & 0xFF]) + t.singles + t.pairs + t.triples
        for name, t in tables.items()
    )
    text = base64.b64encode(zlib.compress(blob, 9)).decode("ascii")
    lines = [text[i : i + 100] for i in range(0, len(text), 100)]
    body = "\n".join(f'    "{line}"' for line in lines)
    return (
        '"""Generated by ``python -m consumer.decoding.detection.agreement`` (agreement.py says what it is): do not '
        'edit."""\n\n'
        f"#: zlib-compressed, base64: per encoding, its name's length and name, its triple lead, singles, pairs, "
        f"triples.\nBLOB = (\n{body}\n)\n"
    )


def _decoded(source: str) -> dict[str, Tables]:
    blob = zlib.decompress(base64.b64decode(source))
    tables, i = {}, 0
    while i < len(blob):
        size = blob[i]
        name = blob[i + 1 : i + 1 + size].decode("ascii")
        i += 1 + size
        triple_lead = blob[i] if blob[i] != 0xFF else -1
        i += 1
        singles, pairs, triples = blob[i : i + 256], blob[i + 256 : i + 0x4100], blob[i + 0x4100 : i + 0x8100]
        i += 0x8100
        tables[name] = Tables(singles, pairs, triple_lead, triples)
    return tables


def shipped() -> dict[str, Tables]:
    """The tables as shipped (``agreement_data.py``)."""
    from .agreement_data import BLOB

    return _decoded(BLOB)


_SHIPPED = shipped()

#: What ``loops.agreed_decodes`` takes for a candidate: its tables and the standard's compiled decoder.
Reader = tuple[bytes, bytes, int, bytes, Callable[[bytes, bool], "tuple[str, int] | None"]]


def reader(encoding: str) -> Reader | None:
    """*encoding*'s reader for ``loops.agreed_decodes``; None where it has no tables (gb18030) or the standard's
    decoders were not compiled (then every candidate is decoded by its codec, as the tables would only save time)."""
    tables = _SHIPPED.get(encoding)
    native = multibyte.compiled_decoder(encoding) if tables is not None else None
    return None if tables is None or native is None else (*tables, native)


_DATA = Path(__file__).with_name("agreement_data.py")


def main(argv: list[str] | None = None, write: Callable[[str], object] = _DATA.write_text) -> int:
    """Write ``agreement_data.py`` from this interpreter's codecs; with ``--check``, say whether it is current."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the shipped tables differ from the codecs'")
    args = parser.parse_args(argv)
    built = {encoding: build(encoding) for encoding in ENCODINGS}
    if args.check:
        current = shipped() == built
        print("agreement_data.py is current" if current else "agreement_data.py differs from this interpreter's codecs")
        return 0 if current else 1
    write(_encoded(built))
    return 0


if __name__ == "__main__":
    sys.exit(main())
