"""Letter pairs (``detection.pairs``): a Cyrillic text's own reading has likelier pairs than a sibling's scramble."""

from __future__ import annotations

import itertools

import pytest

from consumer.decoding.detection import pairs

RUSSIAN = ["обнаружен активный сеанс связи", "беззнаковое число вне диапазона"]
UKRAINIAN = "Україна має багату історію, а ґрунт тут родючий"
BULGARIAN = "Днес времето е хубаво и ще отидем на разходка"
#: (text, the encoding it is written in, the sibling that misreads it): each sibling's reading is a scramble.
MISREAD = [
    *((text, true, read_as) for text in RUSSIAN for true, read_as in [("koi8_r", "cp1251"), ("cp1251", "koi8_r")]),
    *((text, "iso8859_5", "cp1251") for text in RUSSIAN),
    (UKRAINIAN, "koi8_u", "cp1251"),
    (BULGARIAN, "cp1251", "koi8_r"),
]
TEXTS = [*RUSSIAN, UKRAINIAN, BULGARIAN]


@pytest.mark.parametrize(("text", "true", "read_as"), MISREAD)
def test_the_true_reading_has_the_likelier_pairs(text, true, read_as):
    scrambled = text.encode(true).decode(read_as)
    assert pairs.evidence(text) > pairs.evidence(scrambled) + 5


def test_text_without_cyrillic_letter_pairs_is_no_evidence():
    assert pairs.evidence("") == pairs.evidence("plain ASCII text") == pairs.evidence("я и ты") == 0.0


@pytest.mark.parametrize("text", [*TEXTS, "ъъъъъъ ьььь ыыыы", "ЪЪЪЪ"])
def test_each_pair_counts_at_most_the_bound(text):
    count = sum(1 for a, b in itertools.pairwise(text) if a.isalpha() and b.isalpha())
    assert abs(pairs.evidence(text)) <= pairs.PAIR_BOUND * count
