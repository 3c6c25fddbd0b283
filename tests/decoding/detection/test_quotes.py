"""Quotation marks (``detection.quotes``): what a text opens and never closes."""

from __future__ import annotations

import pytest

from consumer.decoding.detection import quotes

#: Enough text after a mark that its closer would have come: ``REACH`` characters and more.
TAIL = " и ещё немного текста после него, чтобы закрыть кавычку."

BALANCED = [
    "Он сказал: „Сохраните файл“, и вышел.",  # Russian and Bulgarian: „…“
    "Нажмите кнопку «Сохранить», чтобы записать изменения.",
    "The “network” module is not loaded.",
    "A ‘single’ quote and a ‚low‘ one, „nested ‚quotes‘ too“.",
    "Don’t, won’t, l’été: apostrophes inside words neither open nor close.",
    "An emptied pair „ “ is balanced, as is « ».",
]
#: x-mac-cyrillic's capitals read as windows-1251: a quotation mark glued to a word, or standing alone, never closed.
UNCLOSED = [
    ("‘корее всего, файл был удалён", 1),  # "Скорее"
    ("„али искате да запишете промените", 1),  # "Дали"
    ("“далить выбранные файлы", 1),  # "Удалить"
    ("‚ момента сте на клон", 1),  # "В момента": "‚" only opens, even alone
    ("‚ключване на „автоматично запазване“", 1),
    ("«один» и «два", 1),
]


@pytest.mark.parametrize("text", BALANCED)
def test_balanced_quotation_marks_are_not_unclosed(text):
    assert quotes.unclosed(text + TAIL) == 0


@pytest.mark.parametrize(("text", "count"), UNCLOSED)
def test_marks_that_open_and_never_close_are_counted(text, count):
    assert quotes.unclosed(text + TAIL) == count


def test_a_mark_opened_near_the_end_is_not_counted():
    # Its closer may lie beyond a window cut short: "неправилен режим „" ends a segment, its quote unfinished.
    assert quotes.unclosed("неправилен режим „") == 0
    text = "неправилен режим „" + "x" * quotes.REACH
    assert quotes.unclosed(text) == 1


def test_a_closer_without_an_opener_is_no_evidence():
    assert quotes.unclosed("слово” и «другое»" + TAIL) == 0
