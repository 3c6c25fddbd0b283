"""Detection accuracy and speed: our detector against charset-normalizer alone.

Run from the repository root:

    .venv/bin/python bench/detection.py [--per-encoding 12] [--seed 7]

A page counts as right when decoding it with the detected encoding gives back
exactly the page's text (so two encodings that decode a page alike are both
right).  The corpus is tests/decoding/detection/corpus.py, "eval" split, seeds
other than the model's, as 1-50 KiB pages and as short pages; then, where the
machine has gettext catalogs, pages of real translated messages (a source the
model never saw).  Speed is measured on pages cut to exactly 50 KiB.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "decoding" / "detection")]

import charset_normalizer  # noqa: E402

from consumer.decoding.detection import detect  # noqa: E402

from corpus import LOCALES, Page, catalog_corpus, corpus, decode, page  # noqa: E402

SPEED_SIZE = 50 * 1024


def ours(item: Page, hinted: bool) -> bool:
    return decode(item.body, detect(item.body, item.tld if hinted else None).encoding) == item.text


def normalizer(item: Page) -> bool:
    best = charset_normalizer.from_bytes(item.body).best()
    return best is not None and str(best) == item.text


def accuracy(pages: list[Page]) -> None:
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for item in pages:
        row = rows[item.encoding]
        row[0] += 1
        row[1] += ours(item, hinted=False)
        row[2] += ours(item, hinted=True)
        row[3] += normalizer(item)
    total = [sum(column) for column in zip(*rows.values(), strict=True)]
    print(f"{'encoding':16} {'pages':>5} {'ours':>7} {'ours+TLD':>9} {'charset-normalizer':>19}")
    for encoding, (n, plain, hinted, other) in [*sorted(rows.items()), ("ALL", total)]:
        print(f"{encoding:16} {n:5d} {plain / n:7.1%} {hinted / n:9.1%} {other / n:19.1%}")


def speed(seed: int) -> None:
    pages = []
    for locale, (_, encodings, _) in LOCALES.items():
        for encoding in encodings:
            made = page(locale, encoding, 3 * SPEED_SIZE, seed)
            if made is not None:
                pages.append(made.body[:SPEED_SIZE])
    for name, run in (
        ("ours", lambda body: detect(body)),
        ("ours+TLD", lambda body: detect(body, "com")),
        ("charset-normalizer", lambda body: charset_normalizer.from_bytes(body).best()),
    ):
        start = time.perf_counter()
        rounds = 3 if name.startswith("ours") else 1
        for _ in range(rounds):
            for body in pages:
                run(body)
        elapsed = (time.perf_counter() - start) / (rounds * len(pages))
        print(f"{name:20} {elapsed * 1000:8.2f} ms per 50 KiB page ({len(pages)} pages)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-encoding", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print("Pages of 1-50 KiB:")
    accuracy(corpus(args.per_encoding, args.seed))
    print("\nShort pages (150-700 bytes: a title and a few sentences):")
    accuracy(corpus(args.per_encoding, args.seed + 1, min_size=150, max_size=700))
    catalogs = catalog_corpus(args.per_encoding, args.seed + 2)
    if catalogs:
        print("\nOut of domain: pages of this machine's gettext translations (/usr/share/locale), 1-50 KiB:")
        accuracy(catalogs)
    print()
    speed(args.seed)


if __name__ == "__main__":
    main()
