"""What a body says against the declaration that decodes it cleanly.

A declaration that decodes a body without an error is what a browser shows.  Three lies the web tells decode
cleanly all the same, and the body gives each away; ``resolve`` asks this module about a clean decode by a
declared encoding (the Content-Type charset, a ``<meta>`` or an XML declaration, never an override), and each
answer is a deliberate, documented difference from browsers (docs/decoding.md, "Declarations the body
contradicts"):

1. *UTF-8 under a left-over legacy label* (``utf8_under_legacy_label``): a site moved to UTF-8 and kept
   ``charset=iso-8859-1`` in a header or ``<meta charset="windows-1252">`` in its template.  The body is valid
   UTF-8 with multi-byte sequences, and the legacy reading has the mojibake signature ("CafÃ©"), or it has
   four multi-byte sequences or more.  Legacy text
   is almost never valid UTF-8 (any lowercase accented letter followed by ASCII breaks it), and the signature
   asks more: sequences of the kinds real text is made of.  A true windows-1252 page whose few high bytes happen
   to form UTF-8 ("IRMÃ”", "CAFÉ’s") has no strong sequence and is left alone.  The body is read as UTF-8.  So is
   one that is UTF-8 but for a few legacy bytes left in it (``damaged_utf8_under_legacy_label``), those bytes
   replaced: lossy, so the processor quarantines it, where the label's reading was mojibake published clean.
2. *ISO-2022-JP under an ASCII-compatible label* (``iso_2022_jp_under_label``): ISO-2022-JP is 7-bit, so any
   ASCII-compatible label decodes it cleanly, escape sequences and all.  A 7-bit body whose escapes decode
   strictly as ISO-2022-JP to Japanese is read as ISO-2022-JP.
3. *A false legacy label* (``doubted``): EUC-KR served as windows-1252, windows-1251 as ISO-8859-1.  Single-byte
   encodings decode nearly any bytes, so nothing fails; but on enough non-ASCII bytes the detection model's
   language evidence tells a reading of real text from mojibake by hundreds of nats.  When the declared
   reading is far less likely than another's, the declaration is *doubted*: the decode stays the
   declaration's (a browser's), and the processor quarantines it (reason ``declaration-doubted``) instead of
   publishing a likely lie as clean; an override settles the host, and replay releases its records.  Wrong
   text is never published as clean on a guess, and a true declaration is never overruled by one.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import NamedTuple

from . import detection
from .codecs import decode_bytes, decode_strict, single_byte
from .codecs import utf8 as utf8_codec
from .codecs.iso_2022_jp import SWITCHING_ESCAPE
from .data.whatwg import NO_CODE_POINT, SINGLE_BYTE
from .detection import loops, names, pairs, signs
from .detection.model import script
from .mojibake import legacy_reading_looks_double_encoded

#: Encodings whose decode of a body is not an ASCII-compatible reading of its bytes: no check applies.
_NOT_ASCII_COMPATIBLE = frozenset({"UTF-16LE", "UTF-16BE", "ISO-2022-JP", "replacement"})
#: ... and those that are not a legacy label's: UTF-8 too, which a legacy body fails strictly.
_NOT_LEGACY = _NOT_ASCII_COMPATIBLE | {"UTF-8"}

#: A declaration is doubted only on at least this many non-ASCII bytes in the detector's window.  Fewer bytes
#: leave the unigram model's margins within what a true label of a language the model lacks can lose by.
DOUBT_EVIDENCE = 16
#: ... or this many, when the page's own ``<meta>`` names another encoding than its header (resolve.py): below
#: ``DOUBT_EVIDENCE`` the text then only chooses between two declarations.  On bench/false_declared.py's ``tune``
#: half ("false header, true meta", and the reverse, a true header and a false ``<meta>``: 2,300 pages a row), 8
#: gave the ``<meta>``'s reading to 82% of the pages at N=8 and 16% at N=4 that the header's published wrong, and no
#: true header lost; 4 gave 70% at N=4, and one true header of 2,300 lost to its false ``<meta>``.
WITNESSED_EVIDENCE = 8
#: ... and only when the declared reading's likelihood is below the best one's by at least this many nats per
#: character the two read differently.  Mojibake of a sibling label loses by 1.5 to 8 nats at each character it
#: changes (KOI8-R read as windows-1251, all capitals, the least); a true label trails by more than 1 only
#: for text the model has no language for (a Dutch page of Icelandic names read as Czech), rarely.
#: bench/false_declared.py chose it on the ``tune`` half of its corpus (bench/RESULTS.md): false sibling labels
#: at 16 and 32 non-ASCII characters 1.5 and 1.1% wrong and clean at 1.5, 1.1 and 0.9% at 1.25 or 1.0, true labels
#: never doubted at either.
DOUBT_NATS_PER_CHARACTER = 1.25
#: ... and by at least this many nats in all: one character decides only when its reading is practically
#: never text (a C1 control, a box-drawing character inside a word).
DOUBT_NATS = 7.5


#: What a non-ASCII capital letter of the declared reading costs it against a reading with fewer, when the
#: declared reading has a word in inverted case (``_strongest_rival``): about the log-odds of a capital in
#: running text (a letter is a capital 5-10% of the time: 2.3 to 2.9 nats).  Only that gate keeps pages truly in
#: capitals safe: their rivals' small-letter readings are *likelier* under the case-folding model (measured: an
#: all-caps Greek page read as KOI8-R +1.0 nats a character, windows-1251 capitals as KOI8-R +0.05, KOI8-R
#: capitals as windows-1251 +0.4).  On bench/false_declared.py's ``test`` half, false sibling labels at 16, 32
#: and 64 non-ASCII characters went from 6.1, 6.3 and 2.2% to 4.6, 3.0 and 1.5% wrong and clean (KOI8-R as
#: windows-1251, x-mac-cyrillic), true labels unchanged; 1.0 nats gave 3.9%/3.9% on the ``tune`` half at 16/32,
#: 2.0 3.7%/3.7%.
CASE_NATS = 2.0
#: The rivals the capitals are counted for: the likeliest few (a capital-swapping sibling is among them).
CASE_RIVALS = 3


#: The doubt reads less of a body than detection does (16 KiB, where detection reads 64): it runs on every clean
#: legacy decode.
DOUBT_EXAMINED = 16 * 1024
#: Under a single-byte label it reads all of that, not a first window: a sibling's mojibake is often a few characters
#: far apart (the one "Ά" of a Greek page, windows-1253's "¶" in ISO-8859-7; a Slovene name in Hungarian text), and
#: a page of names in many languages reads as its language only beside its running text.  On
#: bench/false_declared.py's ``tune`` half, false sibling labels at 1,024 non-ASCII characters were 1.3% wrong and
#: clean with a first KiB (grown to 128 high bytes), 0.7% with 4 or 8 KiB, 0.4% with 16.  Under a multi-byte label
#: it reads a first 512 bytes, grown to 128 high bytes: every rival reads such a text differently nearly everywhere
#: (a sibling's mojibake loses hundreds of nats on it), and the candidates' decodes and the characters' lookups, most
#: of the doubt's cost, grow with the window, from tables the UTF-8 pages between two CJK ones have pushed out of the
#: caches (bench/decode.py's Big5, GBK and Shift_JIS pages: 103 us a doubt over 16 KiB, 32 over a KiB; its mix, in one
#: process, 0.80x a raw decode over a KiB, 0.82x over 512 bytes).  Of bench/false_declared.py's pages (both halves, 20 a
#: row), 47,682 doubts under a multi-byte label that decodes the page, 12,308 of them doubted, gave the same outcome
#: over 512 bytes (and over 256) as over a KiB.
MULTI_BYTE_WINDOW = 512


def doubt_scope(declared: str) -> dict[str, int]:
    """What of a body the doubt of *declared* reads: ``detection.scores``' *examined*, *window* and *min_high_bytes*."""
    window = DOUBT_EXAMINED if declared in SINGLE_BYTE else MULTI_BYTE_WINDOW
    return {"examined": DOUBT_EXAMINED, "window": window, "min_high_bytes": 128}


