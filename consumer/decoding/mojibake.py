"""Mojibake: text that looks like UTF-8 decoded once too often, as windows-1252.

When someone upstream decodes UTF-8 bytes as windows-1252 (or ISO-8859-1) and
encodes the result as UTF-8 again, every multi-byte character turns into two
to four characters: "é" (C3 A9) into "Ã©", "’" (E2 80 99) into "â€™".  The
decode is then correct and the text is still wrong.  ``looks_double_encoded``
flags it; it never changes the text (repairing is a human decision).
"""

from __future__ import annotations

import re

from . import _native
from .data.whatwg import SINGLE_BYTE

# windows-1252's 0x80-0x9F.  The five bytes it leaves undefined (81, 8D, 8F,
# 90, 9D) decode as the C1 controls U+0081... in browsers, as ISO-8859-1
# decodes all 32, so those map back to the same bytes.
_CP1252_80_9F = SINGLE_BYTE["windows-1252"][:32]  # from the standard's index: a hand-typed copy lost 0x8D
assert len(_CP1252_80_9F) == 32 and _CP1252_80_9F[0x12] == "’"
_TO_BYTE = {char: 0x80 + index for index, char in enumerate(_CP1252_80_9F)}
_TO_BYTE.update({chr(code): code for code in range(0x80, 0x100)})


def _trie(encodings: list[bytes]) -> bytes:
    """A pattern matching any of *encodings*, factored by leading byte so the engine tries few branches."""
    if any(not encoding for encoding in encodings):
        return b""
    by_first: dict[int, list[bytes]] = {}
    for encoding in encodings:
        by_first.setdefault(encoding[0], []).append(encoding[1:])
    branches = [re.escape(bytes([first])) + _trie(rests) for first, rests in sorted(by_first.items())]
    return branches[0] if len(branches) == 1 else b"(?:" + b"|".join(branches) + b")"


# The search runs over the text's UTF-8 encoding, where every lead character
# (U+00C2-U+00F4) starts with the byte C3: a pattern with a literal first byte
# lets the engine skip to candidates at memchr speed, even in accented text.
# A continuation byte 0x80-0xBF shows as U+0080-U+00BF (C2 80-BF) or as one of
# windows-1252's punctuation characters.
_CONTINUATION = (
    rb"(?:\xc2[\x80-\xbf]|" + _trie([char.encode("utf-8") for char in _CP1252_80_9F if char > "\xbf"]) + rb")"
)
# Two-byte leads whose characters are plausible in text: Latin-1 and Latin
# Extended (C2-C9), Greek (CE-CF), Cyrillic (D0-D3), Hebrew letters (D7),
# Arabic (D8-DB).  Leads decoding to IPA, combining marks, Armenian or NKo are
# left out: "ß«" and "É”" are German and French, not mojibake.
_SEQUENCE = re.compile(
    # The lookahead names the first bytes of every continuation's encoding,
    # so that "é" followed by a letter is rejected after three bytes.
    rb"\xc3(?=[\x82-\xb4][\xc2\xc5\xc6\xcb\xe2])"
    rb"(?:[\x82-\x89\x8e-\x93\x97-\x9b]" + _CONTINUATION  # U+00C2-00C9, 00CE-00D3, 00D7-00DB
    + rb"|[\xa0-\xaf]" + _CONTINUATION + rb"{2}"  # U+00E0-00EF: three-byte leads
    + rb"|[\xb0-\xb4]" + _CONTINUATION + rb"{3})"  # U+00F0-00F4: four-byte leads
)
# The first bytes of the continuations' encodings: the byte that follows a lead character in
# every match.  Most common in clean text first (E2: ’ “ – …; C2: NBSP « ©; C5: Central European
# letters), so that a find that succeeds early bounds the ones after it.
_CONTINUATION_LEADS = (b"\xe2", b"\xc2", b"\xc5", b"\xc6", b"\xcb")
assert {lead[0] for lead in _CONTINUATION_LEADS} == {
    char.encode("utf-8")[0] for char in _CP1252_80_9F + "".join(map(chr, range(0x80, 0xC0)))
}
# Characters that end words, so "IRMÃ”" or "AMANHÃ…" may be Portuguese
# capitals before punctuation: a sequence continued only by these is weak
# evidence and never flags a text by itself.
_WORD_FINAL = frozenset("\u00a0’”…–—»·")
#: A single strong sequence flags a text only if it is at least this share of its non-ASCII characters.
SINGLE_SEQUENCE_SHARE = 0.25
#: Only this many bytes of the text's UTF-8 encoding are examined: the work is bounded (this
#: check runs on every record, and the regex costs about as much as the UTF-8 decode itself per
#: KB of accented text, the compiled scan a third of it), and an upstream double decode spoils a
#: whole page, its head and first paragraphs included.  Bytes rather than characters, so that the
#: scans' cost does not grow threefold on CJK text.
MAX_BYTES = 16384


