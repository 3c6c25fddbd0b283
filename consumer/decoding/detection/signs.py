"""Signs where a sibling has capitals: what tells x-mac-cyrillic and windows-1251 apart.

The two encodings put their small letters on the same bytes (but "я"), and each keeps its capitals where the other
keeps signs: x-mac-cyrillic's capitals (0x80-0x9F) are windows-1251's quotation marks, dashes and Serbian letters,
and x-mac-cyrillic's dashes, quotation marks and guillemets (0xC7-0xD7) are windows-1251's capitals.  A page in one
read as the other therefore differs from the truth only at its capitals and signs, often at one or two; letter by
letter the two readings are near (a sign is about as likely as a rare capital).  But each misreading leaves signs and
capitals where text does not have them, and these count them, for the doubt between two Cyrillic encodings
(contradiction.py), as letter pairs do:

- ``unclosed_quotes``: quotation marks that open and never close.  "Скорее" read as windows-1251 is "‘корее",
  "Дали" "„али", "В момента" "‚ момента".
- ``lone_capitals``: a capital standing alone as a word after a small letter's word, where text has a spaced
  dash.  "полска — многоезична" read as windows-1251 is "полска С многоезична".
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


def unclosed_quotes(text: str) -> int:
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


#: A Cyrillic capital after a small Cyrillic letter and a space, and before no letter or digit: a one-letter word
#: in capitals in mid-sentence.  Text has a few ("витамин С", "точка А"); a spaced dash, a numero sign or an emptied
#: pair of quotation marks of x-mac-cyrillic read as windows-1251 has one each (" — " is " С ", " № " is " Ь ").
_LONE_CAPITAL = re.compile(r"(?<=[а-џ] )[Ѐ-Я](?!\w)")


def lone_capitals(text: str) -> int:
    """How many one-letter words in Cyrillic capitals *text* has in mid-sentence, after a word in small letters."""
    return len(_LONE_CAPITAL.findall(text))
