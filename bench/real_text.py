"""Real text in many languages from what Debian's packages install: the translations in gettext catalogues.

The `.mo` files under /usr/share/locale are translators' own sentences (menus, messages, help texts), in the
languages whose legacy encodings the web still serves.  They are not the detection model's letter counts (Faker's
word lists, consumer/decoding/build_detection_model.py) nor any public detector's test corpus; its Latin letter
pairs are counted from the ``tune`` half (consumer/decoding/detection/catalogues.py, which reads the catalogues
for this module too).

A catalogue belongs to one of two halves by a hash of its file name (the package's text domain; a text installed
under two names, as iso-codes installs each of its catalogues, is hashed by the first): ``tune`` is
where thresholds may be chosen, ``test`` where they are judged.  Segments are cut to hold exactly N non-ASCII
characters (N in ``LENGTHS``), from messages drawn in a seeded order; only messages that the encoding under test
writes and reads back unchanged are used (``encodable``).

Nothing here is imported by the product or its tests: bench/false_declared.py reads it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cache
from pathlib import Path

LENGTHS = (4, 8, 16, 32, 64, 256, 1024)

#: Each legacy encoding under test -> the languages written in it (gettext locale names), the ccTLD served from.
ENCODINGS: dict[str, tuple[tuple[str, ...], str]] = {
    "windows-1252": (("fr", "de", "es", "pt", "it", "nl", "sv", "da", "fi", "ca"), "fr"),
    "windows-1250": (("pl", "cs", "hu", "sk", "sl", "hr", "ro"), "pl"),
    "ISO-8859-2": (("pl", "cs", "hu"), "cz"),
    "windows-1251": (("ru", "uk", "bg", "be"), "ru"),
    "KOI8-R": (("ru",), "ru"),
    "KOI8-U": (("uk",), "ua"),
    "IBM866": (("ru",), "ru"),
    "ISO-8859-5": (("ru", "bg"), "bg"),
    "x-mac-cyrillic": (("ru", "bg"), "ru"),
    "windows-1253": (("el",), "gr"),
    "ISO-8859-7": (("el",), "gr"),
    "windows-1254": (("tr",), "tr"),
    "windows-1255": (("he",), "il"),
    "windows-1256": (("ar", "fa"), "sa"),
    "windows-1257": (("lt", "lv", "et"), "lt"),
    "windows-874": (("th",), "th"),
    "Shift_JIS": (("ja",), "jp"),
    "EUC-JP": (("ja",), "jp"),
    "ISO-2022-JP": (("ja",), "jp"),
    "EUC-KR": (("ko",), "kr"),
    "GBK": (("zh_CN",), "cn"),
    "gb18030": (("zh_CN",), "cn"),
    "Big5": (("zh_TW",), "tw"),
}

#: A false label a server sends for each (the web's common confusions: a sibling of the same script, or Latin-1).
FALSE_SIBLING: dict[str, str] = {
    "windows-1252": "windows-1250",
    "windows-1250": "ISO-8859-2",
    "ISO-8859-2": "windows-1250",
    "windows-1251": "windows-1252",  # served as iso-8859-1
    "KOI8-R": "windows-1251",
    "KOI8-U": "KOI8-R",
    "IBM866": "windows-1251",
    "ISO-8859-5": "windows-1251",
    "x-mac-cyrillic": "windows-1251",
    "windows-1253": "ISO-8859-7",
    "ISO-8859-7": "windows-1253",
    "windows-1254": "windows-1252",
    "windows-1255": "ISO-8859-8",
    "windows-1256": "windows-1252",
    "windows-1257": "windows-1252",
    "windows-874": "windows-1252",
    "Shift_JIS": "EUC-JP",
    "EUC-JP": "Shift_JIS",
    "ISO-2022-JP": "Shift_JIS",
    "EUC-KR": "windows-1252",
    "GBK": "Big5",
    "gb18030": "Big5",
    "Big5": "GBK",
}

_PYTHON_CODECS = {
    "Shift_JIS": "cp932",
    "EUC-JP": "euc_jp",
    "ISO-2022-JP": "iso2022_jp",
    "EUC-KR": "cp949",
    "GBK": "gbk",
    "gb18030": "gb18030",
    "Big5": "big5",
}


def half(path: Path) -> str:
    """Which half a catalogue belongs to: ``tune`` or ``test`` (``catalogues.half``)."""
    from consumer.decoding.detection import catalogues

    return catalogues.half(path)


@cache
def messages(language: str, which: str) -> tuple[str, ...]:
    """The translated messages with a non-ASCII character of *language*'s catalogues in half *which*
    (``catalogues.messages``: the detection model's letter pairs are counted from the ``tune`` half the same way)."""
    from consumer.decoding.detection import catalogues

    return catalogues.messages(language, which)


def encodable(text: str, encoding: str) -> bytes | None:
    """*text* in *encoding* (WHATWG tables for single-byte ones), or None when it cannot be written."""
    from consumer.decoding.codecs import decode_strict
    from consumer.decoding.data.whatwg import SINGLE_BYTE

    if encoding in SINGLE_BYTE:
        table = _single_byte_encoder(encoding)
        try:
            data = bytes(ord(char) if char < "\x80" else table[char] for char in text)
        except KeyError:
            return None
    else:
        try:
            data = text.encode(_PYTHON_CODECS[encoding])
        except UnicodeEncodeError:
            return None
    return data if decode_strict(encoding, data) == text else None


@cache
def _single_byte_encoder(encoding: str) -> dict[str, int]:
    from consumer.decoding.data.whatwg import SINGLE_BYTE

    return {char: 0x80 + index for index, char in enumerate(SINGLE_BYTE[encoding]) if char != "\ufffd"}


def segments(encoding: str, length: int, count: int, which: str, seed: int = 1) -> Iterator[tuple[str, str]]:
    """Up to *count* (language, segment) pairs of text in *encoding*'s languages holding *length* non-ASCII characters."""
    languages, _ = ENCODINGS[encoding]
    pools = {}
    for language in languages:
        pool = [m for m in messages(language, which) if encodable(m, encoding) is not None]
        if pool:
            pools[language] = pool
    if not pools:
        return
    rng = random.Random(f"{seed}-{encoding}-{length}-{which}")
    names = sorted(pools)
    for index in range(count):
        language = names[index % len(names)]
        segment = _segment(pools[language], length, rng)
        if segment is not None:
            yield language, segment


def _segment(pool: list[str], length: int, rng: random.Random) -> str | None:
    """Messages drawn from *pool* and joined until *length* non-ASCII characters, cut after the last of them."""
    parts: list[str] = []
    have = 0
    for _ in range(4 * len(pool)):
        message = rng.choice(pool)
        parts.append(message)
        have += sum(1 for char in message if char >= "\x80")
        if have >= length:
            break
    else:
        return None
    text = " ".join(parts)
    seen = 0
    for position, char in enumerate(text):
        if char >= "\x80":
            seen += 1
            if seen == length:
                end = text.find(" ", position)
                text = text if end < 0 else text[:end]
                # The words after the cut may hold more non-ASCII: cut exactly after the N-th.
                return text[: position + 1] if sum(c >= "\x80" for c in text) > length else text
    return None