class Doubt(NamedTuple):
    """Why a declaration is doubted: the encoding the evidence favours, by how much, on how many bytes."""

    favoured: str
    nats: float
    #: The characters the favoured and the declared readings differ at, in the detector's window.
    apart: int
    #: The non-ASCII bytes of the window: fewer than ``DOUBT_EVIDENCE`` only choose between a header and a ``<meta>``.
    non_ascii: int

    def sentence(self, source: str, declared: str) -> str:
        """The ``conflicts`` entry: what was declared, and what the text says instead."""
        return (
            f"{source} {declared} doubted: the text reads {self.nats:.0f} nats likelier as {self.favoured}, "
            f"which reads {self.apart} of its characters otherwise"
        )


def utf8_under_legacy_label(payload: bytes, declared: str) -> bool:
    """Whether *payload*, cleanly decoded by the legacy *declared*, is UTF-8 that the label turns into mojibake.

    The body must be valid UTF-8 with a multi-byte sequence, and its bytes read as windows-1252 (what a
    left-over ``iso-8859-1`` label gives) must carry the mojibake signature (``mojibake.py``): a property of the
    bytes, so it holds whichever legacy label was left over.  Under a double-byte label (GBK, Big5, EUC-KR...),
    whose text is valid UTF-8 far more often than a single-byte one's, the UTF-8 reading's letters must also be of
    one script.  Under a single-byte label, a body of fewer than ``UTF8_SEQUENCES`` sequences whose reading is
    plain text of a script other than Latin (``_reads_as_plain_text``) keeps its label: a few such letters are
    valid UTF-8 by chance ("німі" in KOI8-U is CE A6 CD A6, "Φͦ" in UTF-8).
    """
    if declared in _NOT_LEGACY or payload.isascii() or not utf8_codec.is_valid(payload):
        return False
    signature = legacy_reading_looks_double_encoded(payload)
    if not signature and _multi_byte_sequences(payload) < UTF8_SEQUENCES:
        return False
    if signature and declared in SINGLE_BYTE:
        return _multi_byte_sequences(payload) >= UTF8_SEQUENCES or not _reads_as_plain_text(payload, declared)
    # Without the signature; or under a double-byte label, where even the signature may be chance.
    return _reads_as_one_script(payload)


