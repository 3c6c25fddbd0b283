"""The text the detection model is counted from, and the detection corpus is made of: Faker's, by locale.

A build-time module: ``..build_detection_model`` counts the model from it, and the tests' and
benchmarks' evaluation corpus (tests/decoding/detection/corpus.py) makes pages from it; nothing the
processor runs imports it, and it needs Faker (the dev extra, pinned exactly: another release gives
other text).  Every word is assigned to exactly one *split* by a stable hash (``in_split``), so the
model (the "model" split) never sees a word of the pages it is evaluated on (the "eval" split).
"""

from __future__ import annotations

import datetime as dt
import random
import unicodedata
import zlib
from collections.abc import Callable, Iterator
from importlib.util import find_spec

from faker import Faker
from faker.providers.date_time import Provider as DateTimeProvider

#: Faker locale -> (model language key, the encodings its pages are written in, the URL TLD).
LOCALES: dict[str, tuple[str, tuple[str, ...], str]] = {
    "ja_JP": ("ja", ("Shift_JIS", "EUC-JP"), "jp"),
    "zh_CN": ("zh_cn", ("GBK", "gb18030"), "cn"),
    "zh_TW": ("zh_tw", ("Big5",), "tw"),
    "ko_KR": ("ko", ("EUC-KR",), "kr"),
    "ru_RU": ("ru", ("windows-1251", "KOI8-R", "IBM866", "ISO-8859-5", "x-mac-cyrillic"), "ru"),
    "uk_UA": ("uk", ("windows-1251", "KOI8-U"), "ua"),
    "bg_BG": ("bg", ("windows-1251",), "bg"),
    "el_GR": ("el", ("windows-1253", "ISO-8859-7"), "gr"),
    "he_IL": ("he", ("windows-1255", "ISO-8859-8"), "il"),
    "ar_AA": ("ar", ("windows-1256", "ISO-8859-6"), "eg"),
    "fa_IR": ("fa", ("windows-1256",), "ir"),
    "tr_TR": ("tr", ("windows-1254",), "tr"),
    "th_TH": ("th", ("windows-874",), "th"),
    "vi_VN": ("vi", ("windows-1258",), "vn"),
    "pl_PL": ("pl", ("windows-1250", "ISO-8859-2"), "pl"),
    "cs_CZ": ("cs", ("windows-1250", "ISO-8859-2"), "cz"),
    "hu_HU": ("hu", ("windows-1250", "ISO-8859-2"), "hu"),
    "ro_RO": ("ro", ("windows-1250", "ISO-8859-2"), "ro"),
    "sk_SK": ("sk", ("windows-1250", "ISO-8859-2"), "sk"),
    "hr_HR": ("hr", ("windows-1250", "ISO-8859-2"), "hr"),
    "sl_SI": ("sl", ("windows-1250", "ISO-8859-2"), "si"),
    "lt_LT": ("lt", ("windows-1257",), "lt"),
    "lv_LV": ("lv", ("windows-1257",), "lv"),
    "et_EE": ("et", ("windows-1257",), "ee"),
    "de_DE": ("de", ("windows-1252",), "de"),
    "fr_FR": ("fr", ("windows-1252",), "fr"),
    "es_ES": ("es", ("windows-1252",), "es"),
    "pt_BR": ("pt", ("windows-1252",), "br"),
    "it_IT": ("it", ("windows-1252",), "it"),
    "nl_NL": ("nl", ("windows-1252",), "nl"),
    "da_DK": ("da", ("windows-1252",), "dk"),
    "sv_SE": ("sv", ("windows-1252",), "se"),
    "fi_FI": ("fi", ("windows-1252",), "fi"),
    "is_IS": ("is", ("windows-1252",), "is"),
}

_NO_SPACES = {"ja_JP", "zh_CN", "zh_TW", "th_TH"}
_FULL_STOP = {"ja_JP": "。", "zh_CN": "。", "zh_TW": "。", "th_TH": " "}
_NON_LATIN = {
    "ja_JP", "zh_CN", "zh_TW", "ko_KR", "ru_RU", "uk_UA", "bg_BG", "el_GR", "he_IL", "ar_AA", "fa_IR", "th_TH",
}
# Providers localized in many locales (others answer in English: ASCII words, dropped for non-Latin scripts);
# lorem is used where the locale has its own word list.
_PROVIDERS = (
    "first_name", "last_name", "city", "street_name", "job", "company",
    "catch_phrase", "country", "day_of_week", "month_name", "administrative_unit", "color_name",
)


