"""Would charset-normalizer as a second opinion on low-confidence detection raise accuracy?

Run from the repository root:

    .venv/bin/python bench/second_opinion.py [--per-encoding 20] [--tune-seed 11] [--test-seed 29]

Same corpora and the same notion of "right" as bench/detection.py (decoding with
the answer gives back exactly the page's text).  For every page it records our
detector's answer and confidence (``Detection.confidence``), and
charset-normalizer's best match, its chaos (mess) ratio and its text.  The
second opinion is then replayed offline at several thresholds:

- ``replace<T``: when our confidence is below T, take charset-normalizer's text
  (when it returns one);
- ``calm<T``: the same, but only when charset-normalizer's chaos is at most
  ``CALM`` (it is itself confident);
- ``oracle``: charset-normalizer's text exactly on the pages ours gets wrong:
  an upper bound for any rule of this kind.

charset-normalizer is credited with its own decoded text (``str(best)``,
Python's codecs), which is generous: wired in, its answer would have to be
mapped to a WHATWG encoding and decoded by our codecs.  Thresholds are chosen on
the tuning seed and reported on both seeds; the corpora of the test seed are
held out from that choice.  Cost: our detector's time per page, plus
charset-normalizer's time on the pages where a rule calls it (measured per page
in the same run; approximate on a shared machine).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "decoding" / "detection")]

import charset_normalizer  # noqa: E402

from consumer.decoding.detection import detect  # noqa: E402

from corpus import Page, catalog_corpus, corpus, decode  # noqa: E402

THRESHOLDS = (0.3, 0.5, 0.7, 0.9, 0.99)
CALM = 0.05


@dataclass(frozen=True, slots=True)
class Row:
    page: Page
    hinted: bool
    guess: str
    confidence: float
    ours_right: bool
    ours_ms: float
    cn_encoding: str | None
    cn_chaos: float
    cn_right: bool
    cn_ms: float


_NORMALIZER: dict[bytes, tuple[str | None, float, bool, float]] = {}


def measure(pages: list[Page], hinted: bool) -> list[Row]:
    rows = []
    for item in pages:
        start = time.perf_counter()
        guess = detect(item.body, item.tld if hinted else None)
        ours_ms = (time.perf_counter() - start) * 1000
        if item.body not in _NORMALIZER:  # asked once a page: the hinted pass reuses the answer and its time
            start = time.perf_counter()
            best = charset_normalizer.from_bytes(item.body).best()
            cn_ms = (time.perf_counter() - start) * 1000
            _NORMALIZER[item.body] = (
                None if best is None else best.encoding,
                1.0 if best is None else best.chaos,
                best is not None and str(best) == item.text,
                cn_ms,
            )
        rows.append(
            Row(
                item,
                hinted,
                guess.encoding,
                guess.confidence,
                decode(item.body, guess.encoding) == item.text,
                ours_ms,
                *_NORMALIZER[item.body],
            )
        )
    return rows


def rules() -> dict[str, Callable[[Row], bool]]:
    """Rule name -> whether the rule asks charset-normalizer on this row (and takes its answer if it has one)."""
    made: dict[str, Callable[[Row], bool]] = {}
    for threshold in THRESHOLDS:
        made[f"replace<{threshold}"] = lambda row, t=threshold: row.confidence < t
        made[f"calm<{threshold}"] = lambda row, t=threshold: row.confidence < t and row.cn_chaos <= CALM
    return made


def outcome(rows: list[Row], asks: Callable[[Row], bool]) -> tuple[float, float, float]:
    """(accuracy, share of pages that call charset-normalizer, ms per page) of one rule."""
    right = called = 0
    ms = 0.0
    for row in rows:
        ms += row.ours_ms
        if asks(row):
            called += 1
            ms += row.cn_ms
            right += row.cn_right if row.cn_encoding is not None else row.ours_right
        else:
            right += row.ours_right
    return right / len(rows), called / len(rows), ms / len(rows)


def report(name: str, rows: list[Row]) -> None:
    n = len(rows)
    ours = sum(row.ours_right for row in rows) / n
    cn = sum(row.cn_right for row in rows) / n
    oracle = sum(row.ours_right or row.cn_right for row in rows) / n
    ours_ms = sum(row.ours_ms for row in rows) / n
    cn_ms = sum(row.cn_ms for row in rows) / n
    print(f"\n{name} ({n} pages)")
    print(f"  {'ours':18} {ours:7.2%}  {ours_ms:6.2f} ms/page")
    print(f"  {'charset-normalizer':18} {cn:7.2%}  {cn_ms:6.2f} ms/page")
    print(f"  {'oracle':18} {oracle:7.2%}  (ours, or charset-normalizer where ours is wrong)")
    for rule, asks in rules().items():
        accuracy, called, ms = outcome(rows, asks)
        print(f"  {rule:18} {accuracy:7.2%}  {ms:6.2f} ms/page  calls charset-normalizer on {called:6.1%}")
    wrong = [row for row in rows if not row.ours_right]
    right = [row for row in rows if row.ours_right]
    low = sum(row.confidence < 0.5 for row in right)
    print(f"  confidence < 0.5: {sum(row.confidence < 0.5 for row in wrong)} of {len(wrong)} wrong pages, "
          f"{low} of {len(right)} right pages")
    for row in wrong:
        print(
            f"    wrong: {row.page.locale:6} {row.page.encoding:15} {len(row.page.body):6d} B  ours {row.guess:15}"
            f" conf {row.confidence:.3f}  charset-normalizer {row.cn_encoding!s:12} chaos {row.cn_chaos:.3f}"
            f" {'right' if row.cn_right else 'wrong'}"
        )


def corpora(per_encoding: int, seed: int) -> list[tuple[str, list[Page]]]:
    made = [
        ("1-50 KiB", corpus(per_encoding, seed)),
        ("150-700 B", corpus(per_encoding, seed + 1, min_size=150, max_size=700)),
    ]
    catalogs = catalog_corpus(per_encoding, seed + 2)
    if catalogs:
        made.append(("gettext 1-50 KiB", catalogs))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-encoding", type=int, default=20)
    parser.add_argument("--tune-seed", type=int, default=11)
    parser.add_argument("--test-seed", type=int, default=29)
    args = parser.parse_args()
    for role, seed in (("tuning", args.tune_seed), ("held-out", args.test_seed)):
        made = corpora(args.per_encoding, seed)
        for hinted in (False, True):
            for name, pages in made:
                label = f"[{role} seed {seed}] {name}{', TLD hint' if hinted else ''}"
                report(label, measure(pages, hinted))


if __name__ == "__main__":
    main()
