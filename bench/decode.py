"""Benchmark: MB/s of ``decode`` against raw UTF-8 decoding and other libraries, one corpus, one run.

    .venv/bin/python bench/decode.py [--pages 400] [--seed 1]

The corpus is generated: 95% UTF-8 pages (a third declared in the Content-Type
header, a third in a <meta charset>, a third undeclared) and 5% legacy pages
(Shift_JIS, GBK, windows-1251, EUC-KR, windows-1252, Big5) declared in a meta.
Page text comes from Faker in several locales, 2 KB to 120 KB a page.

Printed: MB/s of each contender and its ratio to ``bytes.decode("utf-8",
"replace")`` over the same bytes, measured in this run (the fast contenders take
turns, --repeat times, best time each; the slow ones run once on the first
--slow-pages pages), plus the share of pages whose text each contender gets
exactly right.  Then the fast contenders on the UTF-8 pages alone and on the
legacy pages alone, timed the same way: the mix's ratio is their blend, and the
legacy pages, where the baseline calls an error handler per byte, lift it.  The
row "... fast path in Python" is ``decode`` with the fast path's Python tier
(``resolve.reference_undisputed_utf8``) in place of the compiled one, timed in
the same turns: what _native/undisputed.c saves.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from consumer.decoding import decode, prescan, resolve

UTF8_LOCALES = ["en_US", "fr_FR", "de_DE", "ja_JP", "zh_CN", "ru_RU", "es_ES", "pt_BR", "ko_KR", "it_IT"]
LEGACY = [("ja_JP", "Shift_JIS", "cp932"), ("zh_CN", "GBK", "gbk"), ("ru_RU", "windows-1251", "cp1251"),
          ("ko_KR", "EUC-KR", "cp949"), ("fr_FR", "windows-1252", "cp1252"), ("zh_TW", "Big5", "big5")]


def build_corpus(pages: int, seed: int) -> list[tuple[bytes, str | None, str]]:
    """(body, content_type, expected text) triples."""
    from faker import Faker

    rng = random.Random(seed)
    fakers: dict[str, Faker] = {}

    def text(locale: str, size: int) -> str:
        fake = fakers.setdefault(locale, Faker(locale))
        fake.seed_instance(rng.randrange(1 << 30))
        out, length = [], 0
        while length < size:
            paragraph = fake.paragraph(nb_sentences=8)
            out.append(f"<p>{paragraph}</p>\n")
            length += len(paragraph.encode("utf-8"))
        return "".join(out)

    corpus = []
    for i in range(pages):
        size = int(rng.lognormvariate(10.2, 0.7))  # median ~27 KB, long tail
        size = max(2_000, min(size, 120_000))
        if rng.random() < 0.05:
            locale, name, codec = rng.choice(LEGACY)
            body_text = text(locale, size // 2)
            html = f'<!DOCTYPE html><html><head><meta charset="{name}"><title>p{i}</title></head><body>{body_text}</body></html>'
            html = html.encode(codec, "ignore").decode(codec)  # drop what the legacy charset cannot carry
            corpus.append((html.encode(codec), "text/html", html))
            continue
        body_text = text(rng.choice(UTF8_LOCALES), size)
        style = rng.randrange(3)
        head = '<meta charset="utf-8">' if style == 1 else ""
        html = f"<!DOCTYPE html><html><head>{head}<title>p{i}</title></head><body>{body_text}</body></html>"
        content_type = "text/html; charset=utf-8" if style == 0 else "text/html"
        corpus.append((html.encode("utf-8"), content_type, html))
    return corpus


#: ``decode`` with its fast path's reference tier (``resolve.reference_undisputed_utf8``, Python) in place of the
#: compiled one (_native/undisputed.c): what the compiled tier saves, measured in the same turns.
PYTHON_FAST_PATH = "  ... fast path in Python"
#: Timed over the whole corpus, taking turns, in this order (rotated); the first is the baseline.  Neither of the
#: two decode() contenders runs right after the other: the second would find the legacy pages' tables warm.
FAST = ('bytes.decode("utf-8")', "crawl-decoder decode", "w3lib html_to_unicode", PYTHON_FAST_PATH)


def contenders() -> dict[str, Callable[[bytes, str | None], str]]:
    from bs4 import UnicodeDammit
    from charset_normalizer import from_bytes
    from w3lib.encoding import html_to_unicode

    def cn(body: bytes, _ct):
        best = from_bytes(body).best()
        return str(best) if best is not None else body.decode("utf-8", "replace")

    return {
        'bytes.decode("utf-8")': lambda body, _ct: body.decode("utf-8", "replace"),
        "crawl-decoder decode": lambda body, ct: decode(body, ct).text,
        PYTHON_FAST_PATH: lambda body, ct: decode(body, ct).text,  # timed with the reference installed (tier())
        "w3lib html_to_unicode": lambda body, ct: html_to_unicode(ct, body)[1],
        "bs4 UnicodeDammit": lambda body, _ct: UnicodeDammit(body, is_html=True).unicode_markup,
        "charset-normalizer": cn,
    }


def legacy_pages(corpus):
    """The pages declaring a legacy encoding in their <meta> (a few, Faker's Latin filler, are ASCII)."""
    return [page for page in corpus if prescan.prescan_meta(page[0]) not in (None, "UTF-8")]


def utf8_pages(corpus):
    """The UTF-8 pages: declared in the header, in a <meta>, or not at all."""
    return [page for page in corpus if prescan.prescan_meta(page[0]) in (None, "UTF-8")]


def turns(contenders: dict, repeat: int) -> list[list]:
    """*repeat* orders of the (name, function) pairs, each starting one further: every contender runs
    in every place of a turn as often as the others."""
    pairs = list(contenders.items())
    return [pairs[k % len(pairs):] + pairs[: k % len(pairs)] for k in range(repeat)]


@contextlib.contextmanager
def tier(name: str):
    """For the while, ``resolve`` calls the fast path the contender *name* is timed with: the Python
    reference for PYTHON_FAST_PATH, else the one ``decode`` calls (compiled where it was built)."""
    compiled = resolve.undisputed_utf8
    if name == PYTHON_FAST_PATH:
        resolve.undisputed_utf8 = resolve.reference_undisputed_utf8
    try:
        yield
    finally:
        resolve.undisputed_utf8 = compiled


def timed(fn, corpus, name: str = "") -> tuple[float, list[str]]:
    with tier(name):
        start = time.perf_counter()
        outputs = [fn(body, ct) for body, ct, _ in corpus]
        return time.perf_counter() - start, outputs


def exact_share(outputs: list[str], corpus) -> float:
    return sum(out == expected for out, (_, _, expected) in zip(outputs, corpus, strict=True)) / len(corpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--slow-pages", type=int, default=60, help="pages for charset-normalizer and bs4 (slow)")
    args = parser.parse_args()
    corpus = build_corpus(args.pages, args.seed)
    total = sum(len(body) for body, _, _ in corpus)
    print(f"corpus: {len(corpus)} pages, {total / 1e6:.1f} MB, "
          f"{len(legacy_pages(corpus))} legacy pages "
          f"({sum(1 for b, _, t in corpus if t.encode('utf-8') != b)} not ASCII); "
          f"prescan loop {'compiled' if prescan.COMPILED else 'readable (no C compiler at install)'}")
    everything = contenders()
    fast = {name: everything[name] for name in FAST}
    # The fast contenders take turns, --repeat times, and each keeps its best time: a swing of the
    # shared machine then hits all of them alike instead of whichever ran during it.  Each turn starts
    # with the next one (turns()), so none always runs first.
    best = dict.fromkeys(fast, float("inf"))
    exact = {}
    for order in turns(fast, args.repeat):
        for name, fn in order:
            seconds, outputs = timed(fn, corpus, name)
            best[name] = min(best[name], seconds)
            exact.setdefault(name, exact_share(outputs, corpus))
    baseline = total / best[FAST[0]] / 1e6
    print(f"{'contender':26} {'MB/s':>9} {'x raw utf-8':>12} {'exact text':>11}")
    for name in FAST:
        rate = total / best[name] / 1e6
        print(f"{name:26} {rate:9.1f} {rate / baseline:11.2f}x {exact[name]:10.1%}")
    for label, part in (("UTF-8 pages", utf8_pages(corpus)), ("legacy pages", legacy_pages(corpus))):
        size = sum(len(body) for body, _, _ in part)
        part_best = dict.fromkeys(fast, float("inf"))
        for order in turns(fast, args.repeat):
            for name, fn in order:
                part_best[name] = min(part_best[name], timed(fn, part, name)[0])
        part_baseline = size / part_best[FAST[0]] / 1e6
        for name in FAST[1:]:
            rate = size / part_best[name] / 1e6
            print(f"{name:26} {rate:9.1f} {rate / part_baseline:11.2f}x {'':10}  ({label} alone: {len(part)}, "
                  f"{size / 1e6:.1f} MB; raw {part_baseline:.0f} MB/s)")
    subset = corpus[: args.slow_pages]
    size = sum(len(body) for body, _, _ in subset)
    for name, fn in everything.items():
        if name in fast:
            continue
        seconds, outputs = timed(fn, subset)
        rate = size / seconds / 1e6
        print(f"{name:26} {rate:9.1f} {rate / baseline:11.2f}x {exact_share(outputs, subset):10.1%}  (first {len(subset)} pages)")


if __name__ == "__main__":
    main()
