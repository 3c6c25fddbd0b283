"""Detection's counting loops as Python reads them: the reference.

Each ``reference_*`` function is the answer of the compiled loop of the same name without the prefix
(``../_native/detection.c``), to the last bit: tests/decoding/detection/test_compiled.py holds each
pair equal on generated input and corpus pages, and these run where the extension was not built
(``loops.py`` binds one or the other, once).  Linear in the input, as the compiled ones are.
``reference_dot_products`` has no compiled twin: ``reference_best_dot_products`` is written over it.
"""

from __future__ import annotations

import codecs
import itertools
import math
import re
from array import array
from collections import Counter
from collections.abc import Callable, Sequence

#: The window's high bytes: the distinct ones in order of first occurrence, and how often each occurs.
Histogram = tuple[bytes, list[int]]

_ASCII_BYTES = bytes(range(0x80))
_HIGH_BYTE = re.compile(rb"[\x80-\xff]")
_ASCII_RUN = re.compile("[\x00-\x7f]+")
_ASCII_AFTER_ASCII = re.compile(rb"([\x00-\x7f]{2})[\x00-\x7f]+")
#: gb18030's four-byte sequences, [81-FE][30-39][81-FE][30-39], found as "LDLD" among the byte
#: classes of a translate table (two C passes; a regular expression takes several times as long).
_GB18030_CLASSES = bytes(
    ord("L") if 0x81 <= byte <= 0xFE else ord("D") if 0x30 <= byte <= 0x39 else ord(".") for byte in range(256)
)
_FOUR_BYTE_GB18030 = b"LDLD"


def reference_high_bytes(data: bytes) -> Histogram:
    """The distinct bytes >= 0x80 of *data* in order of first occurrence, and how often each occurs."""
    histogram = Counter(data.translate(None, _ASCII_BYTES))
    return bytes(histogram), list(histogram.values())


def reference_high_byte_counts(data: bytes) -> list[int]:
    """How often each byte 0x80 + i occurs in *data*, for i in 0..127."""
    histogram = Counter(data.translate(None, _ASCII_BYTES))
    return [histogram[byte] for byte in range(0x80, 0x100)]


def reference_dot_products(order: bytes, counts: Sequence[int], tables: array[float]) -> list[float]:
    """Per 128-entry table of *tables* (laid end to end), the sum of count * table[byte - 0x80] over *order*.

    Added left to right in *order*, as the compiled loop adds: the sums are equal to the last bit.
    """
    sums = []
    for start in range(0, len(tables), 0x80):
        total = 0.0
        for byte, count in zip(order, counts, strict=True):
            total += count * tables[start + byte - 0x80]
        sums.append(total)
    return sums


def reference_best_dot_products(
    order: bytes, counts: Sequence[int], tables: array[float], groups: bytes
) -> tuple[list[float], bytes]:
    """Per group of *groups*[g] consecutive tables, the largest dot product and the index in the group of its table.

    The first largest, as max() picks it; the sums are ``reference_dot_products``'.
    """
    sums = reference_dot_products(order, counts, tables)
    if 0 in groups or sum(groups) != len(sums):
        raise ValueError("groups must be sizes >= 1 adding up to the number of tables")
    best_sums, indexes = [], bytearray()
    for first, size in zip(itertools.accumulate(groups, initial=0), groups, strict=False):
        best = first
        for index in range(first + 1, first + size):
            if sums[index] > sums[best]:
                best = index
        best_sums.append(sums[best])
        indexes.append(best - first)
    return best_sums, bytes(indexes)


def reference_first_high_byte(data: bytes) -> int:
    """The index of *data*'s first byte >= 0x80, or -1."""
    found = _HIGH_BYTE.search(data)
    return -1 if found is None else found.start()


def reference_high_byte_count(data: bytes) -> int:
    """How many bytes of *data* are >= 0x80."""
    return len(data.translate(None, _ASCII_BYTES))


def reference_four_byte_gb18030(data: bytes) -> bool:
    """Whether *data* holds [81-FE][30-39][81-FE][30-39], the shape of a gb18030 four-byte sequence."""
    return _FOUR_BYTE_GB18030 in data.translate(_GB18030_CLASSES)


def reference_softmax_weights(scores: Sequence[float], best: float) -> tuple[float, list[int], list[float]]:
    """Per score, exp(score - *best*) floored at exp(-50): their sum, added in order, and those above 1e-6.

    The latter as their indexes and their weights, in order."""
    total = 0.0
    indexes, weights = [], []
    for index, score in enumerate(scores):
        weight = math.exp(max(score - best, -50.0))
        total += weight
        if weight > 1e-6:
            indexes.append(index)
            weights.append(weight)
    return total, indexes, weights


def reference_strict_decodes(
    data: bytes, decoders: Sequence[Callable[[str], codecs.IncrementalDecoder]]
) -> list[str | None]:
    """Per incremental decoder class of *decoders*, *data* decoded strictly but for an incomplete sequence at its end
    (``_decodes``), or None."""
    texts: list[str | None] = []
    for decoder in decoders:
        try:
            texts.append(decoder("strict").decode(data, final=False))
        except UnicodeDecodeError:
            texts.append(None)
    return texts


def reference_squeeze(data: bytes) -> bytes:
    """*data* with each run of ASCII bytes cut to its first two bytes, but for its last three bytes, kept."""
    return _ASCII_AFTER_ASCII.sub(rb"\1", data[:-3]) + data[-3:]


def reference_mixed_pairs(sample: bytes, classes: bytes) -> int:
    """The adjacent pairs of *sample* that the translate table *classes* marks "an" or "na"."""
    marked = sample.translate(classes)
    # Two distinct letters: the occurrences bytes.count finds (not overlapping) are all of them.
    return marked.count(b"an") + marked.count(b"na")


def reference_pair_sum(sample: bytes, classes: bytes, weights: Sequence[float]) -> float:
    """The sum of *weights*[16 * *classes*[x] + *classes*[y]] over the adjacent pairs (x, y) of *sample* where
    x or y is >= 0x80: counted per entry, then count * weight added in the entries' order."""
    if len(classes) != 256 or max(classes) >= 16 or len(weights) != 256:
        raise ValueError("classes must be 256 class numbers below 16, weights an array('d') of 256")
    counts = Counter(16 * classes[x] + classes[y] for x, y in itertools.pairwise(sample) if (x | y) >= 0x80)
    total = 0.0
    for index in range(256):
        total += counts[index] * weights[index]
    return total


def reference_text_likelihood(text: str, logp: dict[str, float], unseen: Callable[[str], float]) -> float:
    """The sum of count * *logp*[char] over *text*'s distinct characters >= U+0080, in order of first occurrence.

    A character *logp* lacks gets ``unseen(char)``, remembered in *logp*.
    """
    total = 0.0
    for char, count in Counter(_ASCII_RUN.sub("", text)).items():
        value = logp.get(char)
        if value is None:
            value = logp[char] = unseen(char)
        total += count * value
    return total
