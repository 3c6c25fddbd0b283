"""Encoding detection for bodies that declare nothing and are not UTF-8.

Implements the HTML Standard's optional autodetection step of "determining the
character encoding" ("the user agent may attempt to autodetect the character
encoding from applying frequency analysis or other algorithms to the data
stream", https://html.spec.whatwg.org/multipage/parsing.html#determining-the-character-encoding),
the way Firefox's chardetng and Chromium's CED do it: the URL's top-level
domain is a prior, not an override, and windows-1252 is the fallback.

How a guess is made (``detect``):

1. Only ``MAX_EXAMINED`` bytes are looked at: the first ones, or, when the
   first half of them is all ASCII, those from just before the body's first
   non-ASCII byte (``_evidence_start``).  No high byte there:
   ISO-2022-JP if its escape sequences occur, else the TLD's (or the default)
   encoding, since every ASCII-compatible encoding gives the same text.
2. A window of ``WINDOW`` bytes from the first non-ASCII byte (grown up to
   ``MAX_EXAMINED`` while it holds fewer than ``MIN_HIGH_BYTES`` high bytes)
   is scored under every candidate encoding.  Multi-byte candidates must decode
   it strictly (chardetng likewise disqualifies an encoding on its first
   malformed sequence), but for an incomplete sequence at its very end: a
   character cut by the window's end or by the body's (crawlers truncate bodies
   at a size limit) is no evidence against the encoding, and Chromium's CED
   shows such a page in it with one U+FFFD at the end.  The score is the log-likelihood of the window's
   non-ASCII characters under a unigram model of each language written in that
   encoding, best language wins (a non-Latin capital scored as its small
   letter); plus a log prior for the encoding and a bonus when the TLD names
   it; minus penalties for neighbours a unigram model cannot see
   (``_neighbour_penalty``): a non-Latin letter that touches an ASCII letter
   (French "château" read as windows-1251 is "chвteau"), a capital after a
   small letter, a final form inside a word, a combining mark after a space,
   and the cost of a capital once a word.
   Single-byte candidates score from one byte histogram and 128-entry tables,
   so no per-byte loop runs per candidate.
3. Single-byte candidates close to the best are then compared on the rest
   of the examined prefix, counting only the bytes where they differ.
4. Confidence is the softmax share of the candidates that decode the window to
   the same text as the winner, times how plausible the winner's text is.

Work is bounded: at most 64 KiB are examined, one histogram of the window is
taken (and one of the rest of the examined bytes, when single-byte candidates
are close) and at most 6 multi-byte strict decodes run (of the same window).
The counting loops (the histograms, the dot products of the histogram with
every language's table and the best language of each encoding, the count of
high bytes that sizes the window, the squeezing of the window for the
multi-byte candidates, the check for gb18030's four-byte sequences, the
script-mixing and neighbour pairs, the character likelihoods of the multi-byte texts, the
confidence's softmax, the candidates' strict decodes) run compiled (``_detection_counts.c``, ``COMPILED``)
when the extension was built; their readable references here
(``reference_high_bytes``, ``reference_high_byte_counts``,
``reference_dot_products``, ``reference_best_dot_products``,
``reference_high_byte_count``, ``reference_first_high_byte``, ``reference_squeeze``,
``reference_four_byte_gb18030``, ``reference_mixed_pairs``, ``reference_pair_sum``,
``reference_text_likelihood``, ``reference_softmax_weights``,
``reference_strict_decodes``) run otherwise,
with the same answers to the last bit (tests/decoding/detection/test_compiled.py),
linear in the input too.  A 4 KiB window of a
non-Latin text holds thousands of letters, far more than a unigram model needs;
64 KiB bounds the growth for mostly-ASCII pages, whose few accented letters
are then still counted (a page with fewer non-ASCII bytes than that in its
first 64 KiB decodes nearly alike under every candidate anyway).

The character model (``detection_data``) is counted from Faker text; see
``consumer/decoding/build_detection_model.py`` for what it is trained on and how the
evaluation corpus is kept apart from it.
"""

from __future__ import annotations

import codecs
import functools
import itertools
import math
import re
import unicodedata
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .codecs import decode_bytes
from .codecs.cpython import ENCODERS
from .codecs.iso_2022_jp import SWITCHING_ESCAPE
from .data.whatwg import SINGLE_BYTE
from .detection_data import FREQUENCIES
from .hosts import tld_of

#: Bytes of the body examined at most (see the module docstring).
MAX_EXAMINED = 64 * 1024
#: Bytes scored from the first non-ASCII byte on, before growing.
WINDOW = 4 * 1024
#: A window with fewer high bytes than this grows (up to MAX_EXAMINED).
MIN_HIGH_BYTES = 256
#: Bytes of the window checked for script mixing (bounds that check's cost).
MIXING_SAMPLE = 8 * 1024
#: Single-byte candidates this close (nats) to the best are compared on the whole examined prefix.
REFINE_MARGIN = 20.0
#: The browsers' default where nothing is declared and nothing better is known (the resolution's last step).
DEFAULT_ENCODING = "windows-1252"


@dataclass(frozen=True, slots=True)
class Detection:
    """A detector's guess: a WHATWG encoding name and a confidence in [0, 1]."""

    encoding: str
    confidence: float


#: Python codecs used to *score* multi-byte candidates: the closest to each (``codecs.cpython``,
#: whose differences from the standard change no score materially), but for GBK, which the
#: standard decodes with the gb18030 decoder: scoring uses Python's gbk (as its encoder table
#: does), so that a body needing gb18030's four-byte sequences is told apart from GBK.
_SCORING_CODECS: dict[str, str] = ENCODERS

