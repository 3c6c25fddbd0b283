"""Undeclared HTML pages in many languages and legacy encodings, for detection.

Shared by the accuracy test, ``bench/detection.py`` and the model builder
``consumer/decoding/build_detection_model.py``.  Text comes from Faker's locales; every
word is assigned to exactly one *split* by a stable hash, so the frequency
model (built from the "model" split) never sees a word of the "eval" split
the pages are made of.  Both splits draw on the same Faker word lists and
name/address providers, so the evaluation is held-out *words*, not a
held-out source: it measures generalisation within Faker's vocabulary style.

A page is a small head without any charset, then paragraphs of text up to a
target size, encoded into one encoding.  Sentences the encoding cannot
represent are dropped; pages whose bytes are valid UTF-8 are not produced,
because the resolver takes those as UTF-8 before it asks detection.

``catalog_corpus`` builds the same kind of pages from the machine's gettext
translations instead: real text from another source than the model's, used by
the benchmark only, since what is installed differs between machines.
"""

from __future__ import annotations

import codecs
import datetime as dt
import gettext
import random
import unicodedata
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

from faker import Faker
from faker.providers.date_time import Provider as DateTimeProvider

from consumer.decoding.data.whatwg import SINGLE_BYTE

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


@dataclass(frozen=True, slots=True)
class Page:
    locale: str
    encoding: str
    tld: str
    text: str  #: the page as text (what decoding its body must give back)
    body: bytes


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
_parse_end_datetime = DateTimeProvider._parse_end_datetime.__func__


def _end_at_corpus_now(cls, value):  # Faker's own parsing, with CORPUS_NOW for "now"
    return _parse_end_datetime(cls, CORPUS_NOW if value is None else value)


DateTimeProvider._parse_end_datetime = classmethod(_end_at_corpus_now)


#: Providers whose answers a seed does not fix in some locale (it_IT's city draws from a set, ordered by the
#: process's string hashing): another provider is asked instead, so the model regenerates byte for byte.
_UNSEEDED = {"it_IT": {"city": "last_name"}}


def _some_words(fake: Faker, rng: random.Random, has_lorem: bool, locale: str = "") -> list[str]:
    if has_lorem and rng.random() < 0.7:
        return fake.words(3)
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


def encode(text: str, encoding: str) -> bytes | None:
    """*text* in the WHATWG *encoding*, or None when it cannot be represented."""
    if encoding in SINGLE_BYTE:
        table = _ENCODERS.setdefault(encoding, {char: 0x80 + i for i, char in enumerate(SINGLE_BYTE[encoding])})
        out = bytearray()
        for char in text:
            if char < "\x80":
                out.append(ord(char))
            elif char in table:
                out.append(table[char])
            else:
                return None
        return bytes(out)
    from consumer.decoding.codecs.cpython import ENCODERS  # late: the model builder imports this module first

    codec = ENCODERS[encoding]
    try:
        body = text.encode(codec)
    except UnicodeEncodeError:
        return None
    # Some characters encode to bytes that decode to another (cp932 writes U+301C as 0x8160, read as U+FF5E).
    return body if body.decode(codec) == text else None


_ENCODERS: dict[str, dict[str, int]] = {}


def decode(body: bytes, encoding: str) -> str:
    """*body* decoded as the WHATWG *encoding* (single-byte: the standard's table; others: Python's codec)."""
    if encoding in SINGLE_BYTE:
        table = SINGLE_BYTE[encoding].replace("\ufffe", "\ufffd")
        return body.decode("latin-1").translate({0x80 + i: char for i, char in enumerate(table)})
    from consumer.decoding.codecs.cpython import DECODERS

    return codecs.decode(body, DECODERS.get(encoding, "utf-8"), "replace")


