"""Letter and letter-pair counts from Debian's translated manual pages: real running text for the detection model.

A build-time module, run by hand on a Debian machine with translated manual pages installed (``man-db``,
``apt``, ``dpkg``... install them under /usr/share/man/<language>), the translated guides of ``GUIDES``
(``apt-get install maint-guide-ca gimp-help-lt``), ``groff`` and ``dpkg``::

    python -m consumer.decoding.detection.manual_pages   # rewrite manual_page_letters.py

Faker's text (``training_text``) is names, places and jobs: it barely writes the letters running text is made
of (its Italian has "è", the verb "is", 32 times in 120,000 characters; its Dutch 24 non-ASCII letters in all),
and a language's likelihood then misjudges its own commonest letters.  Manual pages are translators' prose.
Each page is rendered by groff (its escapes, such as ``\\(:e``, become letters), and only its letters beyond
ASCII are counted, and for the Cyrillic languages the pairs of adjacent Cyrillic letters (``pairs.py`` says why):
no text is kept, and the counts (``manual_page_letters.py``, committed) are all ``build_detection_model`` reads,
so the model regenerates anywhere.

Catalan has no translated manual page in Debian, and windows-1252 pages are written in it; its letters are
counted in the Catalan translation of the Debian New Maintainers' Guide (``GUIDES``), an HTML book whose prose is
read as a browser shows it, its code and file listings (``<pre>``, ``<code>``, ``<tt>``) left out.  Lithuanian has
no manual page either, and Faker's Lithuanian (names and places) never writes "ą", "į" or "ų", three of its nine
letters and among its commonest: a true windows-1257 page scored as foreign text and was doubted, while its
windows-1252 mojibake passed.  Its letters are counted the same way in the Lithuanian GIMP user manual
(``apt-get install gimp-help-lt``, which installs no gettext catalogue, so no page of it is held out).

Held out: pages of a package that installs a gettext catalogue in the ``test`` half of bench/real_text.py (the
same hash of the text domain, ``text_domain``), so that the benchmark judging the model never reads a package it
was counted from.  Comment lines (authors' names, licences) are not rendered; a page whose rendering shows UTF-8 read as
Latin-1 ("Ã©") is skipped whole.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import html.parser
import os
import re
import subprocess
import sys
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

from ..data.generate import table_literal, write_or_check
from .pairs import letter_pairs

OUTPUT = Path(__file__).with_name("manual_page_letters.py")
MANUAL_PAGES = Path("/usr/share/man")

#: Manual-page folder -> the model's language key, for the Latin-script languages of the legacy encodings
#: (the ones Faker's text serves worst; Cyrillic and CJK pages are left to Faker's counts).
LANGUAGES: dict[str, str] = {
    "de": "de", "fr": "fr", "es": "es", "pt": "pt", "pt_BR": "pt", "it": "it", "nl": "nl", "da": "da",
    "sv": "sv", "fi": "fi", "pl": "pl", "cs": "cs", "hu": "hu", "ro": "ro", "sl": "sl", "hr": "hr", "tr": "tr",
}  # fmt: skip
#: Manual-page folder -> the model's language key, for the languages whose letter pairs are counted.
PAIR_LANGUAGES: dict[str, str] = {"ru": "ru", "uk": "uk"}
#: Language key -> the folder of a translated HTML guide whose prose is counted for it (a language without manual
#: pages).
GUIDES: dict[str, Path] = {
    "ca": Path("/usr/share/doc/maint-guide-ca/html"),
    "lt": Path("/usr/share/gimp/2.0/help/lt"),
}
_RENDER = "preconv | groff -man -Tutf8 -P-cbou"
_DOUBLE_ENCODED = re.compile("[ÃÂ][\u0080-\u00bf]")


def held_out(domain: str) -> bool:
    """Whether a gettext text domain is in bench/real_text.py's ``test`` half (the benchmark's judging text)."""
    return hashlib.sha256(domain.encode()).digest()[0] % 2 != 0


def text_domain(catalogue: Path) -> str:
    """The text domain a gettext catalogue (a ``.mo`` file) is put in a half by: its own name, or, when its folder
    holds the same bytes under other names too, the first of them.  iso-codes installs each of its catalogues twice
    ("iso_3166-2.mo" again as "iso_3166_2.mo"), and hashed by their own names the two copies of one text fell in
    opposite halves: the place and language names of the judging half were in the tuning half too."""
    return _first_names(catalogue.parent).get(catalogue.name, catalogue.stem)


@functools.cache
def _first_names(folder: Path) -> dict[str, str]:
    """Each catalogue's file name in *folder* -> the name, without ``.mo``, of the first with the same bytes."""
    first: dict[bytes, str] = {}
    names: dict[str, str] = {}
    for path in sorted(folder.glob("*.mo")) if folder.is_dir() else ():
        names[path.name] = first.setdefault(hashlib.sha256(path.read_bytes()).digest(), path.stem)
    return names


