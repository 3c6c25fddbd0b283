"""Quotation marks: what a text opens, it closes.

x-mac-cyrillic keeps its capitals where windows-1251 keeps its quotation marks (0x80-0x9F), so a page in
x-mac-cyrillic read as windows-1251 differs from the truth only at its capitals, and often at one or two: "Скорее"
is "‘корее", "Вам" "‚ам", "Дали" "„али".  Letter by letter the two readings are near (a quotation mark is about as
likely as a rare capital), but a quotation mark that opens and is never closed is not text.  ``unclosed`` counts
them, per kind of mark: it adds to the doubt between two Cyrillic encodings (contradiction.py), as letter pairs do.
"""

from __future__ import annotations

import re

#: The kinds of quotation marks: each its openers and closers.  "“" and "‘" open in English and close in German
#: and Bulgarian („…“); "„" and "‚" only open, as do "«" and "‹" (in Cyrillic and Latin pages alike: "»…«" is rare).
_KINDS = (("“„", "”“"), ("‘‚", "’‘"), ("«", "»"), ("‹", "›"))
_KIND = {mark: kind for kind, (openers, closers) in enumerate(_KINDS) for mark in openers + closers}
_OPENERS = frozenset("“„‘‚«‹")
_ONLY_OPENING = frozenset("„‚«‹")
_MARKS = re.compile("[" + "".join(_KIND) + "]")
#: A mark opened in the last this many characters of a text is not counted: its closer may lie beyond the text's
#: end (a window cut short).  On bench/false_declared.py's ``tune`` half, counting every mark quarantined true
#: labels whose segment ended in an opened quote ("неправилен режим „"); 32 none.
REACH = 32


def unclosed(text: str) -> int:
    """How many of *text*'s quotation marks open and are never closed after them.

    A mark that may open or close ("“", "‘") opens when a letter follows it and no letter precedes it; a mark that
    only opens ("„", "‚", "«", "‹") always opens, even with a space after it (a lone "‚" is a capital "В" read as
    windows-1251's quote).  An apostrophe inside a word ("don’t") neither opens nor closes.
    """
    opened: list[list[int]] = [[] for _ in _KINDS]  # per kind, where its open marks stand
    for match in _MARKS.finditer(text):
        at = match.start()
        mark = text[at]
        letter_before = at > 0 and text[at - 1].isalpha()
        letter_after = text[at + 1 : at + 2].isalpha()
        marks = opened[_KIND[mark]]
        if mark in _ONLY_OPENING or (mark in _OPENERS and letter_after and not letter_before):
            marks.append(at)
        elif marks and not (letter_before and letter_after):  # a closer, not an apostrophe
            marks.pop()
    end = len(text) - REACH
    return sum(at < end for marks in opened for at in marks)
