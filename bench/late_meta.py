"""Micro-benchmark of ``consumer.decoding.late_meta``: µs per KiB, realistic and adversarial bodies.

    .venv/bin/python bench/late_meta.py [--repeat 3]

Each body is built to 64 KiB, 1, 4 and 16 MiB and scanned whole (``limit=len(body)``), so the
columns show how the time grows with the input: flat µs/KiB is linear time.  The realistic body is
a long head (scripts with markup in strings and comments, stylesheets, links, Open Graph metas,
``<script charset>``) with a ``<meta charset>`` at its end, which makes the scan read all of it; the
adversarial ones are the tokenizer's worst cases (unclosed escapes, tags, comments, many tags and
metas).  Printed: the best of --repeat runs.  The last lines are the hot path's cost under the
default 64 KiB limit: a head that fills it, and a page whose 8 KiB head ends at ``<body>``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from consumer.decoding.late_meta import late_meta

SIZES = [("64 KiB", 64 * 1024), ("1 MiB", 1 << 20), ("4 MiB", 4 << 20), ("16 MiB", 16 << 20)]

HEAD_UNIT = (
    b'<link rel="stylesheet" href="/static/css/site.min.css?v=20240101" media="all">\n'
    b'<link rel="preload" href="/static/fonts/inter.woff2" as="font" type="font/woff2" crossorigin>\n'
    b'<meta property="og:title" content="A page title that is long enough to look real">\n'
    b'<meta name="twitter:card" content="summary_large_image">\n'
    b'<script src="/static/js/vendor.js" charset="utf-8" defer></script>\n'
    b"<script>\n  window.dataLayer = window.dataLayer || [];\n"
    b"  function gtag(){dataLayer.push(arguments);} // <a href='x'>not a tag</a>\n"
    b"  var html = '<div class=\"banner\"><meta charset=\"koi8-r\"></div>';\n"
    b"  if (a < b && c > d) { document.write('<script src=x><\\/script>'); }\n</script>\n"
    b"<style>\n  .banner > a { color: #333; } /* <meta charset=gbk> */\n"
    b'  @font-face { font-family: Inter; src: url(/f.woff2) format("woff2"); }\n</style>\n'
    b"<!-- Google Tag Manager --><noscript><link rel=stylesheet href=/nojs.css></noscript>\n"
)
DECLARATION = b'<meta charset="windows-1251">'


def fill(unit: bytes, size: int, head: bytes = b"<!DOCTYPE html><html><head>", end: bytes = b"") -> bytes:
    """*head*, whole *unit*s, *end*: at most *size* bytes."""
    return head + unit * ((size - len(head) - len(end)) // len(unit)) + end


BODIES: list[tuple[str, Callable[[int], bytes]]] = [
    ("realistic head, <meta> at its end", lambda size: fill(HEAD_UNIT, size, end=DECLARATION)),
    ('"<script>" + "<!--<script>" * n', lambda size: fill(b"<!--<script>", size, head=b"<script>")),
    ('"<a" * n (one unclosed tag)', lambda size: fill(b"<a", size, head=b"")),
    ('"<!--" * n (one unclosed comment)', lambda size: fill(b"<!--", size, head=b"")),
    ('"<link href=x>" * n, <meta> at the end', lambda size: fill(b"<link href=x>", size, end=DECLARATION)),
    ('"<script></script>" * n, <meta> at the end', lambda size: fill(b"<script></script>", size, end=DECLARATION)),
    ('"<meta charset=bogus>" * n', lambda size: fill(b"<meta charset=bogus>", size)),
    ('"<!--<meta charset=gbk>-->" * n', lambda size: fill(b"<!--<meta charset=gbk>-->", size)),
]


def best_seconds(function: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'body (scanned whole)':44}" + "".join(f"{label:>10}" for label, _ in SIZES) + "   µs/KiB")
    for name, make in BODIES:
        cells = []
        for _, size in SIZES:
            body = make(size)
            seconds = best_seconds(lambda: late_meta(body, limit=len(body)), args.repeat)
            cells.append(f"{seconds * 1e6 / (len(body) / 1024):10.2f}")
        print(f"{name:44}" + "".join(cells))
    for name, body in (
        ("a 64 KiB head", fill(HEAD_UNIT, 64 * 1024, end=DECLARATION)),
        ("an 8 KiB head, then <body>", fill(HEAD_UNIT, 8 * 1024) + b"</head><body>" + b"<div><p>Text.</p></div>\n" * 2000),
    ):
        seconds = best_seconds(lambda: late_meta(body), args.repeat * 10)
        print(f"hot path, {name} ({len(body) // 1024} KiB page): {seconds * 1e6:.0f} µs, {late_meta(body)}")


if __name__ == "__main__":
    main()
