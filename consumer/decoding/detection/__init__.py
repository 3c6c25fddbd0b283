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
   letter); plus a log prior for the encoding (and for a language far rarer
   than the others of its encoding, ``LANGUAGE_PRIORS``) and a bonus when the
   TLD names it; minus penalties for neighbours a unigram model cannot see
   (``_neighbour_penalty``): a non-Latin letter that touches an ASCII letter
   (French "château" read as windows-1251 is "chвteau"), a capital after a
   small letter, a final form inside a word, a combining mark after a space,
   a capital beyond ASCII before a digit, and the cost of a capital once a
   word; a multi-byte reading pays for each character an ASCII letter follows
   (``LATIN_AFTER_CJK``: "said “yes”—and" read as Shift_JIS).
   Single-byte candidates score from one byte histogram and 128-entry tables,
   so no per-byte loop runs per candidate.
3. Single-byte candidates close to the best are then compared on the rest
   of the examined prefix, counting only the bytes where they differ.
   When the best is a Latin single-byte reading, the Latin readings within
   ``LETTER_PAIRS_MARGIN`` of it also weigh where their letters beyond ASCII
   stand (``latin_pairs``: windows-1257's "Gytė" is windows-1252's "Gytë", a
   Dutch letter Dutch writes after vowels only), in detection alone.
4. The best score wins, but the TLD's default holds when it is a Latin encoding
   and the winner reads only its signs as letters (a multi-byte winner: where
   it reads nothing but signs), without a clear lead (``DEFAULT_HELD_NATS``: an
   English page's "»" is windows-874's "ป", its "’s" Shift_JIS's "痴").
5. Confidence is the softmax share of the candidates that decode the window to
   the same text as the winner, times how plausible the winner's text is.

Work is bounded: at most 64 KiB are examined, one histogram of the window is
taken (and one of the rest of the examined bytes, when single-byte candidates
are close) and at most 6 multi-byte strict decodes run (of the same window).
A 4 KiB window of a non-Latin text holds thousands of letters, far more than a
unigram model needs; 64 KiB bounds the growth for mostly-ASCII pages, whose few
accented letters are then still counted (a page with fewer non-ASCII bytes than
that in its first 64 KiB decodes nearly alike under every candidate anyway).

Beside the scoring, ``latin_pairs.py`` weighs Latin letter pairs, counted in
Debian's gettext catalogues by ``catalogues.py`` (run by hand, its counts
committed in ``catalogue_pairs.py``).  Three modules hold the scoring, as the
prescan has its tiers:

* ``model.py``: the candidates, priors and TLD hints, and the character model
  laid out as the tables the loops read;
