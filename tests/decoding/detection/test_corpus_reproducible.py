"""The detection corpus (and the model generated from it) does not depend on when it is drawn.

Faker's day and month names come from dates drawn up to "now"; consumer/decoding/detection/training_text.py pins that moment
(CORPUS_NOW). Without the pin the model's ja section came out different from one day to the next and
``build_detection_model --check`` failed on a fresh install.
"""

from __future__ import annotations

import datetime as dt
from itertools import islice

import faker.providers.date_time as faker_dates

import corpus


def _first_sentences(locale: str) -> list[str]:
    return list(islice(corpus.sentences(locale, 0, "model"), 300))


def test_sentences_are_the_same_whatever_the_clock_says(monkeypatch):
    today = {locale: _first_sentences(locale) for locale in ("ja_JP", "de_DE")}

    class Later(dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return dt.datetime(2041, 7, 15, 12, 0, tzinfo=tz)

    monkeypatch.setattr(faker_dates, "datetime", Later)
    assert {locale: _first_sentences(locale) for locale in today} == today