def damaged_utf8_under_legacy_label(payload: bytes, declared: str) -> bool:
    """Whether *payload*, cleanly decoded by the legacy *declared* but not valid UTF-8, is UTF-8 with a few malformed
    bytes that the label turns into mojibake.

    A site that moved to UTF-8 and kept its legacy label keeps some legacy bytes too (an old footer's "©", a
    record written before the move), and the label's reading of the rest is the mojibake of
    ``utf8_under_legacy_label`` ("CafÃ© crÃ¨me"), published clean.  Such a body has, in ``DAMAGED_WINDOW`` bytes
    from its first byte beyond ASCII, ``UTF8_SEQUENCES`` multi-byte sequences or more and ``DAMAGED_MAJORITY`` times
    as many as malformed bytes, and its UTF-8 reading's letters are of one script, but for a character a malformed
    byte.  Legacy text is never that: in a single-byte encoding, nearly every letter beyond ASCII is a malformed
    byte of UTF-8 (and the declaration is evidence for the legacy reading, hence more than ``resolve``'s bare
    majority for an undeclared body).
    """
    if declared in _NOT_LEGACY or payload.isascii() or utf8_codec.is_valid(payload):
        return False
    first_high = loops.first_high_byte(payload)
    window = payload[first_high : first_high + DAMAGED_WINDOW]
    if not utf8_codec.more_sequences_than_errors(window):  # a legacy page: answered in its first bytes
        return False
    sequences, errors = utf8_codec.counts(window)
    if sequences < UTF8_SEQUENCES or sequences < DAMAGED_MAJORITY * errors:
        return False
    # Two legacy bytes side by side may form a sequence of any script ("ϩ"): one odd character a malformed byte.
    return _reads_as_one_script(payload, outliers=errors)


#: How many times as many multi-byte sequences as malformed bytes a body under a legacy label must have to be read
#: as damaged UTF-8: twice ``resolve``'s bare majority for an undeclared body.  A footer's "© 2010 Société" in
#: windows-1252 is three malformed bytes; legacy text has a malformed byte at nearly every letter beyond ASCII.
DAMAGED_MAJORITY = 2
#: The bytes the majority is counted in: the question runs on every clean legacy decode, and on a legacy page the
#: early answer of ``more_sequences_than_errors`` over 4 KiB takes ~2 us, where counting 64 KiB took ~100.
DAMAGED_WINDOW = 4 * 1024