* ``reference.py``: the counting loops as Python reads them, the reference (the
  window's histograms, the best dot product of a histogram with each
  encoding's language tables, the count and position of high bytes, the
  squeezing of the window for the multi-byte candidates, the check for
  gb18030's four-byte sequences, the script-mixing and neighbour pairs, the
  character likelihood of a multi-byte reading, the confidence's softmax, the
  candidates' strict decodes);
* ``loops.py``: each loop bound once, to ``../_native/detection.c``'s where the
  extension was built (``COMPILED``), else to the reference: the same answers
  to the last bit (tests/decoding/detection/test_compiled.py), linear in the
  input either way.

The character model's counts (``..detection_data``) come from Faker text; see
``consumer/decoding/build_detection_model.py`` for what it is trained on and how the
evaluation corpus is kept apart from it.
"""

from __future__ import annotations

import functools
import math
import unicodedata
from array import array
from dataclasses import dataclass
from typing import NamedTuple

from ..codecs import decode_bytes
from ..codecs.iso_2022_jp import SWITCHING_ESCAPE
from ..data.whatwg import SINGLE_BYTE
from ..hosts import tld_of
from . import agreement, latin_pairs, loops
from .model import (
    _ALL_TABLES,
    _CAPITAL_EXCESS,
    _CAPITAL_SIGNS,
    _CAPITALS_ALLOWED,
    _CHARACTER_LOGP,
    _DECODER_CLASSES,
    _INCREMENTAL_DECODERS,
    _LANGUAGE_COUNTS,
    _LANGUAGE_PRIORS,
    _LOGP_MIXED_SCRIPT,
    _MIXING_CLASSES,
    _MULTI_BYTE,
    _MULTI_BYTE_BUT_GB18030,
    _PAIR_CLASSES,
    _PAIR_WEIGHTS,
    _PRIOR,
    _SINGLE_BYTE_INDEX,
    _SINGLE_BYTE_TABLES,
    _UNSEEN,
    LANGUAGE_PRIORS,
    LANGUAGES,
    TLD_BONUS,
    TLD_HINTS,
    _memo,
    script,
)
from .reference import Histogram, reference_text_likelihood

#: Per list of multi-byte candidates (``_DECODER_CLASSES``' keys), each one's reader (``agreement.reader``): how
#: ``_Window.decoded`` spares the codecs the windows whose answer the agreement tables know.
_READERS = {candidates: tuple(map(agreement.reader, candidates)) for candidates in _DECODER_CLASSES}

#: Per single-byte candidate, per high byte: 1.0 where it reads as a capital letter (``str.isupper``), else 0.0; a
#: histogram's dot product with it counts the capitals of the candidate's reading (``may_be_beaten``).
_UPPER_BYTES = {
    encoding: array("d", [1.0 if char.isupper() else 0.0 for char in SINGLE_BYTE[encoding]])
    for encoding in _SINGLE_BYTE_TABLES
}

#: Whether the counting loops run compiled (``loops.py`` binds them; else the reference's, same answers).
COMPILED = loops.COMPILED

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
#: Latin single-byte readings this close (nats) to the best, the best one Latin too, are weighed by their letter
#: pairs too (``_weigh_letter_pairs``)...
LETTER_PAIRS_MARGIN = 5.0
#: ... each pair's information counting this much (chosen on generated short pages of seeds 300-309, which the
#: benchmarks do not judge: 0.25 fixed half as many pages, 0.75 and 1.0 broke as many as they fixed).
LETTER_PAIR_WEIGHT = 0.5
#: ... on a window with at most this many high bytes: where the letters alone are few (the same answers at 32, 64,
#: 128 and without a bound on the pages ``LETTER_PAIR_WEIGHT`` was chosen on).  More letters decide by themselves,
#: and the pairs' cost (a Python loop over the letters beyond ASCII) stays small: unbounded, four long Hungarian
#: and Romanian pages of bench/undeclared.py, whose ISO-8859-2 and windows-1250 readings are close, cost 1.2-2.7 ms
#: each.
LETTER_PAIRS_HIGH_BYTES = 64
#: The browsers' default where nothing is declared and nothing better is known (the resolution's last step).
DEFAULT_ENCODING = "windows-1252"


@dataclass(frozen=True, slots=True)
class Detection:
    """A detector's guess: a WHATWG encoding name and a confidence in [0, 1]."""

    encoding: str
    confidence: float


#: ASCII bytes kept before the first non-ASCII one when the examined bytes start further in.
_CONTEXT_BYTES = 256


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
    first_high = loops.first_high_byte(body)
    if first_high < MAX_EXAMINED // 2:  # none (-1) too
        return 0, first_high
    return first_high - _CONTEXT_BYTES, first_high


def non_ascii_bytes(body: bytes) -> int:
    """The non-ASCII bytes among *body*'s first ``MAX_EXAMINED``: how much a guess can go on, at most."""
    return sum(loops.high_byte_counts(body[:MAX_EXAMINED]))


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
        head = bytes(body[start : start + MAX_EXAMINED])
        scored = _scored(head, first_high - start, tld_of(tld))
    except Exception:  # noqa: BLE001 - as in detect: the heuristics must not take the caller down
        return (detect(body, tld).encoding,)
    if scored is None:
        return (detect(body, tld).encoding,)
    scored = _weigh_letter_pairs(scored, head, first_high - start, tld_of(tld))
    scores = scored[0]
    best = max(scores.values())
    leaders = [e for e in sorted(scores, key=scores.__getitem__, reverse=True) if scores[e] >= best - margin]
    choice, _ = _choice(scored, tld_of(tld))
    return (choice, *(e for e in leaders if e != choice))


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
        return _multi_byte_likelihood(text, encoding)

    def differing(self, first: str, second: str) -> int:
        """How many of the window's non-ASCII characters the two candidates read differently: for two
        single-byte encodings the bytes they map apart; with a multi-byte one, every non-ASCII character of
        its reading (the fewer, when both are multi-byte)."""
        order, counts = self.histogram
        if _decodes_alike(first, second, self.texts, order):
            return 0
        if first in self.texts or second in self.texts:
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
    lead_over: tuple[str, float, float] | None = None,
) -> Scores | None:
    """Every candidate's score for *body* (``Scores``), or None when its examined bytes have no non-ASCII byte.

    ``detect`` answers with the best of these alone; a caller that weighs a declared encoding against the
    evidence (``contradiction.doubted``) reads them all, and may look at less than ``detect`` does: at most
    *examined* bytes, a *window* grown while it holds fewer than *min_high_bytes* high bytes.  A caller that acts
    only when another candidate's likelihood leads an encoding's by a margin passes *lead_over* (encoding, margin,
    per capital; ``may_be_beaten``): None too when none can, found at a fraction of the cost.  Bounded as
    ``detect`` is; never raises (None).
    """
    hint = tld_of(tld)
    try:
        start, first_high = _evidence_start(body)
        head = bytes(body[start : start + examined])
        scored = _scored(head, first_high - start, hint, window, min_high_bytes, lead_over)
    except Exception:  # noqa: BLE001 - as in detect: the heuristics must not take the caller down
        return None
    if scored is None:
        return None
    candidates, likelihoods, texts, histogram, penalised, work = scored
    window_bytes = work.window
    evidence = (window_bytes[:MIXING_SAMPLE], histogram)
    _penalise_neighbours(likelihoods, candidates, evidence, penalised, work.penalties)  # the leaders by likelihood
    return Scores(candidates, likelihoods, sum(histogram[1]), window_bytes, hint, texts, histogram, penalised)


