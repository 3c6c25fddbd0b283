"""``crawl-decoder decode FILE...``: decode files as a browser would and show the decision."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..decoding import decode
from ..exceptions import CrawlDecoderError


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "decode",
        help="decode files and print their text or the decision",
        description="Decode each FILE as a browser would (BOM, Content-Type, meta prescan, "
        "validity, detection) and print the text, or the whole decision with --json. A file that is "
        "not text (an image, a PDF: MIME sniffing) is reported as binary, with its media type, and not decoded.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", type=Path, help="response body files ('-' for stdin)")
    parser.add_argument("--content-type", help="the response's Content-Type header value")
    parser.add_argument("--url", help="the response URL (its host picks overrides, its TLD hints detection)")
    parser.add_argument("--json", action="store_true", help="print the decision and text as JSON, one object per file")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for path in args.files:
        decoded = decode(_read(path), args.content_type, args.url)
        if args.json:
            print(json.dumps({"file": str(path), **decoded.as_dict()}, ensure_ascii=False))
        elif decoded.binary is not None:
            # Not an error: the answer is "not text". On stderr, so the text output stays text only.
            print(f"{path}: binary ({decoded.binary}), not text: nothing decoded", file=sys.stderr)
        else:
            sys.stdout.write(decoded.text)
            if not decoded.text.endswith("\n"):
                sys.stdout.write("\n")
    return 0


def _read(path: Path) -> bytes:
    if str(path) == "-":
        return sys.stdin.buffer.read()
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CrawlDecoderError(f"cannot read {path}: {exc.strerror}") from exc