#: Valid UTF-8 with this many multi-byte sequences is UTF-8 even without the mojibake signature (whose lead
#: characters leave out scripts such as Armenian, Syriac or NKo), if its letters beyond ASCII are of one script
#: (``_reads_as_one_script``): a true single-byte legacy page that is valid UTF-8 must have no lowercase accented
#: letter before ASCII anywhere, and its every high byte must pair up; "IRMÃ” E AMANHÃ…" has two such pairs.
UTF8_SEQUENCES = 4


def _multi_byte_sequences(payload: bytes) -> int:
    """The multi-byte sequences of *payload* (valid UTF-8) in its first ``MAX_EXAMINED`` bytes: bounded."""
    sequences, _ = utf8_codec.counts(payload[: detection.MAX_EXAMINED])
    return sequences


def _reads_as_one_script(payload: bytes, outliers: int = 0) -> bool:
    """Whether the UTF-8 reading of *payload*'s first ``MAX_EXAMINED`` bytes has its letters beyond ASCII in one script,
    and no unassigned code point or control, but for *outliers* distinct characters.

    A double-byte legacy text is valid UTF-8 more often than a single-byte one: a GBK, Big5 or EUC-KR character
    whose lead is 0xC2-0xDF and trail 0xA1-0xBF is a two-byte UTF-8 sequence, and four short words in a row can
    all be ("缺失 前缀" in GBK is "ȱʧ ǰ" and an unassigned Hebrew code point, which even carries the signature: "È±",
    "Ç°").  Its UTF-8 reading scatters over the scripts of U+0080-U+07FF; real text is written in a script.
    """
    text = payload[: detection.MAX_EXAMINED].decode("utf-8", "ignore")  # "ignore": a sequence cut, a malformed byte
    scripts: dict[str, int] = {}
    odd = 0
    for char in set(text):  # each character once: the loop is over an alphabet, not the text
        if char < "\x80":
            continue
        category = unicodedata.category(char)
        if category in ("Cn", "Cc", "Co"):
            odd += 1
        elif category in _SCRIPT_LETTERS:
            name = script(char)
            scripts[name] = scripts.get(name, 0) + 1
    return odd + sum(scripts.values()) - max(scripts.values(), default=0) <= outliers


def _reads_as_plain_text(payload: bytes, declared: str) -> bool:
    """Whether the single-byte *declared* reads *payload*'s first ``MAX_EXAMINED`` bytes as plain text of one script
    other than Latin: every character beyond ASCII a letter or mark of that script, none beside an ASCII letter, no
    capital after a small letter.

    UTF-8 read under a Cyrillic, Greek, Arabic, Hebrew or Thai label rarely is: its continuation bytes are read as
    punctuation, symbols or box drawing ("РџСЂРёРІРµС‚" for "Привет" under windows-1251), or as capitals after the lead
    byte's small letter ("аЈаВ" for "Шв" under ISO-8859-5), and a Latin page's letters land inside ASCII words
    ("GrГјГџe" for "Grüße").  But not never ("РЁ" for "Ш" under windows-1251; Thai under windows-874): hence the
    bound on sequences in ``utf8_under_legacy_label``.  Latin labels are left out: UTF-8 read as windows-1252 can be
    Latin letters alone ("StraÃŸe").
    """
    text = decode_bytes(declared, payload[: detection.MAX_EXAMINED])[0]
    if _BESIDE_ASCII_LETTER.search(text) or case_of_text(text)[1]:
        return False
    scripts = set()
    for char in set(text):  # each character once: the loop is over an alphabet, not the text
        if char >= "\x80":
            if unicodedata.category(char)[0] not in "LM":
                return False
            scripts.add(script(char))
    return len(scripts) == 1 and "LATIN" not in scripts


_BESIDE_ASCII_LETTER = re.compile("[A-Za-z][^\x00-\x7f]|[^\x00-\x7f][A-Za-z]")