#: Candidate encoding -> the languages (keys of FREQUENCIES) written in it.
LANGUAGES: dict[str, tuple[str, ...]] = {
    "windows-1252": ("de", "fr", "es", "pt", "it", "nl", "da", "sv", "fi"),
    "windows-1250": ("pl", "cs", "hu", "ro", "sk", "hr", "sl"),
    "ISO-8859-2": ("pl", "cs", "hu", "ro", "sk", "hr", "sl"),
    "windows-1257": ("lt", "lv", "et"),
    "windows-1254": ("tr",),
    "windows-1253": ("el",),
    "ISO-8859-7": ("el",),
    "windows-1255": ("he",),
    "ISO-8859-8": ("he",),
    "windows-1256": ("ar", "fa"),
    "ISO-8859-6": ("ar",),
    "windows-874": ("th",),
    "windows-1258": ("vi",),
    "windows-1251": ("ru", "uk", "bg"),
    "ISO-8859-5": ("ru", "bg"),
    "KOI8-R": ("ru",),
    "KOI8-U": ("uk", "ru"),
    "IBM866": ("ru",),
    "x-mac-cyrillic": ("ru", "bg"),
    "Shift_JIS": ("ja",),
    "EUC-JP": ("ja",),
    "EUC-KR": ("ko",),
    "GBK": ("zh_cn",),
    "gb18030": ("zh_cn",),
    "Big5": ("zh_tw",),
}

#: Log prior (nats) per candidate: how common each is on undeclared pages, so
#: that a tie between encodings that decode alike goes to the usual one.
PRIORS: dict[str, float] = {
    "windows-1252": 0.0,
    "windows-1251": -0.5,
    "windows-1250": -1.0,
    "Shift_JIS": -1.0,
    "GBK": -1.0,
    "EUC-KR": -1.0,
    "Big5": -1.5,
    "EUC-JP": -1.5,
    "gb18030": -2.0,
    "KOI8-R": -1.5,
    "KOI8-U": -2.0,
    "IBM866": -3.5,
    "x-mac-cyrillic": -4.0,
    "ISO-8859-2": -2.0,
    "ISO-8859-5": -2.0,
    "ISO-8859-6": -2.0,
    "ISO-8859-7": -2.0,
    "ISO-8859-8": -2.0,
}
_OTHER_PRIOR = -1.0

_CYRILLIC = ("windows-1251", "KOI8-R", "IBM866", "ISO-8859-5", "x-mac-cyrillic")
_CENTRAL_EUROPE = ("windows-1250", "ISO-8859-2")
_ARABIC = ("windows-1256", "ISO-8859-6")
#: TLD -> the encodings it hints at, likeliest first (after chardetng's and CED's TLD tables).
TLD_HINTS: dict[str, tuple[str, ...]] = {
    "jp": ("Shift_JIS", "EUC-JP"),
    "ru": _CYRILLIC,
    "su": _CYRILLIC,
    "by": _CYRILLIC,
    "kz": _CYRILLIC,
    "ua": ("windows-1251", "KOI8-U"),
    "bg": ("windows-1251",),
    "mk": ("windows-1251",),
    "kg": ("windows-1251",),
    "tj": ("windows-1251",),
    "mn": ("windows-1251",),
    "kr": ("EUC-KR",),
    "cn": ("GBK", "gb18030"),
    "tw": ("Big5",),
    "hk": ("Big5",),
    "mo": ("Big5",),
    "gr": ("windows-1253", "ISO-8859-7"),
    "cy": ("windows-1253", "ISO-8859-7"),
    "il": ("windows-1255", "ISO-8859-8"),
    "tr": ("windows-1254",),
    "th": ("windows-874",),
    "vn": ("windows-1258",),
    "pl": _CENTRAL_EUROPE,
    "cz": _CENTRAL_EUROPE,
    "sk": _CENTRAL_EUROPE,
    "hu": _CENTRAL_EUROPE,
    "si": _CENTRAL_EUROPE,
    "hr": _CENTRAL_EUROPE,
    "ba": _CENTRAL_EUROPE,
    "ro": _CENTRAL_EUROPE,
    "lt": ("windows-1257",),
    "lv": ("windows-1257",),
    "ee": ("windows-1257",),
    **dict.fromkeys("ae bh dz eg iq ir jo kw lb ly ma om ps qa sa sd sy tn ye".split(), _ARABIC),
}
#: Nats added for the first hinted encoding; each next one gets half a nat less.
#: Large enough to settle near-ties on short pages, small next to the hundreds of
#: nats by which a wrong decoding of a real paragraph loses.
TLD_BONUS = 6.0

_ASCII_BYTES = bytes(range(0x80))
_HIGH_BYTE = re.compile(rb"[\x80-\xff]")
#: ASCII bytes kept before the first non-ASCII one when the examined bytes start further in.
_CONTEXT_BYTES = 256
_ASCII_RUN = re.compile("[\x00-\x7f]+")
_ASCII_AFTER_ASCII = re.compile(rb"([\x00-\x7f]{2})[\x00-\x7f]+")
#: gb18030's four-byte sequences, [81-FE][30-39][81-FE][30-39], found as "LDLD" among the byte
#: classes of a translate table (two C passes; a regular expression takes several times as long).
_GB18030_CLASSES = bytes(
    ord("L") if 0x81 <= byte <= 0xFE else ord("D") if 0x30 <= byte <= 0x39 else ord(".") for byte in range(256)
)
_FOUR_BYTE_GB18030 = b"LDLD"


def detect(body: bytes, tld: str | None = None) -> Detection:
    """Guess the encoding of an undeclared, non-UTF-8 *body*; *tld* is the URL's top-level domain.

    Returns a WHATWG encoding name and a confidence in [0, 1].  Pure (its only
    state is a memo of per-character log-probabilities, bounded by the number
    of characters the candidate codecs can produce), bounded (examines at most
    ``MAX_EXAMINED`` bytes) and never raises: a failure of the heuristics
    themselves falls back to the TLD's or the browser default with confidence 0.

    Use it only for a body that declares nothing usable and is not valid UTF-8;
    note that ISO-2022-JP is 7-bit, so a caller that takes valid UTF-8 first
    never asks about it.
    """
    hint = tld_of(tld)
    try:
        start, first_high = _evidence_start(body)
        return _detect(bytes(body[start : start + MAX_EXAMINED]), first_high - start, hint)
    except Exception:  # noqa: BLE001 - a detector must not take the page down; the default is what browsers use
        return Detection(_fallback(hint), 0.0)