def page(locale: str, encoding: str, size: int, seed: int, split: str = "eval") -> Page | None:
    """One undeclared page of about *size* bytes, or None if the text does not fit the encoding."""
    source = sentences(locale, seed, split)
    title = next(source)
    head = f"<!DOCTYPE html>\n<html>\n<head>\n<title>{title}</title>\n</head>\n<body>\n"
    text, size_now, dropped = head, len(head), 0
    rng = random.Random(seed)
    while size_now < size and dropped < 200:
        paragraph = []
        for _ in range(rng.randint(2, 6)):
            sentence = next(source)
            sentence = legacy_form(locale, sentence)
            if encode(sentence, encoding) is None:
                dropped += 1
                continue
            paragraph.append(sentence)
        chunk = "<p>" + " ".join(paragraph) + "</p>\n"
        text += chunk
        size_now += len(chunk.encode("utf-8"))
    text += "</body>\n</html>\n"
    text = legacy_form(locale, text)
    body = encode(text, encoding)
    if body is None or _is_utf8(body) or body.isascii():
        return None
    return Page(locale, encoding, LOCALES[locale][2], text, body)


#: Faker locale -> the gettext language directory of its translations.
_GETTEXT_LANGUAGES = {locale: locale.split("_")[0] for locale in LOCALES} | {
    "zh_CN": "zh_CN",
    "zh_TW": "zh_TW",
    "pt_BR": "pt_BR",
}


def catalog_messages(locale: str, root: Path = Path("/usr/share/locale")) -> list[str]:
    """Translated messages of *locale* from the machine's gettext catalogs: real text Faker never wrote.

    Messages without a non-ASCII character (mostly untranslated English) or with
    control characters are left out.
    What exists depends on the machine, so only the benchmark uses these.
    """
    messages = set()
    for path in sorted((root / _GETTEXT_LANGUAGES[locale] / "LC_MESSAGES").glob("*.mo")):
        try:
            with path.open("rb") as file:
                catalog = gettext.GNUTranslations(file)._catalog  # private: the parsed msgid -> msgstr table
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        for message in catalog.values():
            text = " ".join(str(message).split())
            if text and not text.isascii() and text.isprintable():
                messages.add(text)
    return sorted(messages)


def catalog_corpus(per_encoding: int, seed: int, min_size: int = 1024, max_size: int = 50 * 1024) -> list[Page]:
    """Like ``corpus`` but the paragraphs are gettext messages (see ``catalog_messages``)."""
    rng = random.Random(seed)
    pages = []
    for locale, (_, encodings, tld) in LOCALES.items():
        messages = catalog_messages(locale)
        messages = [legacy_form(locale, message) for message in messages]
        if len(messages) < 50:
            continue
        for encoding in encodings:
            usable = [message for message in messages if encode(message, encoding) is not None]
            for _ in range(per_encoding):
                size = int(min_size * (max_size / min_size) ** rng.random())
                text = "<!DOCTYPE html>\n<html>\n<head>\n<title>Messages</title>\n</head>\n<body>\n"
                while len(text.encode("utf-8")) < size and usable:
                    text += "<p>" + " ".join(rng.sample(usable, min(3, len(usable)))) + "</p>\n"
                text += "</body>\n</html>\n"
                body = encode(text, encoding)
                if body is not None and not _is_utf8(body) and not body.isascii():
                    pages.append(Page(locale, encoding, tld, text, body))
    return pages


def _is_utf8(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def corpus(per_encoding: int, seed: int, min_size: int = 1024, max_size: int = 50 * 1024) -> list[Page]:
    """*per_encoding* pages for every (locale, encoding) pair, sizes log-uniform in [min_size, max_size]."""
    rng = random.Random(seed)
    pages = []
    for locale, (_, encodings, _) in LOCALES.items():
        for encoding in encodings:
            made = 0
            for attempt in range(per_encoding * 3):
                size = int(min_size * (max_size / min_size) ** rng.random())
                page_seed = seed * 100_003 + attempt * 7919 + zlib.crc32(f"{locale}{encoding}".encode())
                made_page = page(locale, encoding, size, page_seed)
                if made_page is not None:
                    pages.append(made_page)
                    made += 1
                if made == per_encoding:
                    break
    return pages