#: The letters whose name says their script (``model.script``): not modifier letters nor combining marks, which text
#: in any script may carry.
_SCRIPT_LETTERS = frozenset({"Lu", "Ll", "Lo"})


def iso_2022_jp_under_label(payload: bytes, declared: str) -> bool:
    """Whether *payload*, cleanly decoded by the ASCII-compatible *declared*, is ISO-2022-JP.

    It must be 7-bit with ISO-2022-JP's switching escapes, and decode strictly as ISO-2022-JP to text beyond
    ASCII: an ESC byte is never text, and a stray "ESC $ B" would not decode so.
    """
    if declared in _NOT_ASCII_COMPATIBLE or b"\x1b" not in payload or not payload.isascii():
        return False
    if SWITCHING_ESCAPE.search(payload) is None:
        return False
    text = decode_strict("ISO-2022-JP", payload)
    return text is not None and not text.isascii()


def doubted(payload: bytes, declared: str, tld: str | None, evidence: int = DOUBT_EVIDENCE) -> Doubt | None:
    """A ``Doubt`` when *payload*'s reading under the legacy *declared* is far less likely than another's; else None.

    Asks the detection model for every candidate's likelihood over its window (``detection.scores``) and
    compares the declared encoding's with the best one's, at the characters where the two read the window
    differently.  A declared encoding
    the model has no languages for (ISO-8859-15, macintosh...) is never doubted.  Bounded as detection is.
    """
    if declared in _NOT_LEGACY or declared not in detection.LANGUAGES:
        return None
    # A doubt needs a lead of DOUBT_NATS at least, of which the declared reading's capitals may give CASE_NATS each
    # (_strongest_rival): where no candidate can have it, scores stops early (None).
    # Letter pairs (_strongest_rival) may add to any lead, so under a Cyrillic label only a page no rival leads at
    # all is settled early.
    margin = 0.0 if declared in _PAIRED else DOUBT_NATS
    scored = detection.scores(payload, tld, **doubt_scope(declared), lead_over=(declared, margin, CASE_NATS))
    if scored is None or scored.non_ascii < evidence:
        return None
    declared_likelihood = scored.likelihood(declared)
    if declared_likelihood is None:
        return None  # the declared encoding fails on the window itself: not this module's case
    # Likelihoods, not scores: how common an encoding is on undeclared pages (the priors) and what the TLD
    # hints are no evidence against what a page declares; how its text reads is.
    passed_over: set[str] = set()
    while True:
        favoured, nats = _strongest_rival(scored, declared, declared_likelihood, passed_over)
        apart = scored.differing(favoured, declared)
        if not _far_enough(nats, apart):
            return None
        # Between two Latin encodings, the names both read alike may lend the declared reading what its language
        # lacks (detection/names.py); asked only of a doubt in reach, as the words are read in Python.  A rival
        # that no longer leads enough is passed over for the next: another sibling may still give the lie away.
        allowance = names.allowance(declared, favoured, functools.partial(_reading, scored), scored.histogram)
        if _far_enough(nats - allowance, apart):
            return Doubt(favoured, nats - allowance, apart, scored.non_ascii)
        passed_over.add(favoured)


def _far_enough(nats: float, apart: int) -> bool:
    """Whether a rival's lead of *nats*, over readings that differ at *apart* characters, doubts a declaration."""
    return apart > 0 and nats >= DOUBT_NATS and nats >= DOUBT_NATS_PER_CHARACTER * apart


