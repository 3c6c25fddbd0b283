"""How often does a lying or missing declaration publish wrong text as clean?  Real text, served nine ways.

Run from the repository root (on a Debian machine with translated packages installed: the text comes from the
gettext catalogues under /usr/share/locale, bench/real_text.py):

    .venv/bin/python bench/false_declared.py [--samples 20] [--half test] [--no-browser] [--language is:windows-1252]

Each legacy encoding of bench/real_text.py's ``ENCODINGS`` gets segments of real text holding N non-ASCII
characters (N in 4, 8, 16, 32, 64, 256, 1024), each wrapped in a small HTML page and served nine ways:

- ``undeclared .com``: no declaration, on a .com URL;
- ``undeclared ccTLD``: no declaration, on the language's country domain;
- ``false utf-8``: ``charset=utf-8`` in the header;
- ``false sibling``: the header names a sibling label (``real_text.FALSE_SIBLING``: EUC-KR as windows-1252,
  windows-1251 as windows-1252, Big5 as GBK, KOI8-R as windows-1251, windows-1250 as ISO-8859-2...);
- ``true label``: the header names the true encoding (the control: must be 100% right and clean);
- ``utf-8, latin-1 header``: the page in UTF-8 under a left-over ``charset=iso-8859-1`` header;
- ``utf-8, 1252 meta``: the page in UTF-8 with only a left-over ``<meta charset="windows-1252">``;
- ``utf-8, own old label``: the page in UTF-8 under its own legacy encoding's left-over header (a Russian site
  moved from windows-1251 to UTF-8 and kept ``charset=windows-1251``), on its ccTLD;
- ``false header, true meta``: the page declares its encoding in a ``<meta>``, and the header names the false
  sibling (a server's default charset over the page's own).

Each decode is classified as the processor routes it (``route.quarantine_reason``): right and clean (the text is
the page's exactly), wrong and clean (the worst outcome), or quarantined.  Beside it, what a browser shows: the
declared label's decode (the Encoding Standard's decoders), or, undeclared, the decode by chardetng's guess
(Firefox's detector, built from crates.io by cargo in bench/chardetng_oracle; ``--no-browser`` skips it).

Thresholds are chosen on the ``tune`` half of the catalogues and judged on the ``test`` half (the default).
"""

from __future__ import annotations

import argparse
import html
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path[:0] = [str(ROOT.parent), str(ROOT)]

import real_text  # noqa: E402

from consumer.decoding import decode  # noqa: E402
from consumer.decoding.codecs import decode_bytes  # noqa: E402
from consumer.processor.route import quarantine_reason  # noqa: E402

SCENARIOS = (
    "undeclared .com",
    "undeclared ccTLD",
    "false utf-8",
    "false sibling",
    "true label",
    "utf-8, latin-1 header",
    "utf-8, 1252 meta",
    "utf-8, own old label",
    "false header, true meta",
)
RIGHT, WRONG, QUARANTINED = "right-clean", "wrong-clean", "quarantined"


def page(text: str, head: str = "") -> str:
    return f"<!DOCTYPE html><html><head>{head}<title>Page</title></head><body><p>{html.escape(text, False)}</p></body></html>"


def served(encoding: str, text: str, tld: str) -> list[tuple[str, bytes, str | None, str, str | None]]:
    """(scenario, body, Content-Type, URL, the label a browser decodes with or None for detection) per scenario."""
    legacy = real_text.encodable(page(text), encoding)
    utf8 = page(text).encode("utf-8")
    meta = page(text, '<meta charset="windows-1252">').encode("utf-8")
    own_meta = real_text.encodable(page(text, f'<meta charset="{encoding}">'), encoding)
    assert legacy is not None and own_meta is not None
    sibling = real_text.FALSE_SIBLING[encoding]
    return [
        ("undeclared .com", legacy, "text/html", "https://www.example.com/", None),
        ("undeclared ccTLD", legacy, "text/html", f"https://www.example.{tld}/", None),
        ("false utf-8", legacy, "text/html; charset=utf-8", "https://www.example.com/", "UTF-8"),
        ("false sibling", legacy, f"text/html; charset={sibling}", "https://www.example.com/", sibling),
        ("true label", legacy, f"text/html; charset={encoding}", "https://www.example.com/", encoding),
        ("utf-8, latin-1 header", utf8, "text/html; charset=iso-8859-1", "https://www.example.com/", "windows-1252"),
        ("utf-8, 1252 meta", meta, "text/html", "https://www.example.com/", "windows-1252"),
        ("utf-8, own old label", utf8, f"text/html; charset={encoding}", f"https://www.example.{tld}/", encoding),
        ("false header, true meta", own_meta, f"text/html; charset={sibling}", "https://www.example.com/", sibling),
    ]