def _evidence_start(body: bytes) -> tuple[int, int]:
    """Where the examined bytes start: the body's start, or a little before its first non-ASCII byte; and that byte.

    The second is -1 when *body* has no non-ASCII byte, else the first one's
    index, which then lies among the examined bytes.

    Every candidate decodes ASCII alike, so an all-ASCII prefix carries no
    evidence: a page whose first letters beyond ASCII follow 64 KiB of inline
    script, CSS or comments would otherwise be judged on ASCII alone.  When the
    first half of the window holds no non-ASCII byte, the window starts
    ``_CONTEXT_BYTES`` before the first one (the search runs once, in C, eight
    bytes a step, linear in the body).  Every byte before that one is ASCII,
    hence a whole character in every candidate but ISO-2022-JP (7-bit, and then
    there is no non-ASCII byte): the window starts on a character boundary.
    """
    first_high = first_high_byte(body)
    if first_high < MAX_EXAMINED // 2:  # none (-1) too
        return 0, first_high
    return first_high - _CONTEXT_BYTES, first_high


def non_ascii_bytes(body: bytes) -> int:
    """The non-ASCII bytes among *body*'s first ``MAX_EXAMINED``: how much a guess can go on, at most."""
    return sum(high_byte_counts(body[:MAX_EXAMINED]))


def _fallback(hint: str | None) -> str:
    return TLD_HINTS.get(hint, (DEFAULT_ENCODING,))[0] if hint else DEFAULT_ENCODING


def ranked(body: bytes, tld: str | None = None, margin: float = REFINE_MARGIN) -> tuple[str, ...]:
    """The detector's leading candidates for *body*, best first: those scoring within *margin* nats of the best.

    ``detect`` answers with the winner alone; a tool that tries several
    encodings on a host's pages (``overrides suggest``) asks for the runners-up
    this close to it, the ones a few more letters could have made the winner.
    A body without a non-ASCII byte has one candidate, ``detect``'s.  Scores of
    candidates past the leaders skip the neighbour penalty (upper bounds,
    as ``_penalise_neighbours`` says), so the list may hold one too many.
    """
    try:
        start, first_high = _evidence_start(body)
        scored = _scored(bytes(body[start : start + MAX_EXAMINED]), first_high - start, tld_of(tld))
    except Exception:  # noqa: BLE001 - as in detect: the heuristics must not take the caller down
        return (detect(body, tld).encoding,)
    if scored is None:
        return (detect(body, tld).encoding,)
    scores = scored[0]
    best = max(scores.values())
    return tuple(e for e in sorted(scores, key=scores.__getitem__, reverse=True) if scores[e] >= best - margin)


class Scores(NamedTuple):
    """Every viable candidate's score over the detector's window, as ``detect`` weighs them (``scores``)."""

    #: Candidate encoding -> log-likelihood of the window's non-ASCII characters under its best language,
    #: plus its prior and TLD bonus, minus the neighbour penalty, script mixing included (``_penalise_neighbours``):
    #: of the leaders by score, of the leaders by likelihood, and of any encoding ``likelihood`` was asked about;
    #: the others' are upper bounds.  A multi-byte candidate whose scoring codec fails on the window is absent.
    scores: dict[str, float]
    #: The same without prior and TLD bonus: how well each reading reads as text of its best language, alone.
    #: Its largest is net of its penalty: the penalty only lowers, and candidates are penalised by likelihood
    #: until none unpenalised could beat the best penalised one.
    likelihoods: dict[str, float]
    #: The non-ASCII bytes of the window the scores are taken over.
    non_ascii: int
    window: bytes
    hint: str | None
    texts: dict[str, str]
    histogram: Histogram
    #: The single-byte candidates whose neighbour penalty is in their score and likelihood.
    penalised: set[str]

    def likelihood(self, encoding: str) -> float | None:
        """*encoding*'s likelihood (net of its neighbour penalty); for a multi-byte candidate its scoring codec
        refused, its likelihood from the Encoding Standard's decoder (more permissive: the WHATWG GBK decoder is
        gb18030's), None if that fails."""
        if encoding in self.likelihoods:
            if encoding in _PAIR_CLASSES and encoding not in self.penalised:
                evidence = (self.window[:MIXING_SAMPLE], self.histogram)
                _penalise(encoding, self.scores, self.likelihoods, evidence, self.penalised)
            return self.likelihoods[encoding]
        if encoding not in _MULTI_BYTE:
            return None
        text = _whatwg_decodes(self.window, encoding)
        if text is None:
            return None
        self.texts[encoding] = text
        return max(_text_likelihood(text, language) for language in LANGUAGES[encoding])

    def differing(self, first: str, second: str) -> int:
        """How many of the window's non-ASCII characters the two candidates read differently: for two
        single-byte encodings the bytes they map apart; with a multi-byte one, every non-ASCII character of
        its reading (the fewer, when both are multi-byte)."""
        order, counts = self.histogram
        if first in self.texts or second in self.texts:
            if self.texts.get(first) == self.texts.get(second):
                return 0
            readings = [self.texts[encoding] for encoding in (first, second) if encoding in self.texts]
            return min(len(text) - len(text.encode("ascii", "ignore")) for text in readings)
        apart = _differing_bytes(first, second)
        return sum(count for byte, count in zip(order, counts, strict=True) if byte in apart)


def scores(
    body: bytes,
    tld: str | None = None,
    *,
    examined: int = MAX_EXAMINED,
    window: int = WINDOW,
    min_high_bytes: int = MIN_HIGH_BYTES,
) -> Scores | None:
    """Every candidate's score for *body* (``Scores``), or None when its examined bytes have no non-ASCII byte.

    ``detect`` answers with the best of these alone; a caller that weighs a declared encoding against the
    evidence (``contradiction.doubted``) reads them all, and may look at less than ``detect`` does: at most
    *examined* bytes, a *window* grown while it holds fewer than *min_high_bytes* high bytes.  Bounded as
    ``detect`` is; never raises (None).
    """
    hint = tld_of(tld)
    try:
        start, first_high = _evidence_start(body)
        head = bytes(body[start : start + examined])
        scored = _scored(head, first_high - start, hint, window, min_high_bytes)
    except Exception:  # noqa: BLE001 - as in detect: the heuristics must not take the caller down
        return None
    if scored is None:
        return None
    candidates, likelihoods, texts, histogram, penalised = scored
    window_bytes = _window(head, first_high - start, window, min_high_bytes)
    evidence = (window_bytes[:MIXING_SAMPLE], histogram)
    _penalise_neighbours(likelihoods, candidates, evidence, penalised)  # the leaders by likelihood
    return Scores(candidates, likelihoods, sum(histogram[1]), window_bytes, hint, dict(texts), histogram, penalised)