def may_be_beaten(
    body: bytes,
    encoding: str,
    margin: float,
    per_capital: float = 0.0,
    *,
    examined: int = MAX_EXAMINED,
    window: int = WINDOW,
    min_high_bytes: int = MIN_HIGH_BYTES,
) -> bool:
    """Whether another candidate's likelihood may lead *encoding*'s by *margin* nats or more in ``scores``, the
    margin lowered by *per_capital* nats for each non-ASCII capital letter (``str.isupper``, below U+3000) of
    *encoding*'s reading of the window beyond the rival's (a multi-byte rival's counted as none).

    False only when it cannot: ``scores(body, examined=..., window=..., min_high_bytes=...)`` is None, or
    *encoding*'s ``Scores.likelihood`` is known and every other candidate's of ``Scores.likelihoods`` (its
    ``Scores.likelihood``, net of its penalty) minus it, a float subtraction as a caller computes it, is below
    that margin.  It costs a fraction of ``scores`` (no priors, no dicts, no penalty but *encoding*'s and those
    of the single-byte candidates whose unpenalised likelihood is within reach), and what it computes serves
    ``scores`` after it (``scores(..., lead_over=...)``, what ``contradiction.doubted`` asks).

    Exact, not a heuristic: each value is computed as ``scores`` computes it, from the same window, histogram
    and texts (tests/decoding/detection/test_may_be_beaten.py holds the two to it).  The reading's capitals are
    those of its text in ``Scores.texts`` (a multi-byte candidate's) or else of the Encoding Standard's decode of
    the window (a single-byte one's, counted from the histogram).  True when unsure: *encoding* a multi-byte
    candidate that no decoder reads the window with (its ``likelihood`` is None), or a failure of the heuristics.
    """
    try:
        start, first_high = _evidence_start(body)
        if first_high < 0:
            return False  # scores is None
        head = bytes(body[start : start + examined])
        work = _Window(_window(head, first_high - start, window, min_high_bytes))
        return _may_be_beaten(work, encoding, margin, per_capital)
    except Exception:  # noqa: BLE001 - unsure: the caller asks scores, which never raises
        return True


def _may_be_beaten(work: _Window, encoding: str, margin: float, per_capital: float) -> bool:
    """``may_be_beaten`` on the window of *work*; what it computes stays in *work* for ``_likelihoods``.

    The margin a rival needs is *margin* less *per_capital* for each capital *encoding*'s reading has beyond the
    rival's (a multi-byte rival's counted as none, the most it can need)."""
    histogram = work.histogram
    evidence = (work.window[:MIXING_SAMPLE], histogram)
    # The single-byte candidates' likelihoods before their penalties (which only lower them): _likelihoods' sums.
    sums = work.dot_products()[0]
    index = _SINGLE_BYTE_INDEX.get(encoding)
    capitals = 0.0
    if index is not None:
        own = sums[index] + _penalty(encoding, evidence, work.penalties)  # Scores.likelihood's, in one addition
        if per_capital:
            capitals = _capitals(histogram, encoding)
    else:
        _, candidates, texts = work.decoded()
        text = texts[candidates.index(encoding)] if encoding in candidates else None
        if text is None:  # as Scores.likelihood: the Encoding Standard's decoder, on the whole window
            text = _whatwg_decodes(work.window, encoding)
            if text is None:
                return True
            own = _multi_byte_likelihood(text, encoding)
        else:
            known = work.multi_byte_likelihood(encoding)  # kept for _likelihoods
            assert known is not None
            own = known
        if per_capital:
            capitals = loops.non_ascii_capitals(text)  # a multi-byte reading's capitals (below U+3000)
    loosest = margin - per_capital * capitals
    # The multi-byte rivals first: their decodes and likelihoods are the rest of scores' work too.  Under a
    # single-byte encoding, a bound may spare the decodes (_multi_byte_out_of_reach).
    if encoding not in _LATIN_SINGLE_BYTE or not _multi_byte_out_of_reach(work, own, loosest):
        _, candidates, texts = work.decoded()
        for other, text in zip(candidates, texts, strict=True):
            if text is not None and other != encoding:
                rival = work.multi_byte_likelihood(other)
                if rival is not None and rival - own >= loosest:
                    return True
    if max(sums) - own >= loosest:
        # The single-byte rivals within reach before their penalty, likeliest first: the first usually settles it.
        pairs = zip(_SINGLE_BYTE_TABLES, sums, strict=True)
        within = [(value, other) for other, value in pairs if value - own >= loosest]
        for value, other in sorted(within, reverse=True):
            if other == encoding:
                continue
            needed = margin - per_capital * max(0.0, capitals - _capitals(histogram, other)) if capitals else margin
            if value - own >= needed and value + _penalty(other, evidence, work.penalties) - own >= needed:
                return True
    return False


