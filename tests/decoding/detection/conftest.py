"""Fixtures for detection tests: the held-out Faker corpus."""

from __future__ import annotations

import pytest

from corpus import Page, corpus

#: Pages per (locale, encoding) pair and the seed of the accuracy corpus (the model is built from seed 0, other words).
ACCURACY_PAGES_PER_ENCODING = 6
ACCURACY_SEED = 20_260_101


@pytest.fixture(scope="session")
def accuracy_corpus() -> list[Page]:
    return corpus(ACCURACY_PAGES_PER_ENCODING, ACCURACY_SEED)