def possible_in(encoding: str) -> bool:
    """Whether a text decoded from *encoding* can look double-encoded at all.

    Every double-encoded sequence starts with a lead character U+00C2-U+00F4
    ("Ã" of "Ã©"): a single-byte encoding that maps no byte to one (the
    Cyrillic, Greek, Arabic and Thai ones) never gives a text the check could
    flag, so it is not run.  Any other encoding may.
    """
    return encoding not in _WITHOUT_LEAD_CHARACTERS


_WITHOUT_LEAD_CHARACTERS = frozenset(
    name for name, table in SINGLE_BYTE.items() if not any("\u00c2" <= char <= "\u00f4" for char in table)
)


def looks_double_encoded(text: str) -> bool:
    """Whether *text* looks like UTF-8 that was decoded as windows-1252 and re-encoded.

    A candidate is a run of characters that windows-1252 maps back to bytes
    forming one valid UTF-8 character (so "Ã©" counts; "SÃO" does not).  A
    candidate continued only by word-final punctuation ("Ã”" in "IRMÃ”") is
    weak and never counts alone.  The text is flagged with two strong
    candidates, or with one that makes up a quarter or more of the text's
    non-ASCII characters (a short title like "CafÃ©").  Looks at the
    characters within the first ``MAX_BYTES`` bytes of the text's UTF-8
    encoding only.  ``utf8_looks_double_encoded`` answers from that encoding
    (a UTF-8 body's own bytes), which spares encoding the text again.
    """
    if text.isascii():
        return False
    # Every character takes at least one byte: MAX_BYTES characters cover the window.  Every sequence starts
    # with a lead character and a continuation character: a text without that pair (nearly every CJK text, and
    # Latin text whose accented letters are followed by ASCII) is answered without encoding it.
    if not may_hold_a_sequence(text, MAX_BYTES):
        return False
    return utf8_looks_double_encoded(text[:MAX_BYTES].encode("utf-8", "surrogatepass"))


def utf8_looks_double_encoded(utf8: bytes) -> bool:
    """``looks_double_encoded`` of the text whose UTF-8 encoding is *utf8*, without that text."""
    # Both tiers read the window only, and find no C3 in an ASCII one: an ASCII body is answered
    # without reading past it, where bytes.isascii() would read it whole (lazy_text asks every body).
    end = len(utf8) if len(utf8) <= MAX_BYTES else _window_end(utf8)
    strong, covered = strong_sequences(utf8, end)
    if strong == 0:
        return False
    if strong >= 2:
        return True
    window = utf8[:end].decode("utf-8", "surrogatepass")
    non_ascii = len(window) - len(window.encode("ascii", "ignore"))
    return covered >= non_ascii * SINGLE_SEQUENCE_SHARE


def legacy_reading_looks_double_encoded(utf8: bytes) -> bool:
    """Whether valid UTF-8 *utf8*, read as windows-1252 (a left-over ``iso-8859-1`` label), looks double-encoded.

    The reading a legacy label gives such a body is the mojibake this module flags, and the signature is a
    property of the bytes (a lead byte C2-F4 followed by continuation bytes of the kinds real text is made
    of), whichever single-byte label was left over.  Reads the first ``MAX_BYTES`` bytes; for
    ``contradiction.utf8_under_legacy_label``.
    """
    return looks_double_encoded(utf8[:MAX_BYTES].decode("latin-1").translate(_WINDOWS_1252_80_9F))