def _multi_byte_out_of_reach(work: _Window, own: float, loosest: float) -> bool:
    """Whether no multi-byte candidate's likelihood of *work*'s window can lead *own* by *loosest*, told without
    decoding it.

    A multi-byte reading of the window has a character beyond ASCII at the start of each run of high bytes (the
    byte before is ASCII, a character or a trail byte: a character starts at the run; every sequence that starts
    with a high byte decodes to one but ``_ASCII_FROM_HIGH``'s, tests/decoding/detection/test_may_be_beaten.py),
    gb18030 at every second run at least (its four-byte sequences, high, digit, high, digit, span two), less
    the one an incomplete sequence at the window's end may hold (left out), and each such character scores at most
    ``_LOGP_CEILING``: the likelihood is at most their product.  A Latin text's high bytes are mostly alone (é,
    ü), a run each: French under windows-1252 reads at ~1.8 nats a high byte, and no CJK character scores above
    ~3 (bench/decode.py's windows-1252 pages lead every bound by 500 nats and more), so the squeeze and the five
    strict decodes, ~7 us of such a doubt, are spared.  The candidates are ``_Window.decoded``'s: gb18030 only
    when the window holds its four-byte shape (as the squeezed window does, test_squeeze.py).  The likelihood is a
    float sum of negative terms, so it may exceed the exact sum by its relative rounding: the bound allows 1e-9.
    """
    window, present = work.window, work.histogram[0]
    runs = loops.high_runs(window)

    def out_of_reach(candidate: str) -> bool:
        # An incomplete sequence at the window's end is left out (``_decodes``): it may hold the last run's start.
        characters = (runs - 1) // 2 if candidate == "gb18030" else runs - 1
        ascii_read = _ASCII_FROM_HIGH.get(candidate)
        if ascii_read is not None and ascii_read[0] in present:  # (bytes.count alone: ~13 us over 16 KiB)
            characters -= window.count(ascii_read)  # a run of those alone has no character beyond ASCII
        return characters * _LOGP_CEILING[candidate] * (1.0 - 1e-9) - own < loosest

    # Cheapest first: gb18030 is a candidate only with its four-byte shape, looked for last.
    if not all(out_of_reach(candidate) for candidate in _MULTI_BYTE_BUT_GB18030):
        return False
    return not loops.four_byte_gb18030(window) or out_of_reach("gb18030")


#: The single-byte encodings the bound is tried under: those whose letters beyond ASCII are mostly Latin, whose
#: texts have their high bytes alone (é, ł, ş).  A Cyrillic or Greek text's words are runs of high bytes, a run a
#: word, and the bound never holds there: not counting the runs spares those doubts its cost (~1-2 us).
_LATIN_SINGLE_BYTE = frozenset(
    encoding
    for encoding in _SINGLE_BYTE_TABLES
    if 2 * sum(script(char) == "LATIN" for char in SINGLE_BYTE[encoding] if char.isalpha())
    > sum(char.isalpha() for char in SINGLE_BYTE[encoding])
)
#: The one sequence from a high byte a scoring codec reads as ASCII: JIS X 0212's tilde, 0x2237, read as "~" by
#: Python's euc_jp (test_may_be_beaten.py enumerates every codec's sequences).
_ASCII_FROM_HIGH = {"EUC-JP": b"\x8f\xa2\xb7"}
#: Per multi-byte candidate, the highest log-probability any character has under one of its languages: a seen
#: character's (an unseen one's is a fraction of a seen letter's, or a constant below them all; held by
#: tests/decoding/detection/test_may_be_beaten.py over every character the scoring codecs can produce).
_LOGP_CEILING = {
    encoding: max(max(_CHARACTER_LOGP[language].values()) for language in LANGUAGES[encoding])
    for encoding in _MULTI_BYTE
}


