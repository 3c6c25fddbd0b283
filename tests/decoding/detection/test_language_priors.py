"""A language far rarer than the others of its encoding pays a prior (``model.LANGUAGE_PRIORS``): Icelandic among
windows-1252's.

Scored in its best language alone, a windows-1252 reading of an English page naming a Lithuanian or Estonian person
read as Icelandic: windows-1257's "Š", "š", "Ž" and "ž" are windows-1252's "Ð", "ð", "Þ" and "þ", letters only
Icelandic has among windows-1252's languages.  The names and sentences are written for these tests.
"""

from __future__ import annotations

import pytest

from consumer.decoding.data.whatwg import SINGLE_BYTE
from consumer.decoding.detection import LANGUAGES, detect, scores
from consumer.decoding.detection.model import LANGUAGE_PRIORS, PRIORS

ICELANDIC_PRIOR, ICELANDIC_TLD = LANGUAGE_PRIORS["is"]


def english_page_naming(name: str) -> bytes:
    return f"<p>The report was written by {name} for the city council last spring.</p>".encode("cp1257")


@pytest.mark.parametrize(
    "name",
    [
        "Jonas Štaras",
        "Rasa Šimkutė",
        "Tõnu Šmidt",
        "Vytautas Kuršis",
        "Darius Šarūnas",
        "Eglė Paškevičiūtė",
        "Aivar Štšerbakov",
        "Laura Šeškė",
        "Marius Ožeškis",
        "Peeter Šilov",
        "Anu Kaškin",
        # Known misses, each a single letter that reads as well in another encoding's language: a capital "Ž"
        # first in a word is windows-1254's "Ş" (Turkish, whose prior is windows-1257's), and "ę" is
        # windows-1250's (Polish).  Strict: a change that gets them right says so.
        *(
            pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=f"read as {other}"))
            for name, other in (
                ("Andrius Žukauskas", "windows-1254"),
                ("Mart Žukov", "windows-1254"),
                ("Tiit Žuravljov", "windows-1254"),
                ("Kęstutis Šapoka", "windows-1250"),
            )
        ),
    ],
)
def test_an_english_page_naming_a_baltic_person_is_windows_1257_not_icelandic(name: str) -> None:
    assert detect(english_page_naming(name)).encoding == "windows-1257"


ICELANDIC = [
    "Þetta er góð bók um sögu Íslands.",
    "Guðrún Þórðardóttir býr í Reykjavík.",
    "Við förum á morgun.",
    "Þú ert það.",
]


@pytest.mark.parametrize("text", ICELANDIC)
@pytest.mark.parametrize("tld", [None, "com", ICELANDIC_TLD])
def test_icelandic_text_stays_windows_1252(text: str, tld: str | None) -> None:
    assert detect(f"<p>{text}</p>".encode("cp1252"), tld).encoding == "windows-1252"


def test_the_prior_is_in_scores_not_likelihoods_and_lifted_under_the_language_s_tld() -> None:
    body = f"<p>{' '.join(ICELANDIC)}</p>".encode("cp1252")
    plain, at_home = scores(body), scores(body, ICELANDIC_TLD)
    assert plain is not None and at_home is not None
    # Likelihoods are the evidence a declaration's doubt weighs (contradiction.py): no prior is in them.
    assert plain.likelihoods == at_home.likelihoods
    own = plain.likelihoods["windows-1252"]
    assert plain.scores["windows-1252"] == pytest.approx(own + PRIORS["windows-1252"] + ICELANDIC_PRIOR)
    # .is names no encoding (its pages are windows-1252's default), so no TLD bonus there either.
    assert at_home.scores["windows-1252"] == pytest.approx(own + PRIORS["windows-1252"])


def test_letters_other_languages_share_cost_no_more_than_their_shortfall() -> None:
    # "ó" is likeliest in Icelandic, but Spanish or Portuguese read it nearly as well: the reading pays their
    # shortfall, not the prior, and a one-byte body stays windows-1252's "ó" (not a Shift_JIS lead cut short).
    body = "<p>Sól.</p>".encode("cp1252")
    found = scores(body)
    assert found is not None
    paid = found.scores["windows-1252"] - found.likelihoods["windows-1252"] - PRIORS["windows-1252"]
    assert ICELANDIC_PRIOR < paid <= 0
    assert detect(b"\xf3").encoding == "windows-1252"


def test_a_page_read_best_in_another_language_pays_no_language_prior() -> None:
    body = "<p>Der Bürgermeister eröffnete die Straße am Montag.</p>".encode("cp1252")
    found = scores(body)
    assert found is not None
    assert found.scores["windows-1252"] == pytest.approx(found.likelihoods["windows-1252"] + PRIORS["windows-1252"])


def test_every_language_with_a_prior_is_a_single_byte_encoding_s_beside_one_without() -> None:
    # A prior is paid against the encoding's other languages (detection._language_priors): a language of a
    # multi-byte encoding would be ignored, and an encoding whose every language had one would have none to read.
    single_byte = {encoding: languages for encoding, languages in LANGUAGES.items() if encoding in SINGLE_BYTE}
    for language, (prior, _) in LANGUAGE_PRIORS.items():
        assert prior < 0
        holders = [languages for languages in single_byte.values() if language in languages]
        assert holders, language
        assert all(set(languages) - LANGUAGE_PRIORS.keys() for languages in holders), language