def outcome(body: bytes, content_type: str, url: str, expected: str) -> tuple[str, str]:
    decoded = decode(body, content_type, url, lazy_text=True)
    if quarantine_reason(decoded) is not None:
        return QUARANTINED, decoded.encoding
    return (RIGHT if decoded.text == expected else WRONG), decoded.encoding


class Chardetng:
    """Firefox's detector in a child process: pages in, guesses out."""

    def __init__(self) -> None:
        target = Path("/tmp/crawl-decoder-chardetng-target")
        manifest = ROOT / "chardetng_oracle" / "Cargo.toml"
        subprocess.run(
            ["cargo", "build", "--release", "-q", "--manifest-path", str(manifest), "--target-dir", str(target)],
            check=True,
        )
        self.binary = target / "release" / "chardetng_oracle"

    def guesses(self, pages: list[tuple[bytes, str | None]]) -> list[str]:
        data = b"".join(f"{tld or '-'} {len(body)}\n".encode() + body for body, tld in pages)
        run = subprocess.run([str(self.binary)], input=data, capture_output=True, check=True)
        return run.stdout.decode().split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=20, help="segments per encoding and length")
    parser.add_argument("--half", choices=("tune", "test"), default="test")
    parser.add_argument("--no-browser", action="store_true", help="skip chardetng (no cargo needed)")
    parser.add_argument("--worst", type=int, default=12, help="list this many wrong-clean (encoding, scenario) pairs")
    parser.add_argument(
        "--language",
        metavar="LANG:ENCODING",
        help="only LANG's pages (a gettext locale name), in ENCODING, served from the ccTLD named LANG: a language "
        "real_text.ENCODINGS does not list (is:windows-1252), measured apart so that its rows stay comparable",
    )
    args = parser.parse_args()
    if args.language:
        language, encoding = args.language.split(":")
        real_text.ENCODINGS = {encoding: ((language,), language)}

    counts: dict[tuple[str, int], Counter[str]] = defaultdict(Counter)
    browser: dict[tuple[str, int], Counter[str]] = defaultdict(Counter)
    wrong: Counter[tuple[str, str, str]] = Counter()
    undeclared: list[tuple[tuple[str, int], bytes, str | None, str]] = []
    pages = 0
    for encoding, (_, tld) in real_text.ENCODINGS.items():
        for length in real_text.LENGTHS:
            for _, text in real_text.segments(encoding, length, args.samples, args.half):
                expected = page(text)
                for scenario, body, content_type, url, label in served(encoding, text, tld):
                    if scenario == "utf-8, 1252 meta":
                        expected_here = page(text, '<meta charset="windows-1252">')
                    elif scenario == "false header, true meta":
                        expected_here = page(text, f'<meta charset="{encoding}">')
                    else:
                        expected_here = expected
                    result, got = outcome(body, content_type, url, expected_here)
                    counts[scenario, length][result] += 1
                    if result == WRONG:
                        wrong[encoding, scenario, got] += 1
                    if label is None:
                        undeclared.append(((scenario, length), body, url.rsplit(".", 1)[-1].rstrip("/"), expected_here))
                    else:
                        shown, _ = decode_bytes(label, body)
                        browser[scenario, length][RIGHT if shown == expected_here else WRONG] += 1
                pages += 1
    if not args.no_browser:
        guesses = Chardetng().guesses([(body, tld) for _, body, tld, _ in undeclared])
        for (key, body, _, expected), guess in zip(undeclared, guesses, strict=True):
            shown, _ = decode_bytes(guess, body)
            browser[key][RIGHT if shown == expected else WRONG] += 1

    print(f"{pages} segments of real text ({args.half} half), each served {len(SCENARIOS)} ways")
    print(f"{'scenario':<24}{'N':>6}{'pages':>7}{'right':>9}{'WRONG':>9}{'quar.':>9}{'browser right':>15}")
    for scenario in SCENARIOS:
        for length in real_text.LENGTHS:
            tally = counts[scenario, length]
            total = sum(tally.values())
            if not total:
                continue
            shown = browser[scenario, length]
            shown_total = sum(shown.values())
            print(
                f"{scenario:<24}{length:>6}{total:>7}"
                + "".join(f"{100 * tally[kind] / total:>8.1f}%" for kind in (RIGHT, WRONG, QUARANTINED))
                + (f"{100 * shown[RIGHT] / shown_total:>14.1f}%" if shown_total else f"{'-':>15}")
            )
    print("\nwrong and clean, most frequent (true encoding, scenario, published as):")
    for (encoding, scenario, got), number in wrong.most_common(args.worst):
        print(f"  {number:>4}  {encoding:<15} {scenario:<24} as {got}")


if __name__ == "__main__":
    main()
