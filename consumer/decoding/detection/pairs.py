"""Letter pairs: what the unigram model cannot see when two Cyrillic encodings read a page as each other's.

The model scores each character alone, case folded.  KOI8-R's small letters are windows-1251's capitals (and the
other Cyrillic encodings scramble one another alike), so a KOI8-R page without a capital, read as windows-1251, is
a page of capitals whose letters are a permutation of the true ones: frequent letters land on frequent letters, and
the unigram likelihoods of the two readings differ by a nat or so a character, no more than text the model knows
badly would.  Which letter follows which tells them apart: "беззнаковое" read as windows-1251 is "ВЕЪЪОБЛПЧПЕ".

``evidence`` is a reading's pointwise mutual information over its pairs of adjacent Cyrillic letters (how much
likelier each pair is than its two letters drawn apart), under the language that explains them best; counted from
Faker's text and Debian's manual pages (``detection_data.PAIRS``), smoothed, and bounded per pair so that a
pair the counts never saw costs a reading no more than ``PAIR_BOUND``.  It adds to the letters' likelihoods, which
it does not repeat: a pair's letters are already scored alone.
"""

from __future__ import annotations

import itertools
import math

from ..detection_data import PAIRS

#: The most a single pair moves a reading's evidence, either way (chosen with the doubt's weight on the ``tune``
#: half of bench/false_declared.py: 2.0 and 4.0 measured alike).
PAIR_BOUND = 2.0
#: Added to every pair's count (and its letters'), so that an unseen pair has a finite, small probability.
_SMOOTHING = 0.5


def _information(pairs: dict[str, int]) -> dict[str, float]:
    """Every pair of the language's letters -> its pointwise mutual information, bounded by ``PAIR_BOUND``."""
    first: dict[str, int] = {}
    second: dict[str, int] = {}
    for pair, count in pairs.items():
        first[pair[0]] = first.get(pair[0], 0) + count
        second[pair[1]] = second.get(pair[1], 0) + count
    letters = sorted(set(first) | set(second))
    total = sum(pairs.values())
    joint_total = total + _SMOOTHING * len(letters) ** 2
    alone_total = total + _SMOOTHING * len(letters)
    table: dict[str, float] = {}
    for a in letters:
        p_a = (first.get(a, 0) + _SMOOTHING) / alone_total
        for b in letters:
            p_b = (second.get(b, 0) + _SMOOTHING) / alone_total
            p_ab = (pairs.get(a + b, 0) + _SMOOTHING) / joint_total
            table[a + b] = max(-PAIR_BOUND, min(PAIR_BOUND, math.log(p_ab / (p_a * p_b))))
    return table


_INFORMATION = {language: _information(pairs) for language, pairs in PAIRS.items()}
#: Per character: whether it is a Cyrillic letter (a pair's member).
_CYRILLIC_LETTER = {chr(code): chr(code).isalpha() for code in range(0x400, 0x530)}
LANGUAGES = frozenset(PAIRS)


def letter_pairs(text: str) -> list[str]:
    """The pairs of adjacent Cyrillic letters of *text*, small (the letters' model folds case too)."""
    letter = _CYRILLIC_LETTER.get
    return [a + b for a, b in itertools.pairwise(text.lower()) if letter(a) and letter(b)]


def evidence(text: str) -> float:
    """*text*'s letter pairs' information, in nats, under the language whose pairs it reads best as."""
    pairs = letter_pairs(text)
    if not pairs:
        return 0.0
    return max(sum(map(table.get, pairs, [0.0] * len(pairs))) for table in _INFORMATION.values())