def _capitals(histogram: Histogram, encoding: str) -> float:
    """The capital letters of the single-byte *encoding*'s reading of the window whose *histogram* this is."""
    return loops.best_dot_products(*histogram, _UPPER_BYTES[encoding], b"\x01")[0][0]


class _Window:
    """The window scored, its histogram, and what is computed from them once, for whichever step asks first
    (``_may_be_beaten``, then ``_likelihoods``): the single-byte dot products, the multi-byte candidates' strict
    decodes of the squeezed window, their likelihoods, and the single-byte candidates' penalties."""

    __slots__ = ("_decoded", "_dot_products", "_likelihoods", "histogram", "penalties", "window")

    def __init__(self, window: bytes) -> None:
        self.window = window
        self.histogram = loops.high_bytes(window)
        self._dot_products: tuple[list[float], bytes] | None = None
        self._decoded: tuple[bytes, tuple[str, ...], list[str | None]] | None = None
        self._likelihoods: dict[str, float] = {}
        #: The single-byte candidates' neighbour penalties computed so far (``_penalty``).
        self.penalties: dict[str, float] = {}

    def dot_products(self) -> tuple[list[float], bytes]:
        """Every single-byte candidate's best language: its likelihood and which it is (``best_dot_products``)."""
        if self._dot_products is None:
            self._dot_products = loops.best_dot_products(*self.histogram, _ALL_TABLES, _LANGUAGE_COUNTS)
        return self._dot_products

    def decoded(self) -> tuple[bytes, tuple[str, ...], list[str | None]]:
        """The squeezed window, the multi-byte candidates, and each one's strict decode of it or None
        (``_likelihoods`` says why squeezed)."""
        if self._decoded is None:
            window = self.window
            squeezed = loops.squeeze(window) if len(window) > WINDOW else window  # a grown window is mostly ASCII
            # Without a four-byte sequence gb18030 decodes as GBK does, if at all: GBK, the usual name, stands for both.
            candidates = _MULTI_BYTE if loops.four_byte_gb18030(squeezed) else _MULTI_BYTE_BUT_GB18030
            texts = loops.agreed_decodes(squeezed, _DECODER_CLASSES[candidates], _READERS[candidates])
            self._decoded = squeezed, candidates, texts
        return self._decoded

    def multi_byte_likelihood(self, encoding: str) -> float | None:
        """The multi-byte candidate *encoding*'s likelihood of its strict decode, or None (no decode)."""
        value = self._likelihoods.get(encoding)
        if value is None:
            _, candidates, texts = self.decoded()
            text = texts[candidates.index(encoding)] if encoding in candidates else None
            if text is None:
                return None
            value = self._likelihoods[encoding] = _multi_byte_likelihood(text, encoding)
        return value


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
    scored = _weigh_letter_pairs(scored, head, first_high, hint)
    scores, _, texts, histogram, _, _ = scored
    winner, likelihood = _choice(scored, hint)
    return Detection(winner, _confidence(winner, scores, likelihood, texts, histogram))


def _weigh_letter_pairs(scored: _ScoredWindow, head: bytes, first_high: int, hint: str | None) -> _ScoredWindow:
    """*scored* with the letter pairs' evidence (``latin_pairs``) added to the scores of the Latin single-byte
    readings within ``LETTER_PAIRS_MARGIN`` of the best, when the best is one and the window holds at most
    ``LETTER_PAIRS_HIGH_BYTES`` high bytes: each in its encoding's language
    that reads its pairs best, a language of ``LANGUAGE_PRIORS`` paying its prior as in the scores (not under the
    TLD that lifts it: "Kurðis" reads as Icelandic as well as "Kuršis" as Lithuanian).  Detection's alone: the
    doubt of a declaration weighs likelihoods (contradiction.py).

    The pairs are the window's and the one its first high byte makes with the letter before it (*head*'s
    byte before *first_high*, where the window starts): "Gytė" would otherwise show "ė" no letter before it.
    """
    scores, likelihoods, texts, histogram, penalised, work = scored
    best = max(scores, key=scores.__getitem__)
    if best not in _LATIN_SINGLE_BYTE or sum(histogram[1]) > LETTER_PAIRS_HIGH_BYTES:
        return scored
    threshold = scores[best] - LETTER_PAIRS_MARGIN
    # A rival that reads every high byte of the window as the best does has the same pairs.
    rivals = [
        e
        for e in _LATIN_SINGLE_BYTE
        if e != best and scores.get(e, -math.inf) >= threshold and not _decodes_alike(best, e, texts, histogram[0])
    ]
    if not rivals:
        return scored
    paired = head[max(0, first_high - 1) : first_high + len(work.window)]
    priors = {language: prior for language, (prior, lifted_under) in LANGUAGE_PRIORS.items() if hint != lifted_under}
    evidence = {e: latin_pairs.evidence(decode_bytes(e, paired)[0], LANGUAGES[e], priors) for e in (best, *rivals)}
    # Relative to the best reading's: the best Latin score stays, so pairs choose among the Latin readings and
    # never hand the page to another script's.
    weighed = dict(scores)
    for encoding in rivals:
        weighed[encoding] += LETTER_PAIR_WEIGHT * (evidence[encoding] - evidence[best])
    return weighed, likelihoods, texts, histogram, penalised, work


