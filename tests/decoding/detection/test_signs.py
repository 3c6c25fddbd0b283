"""Signs where a sibling has capitals (``detection.signs``): quotation marks never closed, capitals standing alone."""

from __future__ import annotations

import pytest

from consumer.decoding.detection import signs

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
    assert signs.unclosed_quotes(text + TAIL) == 0


@pytest.mark.parametrize(("text", "count"), UNCLOSED)
def test_marks_that_open_and_never_close_are_counted(text, count):
    assert signs.unclosed_quotes(text + TAIL) == count


def test_a_mark_opened_near_the_end_is_not_counted():
    # Its closer may lie beyond a window cut short: "неправилен режим „" ends a segment, its quote unfinished.
    assert signs.unclosed_quotes("неправилен режим „") == 0
    text = "неправилен режим „" + "x" * signs.REACH
    assert signs.unclosed_quotes(text) == 1


def test_a_closer_without_an_opener_is_no_evidence():
    assert signs.unclosed_quotes("слово” и «другое»" + TAIL) == 0


#: One-letter words in capitals where text has them: at a sentence's start, after a capital, as a label after a
#: digit or an ASCII word; each counted only after a small Cyrillic letter's word (and there only once a word).
LONE_CAPITALS = [
    ("полска С многоезична", 1),  # x-mac-cyrillic's " — " read as windows-1251
    ("на елемента Ч Т не може", 1),  # an emptied „ “: "Т" follows a capital
    ("витамин С и витамин Р", 2),  # text has a few
    ("Готово. С уважением, команда", 0),  # a sentence's first word
    ("версия 2 С поддержкой", 0),
    ("EurKEY С американска", 0),
    ("слово Сказано", 0),  # a capitalised word, not a letter
    ("точка С, точка А.", 2),
]


@pytest.mark.parametrize(("text", "count"), LONE_CAPITALS)
def test_one_letter_words_in_capitals_in_mid_sentence_are_counted(text, count):
    assert signs.lone_capitals(text) == count
