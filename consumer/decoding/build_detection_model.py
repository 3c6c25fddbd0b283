"""Build ``detection_data.py`` beside this module: per-language frequencies of non-ASCII characters.

Run with the dev extra installed (the text comes from Faker, through
``detection/training_text.py``, which the tests' evaluation corpus draws on too; and the letters counted in
Debian's translated manual pages, ``detection/manual_page_letters.py``, committed)::

    python -m consumer.decoding.build_detection_model          # rewrite detection_data.py
    python -m consumer.decoding.build_detection_model --check  # exit 1 if it would change

The text is Faker's, seed ``MODEL_SEED``, restricted to the "model" split of
words (``training_text.in_split`` assigns every word to one split by a stable
hash); the evaluation corpus is made of the other split with other seeds, so no
evaluated word was counted here.  The counts follow Faker's word lists,
so another Faker release gives other counts.  To them are added, for the Latin-script languages, the letters of
real prose (``detection/manual_pages.py`` says how they were counted; Lithuanian's from GIMP's user manual): Faker's
names and places barely write a language's commonest letters (its Italian has "è" 32 times in 120,000 characters,
its Lithuanian no "ą", "į" or "ų" at all), and bench/false_declared.py's real text, judged on its ``test`` half, was
read wrong more often without them (bench/RESULTS.md).  A language Faker has no locale for (Catalan) is counted
from that prose alone (``PROSE_ONLY``).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from .data.generate import add_check_option, table_literal, write_or_check
from .detection import training_text
from .detection.manual_page_letters import LETTERS as MANUAL_PAGE_LETTERS
from .detection.manual_page_letters import PAIRS as MANUAL_PAGE_PAIRS
from .detection.pairs import letter_pairs

OUTPUT = Path(__file__).with_name("detection_data.py")

MODEL_SEED = 0
#: Characters of training text per language: enough that every letter of an alphabet shows up many times.
CHARS_PER_LANGUAGE = 120_000
#: Ideographic languages keep their most frequent characters only; the rest fall back to a class model.
TOP_IDEOGRAPHIC = 1500
#: Characters seen fewer times than this are left to the fallback (noise in the count).
MIN_COUNT = 3
#: Letters of a language's alphabet that its Faker text lacks (Faker's Romanian names, places and jobs
#: never write î, one of the five letters Romanian adds to ASCII, and among its most frequent): each
#: gets ``ALPHABET_FLOOR`` of the language's counted total, so that a text using it is not scored as
#: if it held a foreign letter.  The alphabet is a fact of the orthography, not text: no frequency is
#: taken from anywhere but Faker and the manual pages.
ALPHABETS: dict[str, str] = {"ro": "ăâîşţ"}
ALPHABET_FLOOR = 0.05


#: Languages Faker has no locale for, counted from real prose alone (``detection/manual_pages.py``): Catalan,
#: which windows-1252 pages are written in, and which the Latin languages' models read worse than Slovak reads its
#: mojibake (bench/false_declared.py: Catalan pages under a false windows-1250 label were published as Slovak).
PROSE_ONLY: dict[str, dict[str, int]] = {
    language: letters
    for language, letters in MANUAL_PAGE_LETTERS.items()
    if language not in {faker_language for faker_language, _, _ in training_text.LOCALES.values()}
}


def count(locale: str) -> Counter[str]:
    """Non-ASCII character counts of *locale*'s model-split text, and of its manual pages' letters."""
    counts: Counter[str] = Counter()
    language = training_text.LOCALES[locale][0]
    for letter, number in MANUAL_PAGE_LETTERS.get(language, {}).items():
        counts[training_text.legacy_form(locale, letter)] += number
    for sentence in model_text(locale):
        counts.update(char for char in sentence if char >= "\x80")
    return counts


#: The languages whose pairs of adjacent letters are counted too (``detection/pairs.py``: the Cyrillic ones, whose
#: single-byte encodings read one another as scrambled text of the same letters).
PAIR_LANGUAGES = ("ru", "uk", "bg")


def count_pairs(locale: str) -> Counter[str]:
    """Pairs of adjacent Cyrillic letters, small, in *locale*'s model-split text and its manual pages."""
    pairs: Counter[str] = Counter(MANUAL_PAGE_PAIRS.get(training_text.LOCALES[locale][0], {}))
    for sentence in model_text(locale):
        pairs.update(letter_pairs(sentence))
    return pairs


def model_text(locale: str) -> Iterator[str]:
    """*locale*'s model-split sentences, ``CHARS_PER_LANGUAGE`` characters of them, as pages in its legacy
    encodings write them: Vietnamese tones as combining marks (windows-1258), Romanian ş and ţ with a cedilla
    (windows-1250 and ISO-8859-2 lack the comma below)."""
    total = 0
    for sentence in training_text.sentences(locale, MODEL_SEED, "model"):
        sentence = training_text.legacy_form(locale, sentence)
        yield sentence
        total += len(sentence)
        if total >= CHARS_PER_LANGUAGE:
            return
    raise ValueError(f"{locale}: the corpus ran out before {CHARS_PER_LANGUAGE} characters")


def render() -> str:
    frequencies: dict[str, dict[str, int]] = {}
    pairs: dict[str, dict[str, int]] = {}
    for locale, (language, _, _) in training_text.LOCALES.items():
        counts = count(locale)
        keep = counts.most_common(TOP_IDEOGRAPHIC if language in {"ja", "zh_cn", "zh_tw", "ko"} else None)
        table = {char: n for char, n in keep if n >= MIN_COUNT}
        floor = int(ALPHABET_FLOOR * sum(counts.values()))
        for letter in ALPHABETS.get(language, ""):
            table[letter] = max(table.get(letter, 0), floor)
        frequencies[language] = table
        if language in PAIR_LANGUAGES:
            pairs[language] = dict(count_pairs(locale).most_common())
    for language in sorted(PROSE_ONLY):
        frequencies[language] = {char: n for char, n in PROSE_ONLY[language].items() if n >= MIN_COUNT}
    header = [
        "# Generated by `python -m consumer.decoding.build_detection_model`; do not edit.",
        (
            '"""Non-ASCII character counts per language (and Cyrillic letter pairs), from Faker text (model split, '
            f'seed {MODEL_SEED}) and manual pages, for detection."""'
        ),
        "",
    ]
    return "\n".join([*header, *table_literal("FREQUENCIES", frequencies), "", *table_literal("PAIRS", pairs)]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m consumer.decoding.build_detection_model",
        description=f"Count the detection model's character frequencies into {OUTPUT.name}.",
    )
    add_check_option(parser, OUTPUT)
    args = parser.parse_args(argv)
    return write_or_check(OUTPUT, render(), args.check)


if __name__ == "__main__":
    sys.exit(main())