def _choice(scored: _ScoredWindow, hint: str | None) -> tuple[str, float]:
    """The encoding ``detect`` answers for a scored window, and its likelihood: the best score, unless the TLD's
    default holds against it (``DEFAULT_HELD_NATS``)."""
    scores, likelihoods, texts, histogram, penalised, work = scored
    winner = max(scores, key=scores.__getitem__)
    default = _fallback(hint)
    if winner != default and _reads_signs_as_letters(winner, default, histogram[0]):
        # Scored again on copies: the likelihoods asked for are penalised, which the confidence must not see.
        held = Scores(
            dict(scores), dict(likelihoods), sum(histogram[1]), work.window, hint, texts, histogram, set(penalised)
        )
        if _default_holds(winner, default, held):
            return default, held.likelihoods[default]
    return winner, likelihoods[winner]


#: Undeclared, the browser's default for the URL's TLD (windows-1252 on a .com) holds against an encoding that
#: reads the page otherwise only where the default reads a sign and it reads a letter or mark (a single-byte
#: encoding), or against a multi-byte encoding where the default reads every byte beyond ASCII as a sign, unless its
#: reading leads by as much as a declaration's doubt needs (contradiction.py): this many nats, and
#: ``DEFAULT_HELD_PER_CHARACTER`` a character the two read apart.  An English page's "»", "°" and "×" are
#: windows-874's "ป", "ฐ" and "ื", letters of a language whose model knows them well where the western languages'
#: models barely know the signs; its "©" and "®" are ISO-8859-2's "Š" and "Ž", "½" is Shift_JIS's "ｽ" and "’s" its
#: "痴".  19-22% of generated English pages with typographic signs were published as Thai, Greek or Cyrillic, where
#: Firefox's chardetng reads windows-1252 (bench/western_signs.py); 0.2-0.8% as ISO-8859-2 or Shift_JIS with the
#: rule for letters of other scripts alone, none with this one.  Real text under the default's sibling ("Ά" of a
#: Greek page is windows-1253's "¶") is untouched: only a Latin default holds; and real text of a Latin language or
#: of CJK reads many nats likelier than signs, and gives itself away by signs glued to letters (``_SYMBOLS``).
DEFAULT_HELD_NATS = 7.5
DEFAULT_HELD_PER_CHARACTER = 1.25


def _reads_signs_as_letters(winner: str, default: str, present: bytes) -> bool:
    """Whether *winner* reads the *present* high bytes that the Latin single-byte *default* reads as signs as
    letters instead: a single-byte *winner* each byte the two map apart, as a letter or mark where *default* has a
    sign; a multi-byte one any, where *default* reads every one as a sign."""
    if default not in _LATIN_SINGLE_BYTE:
        return False
    if winner not in SINGLE_BYTE:
        return not present.translate(None, _signs(default))
    apart = present.translate(None, _same_bytes(winner, default))
    return bool(apart) and not apart.translate(None, _letters_for_signs(winner, default))


@functools.cache
def _same_bytes(one: str, other: str) -> bytes:
    """The high bytes two single-byte encodings map alike."""
    return bytes(byte for byte in range(0x80, 0x100) if byte not in _differing_bytes(one, other))


def _letter(char: str) -> bool:
    return unicodedata.category(char)[0] in "LM"


@functools.cache
def _signs(encoding: str) -> bytes:
    """The high bytes the single-byte *encoding* reads as something else than a letter or mark."""
    return bytes(0x80 + index for index, char in enumerate(SINGLE_BYTE[encoding]) if not _letter(char))


@functools.cache
def _letters_for_signs(winner: str, default: str) -> bytes:
    """The high bytes *winner* reads as a letter or mark and *default* as a sign."""
    return bytes(
        0x80 + index
        for index, (mine, theirs) in enumerate(zip(SINGLE_BYTE[winner], SINGLE_BYTE[default], strict=True))
        if _letter(mine) and not _letter(theirs)
    )


