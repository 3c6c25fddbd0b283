"""Foreign names in running text under a Latin label: is a true label doubted, is a false one still caught?

Run from the repository root (on a Debian machine with translated packages installed, as bench/false_declared.py):

    .venv/bin/python bench/foreign_names.py [--samples 100] [--half tune] [--seed 1]

A page in a Latin-script language often names places and people of other languages, their letters kept ("Telšiai",
"Tálknafjarðarhreppur", "Székbánya" in a Dutch text): no one language of the label reads all of them, and the
letters a sibling label turns them into can read as one of *its* languages (windows-1252's "ï" and "ð" are
windows-1250's Czech "ď" and Croatian "đ").  Each page here is bench/real_text.py's messages of a Latin encoding's
languages (half ``--half``), each followed by one to three names that Faker makes up for the other Latin-script
locales (city and family names written in the encoding), cut to hold N non-ASCII characters (N in 16, 32, 64,
256).  The names are generated, not any catalogue's: this is where the doubt's allowance for them
(consumer/decoding/detection/names.py) was chosen, on the ``tune`` half's sentences; bench/false_declared.py's
``test`` half, whose iso-codes catalogues hold real place names, is where it is judged.

Each page is served twice: under its true label (it must be right and clean) and under its false sibling
(``real_text.FALSE_SIBLING``: a lie, which must not be published clean).  Printed per encoding group and N: true
labels quarantined, lies published wrong and clean.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path[:0] = [str(ROOT.parent), str(ROOT)]

import real_text  # noqa: E402
from false_declared import QUARANTINED, RIGHT, WRONG, outcome, page  # noqa: E402

ENCODINGS = ("windows-1252", "windows-1250", "ISO-8859-2", "windows-1257", "windows-1254")
LENGTHS = (16, 32, 64, 256)
#: Faker's Latin-script locales: whose made-up cities and family names stand in a page's text.
LOCALES = (
    "cs_CZ", "da_DK", "de_DE", "es_ES", "et_EE", "fi_FI", "fr_FR", "hr_HR", "hu_HU", "is_IS", "it_IT", "lt_LT",
    "lv_LV", "nl_NL", "no_NO", "pl_PL", "pt_PT", "ro_RO", "sk_SK", "sl_SI", "sv_SE", "tr_TR", "az_AZ",
)  # fmt: skip


def names(encoding: str, seed: int) -> list[str]:
    """Made-up names with a non-ASCII letter, from every locale in ``LOCALES``, that *encoding* writes."""
    from faker import Faker

    made: list[str] = []
    for locale in LOCALES:
        fake = Faker(locale)
        fake.seed_instance(seed)
        for _ in range(60):
            for name in (fake.city(), fake.last_name()):
                if not name.isascii() and real_text.encodable(name, encoding) is not None:
                    made.append(name)
    return sorted(set(made))


def segments(encoding: str, length: int, count: int, which: str, seed: int) -> list[str]:
    """Up to *count* pages' texts: messages of *encoding*'s languages with names after each, *length* non-ASCII."""
    languages, _ = real_text.ENCODINGS[encoding]
    pools = [
        pool
        for language in languages
        if (pool := [m for m in real_text.messages(language, which) if real_text.encodable(m, encoding) is not None])
    ]
    foreign = names(encoding, seed)
    rng = random.Random(f"{seed}-{encoding}-{length}-names")
    texts = []
    for index in range(count):
        pool = pools[index % len(pools)]
        parts: list[str] = []
        while sum(char >= "\x80" for part in parts for char in part) < length:
            parts.append(rng.choice(pool))
            parts.extend(rng.sample(foreign, rng.randint(1, 3)))
        texts.append(_cut(" ".join(parts), length))
    return texts


def _cut(text: str, length: int) -> str:
    """*text* cut right after its *length*-th non-ASCII character."""
    seen = 0
    for position, char in enumerate(text):
        seen += char >= "\x80"
        if seen == length:
            return text[: position + 1]
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=100, help="pages per encoding and length")
    parser.add_argument("--half", choices=("tune", "test"), default="tune")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    url = "https://www.example.com/"
    print(f"{args.samples} pages per encoding and N, {args.half} half, seed {args.seed}: true label quarantined / lie")
    print(f"(false sibling) published wrong and clean, per N in {', '.join(map(str, LENGTHS))}")
    totals: dict[str, Counter[str]] = {"true": Counter(), "lie": Counter()}
    for encoding in ENCODINGS:
        sibling = real_text.FALSE_SIBLING[encoding]
        doubted, published = [], []
        for length in LENGTHS:
            kept, told = Counter[str](), Counter[str]()
            for text in segments(encoding, length, args.samples, args.half, args.seed):
                body = real_text.encodable(page(text), encoding)
                assert body is not None
                kept[outcome(body, f"text/html; charset={encoding}", url, page(text))[0]] += 1
                told[outcome(body, f"text/html; charset={sibling}", url, page(text))[0]] += 1
            assert kept[WRONG] == 0, "a true label's decode is its text"
            doubted.append(kept[QUARANTINED])
            published.append(told[WRONG])
            totals["true"].update(kept)
            totals["lie"].update(told)
        label = f"{encoding} (lie: as {sibling})"
        print(f"  {label:<38} true label {'/'.join(map(str, doubted)):<14} lie {'/'.join(map(str, published))}")
    pages = sum(totals["true"].values())
    print(
        f"all {pages} pages: true label quarantined {100 * totals['true'][QUARANTINED] / pages:.1f}%, "
        f"right and clean {100 * totals['true'][RIGHT] / pages:.1f}%; lie wrong and clean "
        f"{100 * totals['lie'][WRONG] / pages:.1f}%, quarantined {100 * totals['lie'][QUARANTINED] / pages:.1f}%"
    )


if __name__ == "__main__":
    main()
