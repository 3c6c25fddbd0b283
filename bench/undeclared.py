"""Undeclared legacy pages, where detection decides: MB/s of ``decode(...).text`` against the same pages declared.

    .venv/bin/python bench/undeclared.py [--size 55] [--repeat 5] [--seed 7] [--malloc keep|glibc]

The pages are bench/detection.py's speed pages (tests/decoding/detection/corpus.py, eval split, one
per locale and encoding, cut to --size KiB). Printed, best of --repeat over all pages, in this run:
MB/s of ``decode(body, "text/html").text`` (undeclared: resolution asks whether the body is damaged
UTF-8, then detection), of the same with the charset declared in the Content-Type (the baseline),
of ``detect`` alone (and on the same pages behind 8 KiB of inline script, the size of many a page's
head: the examined bytes then start at the first non-ASCII byte, which must be found first), and of
the damaged-UTF-8 question asked three ways: as resolution asks it now
(``utf8.more_sequences_than_errors``, compiled: stops once decided), by ``utf8.counts`` (compiled,
the whole body) and by ``utf8.reference_counts`` (decoding, what ran before issue 30). Issue 30 wants
the undeclared pages at >= 300 MB/s, their share of the machine the declared ones' ratio says. Each
row runs over all pages in turn (best of --repeat rounds), as a stream of different pages would:
timing one page at a time, repeated, reads 20-35% faster (warm caches and branch predictors).

Each round's texts are kept until the round ends, as a batch's are, so what glibc does with the memory
they free counts: --malloc keep (the default) runs as every crawl-decoder command does
(consumer/cli/allocator.py: freed memory kept for the next batch), --malloc glibc with glibc's defaults
(freed memory given back to the kernel and faulted in again by the next round).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "decoding" / "detection")]

from consumer.cli import allocator  # noqa: E402
from consumer.decoding import decode, detection  # noqa: E402
from consumer.decoding.codecs import utf8  # noqa: E402

from corpus import LOCALES, page  # noqa: E402


def best_seconds(function: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=55, help="KiB a page")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--malloc", choices=allocator.CHOICES, default="keep", help="as allocator.py's variable")
    args = parser.parse_args()
    malloc = allocator.keep_freed_memory({**os.environ, allocator.ENV: args.malloc})
    size = args.size * 1024
    pages = []
    for locale, (_, encodings, _) in LOCALES.items():
        for encoding in encodings:
            made = page(locale, encoding, 3 * size, args.seed)
            if made is not None:
                pages.append((encoding, made.body[:size]))
    mb = sum(len(body) for _, body in pages) / 1e6
    script = b"<script>" + b"var x = 1; // a comment\n" * (8 * 1024 // 24) + b"</script>"
    behind_script = [(script + body)[:size] for _, body in pages]
    contenders = {
        "declared (baseline)": lambda: [decode(b, f"text/html; charset={e}", "http://x.com/").text for e, b in pages],
        "undeclared": lambda: [decode(b, "text/html", "http://x.com/").text for _, b in pages],
        "detect alone": lambda: [detection.detect(b, "com") for _, b in pages],
        "  behind 8 KiB of script": lambda: [detection.detect(b, "com") for b in behind_script],
        "damaged-UTF-8 question": lambda: [utf8.more_sequences_than_errors(b) for _, b in pages],
        "  by whole counts": lambda: [utf8.counts(b) for _, b in pages],
        "  by decoding (before)": lambda: [utf8.reference_counts(b) for _, b in pages],
    }
    compiled = f"UTF-8 counts compiled: {utf8.COMPILED}, detection compiled: {detection.COMPILED}"
    print(f"{len(pages)} pages of {args.size} KiB, best of {args.repeat}; {compiled}; malloc: {malloc}")
    rates = {name: mb / best_seconds(run, args.repeat) for name, run in contenders.items()}
    baseline = rates["declared (baseline)"]
    for name, rate in rates.items():
        print(f"{name:24} {rate:8.0f} MB/s {rate / baseline:6.2f}x declared")


if __name__ == "__main__":
    main()