def _whatwg_decodes(window: bytes, encoding: str) -> str | None:
    """*window* decoded by the Encoding Standard's *encoding* decoder, but for a character cut at its end; or None."""
    text, replacements = decode_bytes(encoding, window)
    if replacements and text.endswith("\ufffd"):
        text, replacements = text[:-1], replacements - 1  # a character cut by the window's end
    return None if replacements else text


def _detect(head: bytes, first_high: int, hint: str | None) -> Detection:
    scored = _scored(head, first_high, hint)
    if scored is None:
        if SWITCHING_ESCAPE.search(head):
            return Detection("ISO-2022-JP", 0.99 if _decodes(head, "ISO-2022-JP") is not None else 0.5)
        return Detection(_fallback(hint), 1.0)
    scores, likelihoods, texts, histogram, _ = scored
    winner = max(scores, key=scores.__getitem__)
    return Detection(winner, _confidence(winner, scores, likelihoods[winner], texts, histogram))


#: The window's high bytes: the distinct ones in order of first occurrence, and how often each occurs.
Histogram = tuple[bytes, list[int]]


def _scored(
    head: bytes, first_high: int, hint: str | None, size: int = WINDOW, min_high_bytes: int = MIN_HIGH_BYTES
) -> tuple[dict[str, float], dict[str, float], dict[str, str], Histogram, set[str]] | None:
    """Every viable candidate's score (and what confidence needs, and which scores are net of their neighbour
    penalty); None when *head* has no non-ASCII byte.

    *first_high* is the index of *head*'s first non-ASCII byte (-1: none), as ``_evidence_start`` found it."""
    if first_high < 0:
        return None
    window = _window(head, first_high, size, min_high_bytes)
    histogram = high_bytes(window)
    likelihoods, texts, languages = _likelihoods(window, histogram)
    scores = _with_priors(likelihoods, hint)
    _count_beyond_window(scores, languages, head, first_high + len(window))
    penalised: set[str] = set()
    _penalise_neighbours(scores, likelihoods, (window[:MIXING_SAMPLE], histogram), penalised)
    return scores, likelihoods, texts, histogram, penalised


def _window(head: bytes, start: int, size: int = WINDOW, min_high_bytes: int = MIN_HIGH_BYTES) -> bytes:
    """The bytes scored: *size* bytes from *start*, doubled while they hold fewer than *min_high_bytes* high ones."""
    high = high_byte_count(head[start : start + size])
    while start + size < len(head) and high < min_high_bytes:
        high += high_byte_count(head[start + size : start + 2 * size])  # the added half
        size *= 2
    return head[start : start + size]


def _likelihoods(window: bytes, histogram: Histogram) -> tuple[dict[str, float], dict[str, str], bytes]:
    """Every viable candidate's log-likelihood of the window, the text of each
    multi-byte one, and each single-byte one's best language (its index in
    ``LANGUAGES[encoding]``, in ``_SINGLE_BYTE_TABLES``' order).

    Multi-byte candidates decode the window squeezed (``squeeze``: each run of
    ASCII bytes cut to its first two bytes, but for the last three bytes, where
    an incomplete sequence is no error and gb18030 waits for four bytes before
    it judges them).  The first ASCII byte after a
    non-ASCII one may be a trail byte (GBK, Big5 and Shift_JIS take 0x40-0x7E;
    gb18030's four-byte sequences have a digit second and fourth, so a second
    ASCII byte there is an error), but after two every candidate is in its
    initial state (or has failed), so the rest of the run is ASCII characters
    in all of them: the squeezed window decodes without error exactly when the
    window does, to the same non-ASCII characters in the same order, and holds
    the same four-byte gb18030 sequences (tests/decoding/detection/test_squeeze.py).  A mostly-ASCII window
    grown to 64 KiB shrinks to a few KiB for the codecs, which read ASCII slowly.
    """
    # Every single-byte candidate's best language: its likelihood and which it is.
    sums, languages = best_dot_products(*histogram, _ALL_TABLES, _LANGUAGE_COUNTS)
    scores = dict(zip(_SINGLE_BYTE_TABLES, sums, strict=True))
    texts: dict[str, str] = {}
    squeezed = squeeze(window) if len(window) > WINDOW else window  # a grown window is mostly ASCII
    # Without a four-byte sequence gb18030 decodes as GBK does, if at all: GBK, the usual name, stands for both.
    candidates = _MULTI_BYTE if four_byte_gb18030(squeezed) else _MULTI_BYTE_BUT_GB18030
    for encoding, text in zip(candidates, strict_decodes(squeezed, _DECODER_CLASSES[candidates]), strict=True):
        if text is None:  # as _decodes: strictly, but for an incomplete sequence at the end
            continue
        texts[encoding] = text
        scores[encoding] = max(_text_likelihood(text, language) for language in LANGUAGES[encoding])
    if squeezed is not window and len(set(texts.values())) < len(texts):
        # Two candidates read the squeezed window alike: whether they read the window alike is
        # told by its whole texts (confidence compares them), decoded now.
        texts = {encoding: _decodes(window, encoding) or "" for encoding in texts}
    return scores, texts, languages


