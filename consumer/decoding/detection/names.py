"""Foreign names in a Latin-script page: what the doubt between two Latin encodings allows for them.

The model scores a reading by its best single language (``model.py``).  A page in a Latin-script language often
names places and people of other languages with their letters kept: a Dutch page's "Šiauliai", "Canindeyú",
"Pärnu".  Such a name reads the same under windows-1252 and windows-1250, yet it weighs in the choice of each
reading's language: Dutch has no "š", "ú" or "ä" and Slovak has all three, so the windows-1250 reading of the page,
whose few other letters then read as Slovak ("geïnstalleerd" as "geďnstalleerd"), led the true windows-1252
reading by 14 to 57 nats, and the true label was doubted, on letters that say nothing about the encoding.

``allowance`` takes out of a rival's lead what the capitalised words the two readings share give it, as far as
those words read as names in the declared encoding's own languages: the lead their letters give the rival's page
language over the declared one's (``_in_language``), but no more than the declared reading gains beyond the
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
from collections.abc import Callable

from ..data.whatwg import SINGLE_BYTE
from . import loops
from .model import _ALL_TABLES, _LANGUAGE_COUNTS, _LANGUAGE_SCRIPT, _SINGLE_BYTE_INDEX, _SINGLE_BYTE_TABLES, LANGUAGES
from .reference import Histogram

#: The single-byte encodings whose languages are all written in Latin script: the ones this applies between.
LATIN = frozenset(
    encoding
    for encoding, languages in LANGUAGES.items()
    if encoding in _SINGLE_BYTE_TABLES and all(_LANGUAGE_SCRIPT[language] == "LATIN" for language in languages)
)

#: A word with a letter beyond ASCII.
_WORD = re.compile(r"\w*[^\W\x00-\x7f]\w*")


def allowance(declared: str, rival: str, reading: Callable[[str], str], histogram: Histogram) -> float:
    """The nats of the *rival*'s lead over the *declared* reading that the capitalised words both read alike give
    it, as far as those words read as names in *declared*'s languages; 0 unless both encodings are in ``LATIN``
    and are used for different languages (windows-1250 and ISO-8859-2 are for the same ones: which of them a
    shared word reads better in is evidence between the two).

    *reading* gives an encoding's reading of the scored window of single-byte text (a character a byte, so a word's
    place is the same in both), asked only when the two are such encodings; *histogram* is the window's high
    bytes' (``Scores.histogram``).
    """
    if declared not in LATIN or rival not in LATIN or LANGUAGES[declared] == LANGUAGES[rival]:
        return 0.0
    words = shared_names(reading(declared), reading(rival))
    if not words:
        return 0.0
    page_languages = _page_languages(histogram)
    declared_page, rival_page = page_languages[declared], page_languages[rival]
    lead = _in_language(words, rival_page) - _in_language(words, declared_page)
    relief = _as_names(words, declared_page, _letter_logps(declared))
    relief -= _as_names(words, rival_page, _letter_logps(rival))
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


def _page_languages(histogram: Histogram) -> dict[str, _Logps]:
    """Per single-byte candidate, the log-probabilities of the language its reading of the window whose *histogram*
    this is reads likeliest in: the model's choice (``loops.best_dot_products``, as ``detection`` scores it)."""
    _, best = loops.best_dot_products(*histogram, _ALL_TABLES, _LANGUAGE_COUNTS)
    return {encoding: _letter_logps(encoding)[best[index]] for encoding, index in _SINGLE_BYTE_INDEX.items()}


def _in_language(words: Counter[str], language: _Logps) -> float:
    """The log-likelihood of *words*' letters beyond ASCII in *language*."""
    return sum(count * sum(language[char] for char in word if char >= "\x80") for word, count in words.items())


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