def in_split(word: str, split: str) -> bool:
    """Whether *word* belongs to *split* ("model" or "eval"), stably across runs."""
    return (zlib.crc32(word.casefold().encode("utf-8")) & 1) == (0 if split == "model" else 1)


def sentences(locale: str, seed: int, split: str) -> Iterator[str]:
    """An endless stream of sentences of *locale* made only of *split* words."""
    fake = _FAKERS.get(locale) or _FAKERS.setdefault(locale, Faker(locale))
    fake.seed_instance(seed)
    rng = random.Random(seed)
    has_lorem = find_spec(f"faker.providers.lorem.{locale}") is not None
    joiner = "" if locale in _NO_SPACES else " "
    while True:
        words: list[str] = []
        length = rng.randint(4, 12)
        while len(words) < length:
            for word in _some_words(fake, rng, has_lorem, locale):
                if in_split(word, split) and (locale not in _NON_LATIN or not word.isascii()):
                    words.append(word)
        sentence = joiner.join(words)
        sentence = sentence[:1].upper() + sentence[1:]
        yield sentence + _FULL_STOP.get(locale, ".")


_FAKERS: dict[str, Faker] = {}

#: Faker draws the dates behind ``day_of_week`` and ``month_name`` between the epoch and *now*, so the same
#: seed gave other weekdays and months as time passed (the model's ja section changed from one day to the
#: next). The corpus is drawn as if it were always this moment: the model and the evaluation pages
#: regenerate byte for byte.
CORPUS_NOW = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
_PATCHED = "_parse_end_datetime"
_parse_end_datetime: Callable[[type[DateTimeProvider], object], int] = vars(DateTimeProvider)[_PATCHED].__func__


def _end_at_corpus_now(cls: type[DateTimeProvider], value: object) -> int:
    """Faker's own parsing of an end date, with CORPUS_NOW for "now"."""
    return _parse_end_datetime(cls, CORPUS_NOW if value is None else value)


setattr(DateTimeProvider, _PATCHED, classmethod(_end_at_corpus_now))


#: Providers whose answers a seed does not fix in some locale (it_IT's city draws from a set, ordered by the
#: process's string hashing): another provider is asked instead, so the model regenerates byte for byte.
_UNSEEDED = {"it_IT": {"city": "last_name"}}


def _some_words(fake: Faker, rng: random.Random, has_lorem: bool, locale: str = "") -> list[str]:
    if has_lorem and rng.random() < 0.7:
        return list(fake.words(3))
    name = rng.choice(_PROVIDERS)
    name = _UNSEEDED.get(locale, {}).get(name, name)
    provider = getattr(fake, name, fake.city)  # not every locale has every provider
    return provider().replace(",", " ").split()


def to_windows_1258_form(text: str) -> str:
    """Vietnamese as windows-1258 writes it: base letters precomposed, tone marks combining.

    windows-1258 has â, ê, ô, ơ, ư, ă, đ but none of the toned letters; the five
    tone marks are separate combining characters (U+0300, U+0301, U+0303, U+0309, U+0323).
    """
    tones = {"\u0300", "\u0301", "\u0303", "\u0309", "\u0323"}
    out = []
    for char in text:
        parts = unicodedata.normalize("NFD", char)
        base = unicodedata.normalize("NFC", "".join(c for c in parts if c not in tones))
        out.append(base + "".join(c for c in parts if c in tones))
    return "".join(out)


#: Romanian's s and t with a comma below, as the legacy encodings write them: with a cedilla (neither
#: windows-1250 nor ISO-8859-2 has the comma forms, which Unicode added later; pages in them use ş and ţ).
_CEDILLA_FORMS = str.maketrans("șțȘȚ", "şţŞŢ")


def legacy_form(locale: str, text: str) -> str:
    """*text* of *locale* as pages in its legacy encodings write it (Vietnamese and Romanian differ; others as is)."""
    if locale == "vi_VN":
        return to_windows_1258_form(text)
    if locale == "ro_RO":
        return text.translate(_CEDILLA_FORMS)
    return text
