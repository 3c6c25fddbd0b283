"""Accuracy on the held-out Faker corpus: the share of pages decoded to exactly their text."""

from __future__ import annotations

from collections import defaultdict

import pytest

from consumer.decoding.detection import detect

from corpus import LOCALES, Page, decode

#: The detector's target: pages decoded to exactly the right text.
TARGET = 0.97


def exact_share(pages: list[Page], hinted: bool) -> float:
    right = 0
    for page in pages:
        right += decode(page.body, detect(page.body, page.tld if hinted else None).encoding) == page.text
    return right / len(pages)


def test_corpus_covers_at_least_20_encodings_and_no_page_is_utf8(accuracy_corpus: list[Page]) -> None:
    assert len({page.encoding for page in accuracy_corpus}) >= 20
    assert {page.locale for page in accuracy_corpus} == set(LOCALES)
    for page in accuracy_corpus:
        with pytest.raises(UnicodeDecodeError):
            page.body.decode("utf-8")


@pytest.mark.parametrize("hinted", [False, True], ids=["no-hint", "tld-hint"])
def test_overall_accuracy_meets_target(accuracy_corpus: list[Page], hinted: bool) -> None:
    assert exact_share(accuracy_corpus, hinted) >= TARGET


def test_every_encoding_is_mostly_right_with_its_tld(accuracy_corpus: list[Page]) -> None:
    by_encoding: dict[str, list[Page]] = defaultdict(list)
    for page in accuracy_corpus:
        by_encoding[page.encoding].append(page)
    shares = {encoding: exact_share(pages, hinted=True) for encoding, pages in by_encoding.items()}
    assert {encoding: share for encoding, share in shares.items() if share < 0.8} == {}
