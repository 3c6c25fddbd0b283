"""Letter pairs of the Latin languages: where a reading writes its letters beyond ASCII.

The model scores each character alone, in a reading's best language.  Two Latin single-byte encodings often read
a short page's few high bytes as letters of two languages equally well: windows-1257's "ė" of "Gytė" is
windows-1252's "ë", as common in Dutch as "ė" in Lithuanian; its "ę" and "š" of "Kęstutis Poška" are
windows-1250's "ć" and "đ", Croatian letters.  Which letters stand beside them tells the readings apart: Dutch
writes "ë" after a vowel ("België", "ideeën"), never after "t"; no Croatian word has "Kć".

``evidence`` is a reading's pointwise mutual information over its pairs of adjacent letters that hold a letter
beyond ASCII (how much likelier the second letter is after the first than alone), under the language of the
encoding that reads them best, counted from the ``tune`` half of Debian's gettext catalogues
(``catalogues.py``), smoothed, and bounded per pair by ``PAIR_BOUND``.  Detection adds it, weighed, to the
scores of Latin single-byte readings close to the best (``detection._weigh_letter_pairs``); a language without
counts gives no evidence.  Pairs of two ASCII letters are left out: every candidate reads them alike.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Mapping

from .catalogue_pairs import FIRSTS, PAIRS, SECONDS

#: The most a single pair moves a reading's evidence, either way.
PAIR_BOUND = 2.0
#: A pair's conditional probability is smoothed towards its second letter's: as if the first letter had been
#: followed this many more times, by letters drawn as they come alone.  Chosen with ``PAIR_BOUND`` and
#: ``detection.LETTER_PAIR_WEIGHT`` on generated short pages of seeds the benchmarks do not judge.
_SMOOTHING = 2.0
#: Added to each letter's count as a second, over this many letters, so an unseen letter has a small probability.
_LETTER_SMOOTHING, _ALPHABET = 0.5, 60
#: At most this many pairs are weighed: evidence this long is decisive, and the cost stays bounded.
MAX_PAIRS = 256

_BEYOND_ASCII = re.compile(r"[^\x00-\x7f]")


class _Information:
    """One language's pair information: a table for the pairs it wrote, and for the rest a value per first
    letter (an unseen pair's information depends on its first letter alone)."""

    def __init__(self, firsts: dict[str, int], seconds: dict[str, int], pairs: dict[str, int]) -> None:
        total = sum(firsts.values()) + _LETTER_SMOOTHING * _ALPHABET

        def information(pair: str, count: int) -> float:
            alone = (seconds.get(pair[1], 0) + _LETTER_SMOOTHING) / total
            after = (count + _SMOOTHING * alone) / (firsts.get(pair[0], 0) + _SMOOTHING)
            return max(-PAIR_BOUND, min(PAIR_BOUND, math.log(after / alone)))

        self.seen = {pair: information(pair, count) for pair, count in pairs.items()}
        # Unseen, a pair is as likely as its second letter alone times this: its information (a letter never
        # seen first gives none).
        self.unseen = {first: max(-PAIR_BOUND, math.log(_SMOOTHING / (n + _SMOOTHING))) for first, n in firsts.items()}

    def of(self, pair: str) -> float:
        value = self.seen.get(pair)
        return self.unseen.get(pair[0], 0.0) if value is None else value


_INFORMATION = [_Information(FIRSTS[language], SECONDS[language], PAIRS[language]) for language in PAIRS]
#: Language -> its index in each pair's ``_information`` vector.
_INDEX = {language: index for index, language in enumerate(PAIRS)}
LANGUAGES = frozenset(_INDEX)


@functools.lru_cache(maxsize=8192)
def _information(pair: str) -> tuple[float, ...]:
    """*pair*'s information in every language, in ``_INDEX``'s order: summed column by column, one tuple a pair
    instead of a lookup a pair and language (windows-1252 has eleven).  Bounded: the pairs of a stream's pages are
    a few thousand."""
    return tuple(information.of(pair) for information in _INFORMATION)


def letter_pairs(text: str) -> list[str]:
    """The pairs of adjacent letters of *text*, small, that hold a letter beyond ASCII (at most ``MAX_PAIRS``)."""
    text = text.lower()
    pairs: list[str] = []
    for match in _BEYOND_ASCII.finditer(text):
        at = match.start()
        if not text[at].isalpha():
            continue
        before = text[at - 1 : at]
        if before.isascii() and before.isalpha():  # after a letter beyond ASCII, the pair was taken as its next
            pairs.append(before + text[at])
        pair = text[at : at + 2]
        if len(pair) == 2 and pair.isalpha():
            pairs.append(pair)
        if len(pairs) >= MAX_PAIRS:
            break
    return pairs[:MAX_PAIRS]


def evidence(text: str, languages: Iterable[str], priors: Mapping[str, float]) -> float:
    """*text*'s letter pairs' information, in nats, under the one of *languages* it reads best as, each language
    of *priors* with its prior added (0: no pair, or no language with counts)."""
    pairs = letter_pairs(text)
    counted = [(_INDEX[language], priors.get(language, 0.0)) for language in languages if language in _INDEX]
    if not pairs or not counted:
        return 0.0
    totals: list[float] = [sum(column) for column in zip(*map(_information, pairs), strict=True)]
    return max(totals[index] + prior for index, prior in counted)