def _strongest_rival(
    scored: detection.Scores, declared: str, declared_likelihood: float, passed_over: set[str]
) -> tuple[str, float]:
    """The encoding whose reading beats the declared one's by the most nats, and by how many, of those not
    *passed_over*.

    A rival must read the window: a single-byte encoding that has no character for one of its bytes would
    decode the page with an error, so it is never the truth a clean declaration hides (ISO-8859-8 has no
    byte 0xD7, windows-1255's geresh, yet reads visual-order Hebrew better than windows-1255 does).

    The model folds capitals to small letters (uppercase Greek must not read as KOI8-R), so it cannot see the
    one thing a cased script's sibling mojibake shows at once: KOI8-R's small letters are windows-1251's
    capitals, and a KOI8-R page read as windows-1251 is nearly all capitals, its words' capitals turned small
    ("ыХНБДЙКУЛЙК").  When the declared reading has such a word (a small letter, then a non-ASCII capital),
    each non-ASCII capital it has beyond a rival's costs it ``CASE_NATS``.  A page truly in capitals has no
    such word (nor a text with no capital at all, read as its sibling: the two are mirrors, and case cannot
    tell them apart); only the declared reading pays, so a rival never gains a doubt from capitals of its own.

    The mirror of that case, a page with no capital at all, is told by its letter pairs (``detection.pairs``):
    between two Cyrillic encodings, a rival that leads at all gains ``PAIR_WEIGHT`` times the difference of the two
    readings' pair evidence (negative when the rival's reading is the scrambled one, as for a page truly in
    capitals).  With the pairs, each reading pays for its signs where a sibling has capitals (``_sign_costs``):
    x-mac-cyrillic's capitals are windows-1251's quotation marks and dashes, and the other way round.
    """
    likelihoods = scored.likelihoods
    rivals = sorted((e for e in likelihoods if e != declared), key=likelihoods.__getitem__, reverse=True)
    rivals = [rival for rival in rivals if rival not in passed_over and _reads_window(scored, rival)]
    capitals, inverted = _case(scored, declared)
    paired = declared in _PAIRED
    declared_pairs: float | None = None
    declared_signs: float | None = None
    best: tuple[str, float] = (declared, 0.0)
    for rank, rival in enumerate(rivals):
        if (inverted or paired) and rank == CASE_RIVALS:
            break
        if not (inverted or paired) and likelihoods[rival] - declared_likelihood <= best[1]:
            break  # an upper bound (unpenalised) that cannot lead by more: nor can any after it
        likelihood = scored.likelihood(rival)  # net of its neighbour penalty, as the declared one's is
        if likelihood is None:
            continue
        nats = likelihood - declared_likelihood
        if inverted:
            nats += CASE_NATS * max(0, capitals - _case(scored, rival)[0])
        if paired and rival in _PAIRED and nats > 0:  # a rival that leads at all: what scores' early stop lets by
            if _reads_mostly_alike(scored, declared, rival):
                if declared_signs is None:
                    declared_signs = _sign_costs(scored, declared)
                nats += declared_signs - _sign_costs(scored, rival)
            if declared_pairs is None:
                declared_pairs = pairs.evidence(_reading(scored, declared)[:PAIR_CHARACTERS])
            nats += PAIR_WEIGHT * (pairs.evidence(_reading(scored, rival)[:PAIR_CHARACTERS]) - declared_pairs)
        if nats > best[1]:
            best = (rival, nats)
    return best


#: What a nat of letter-pair evidence (``detection.pairs``) counts in a doubt between two Cyrillic encodings:
#: chosen on bench/false_declared.py's ``tune`` half (false sibling labels at 16/32/64 non-ASCII characters: 3.5,
#: 3.7, 1.3% wrong and clean without pairs; 2.0, 1.3, 0.9% at 2.0, pairs bounded at 2.0 or 4.0 alike; true labels
#: unchanged).
PAIR_WEIGHT = 2.0
#: The pairs are read in this many characters of each reading (from the window's start): hundreds of pairs, tens of
#: nats either way, at a bounded cost (the pairs are counted in Python, ~0.1 us a character).
PAIR_CHARACTERS = 512
#: The single-byte encodings whose every language has letter pairs: the Cyrillic ones.
_PAIRED = frozenset(
    encoding
    for encoding, languages in detection.LANGUAGES.items()
    if encoding in SINGLE_BYTE and set(languages) <= pairs.LANGUAGES
)

#: What a quotation mark that opens and never closes (``detection.signs``) costs a reading, in a doubt between two
#: Cyrillic encodings: about the log-odds of a stray mark, log(1e-3) ...
UNCLOSED_NATS = 6.9
#: ... and what a one-letter word in capitals in mid-sentence costs it (``signs.lone_capitals``): log(0.01).
#: On bench/false_declared.py's ``tune`` half, Cyrillic encodings, seeds 2-5 (2,400 pages a row), false sibling labels
#: at 16/32/64 non-ASCII characters went from 86/49/31 wrong and clean to 50/23/19 (x-mac-cyrillic served as
#: windows-1251: "‘корее" for "Скорее", "полска С многоезична" for "полска — многоезична"), true labels from 1/1/1
#: quarantined to 0/0/0.  Counted for rivals that trail too (which scores' early stop does not let by): quotation
#: marks alone 55/30/21 at log(1e-3), 61/31/26 at log(1e-2); lone capitals at log(0.1) gave 52/26/18.  Most of what
#: lone capitals add is the benchmark's emptied placeholders ("„ “" read as windows-1251 is "Ч Т"); the rest are dashes.
LONE_CAPITAL_NATS = 4.6


