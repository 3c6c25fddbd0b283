"""Foreign names in a Latin-script page: what the doubt between two Latin encodings allows for them.

The model scores a reading by its best single language (``model.py``).  A page in a Latin-script language often
names places and people of other languages with their letters kept: a Dutch page's "Šiauliai", "Canindeyú",
"Pärnu".  Such a name reads the same under windows-1252 and windows-1250, yet it weighs in the choice of each
reading's language: Dutch has no "š", "ú" or "ä" and Slovak has all three, so the windows-1250 reading of the page,
whose few other letters then read as Slovak ("geïnstalleerd" as "geďnstalleerd"), led the true windows-1252
reading by 14 to 57 nats, and the true label was doubted, on letters that say nothing about the encoding.

``allowance`` takes out of a rival's lead what the capitalised words the two readings share give it, as far as
those words read as names in the declared encoding's own languages: the lead their letters give the rival's page
language over the declared one's (``_in_page_language``), but no more than the declared reading gains beyond the
rival's when each such word may be of any of its encoding's languages (``_as_names``).  Only words read alike
count, so the letters where the two encodings differ still weigh in full; only capitalised ones, as names are, so a
lie's running text cannot take another language word by word; and the bound keeps names of a single-language
encoding's own language as the evidence they are (a Turkish page's "Türkiye" under a false windows-1252 label is
no name that German or French writes better than Turkish).
"""

from __future__ import annotations

import functools
import re
from collections import Counter

from ..data.whatwg import SINGLE_BYTE
from .model import _LANGUAGE_SCRIPT, _SINGLE_BYTE_TABLES, LANGUAGES
from .reference import Histogram

#: The single-byte encodings whose languages are all written in Latin script: the ones this applies between.
LATIN = frozenset(
    encoding
    for encoding, languages in LANGUAGES.items()
    if encoding in _SINGLE_BYTE_TABLES and all(_LANGUAGE_SCRIPT[language] == "LATIN" for language in languages)
)

#: A word with a letter beyond ASCII.
_WORD = re.compile(r"\w*[^\W\x00-\x7f]\w*")


def allowance(declared: str, rival: str, declared_text: str, rival_text: str, histogram: Histogram) -> float:
    """The nats of the *rival*'s lead over the *declared* reading that the capitalised words both read alike give
    it, as far as those words read as names in *declared*'s languages; 0 unless both encodings are in ``LATIN``
    and are used for different languages (windows-1250 and ISO-8859-2 are for the same ones: which of them a
    shared word reads better in is evidence between the two).

    *declared_text* and *rival_text* are the two readings of the same window of single-byte text (a character a
    byte, so a word's place is the same in both), *histogram* its high bytes' (``Scores.histogram``).
    """
    if declared not in LATIN or rival not in LATIN or LANGUAGES[declared] == LANGUAGES[rival]:
        return 0.0
    words = shared_names(declared_text, rival_text)
    if not words:
        return 0.0
    declared_languages, rival_languages = _languages(declared, histogram), _languages(rival, histogram)
    lead = _in_page_language(words, *rival_languages) - _in_page_language(words, *declared_languages)
    relief = _as_names(words, *declared_languages) - _as_names(words, *rival_languages)
    return max(0.0, min(lead, relief))


def shared_names(one: str, other: str) -> Counter[str]:
    """The capitalised words with a letter beyond ASCII that *one* and *other* (two readings of the same bytes,
    a character a byte) read alike, counted."""
    return Counter(
        word
        for match in _WORD.finditer(one)
        if (word := match.group())[0].isupper() and other[match.start() : match.end()] == word
    )


_Logps = dict[str, float]


def _languages(encoding: str, histogram: Histogram) -> tuple[_Logps, tuple[_Logps, ...]]:
    """The log-probabilities of the language *encoding*'s reading of *histogram* is likeliest in (the model's
    choice: the best dot product of the histogram with a language's table), and of each of its languages."""
    order, counts = histogram
    sums = [
        sum(count * table[byte - 0x80] for byte, count in zip(order, counts, strict=True))
        for table in _SINGLE_BYTE_TABLES[encoding]
    ]
    languages = _letter_logps(encoding)
    return languages[sums.index(max(sums))], languages


def _in_page_language(words: Counter[str], page: _Logps, languages: tuple[_Logps, ...]) -> float:
    """The log-likelihood of *words*' letters beyond ASCII in the *page*'s language."""
    return sum(count * sum(page[char] for char in word if char >= "\x80") for word, count in words.items())


def _as_names(words: Counter[str], page: _Logps, languages: tuple[_Logps, ...]) -> float:
    """What *words* gain when each may be of any of *languages* instead of the *page*'s."""
    gain = 0.0
    for word, count in words.items():
        letters = [char for char in word if char >= "\x80"]
        best = max(sum(logp[char] for char in letters) for logp in languages)
        gain += count * (best - sum(page[char] for char in letters))
    return gain


@functools.cache
def _letter_logps(encoding: str) -> tuple[_Logps, ...]:
    """Per language of the single-byte *encoding*: each of its characters beyond ASCII -> its log-probability."""
    return tuple(dict(zip(SINGLE_BYTE[encoding], table, strict=True)) for table in _SINGLE_BYTE_TABLES[encoding])