def _count_beyond_window(scores: dict[str, float], languages: bytes, head: bytes, end: int) -> None:
    """Add the evidence of *head*'s bytes from *end* (the window's) where the leading single-byte candidates differ.

    The window settles the script and the language; encodings of one script
    that differ in a few positions only (windows-1253 and ISO-8859-7 at Ά,
    windows-1250 and ISO-8859-2 at š) tie on a window without those bytes, so
    for the candidates within ``REFINE_MARGIN`` of the best, the bytes where
    they differ are counted in the rest of the examined prefix (one histogram
    of its high bytes; each candidate keeps its window's best language, *languages*).
    """
    if end >= len(head):
        return
    best = max(scores.values())
    group = [encoding for encoding in _SINGLE_BYTE_TABLES if scores[encoding] >= best - REFINE_MARGIN]
    if len(group) < 2:
        return
    differing = 0  # where some candidate of the group differs from the first, as a bit mask
    for encoding in group[1:]:
        differing |= _differences(group[0], encoding)
    tables = {encoding: _SINGLE_BYTE_TABLES[encoding][languages[_SINGLE_BYTE_INDEX[encoding]]] for encoding in group}
    counts = high_byte_counts(head[end:])
    for index in _set_bits(differing):
        extra = counts[index]
        if extra:
            for encoding in group:
                scores[encoding] += extra * tables[encoding][index]


def _with_priors(likelihoods: dict[str, float], hint: str | None) -> dict[str, float]:
    """Each likelihood plus its encoding's prior and, when the TLD names it, the TLD bonus."""
    scores = {encoding: value + _PRIOR[encoding] for encoding, value in likelihoods.items()}
    for rank, encoding in enumerate(TLD_HINTS.get(hint, ()) if hint else ()):
        if encoding in scores:
            scores[encoding] += TLD_BONUS - 0.5 * rank
    return scores


def _penalise_neighbours(
    ranking: dict[str, float], other: dict[str, float], evidence: tuple[bytes, Histogram], penalised: set[str]
) -> None:
    """Lower the leading single-byte values of *ranking* (scores, or likelihoods) and the same candidates' in
    *other* by their penalties for implausible neighbours; *penalised* holds those lowered already, and gains
    those lowered now.

    A penalty only lowers a value, so candidates are visited best first and the
    visit stops at the first whose unpenalised value cannot beat the best
    penalised one: usually after one to three.  The values of candidates never
    visited stay upper bounds, which only matters to confidence, negligibly.
    """
    best = -math.inf
    for encoding in sorted(ranking, key=ranking.__getitem__, reverse=True):
        if ranking[encoding] <= best:
            return
        if encoding in _PAIR_CLASSES and encoding not in penalised:
            _penalise(encoding, ranking, other, evidence, penalised)
        best = max(best, ranking[encoding])


def _penalise(
    encoding: str, one: dict[str, float], other: dict[str, float], evidence: tuple[bytes, Histogram], done: set[str]
) -> None:
    """Lower *encoding*'s value in both dicts by its neighbour penalty over *evidence* (the window's first
    ``MIXING_SAMPLE`` bytes and its histogram), and note it in *done*."""
    sample, (order, counts) = evidence
    penalty = _neighbour_penalty(encoding, sample)
    capitals = best_dot_products(order, counts, _CAPITAL_SIGNS[encoding], b"\x01")[0][0] - _CAPITALS_ALLOWED
    if capitals > 0:
        penalty += _CAPITAL_EXCESS * capitals
    one[encoding] += penalty
    other[encoding] += penalty
    done.add(encoding)


def _neighbour_penalty(encoding: str, sample: bytes) -> float:
    """Log-penalty for what a unigram model cannot see: characters next to neighbours they never have.

    Script mixing (French "château" read as windows-1251 is "chвteau", a
    Cyrillic letter inside a Latin word; chardetng penalises the same), and
    (``_PAIR_WEIGHTS``) a capital after a small letter ("прЯмо": x-mac-cyrillic's я
    read as windows-1251), a Hebrew final letter or a Greek final sigma inside
    a word (Bulgarian read as windows-1255 puts ם, ן, ך where н, п, к start
    words), a combining mark after a space (windows-1251 capitals read as
    windows-1255 points), a closing sign glued to the next letter; and, since
    the tables score a capital as its small letter (``_folded_logp``), the
    cost of starting a word with a capital: all-capitals Greek pays once a
    word, not once a letter.  Counted over the sample's bytes as classes
    (``mixed_pairs``, ``pair_sum``).
    """
    penalty = pair_sum(sample, _PAIR_CLASSES[encoding], _PAIR_WEIGHTS)
    mixing = _MIXING_CLASSES.get(encoding)
    if mixing is not None:
        penalty += _LOGP_MIXED_SCRIPT * mixed_pairs(sample, mixing)
    return penalty


def _decodes(data: bytes, encoding: str) -> str | None:
    """*data* strictly decoded but for an incomplete sequence at its end (left out), or None.

    The examined bytes end where the window or the body does: a character cut
    there, by the window or by a crawler's size limit, is not a malformed one.
    """
    try:
        return _INCREMENTAL_DECODERS[encoding]("strict").decode(data, final=False)
    except UnicodeDecodeError:
        return None


def _text_likelihood(text: str, language: str) -> float:
    """The log-likelihood of *text*'s non-ASCII characters under *language*'s model."""
    if COMPILED:
        return _compiled_text_likelihood(text, _CHARACTER_LOGP[language], _UNSEEN[language], _memo(language))
    return reference_text_likelihood(text, _CHARACTER_LOGP[language], _UNSEEN[language])


def _confidence(
    winner: str, scores: dict[str, float], likelihood: float, texts: dict[str, str], histogram: Histogram
) -> float:
    """Softmax share of the candidates decoding like the winner, times the winner's plausibility.

    *histogram* counts the window's high bytes (the window's histogram, not a second pass over them)."""
    order, counts = histogram
    share = 0.0
    candidates = list(scores)
    total, indexes, weights = softmax_weights(list(scores.values()), scores[winner])
    for index, weight in zip(indexes, weights, strict=True):
        encoding = candidates[index]
        if encoding == winner:
            share += weight
            continue
        if _decodes_alike(winner, encoding, texts, order):
            share += weight
    # Natural text costs 1.5-4.5 nats per non-ASCII byte under its own model (the
    # held-out corpus); uniformly random bytes cost about 8.4 under the best candidate.
    per_byte = likelihood / max(1, sum(counts))
    plausibility = min(1.0, max(0.0, (per_byte + 9.0) / 4.0))
    return round(min(1.0, max(0.0, share / total * plausibility)), 4)