# windows-1252's reading of a byte is latin-1's but for 0x80-0x9F (its five undefined bytes stay C1 controls).
_WINDOWS_1252_80_9F = {0x80 + index: char for index, char in enumerate(_CP1252_80_9F)}


def reference_strong_sequences(utf8: bytes, end: int) -> tuple[int, int]:
    """The strong sequences in ``utf8[:end]`` (counted up to 2: two flag a text) and their characters.

    ``strong_sequences`` without the extension, and the reference it is tested against.
    """
    strong = covered = 0
    start = _first_possible_start(utf8, end)
    if start < 0:
        return strong, covered
    for match in _SEQUENCE.finditer(utf8, start, end):
        sequence = match.group().decode("utf-8")
        if not _is_utf_8(sequence) or all(char in _WORD_FINAL for char in sequence[1:]):
            continue
        strong += 1
        covered += len(sequence)
        if strong >= 2:
            break
    return strong, covered


# strong_sequences(utf8, end) -> (strong, covered): ``reference_strong_sequences``, compiled.  On
# accented text with ’ or NBSP the regex stops at every C3 (every accented letter) to fail its
# lookahead, up to three times the cost of decoding the page; _native/mojibake.c tests 16 positions a
# step for the lookahead's three bytes and matches only where all three are (bench/mojibake.py).
#: Whether the compiled scan runs (else ``strong_sequences`` is the regex, with the same answers, slower).
COMPILED = _native.extension("mojibake") is not None
if COMPILED:
    from ._native.mojibake import may_hold_a_sequence as may_hold_a_sequence
    from ._native.mojibake import strong_sequences as strong_sequences
else:  # installed without a C compiler

    def may_hold_a_sequence(text: str, end: int, /) -> bool:
        return True  # no check: the regex would cost more than the encoding it spares

    strong_sequences = reference_strong_sequences


# The first two characters of every sequence: a lead character, then a continuation character (U+0080-U+00BF
# or one of windows-1252's characters for 0x80-0x9F).
_LEAD_THEN_CONTINUATION = re.compile(
    "[\u00c2-\u00f4][\u0080-\u00bf" + "".join(sorted(char for char in _CP1252_80_9F if char > "\xbf")) + "]"
)


def reference_may_hold_a_sequence(text: str, end: int) -> bool:
    """Whether ``text[:end]`` holds a lead character (U+00C2-U+00F4) followed by a continuation character.

    A necessary condition of any sequence: False means ``looks_double_encoded`` is False, without encoding
    the text.  The reference ``may_hold_a_sequence`` is tested against; without the extension the check is
    not made (this search costs more than the encoding it would spare: ~15 us a CJK page).
    """
    return _LEAD_THEN_CONTINUATION.search(text, 0, max(end, 0)) is not None


def _window_end(utf8: bytes) -> int:
    """Where the examined window of *utf8*, longer than ``MAX_BYTES``, ends: never inside a character."""
    end = MAX_BYTES
    while utf8[end] & 0xC0 == 0x80:  # a continuation byte: the character started before
        end -= 1
    return end


def _first_possible_start(encoded: bytes, end: int) -> int:
    """Where ``_SEQUENCE`` may first match in ``encoded[:end]``, or -1 where it cannot match at all.

    Necessary conditions, each found at memchr speed: a match starts with C3 (every
    lead character, U+00C0-U+00FF, is C3 xx in UTF-8), and its third byte is the
    first byte of a continuation's encoding (``_CONTINUATION_LEADS``).  A match
    starting at s has that byte at s + 2 >= (the first C3) + 2, so no match
    starts before the first such byte minus 2.  Accented text without any
    continuation lead (no NBSP, no "’") is answered here without the regex.
    """
    first_lead = encoded.find(b"\xc3", 0, end)
    if first_lead < 0:
        return -1
    first_third = end
    for byte in _CONTINUATION_LEADS:
        found = encoded.find(byte, first_lead + 2, first_third)  # only an earlier one matters
        if found >= 0:
            first_third = found
    if first_third == end:
        return -1
    return max(first_lead, first_third - 2)


def _is_utf_8(sequence: str) -> bool:
    try:
        bytes(_TO_BYTE[char] for char in sequence).decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