def _reads_mostly_alike(scored: detection.Scores, declared: str, rival: str) -> bool:
    """Whether the two read at least half the window's non-ASCII characters alike: the signs tell apart two readings
    that differ at capitals and signs (x-mac-cyrillic's and windows-1251's), not two wholly different ones, where a
    mojibake rival's own signs would hide the declared reading's (UTF-8 read as windows-1251 is full of quotation
    marks: "РџСЂРёРІРµС‚")."""
    return 2 * scored.differing(declared, rival) <= scored.non_ascii


def _sign_costs(scored: detection.Scores, encoding: str) -> float:
    """What *encoding*'s reading pays for its signs where a sibling has capitals, in its first ``PAIR_CHARACTERS``."""
    text = _reading(scored, encoding)[:PAIR_CHARACTERS]
    return UNCLOSED_NATS * signs.unclosed_quotes(text) + LONE_CAPITAL_NATS * signs.lone_capitals(text)


def _reading(scored: detection.Scores, encoding: str) -> str:
    """*encoding*'s reading of the scored window."""
    text = scored.texts.get(encoding)
    return text if text is not None else decode_bytes(encoding, scored.window)[0]


def _reads_window(scored: detection.Scores, encoding: str) -> bool:
    """Whether *encoding* reads every byte of the scored window as a character (a multi-byte candidate has a
    likelihood only if its strict decode succeeded)."""
    unmapped = _UNMAPPED.get(encoding)
    return not unmapped or unmapped.isdisjoint(scored.histogram[0])


#: Per single-byte encoding, the high bytes it has no character for.
_UNMAPPED = {
    encoding: frozenset(0x80 + index for index, char in enumerate(high) if char == NO_CODE_POINT)
    for encoding, high in SINGLE_BYTE.items()
}


def _case(scored: detection.Scores, encoding: str) -> tuple[int, bool]:
    """The non-ASCII capitals of *encoding*'s reading of the window, and whether a small letter precedes one.

    Counted on the bytes for a single-byte encoding (each byte translated to its letter case: ~1 us a KiB,
    where a regular expression over the decoded text took 60), on the reading for a multi-byte one."""
    if encoding in single_byte.TABLES:
        return case_of_bytes(scored.window, encoding)
    return case_of_text(_reading(scored, encoding))


def case_of_bytes(data: bytes, encoding: str) -> tuple[int, bool]:
    """``case_of_text`` of the single-byte *encoding*'s reading of *data*, from the bytes."""
    mapped = data.translate(_letter_cases(encoding))
    capitals = mapped.count(_CAPITAL)
    return capitals, capitals > 0 and _SMALL + _CAPITAL in mapped


def case_of_text(text: str) -> tuple[int, bool]:
    """The non-ASCII capitals of *text*, and whether a small letter precedes one."""
    capitals = inverted = 0
    for match in loops.NON_ASCII_CAPITAL.finditer(text):
        capitals += 1
        inverted = inverted or (match.start() > 0 and text[match.start() - 1].islower())
    return capitals, bool(inverted)


_SMALL, _CAPITAL, _OTHER = b"a", b"A", b" "


@functools.cache
def _letter_cases(encoding: str) -> bytes:
    """For a single-byte *encoding*, a ``bytes.translate`` table: a byte that reads as a small letter becomes
    ``_SMALL``, one that reads as a non-ASCII capital ``_CAPITAL``, any other ``_OTHER``."""
    table = single_byte.TABLES[encoding]
    return b"".join(
        _SMALL if table[byte].islower() else _CAPITAL if byte >= 0x80 and table[byte].isupper() else _OTHER
        for byte in range(0x100)
    )
