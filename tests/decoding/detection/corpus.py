"""Undeclared HTML pages in many languages and legacy encodings, for detection.

Shared by the accuracy test and ``bench/detection.py``; the text, shared with the model builder
``consumer/decoding/build_detection_model.py``, is ``consumer/decoding/detection/training_text.py``'s
(Faker's locales); every
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
import gettext
import random
import zlib
from dataclasses import dataclass
from pathlib import Path

from consumer.decoding.data.whatwg import SINGLE_BYTE
from consumer.decoding.detection.training_text import LOCALES, legacy_form, sentences


@dataclass(frozen=True, slots=True)
class Page:
    locale: str
    encoding: str
    tld: str
    text: str  #: the page as text (what decoding its body must give back)
    body: bytes


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
