"""UTF-8 with a few legacy bytes under a left-over legacy label: how often is its mojibake published as clean?

Run from the repository root (on a Debian machine with translated packages installed, as bench/false_declared.py):

    .venv/bin/python bench/damaged_utf8.py [--samples 20] [--half test] [--strays 1]

A site that moved to UTF-8 and kept its legacy label often keeps some legacy bytes too: an old footer's "©", a
record written before the move.  Each page of bench/real_text.py's segments (N non-ASCII characters, N in 16, 64,
256) is written in UTF-8 with *strays* legacy bytes put in at seeded places, outside multi-byte sequences (a
character of its own encoding's language, as the old records would hold, or a windows-1252 sign), and served
three ways: under a left-over ``charset=iso-8859-1`` header, under its own legacy encoding's left-over header (on
its ccTLD), and with only a left-over ``<meta charset="windows-1252">``.  Each decode is classified as the
processor routes it (``route.quarantine_reason``): clean with the UTF-8 text (possible only when replacements are
allowed), clean with another (the label's mojibake: the worst outcome), or quarantined, and why.  No decode can be
right and clean: the legacy bytes are lost in UTF-8, and kept raw in the quarantine record.
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
from false_declared import page  # noqa: E402

from consumer.decoding import decode  # noqa: E402
from consumer.processor.route import quarantine_reason  # noqa: E402

LENGTHS = (16, 64, 256)
SCENARIOS = ("latin-1 header", "own old label", "1252 meta")
#: windows-1252 signs an old footer or template holds: ©, °, ’, «, ».
_SIGNS = "©°’«»".encode("cp1252")


def damaged(text: str, encoding: str, strays: int, rng: random.Random) -> bytes:
    """*text*'s page in UTF-8 with *strays* legacy bytes put in between its characters."""
    body = bytearray(page(text).encode("utf-8"))
    start, end = body.index(b"<p>") + 3, body.index(b"</p>")
    legacy = real_text.encodable(text, encoding) or b""
    pool = bytes(byte for byte in legacy if byte >= 0x80) + _SIGNS
    for _ in range(strays):
        at = rng.randrange(start, end)
        while body[at] & 0xC0 == 0x80:  # not inside a multi-byte sequence
            at -= 1
        body[at:at] = bytes([rng.choice(pool)])
        end += 1
    return bytes(body)


def served(body: bytes, text: str, encoding: str, tld: str, strays: int, rng: random.Random):
    own = encoding if encoding != "ISO-2022-JP" else "Shift_JIS"
    meta = damaged(text, encoding, strays, rng).replace(b"<head>", b'<head><meta charset="windows-1252">', 1)
    return [
        ("latin-1 header", body, "text/html; charset=iso-8859-1", "https://www.example.com/"),
        ("own old label", body, f"text/html; charset={own}", f"https://www.example.{tld}/"),
        ("1252 meta", meta, "text/html", "https://www.example.com/"),
    ]


def classify(body: bytes, content_type: str, url: str) -> str:
    decoded = decode(body, content_type, url, lazy_text=True)
    reason = quarantine_reason(decoded)
    if reason is not None:
        return f"quarantined ({reason})"
    return "clean, UTF-8" if decoded.encoding == "UTF-8" else "CLEAN, MOJIBAKE"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20, help="segments per encoding and length")
    parser.add_argument("--half", choices=("tune", "test"), default="test")
    parser.add_argument("--strays", type=int, default=1, help="legacy bytes put in each page")
    args = parser.parse_args()
    rng = random.Random(f"damaged-{args.half}-{args.strays}")
    counts: Counter[tuple[str, int, str]] = Counter()
    pages: Counter[tuple[str, int]] = Counter()
    for encoding, (_, tld) in real_text.ENCODINGS.items():
        for length in LENGTHS:
            for _, text in real_text.segments(encoding, length, args.samples, args.half):
                body = damaged(text, encoding, args.strays, rng)
                for scenario, payload, content_type, url in served(body, text, encoding, tld, args.strays, rng):
                    counts[scenario, length, classify(payload, content_type, url)] += 1
                    pages[scenario, length] += 1
    kinds = sorted({kind for _, _, kind in counts})
    print(f"{args.half} half, {args.samples} segments per encoding and length, {args.strays} legacy byte(s) a page")
    print(f"{'scenario':<16}{'N':>6}{'pages':>7}" + "".join(f"{kind:>34}" for kind in kinds))
    for scenario in SCENARIOS:
        for length in LENGTHS:
            total = pages[scenario, length]
            cells = "".join(f"{100 * counts[scenario, length, kind] / total:>33.1f}%" for kind in kinds)
            print(f"{scenario:<16}{length:>6}{total:>7}{cells}")


if __name__ == "__main__":
    main()