def pages() -> list[Path]:
    """Every translated manual page of ``LANGUAGES``' folders."""
    folders = [*LANGUAGES, *PAIR_LANGUAGES]
    return sorted(path for folder in folders for path in (MANUAL_PAGES / folder).rglob("*") if path.is_file())


def owners(paths: list[Path]) -> dict[Path, list[str]]:
    """Each page's packages (``dpkg -S``)."""
    found: dict[Path, list[str]] = {}
    listing = subprocess.run(["dpkg", "-S", *map(str, paths)], capture_output=True, text=True).stdout
    for line in listing.splitlines():
        packages, _, path = line.partition(": ")
        found[Path(path)] = [package.split(":")[0] for package in packages.split(", ")]
    return found


def domains(package: str) -> set[str]:
    """The gettext text domains *package* installs (its ``.mo`` files), as ``text_domain`` names them."""
    files = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True).stdout.split()
    return {text_domain(Path(name)) for name in files if name.endswith(".mo")}


def rendered(path: Path) -> str | None:
    """The page as groff shows it, or None if it does not render as UTF-8 or shows double-encoded text."""
    source = path.read_bytes()
    if path.suffix == ".gz":
        source = gzip.decompress(source)
    environment = {**os.environ, "LC_ALL": "C.UTF-8"}
    run = subprocess.run(_RENDER, shell=True, input=source, capture_output=True, env=environment)
    try:
        text = run.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if _DOUBLE_ENCODED.search(text) else text


class _Prose(html.parser.HTMLParser):
    """An HTML page's text as a reader sees it (character references resolved), but for code and listings."""

    _CODE = frozenset({"pre", "code", "tt", "script", "style"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._inside_code = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._CODE:
            self._inside_code += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self._CODE and self._inside_code:
            self._inside_code -= 1

    def handle_data(self, data: str) -> None:
        if not self._inside_code:
            self.parts.append(data)


def guide_text(path: Path) -> str | None:
    """An HTML guide page's prose, or None if it shows double-encoded text."""
    prose = _Prose()
    prose.feed(path.read_text(encoding="utf-8"))
    prose.close()
    text = " ".join(prose.parts)
    return None if _DOUBLE_ENCODED.search(text) else text


def _letters(text: str) -> Iterator[str]:
    return (char for char in text if char >= "\x80" and unicodedata.category(char)[0] == "L")


def count() -> tuple[dict[str, Counter[str]], dict[str, Counter[str]], dict[str, int]]:
    """Letters beyond ASCII per language, letter pairs per Cyrillic language, and how many pages of each were
    counted."""
    letters, pairs, counted = count_manual_pages()
    for language, folder in GUIDES.items():
        for path in sorted(folder.glob("*.html")):
            text = guide_text(path)
            if text is not None:
                letters[language].update(_letters(text))
                counted[language] += 1
    return letters, pairs, dict(counted)


def count_manual_pages() -> tuple[dict[str, Counter[str]], dict[str, Counter[str]], Counter[str]]:
    """``count``'s answer for the manual pages alone."""
    paths = pages()
    page_owners = owners(paths)
    package_domains: dict[str, set[str]] = defaultdict(set)
    for package in {package for packages in page_owners.values() for package in packages}:
        package_domains[package] = domains(package)
    letters: dict[str, Counter[str]] = defaultdict(Counter)
    pairs: dict[str, Counter[str]] = defaultdict(Counter)
    counted: Counter[str] = Counter()
    for path in paths:
        packages = page_owners.get(path, [])
        if not packages or any(held_out(domain) for package in packages for domain in package_domains[package]):
            continue
        text = rendered(path)
        if text is None:
            continue
        folder = path.relative_to(MANUAL_PAGES).parts[0]
        if folder in PAIR_LANGUAGES:
            language = PAIR_LANGUAGES[folder]
            pairs[language].update(letter_pairs(text))
        else:
            language = LANGUAGES[folder]
            letters[language].update(_letters(text))
        counted[language] += 1
    return letters, pairs, counted


def render(letters: dict[str, Counter[str]], pairs: dict[str, Counter[str]], counted: dict[str, int]) -> str:
    header = [
        "# Generated by `python -m consumer.decoding.detection.manual_pages`; do not edit.",
        '"""Letters beyond ASCII, and Cyrillic letter pairs, counted in Debian\'s translated manual pages (Catalan: '
        + "the New Maintainers' Guide; Lithuanian: GIMP's user manual), per language (pages counted: "
        + ", ".join(f"{language} {counted[language]}" for language in sorted(counted))
        + ')."""',
        "",
    ]
    tables = [
        table_literal(name, {language: dict(table[language].most_common()) for language in sorted(table)})
        for name, table in (("LETTERS", letters), ("PAIRS", pairs))
    ]
    return "\n".join([*header, *tables[0], *tables[1]]) + "\n"


def main() -> int:
    return write_or_check(OUTPUT, render(*count()), check=False)


if __name__ == "__main__":
    sys.exit(main())
