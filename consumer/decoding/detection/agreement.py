"""Where a scoring codec and the Encoding Standard's decoder read bytes alike: tables that spare detection's
strict decodes most of CPython's codecs.

Detection scores each multi-byte candidate on its strict decode by a CPython codec (``model._SCORING_CODECS``:
cp932 for Shift_JIS, big5hkscs for Big5...).  Most candidates fail on a page's window, and one reads it, the
declared one under a doubt (``contradiction.doubted``), whose page the standard's compiled decoder has just read.
A CPython codec run cold, in a stream of UTF-8 pages, costs several times what it costs warm (its code and
tables are out of the caches: bench/decode.py's mix lost ~0.3 ms a round to them).  These tables say, per
sequence of bytes, what the codec does with it: fails (``INVALID``), reads it as the standard's decoder does
(``AGREE``), reads it otherwise (``DIFFER``: cp932's 0xA0 is U+F8F0, an error in the standard), or waits for
another byte (``LEAD``).  Walking a window through them (``reference_reading``) tells, exactly, that the codec fails on
it (no decode is run), or that the standard's decoder reads it as the codec would (the compiled decoder reads
it), or neither (the codec decodes it, as before): the same texts, to the character.

The tables are computed from the codecs and the standard's decoders themselves, over every byte, pair and triple,
by ``..build_agreement_tables`` (``python -m consumer.decoding.build_agreement_tables`` writes ``agreement_data.py``;
with ``--check``, run by .ci/run and tests/decoding/detection/test_scoring_agreement.py, it compares).  gb18030
has none: its four-byte sequences are past a pair and a triple, and it is a candidate only where they appear.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Callable
from typing import NamedTuple

from ..codecs import multibyte

#: What a scoring codec does with a sequence of bytes (a class of ``Tables``).
INVALID, AGREE, DIFFER, LEAD = range(4)
#: ``reference_reading``'s answers: the codec fails on the bytes; the standard's decoder reads them (up to ``end``)
#: as the codec does; or ask the codec.
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


def decoded(source: str) -> dict[str, Tables]:
    """The tables of ``agreement_data.BLOB`` (``..build_agreement_tables.encoded`` says how they are laid out)."""
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

    return decoded(BLOB)


_SHIPPED = shipped()

#: What ``loops.agreed_decodes`` takes for a candidate: its tables and the standard's compiled decoder.
Reader = tuple[bytes, bytes, int, bytes, Callable[[bytes, bool], "tuple[str, int] | None"]]


def reader(encoding: str) -> Reader | None:
    """*encoding*'s reader for ``loops.agreed_decodes``; None where it has no tables (gb18030) or the standard's
    decoders were not compiled (then every candidate is decoded by its codec, as the tables would only save time)."""
    tables = _SHIPPED.get(encoding)
    native = multibyte.compiled_decoder(encoding) if tables is not None else None
    return None if tables is None or native is None else (*tables, native)