def _default_holds(winner: str, default: str, held: Scores) -> bool:
    """Whether *winner*'s reading leads *default*'s by less than ``DEFAULT_HELD_NATS`` or its per-character bar."""
    own, theirs = held.likelihood(winner), held.likelihood(default)
    if own is None or theirs is None:
        return False
    lead = own - theirs
    return lead < DEFAULT_HELD_NATS or lead < DEFAULT_HELD_PER_CHARACTER * held.differing(winner, default)


#: The window's high bytes: the distinct ones in order of first occurrence, and how often each occurs.


#: What ``_scored`` gives: scores, likelihoods, multi-byte texts, the histogram, the penalised candidates, the window.
_ScoredWindow = tuple[dict[str, float], dict[str, float], dict[str, str], Histogram, set[str], "_Window"]


def _scored(
    head: bytes,
    first_high: int,
    hint: str | None,
    size: int = WINDOW,
    min_high_bytes: int = MIN_HIGH_BYTES,
    lead_over: tuple[str, float, float] | None = None,
) -> _ScoredWindow | None:
    """Every viable candidate's score (and what confidence needs, which scores are net of their neighbour
    penalty, and the window scored with what was computed from it); None when *head* has no non-ASCII byte, or
    when *lead_over* (an encoding, a margin, a cost per capital) is given and no candidate can lead that encoding's
    likelihood by the margin (``may_be_beaten``).

    *first_high* is the index of *head*'s first non-ASCII byte (-1: none), as ``_evidence_start`` found it."""
    if first_high < 0:
        return None
    work = _Window(_window(head, first_high, size, min_high_bytes))
    if lead_over is not None and not _may_be_beaten(work, *lead_over):
        return None
    window, histogram = work.window, work.histogram
    likelihoods, texts, languages = _likelihoods(work)
    scores = _with_priors(likelihoods, hint, _language_priors(work, languages, hint))
    _count_beyond_window(scores, languages, head, first_high + len(window))
    penalised: set[str] = set()
    _penalise_neighbours(scores, likelihoods, (window[:MIXING_SAMPLE], histogram), penalised, work.penalties)
    return scores, likelihoods, texts, histogram, penalised, work


def _window(head: bytes, start: int, size: int = WINDOW, min_high_bytes: int = MIN_HIGH_BYTES) -> bytes:
    """The bytes scored: *size* bytes from *start*, doubled while they hold fewer than *min_high_bytes* high ones."""
    high = loops.high_byte_count(head[start : start + size])
    while start + size < len(head) and high < min_high_bytes:
        high += loops.high_byte_count(head[start + size : start + 2 * size])  # the added half
        size *= 2
    return head[start : start + size]


def _likelihoods(work: _Window) -> tuple[dict[str, float], dict[str, str], bytes]:
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
    sums, languages = work.dot_products()
    scores = dict(zip(_SINGLE_BYTE_TABLES, sums, strict=True))
    texts: dict[str, str] = {}
    window = work.window
    squeezed, candidates, decodes = work.decoded()
    for encoding, text in zip(candidates, decodes, strict=True):
        if text is None:  # as _decodes: strictly, but for an incomplete sequence at the end
            continue
        texts[encoding] = text
        value = work.multi_byte_likelihood(encoding)
        assert value is not None  # text is not None
        scores[encoding] = value
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
    counts = loops.high_byte_counts(head[end:])
    for index in _set_bits(differing):
        extra = counts[index]
        if extra:
            for encoding in group:
                scores[encoding] += extra * tables[encoding][index]


def _with_priors(
    likelihoods: dict[str, float], hint: str | None, language_priors: dict[str, float]
) -> dict[str, float]:
    """Each likelihood plus its encoding's prior, its *language_priors* (``_language_priors``), and, when the TLD
    names the encoding, the TLD bonus."""
    scores = {encoding: value + _PRIOR[encoding] for encoding, value in likelihoods.items()}
    for encoding, prior in language_priors.items():
        scores[encoding] += prior
    for rank, encoding in enumerate(TLD_HINTS.get(hint, ()) if hint else ()):
        if encoding in scores:
            scores[encoding] += TLD_BONUS - 0.5 * rank
    return scores


def _language_priors(work: _Window, languages: bytes, hint: str | None) -> dict[str, float]:
    """What each single-byte candidate's reading pays for its best language's rarity (``LANGUAGE_PRIORS``): the
    prior, or less when another of its languages, one without a prior, reads the window nearly as well (then the
    reading pays that language's shortfall).  Nothing under the language's own TLD.  *languages* are the
    candidates' best languages, as ``_likelihoods`` gives them."""
    priors: dict[str, float] = {}
    for encoding, (by_language, other_tables, others) in _LANGUAGE_PRIORS.items():
        prior, lifted_under = by_language[languages[_SINGLE_BYTE_INDEX[encoding]]]
        if prior and hint != lifted_under:
            best = work.dot_products()[0][_SINGLE_BYTE_INDEX[encoding]]
            best_of_others = loops.best_dot_products(*work.histogram, other_tables, others)[0][0]
            priors[encoding] = max(prior, best_of_others - best)
    return priors