def _decodes_alike(first: str, second: str, texts: dict[str, str], present: bytes) -> bool:
    """Whether two candidates decode the window to the same text (*present*: its distinct high bytes)."""
    if first in texts or second in texts:
        return texts.get(first) == texts.get(second)
    return len(present.translate(None, _differing_bytes(first, second))) == len(present)  # none of them removed


@functools.cache
def _differing_bytes(one: str, other: str) -> bytes:
    """The high bytes two single-byte encodings map differently (``_differences`` as bytes)."""
    return bytes(0x80 + index for index in _set_bits(_differences(one, other)))


@functools.cache
def _set_bits(mask: int) -> tuple[int, ...]:
    """The indexes of *mask*'s set bits, ascending."""
    return tuple(index for index in range(mask.bit_length()) if mask >> index & 1)


@functools.cache
def _differences(one: str, other: str) -> int:
    """Where two single-byte encodings map a high byte differently: bit i for byte 0x80 + i."""
    pairs = zip(SINGLE_BYTE[one], SINGLE_BYTE[other], strict=True)
    return sum(1 << index for index, (a, b) in enumerate(pairs) if a != b)


# -- the counting loops: the readable reference, and the compiled one when built --------------


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


# high_bytes(data) -> Histogram, best_dot_products, mixed_pairs and the character likelihood
# of the compiled loops (_detection_counts.c): the same answers as the references, without a dict
# operation per byte or character; and the steps whose Python loops over a few dozen candidates, or
# bytes.translate passes and regular expressions, cost more than the counting itself (best_dot_products,
# high_byte_count, first_high_byte, four_byte_gb18030, softmax_weights; strict_decodes, whose
# candidates mostly fail, where a try/except in Python costs most of the failure).
try:
    from ._detection_counts import (
        best_dot_products,
        first_high_byte,
        four_byte_gb18030,
        high_byte_count,
        high_byte_counts,
        high_bytes,
        mixed_pairs,
        pair_sum,
        softmax_weights,
        squeeze,
        strict_decodes,
    )
    from ._detection_counts import text_likelihood as _compiled_text_likelihood

    #: Whether the compiled loops run (else the references above, with the same answers, slower).
    COMPILED = True
except ImportError:  # installed without a C compiler
    high_bytes, mixed_pairs, pair_sum = reference_high_bytes, reference_mixed_pairs, reference_pair_sum
    squeeze, high_byte_counts = reference_squeeze, reference_high_byte_counts
    best_dot_products, four_byte_gb18030 = reference_best_dot_products, reference_four_byte_gb18030
    high_byte_count, softmax_weights = reference_high_byte_count, reference_softmax_weights
    first_high_byte, strict_decodes = reference_first_high_byte, reference_strict_decodes
    COMPILED = False


# -- the character model ------------------------------------------------------

# Log-probabilities for characters a language's counts do not cover.
_LOGP_PUNCTUATION = math.log(1e-3)  # typography any language's pages use
_LOGP_SAME_SCRIPT = math.log(1e-5)  # a rare letter of the language's own script
_LOGP_SYMBOL = math.log(1e-6)
_LOGP_FOREIGN_LETTER = math.log(1e-7)
_LOGP_CONTROL = math.log(1e-10)  # C1 controls, unmapped bytes: practically never text
_LOGP_QUOTE = math.log(1e-4)  # single quotes: also where ISO-8859-7 has them and windows-1253 has Ά
_LOGP_MIXED_SCRIPT = math.log(3e-4)  # per non-Latin letter touching an ASCII letter: rare in real text
#: CJK languages mix the counted frequencies with a uniform share over the
#: everyday character set (``_COMMON``), since real text uses many more
#: characters than the training text shows.
_COMMON_WEIGHT = 0.3

_QUOTES = frozenset("‘’‚‹›")
_LOGP_MARKS = math.log(5e-3)  # ©, ® and ™ stand in page footers everywhere
_MARKS = frozenset("©®™")
_PUNCTUATION = frozenset(
    "\xa0«»–—‐‑―…“”„•·°×½§€£¥№"
    + "".join(chr(c) for c in range(0x3000, 0x3040))  # CJK symbols and punctuation
    + "".join(chr(c) for c in range(0xFF01, 0xFF5F))  # full-width ASCII forms
)


def _script(char: str) -> str:
    name = unicodedata.name(char, "")
    if name.startswith(("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "HALFWIDTH KATAKANA", "HALFWIDTH HANGUL")):
        return "CJK"
    return name.split(" ", 1)[0]


def _common_ideographs() -> dict[str, frozenset[str]]:
    """The character sets of each CJK language's everyday text, from its legacy standard's first level."""

    def decode_pairs(codec: str, leads: range, trails: list[int]) -> frozenset[str]:
        pairs = bytes(b for lead in leads for trail in trails for b in (lead, trail))
        return frozenset(pairs.decode(codec, "ignore"))

    euc_trails = list(range(0xA1, 0xFF))
    kana = frozenset(chr(c) for c in range(0x3041, 0x3100))
    return {
        # JIS X 0208 level 1 kanji (Shift_JIS 0x889F-0x9872) and the kana.
        "ja": decode_pairs("cp932", range(0x88, 0x99), [t for t in range(0x40, 0xFD) if t != 0x7F]) | kana,
        # GB 2312 level 1 hanzi: the 3755 everyday characters.
        "zh_cn": decode_pairs("gb2312", range(0xB0, 0xD8), euc_trails),
        # Big5's frequently used hanzi (0xA440-0xC67E).
        "zh_tw": decode_pairs("big5", range(0xA4, 0xC7), [*range(0x40, 0x7F), *euc_trails]),
        # KS X 1001's 2350 hangul syllables.
        "ko": decode_pairs("euc_kr", range(0xB0, 0xC9), euc_trails),
    }


_COMMON = _common_ideographs()
_LANGUAGE_SCRIPT = {
    language: _script(max(counts, key=counts.__getitem__)) for language, counts in FREQUENCIES.items()
}
_TOTALS = {language: sum(counts.values()) for language, counts in FREQUENCIES.items()}


def _unseen_logp(language: str, char: str) -> float:
    counts = FREQUENCIES[language]
    lower = char.lower()
    if lower != char and lower in counts:
        # A capital of a known letter: rarer than the small letter in running text.
        return math.log(0.1 * counts[lower] / _TOTALS[language])
    compatible = unicodedata.normalize("NFKC", char)
    if compatible != char and compatible in counts:
        # A half-width or full-width form (Shift_JIS's one-byte katakana) of a known character.
        return math.log(0.5 * counts[compatible] / _TOTALS[language])
    if char in _PUNCTUATION:
        return _LOGP_PUNCTUATION
    if char in _QUOTES:
        return _LOGP_QUOTE
    if char in _MARKS:
        return _LOGP_MARKS
    common = _COMMON.get(language)
    if common and char in common:
        return math.log(_COMMON_WEIGHT / len(common))
    category = unicodedata.category(char)
    if category in ("Cc", "Cn", "Co", "Cs") or char == "\ufffe":
        return _LOGP_CONTROL
    if category[0] in "LM":
        return _LOGP_SAME_SCRIPT if _script(char) == _LANGUAGE_SCRIPT[language] else _LOGP_FOREIGN_LETTER
    return _LOGP_SYMBOL


def _seen_logp(language: str) -> dict[str, float]:
    total = _TOTALS[language]
    common = _COMMON.get(language)
    if not common:
        return {char: math.log(count / total) for char, count in FREQUENCIES[language].items()}
    uniform = _COMMON_WEIGHT / len(common)
    return {
        char: math.log((1 - _COMMON_WEIGHT) * count / total + (uniform if char in common else 0.0))
        for char, count in FREQUENCIES[language].items()
    }


_CHARACTER_LOGP: dict[str, dict[str, float]] = {language: _seen_logp(language) for language in FREQUENCIES}


def _folded_logp(language: str, char: str) -> float:
    """*char*'s log-probability in *language*, a capital scored as its small letter is.

    The counts come from running text, where capitals start sentences and
    names, so they put an all-capitals title ("ΑΘΑΝΑΣΙΑΔΗΣ") far below any
    small-letter reading of its bytes (KOI8-R's "ахамасиадгс"): scored letter by
    letter as capitals, the true reading lost by 2-3 nats a letter.  Here a
    capital scores as its small letter, and the cost of a capital is charged once
    a word, by ``_neighbour_penalty`` (``_CAPITAL_START``, ``_CAPITALISED``).
    Not Latin letters: beside ASCII's, a Latin alphabet's few capitals matter
    little to an all-capitals text, and an isolated one (windows-1252's « read
    as ISO-8859-2's Ť) would cost only the start of a word.  Single-byte tables
    only: the multi-byte candidates' texts are scored by ``_CHARACTER_LOGP``.
    """
    logp = _CHARACTER_LOGP[language]
    small = char.lower()
    if small != char and len(small) == 1 and small in logp and _script(char) != "LATIN":
        return logp[small]
    return logp[char] if char in logp else _unseen_logp(language, char)
_MULTI_BYTE = tuple(encoding for encoding in LANGUAGES if encoding not in SINGLE_BYTE)
_MULTI_BYTE_BUT_GB18030 = tuple(encoding for encoding in _MULTI_BYTE if encoding != "gb18030")
#: The scoring codecs' incremental decoders, looked up once.
_INCREMENTAL_DECODERS = {
    encoding: codecs.getincrementaldecoder(_SCORING_CODECS[encoding]) for encoding in [*_MULTI_BYTE, "ISO-2022-JP"]
}
#: Those of each list of candidates ``_likelihoods`` decodes, in its order: what ``strict_decodes`` makes.
_DECODER_CLASSES = {
    candidates: tuple(_INCREMENTAL_DECODERS[encoding] for encoding in candidates)
    for candidates in (_MULTI_BYTE, _MULTI_BYTE_BUT_GB18030)
}
#: Per single-byte candidate, one 128-entry log-probability table per language (index: byte - 0x80).
_SINGLE_BYTE_TABLES: dict[str, list[list[float]]] = {
    encoding: [
        [_folded_logp(language, char) for char in SINGLE_BYTE[encoding]]
        for language in languages
    ]
    for encoding, languages in LANGUAGES.items()
    if encoding in SINGLE_BYTE
}
#: Per single-byte candidate, how many tables (languages) it has: ``best_dot_products``' groups.
_LANGUAGE_COUNTS = bytes(map(len, _SINGLE_BYTE_TABLES.values()))
#: Per single-byte candidate, its place in ``_SINGLE_BYTE_TABLES`` (and in ``best_dot_products``' answers).
_SINGLE_BYTE_INDEX = {encoding: index for index, encoding in enumerate(_SINGLE_BYTE_TABLES)}
#: Every candidate's log prior (``PRIORS``, or ``_OTHER_PRIOR``).
_PRIOR = {encoding: PRIORS.get(encoding, _OTHER_PRIOR) for encoding in LANGUAGES}
#: Those tables laid end to end, in that order: what ``best_dot_products`` scores the window's histogram with.
_ALL_TABLES = array("d", [value for tables in _SINGLE_BYTE_TABLES.values() for table in tables for value in table])
#: Per language, the log-probability of a character its counts lack.
_UNSEEN: dict[str, Callable[[str], float]] = {
    language: functools.partial(_unseen_logp, language) for language in FREQUENCIES
}
_MEMOS: dict[str, array[float]] = {}


def _memo(language: str) -> array[float]:
    """The compiled likelihood's cache of *language*'s log-probabilities of BMP characters (NaN: not known yet).

    512 KiB a language, made at its first multi-byte candidate (the four CJK languages: 2 MiB).
    """
    memo = _MEMOS.get(language)
    if memo is None:
        memo = _MEMOS[language] = array("d", [math.nan]) * 0x10000
    return memo


def _mixing_classes(encoding: str) -> bytes | None:
    """A translate table: ASCII letters to "a", the encoding's non-Latin letters and marks to "n", the rest to "."."""
    table = bytearray(b"." * 256)
    for byte in range(0x80):
        if chr(byte).isalpha():
            table[byte] = ord("a")
    for index, char in enumerate(SINGLE_BYTE[encoding]):
        # Letters and marks (Thai vowels and tones are marks); the generic
        # combining accents windows-1258 puts after Latin letters are script "COMBINING".
        if unicodedata.category(char)[0] in "LM" and _script(char) not in ("LATIN", "COMBINING"):
            table[0x80 + index] = ord("n")
    return bytes(table) if b"n" in table else None


_MIXING_CLASSES = {
    encoding: classes for encoding in _SINGLE_BYTE_TABLES if (classes := _mixing_classes(encoding)) is not None
}


# The classes of ``_neighbour_penalty``'s pairs (numbers for ``pair_sum``).
# _CAPITAL: a capital scored as its small letter (``_folded_logp``); _LATIN_CAPITAL: one scored as counted.
# _FINAL: a final form, _FIRST: one in visual order, where it starts a word.
_OTHER, _ASCII_SMALL, _ASCII_CAPITAL, _SMALL, _CAPITAL, _FINAL, _MARK, _CLOSING, _LATIN_CAPITAL, _FIRST = range(10)
#: Letters written only at a word's end: Greek's final sigma and Hebrew's five final forms.  ISO-8859-8
#: is the WHATWG's label for visual Hebrew (logical is ISO-8859-8-I, windows-1255 logical too): its
#: pages store each line reversed, so there a final form starts a word (chardetng tells the two apart
#: the same way).
_FINAL_LETTERS = frozenset("ךםןףץς")
_VISUAL = ("ISO-8859-8",)
#: Signs that close what precedes them and are followed by a space, not by a letter.
_CLOSING_SIGNS = frozenset("”™•…")
#: Per pair (a 16 x 16 table, 16 * first class + second class), nats: 0 where nothing is implausible.
_CAMEL = math.log(1e-3)  # a capital right after a small letter: "прЯмо"
#: A capital starting a word or an all-capitals run, and one followed by a small letter: a capitalised
#: word pays both (0.1, near the share of capitals in running text); a run of capitals, headings' and
#: names' style on the web, the first only.
_CAPITAL_START = math.log(0.3)
_CAPITALISED = math.log(1 / 3)
_FINAL_INSIDE = math.log(1e-3)  # a final form followed by a letter (in visual order: after one)
_STRAY_MARK = math.log(1e-3)  # a combining mark after a space, a digit or punctuation
_GLUED = math.log(1e-2)  # a closing sign followed by a letter: "”айл" for x-mac-cyrillic's "Файл"
#: Capitals are headings' and names' style, not running text's: a reading whose window holds more capitals than
#: small letters, by more than a long heading's, pays the per-letter cost the counts give a capital (about 0.1 of its
#: small letter) for each one beyond (KOI8-R's small letters are windows-1251's capitals: a paragraph of Russian in
#: KOI8-R read as windows-1251 is a paragraph in capitals).
_CAPITALS_ALLOWED = 32
_CAPITAL_EXCESS = math.log(0.1)
_LETTERS = (_ASCII_SMALL, _ASCII_CAPITAL, _SMALL, _CAPITAL, _FINAL, _LATIN_CAPITAL, _FIRST)


def _pair_weights() -> array[float]:
    weights = array("d", [0.0]) * 256
    capitals = (_ASCII_CAPITAL, _CAPITAL, _LATIN_CAPITAL)
    for first in range(16):
        if first not in capitals:
            weights[16 * first + _CAPITAL] += _CAPITAL_START
        if first in (_ASCII_SMALL, _SMALL, _FINAL, _FIRST):
            weights[16 * first + _CAPITAL] += _CAMEL
            weights[16 * first + _LATIN_CAPITAL] += _CAMEL
        if first in (_OTHER, _CLOSING):
            weights[16 * first + _MARK] += _STRAY_MARK
    for second in (_SMALL, _FINAL, _MARK, _FIRST):
        weights[16 * _CAPITAL + second] += _CAPITALISED
    for letter in _LETTERS:
        weights[16 * _FINAL + letter] += _FINAL_INSIDE
        weights[16 * letter + _FIRST] += _FINAL_INSIDE
        weights[16 * _CLOSING + letter] += _GLUED
    return weights


def _pair_classes(encoding: str) -> bytes:
    """A table of *encoding*'s bytes to the classes of ``_neighbour_penalty``."""
    table = bytearray(_OTHER for _ in range(256))
    for byte in range(0x80):
        char = chr(byte)
        if char.isalpha():
            table[byte] = _ASCII_CAPITAL if char.isupper() else _ASCII_SMALL
    for index, char in enumerate(SINGLE_BYTE[encoding]):
        category = unicodedata.category(char)
        if char in _FINAL_LETTERS:
            table[0x80 + index] = _FIRST if encoding in _VISUAL else _FINAL
        elif category in ("Lu", "Lt"):
            table[0x80 + index] = _LATIN_CAPITAL if _script(char) == "LATIN" else _CAPITAL
        elif category[0] == "L":
            table[0x80 + index] = _SMALL
        elif category[0] == "M":
            table[0x80 + index] = _MARK
        elif char in _CLOSING_SIGNS:
            table[0x80 + index] = _CLOSING
    return bytes(table)


_PAIR_WEIGHTS = _pair_weights()
_PAIR_CLASSES = {encoding: _pair_classes(encoding) for encoding in _SINGLE_BYTE_TABLES}
#: Per single-byte candidate, per high byte: +1 for a capital scored as its small letter, -1 for a small letter:
#: a histogram's dot product with it counts the capitals beyond the small letters.
_CAPITAL_SIGNS = {
    encoding: array(
        "d", [1.0 if c == _CAPITAL else -1.0 if c in (_SMALL, _FINAL, _FIRST) else 0.0 for c in classes[0x80:]]
    )
    for encoding, classes in _PAIR_CLASSES.items()
}