def _penalise_neighbours(
    ranking: dict[str, float],
    other: dict[str, float],
    evidence: tuple[bytes, Histogram],
    penalised: set[str],
    known: dict[str, float] | None = None,
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
            _penalise(encoding, ranking, other, evidence, penalised, known)
        best = max(best, ranking[encoding])


def _penalise(
    encoding: str,
    one: dict[str, float],
    other: dict[str, float],
    evidence: tuple[bytes, Histogram],
    done: set[str],
    known: dict[str, float] | None = None,
) -> None:
    """Lower *encoding*'s value in both dicts by its neighbour penalty over *evidence* (``_penalty``, *known*),
    and note it in *done*."""
    penalty = _penalty(encoding, evidence, known)
    one[encoding] += penalty
    other[encoding] += penalty
    done.add(encoding)


def _penalty(encoding: str, evidence: tuple[bytes, Histogram], known: dict[str, float] | None = None) -> float:
    """The single-byte *encoding*'s neighbour penalty over *evidence* (the window's first ``MIXING_SAMPLE`` bytes
    and its histogram): ``_neighbour_penalty``, and the cost of the capitals beyond the small letters.  *known*
    holds the penalties already computed over the same evidence, and gains this one."""
    if known is not None and (penalty := known.get(encoding)) is not None:
        return penalty
    sample, (order, counts) = evidence
    penalty = _neighbour_penalty(encoding, sample)
    capitals = loops.best_dot_products(order, counts, _CAPITAL_SIGNS[encoding], b"\x01")[0][0] - _CAPITALS_ALLOWED
    if capitals > 0:
        penalty += _CAPITAL_EXCESS * capitals
    if known is not None:
        known[encoding] = penalty
    return penalty


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
    penalty = loops.pair_sum(sample, _PAIR_CLASSES[encoding], _PAIR_WEIGHTS)
    mixing = _MIXING_CLASSES.get(encoding)
    if mixing is not None:
        penalty += _LOGP_MIXED_SCRIPT * loops.mixed_pairs(sample, mixing)
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


def _multi_byte_likelihood(text: str, encoding: str) -> float:
    """The likelihood of *text*, a multi-byte candidate's reading, under *encoding*'s best language, less
    ``LATIN_AFTER_CJK`` for each of its non-ASCII characters that an ASCII letter follows."""
    glued = loops.latin_after_non_ascii(text)
    return max(_text_likelihood(text, language) for language in LANGUAGES[encoding]) + LATIN_AFTER_CJK * glued


#: What a multi-byte reading pays (nats) for each character an ASCII letter follows.  Western text's curly quotes,
#: apostrophes and dashes are lead bytes of Shift_JIS, GBK and Big5 whose trail byte may be the next letter: "said
#: “yes”—and" is Shift_JIS "said 土es迫and", whose kanji read as likelier than the quotes; in CJK text a letter
#: rarely follows a character without a space (Firefox's chardetng penalises the same adjacency).  Read on the
#: squeezed window too (``_likelihoods``): its ASCII runs keep their first two bytes, so what follows a character
#: is kept.
LATIN_AFTER_CJK = math.log(0.01)


def _text_likelihood(text: str, language: str) -> float:
    """The log-likelihood of *text*'s non-ASCII characters under *language*'s model."""
    if loops.COMPILED:
        return loops.compiled_text_likelihood(text, _CHARACTER_LOGP[language], _UNSEEN[language], _memo(language))
    return reference_text_likelihood(text, _CHARACTER_LOGP[language], _UNSEEN[language])


def _confidence(
    winner: str, scores: dict[str, float], likelihood: float, texts: dict[str, str], histogram: Histogram
) -> float:
    """Softmax share of the candidates decoding like the winner, times the winner's plausibility.

    *histogram* counts the window's high bytes (the window's histogram, not a second pass over them)."""
    order, counts = histogram
    share = 0.0
    candidates = list(scores)
    total, indexes, weights = loops.softmax_weights(list(scores.values()), scores[winner])
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


__all__ = [
    "COMPILED",
    "DEFAULT_ENCODING",
    "LANGUAGES",
    "MAX_EXAMINED",
    "MIN_HIGH_BYTES",
    "MIXING_SAMPLE",
    "REFINE_MARGIN",
    "TLD_BONUS",
    "TLD_HINTS",
    "WINDOW",
    "Detection",
    "Histogram",
    "Scores",
    "detect",
    "may_be_beaten",
    "non_ascii_bytes",
    "ranked",
    "scores",
]
