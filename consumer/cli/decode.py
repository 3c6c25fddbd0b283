"""``crawl-decoder decode FILE...``: decode files as a browser would and show the decision."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from pathlib import Path

from ..decoding import Decoded, OverrideTable, decode
from ..exceptions import CrawlDecoderError
from ..overrides import active_table, load_overrides
from .overrides import ENV_PATH

#: ``128 + SIGPIPE``: what a shell reports for a writer whose reader went away (``cat big | head``).
EXIT_CLOSED_PIPE = 141

EPILOG = f"""\
overrides:
  --overrides FILE (default: ${ENV_PATH} when set, else none) is read and
  validated as the processor reads it; with --url, an override of the URL's
  host decides the encoding as in the stream (see "source": "override" with
  --json).  Overdue overrides follow the file's "expired" setting.

exit status:
  0 every FILE decoded (a binary one is reported, not an error); 2 a FILE
  could not be read (the others are still decoded; each failure is on stderr)
  or the overrides file is invalid; {EXIT_CLOSED_PIPE} the reader of stdout went away
  (| head): the remaining files are not decoded, and nothing is reported.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "decode",
        help="decode files and print their text or the decision",
        description="Decode each FILE as a browser would (BOM, Content-Type, overrides, meta prescan, "
        "validity, detection) and print the text, or the whole decision with --json. A file that is "
        "not text (an image, a PDF: MIME sniffing) is reported as binary, with its media type, and not decoded.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="+", metavar="FILE", type=Path, help="response body files ('-' for stdin)")
    parser.add_argument("--content-type", help="the response's Content-Type header value")
    parser.add_argument("--url", help="the response URL (its host picks overrides, its TLD hints detection)")
    parser.add_argument("--overrides", metavar="FILE",
                        help=f"per-host overrides file (default: ${ENV_PATH} when set, else no overrides)")
    parser.add_argument("--json", action="store_true", help="print the decision and text as JSON, one object per file")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    overrides = _overrides(args.overrides)
    failed = 0
    try:
        for path in args.files:
            try:
                body = _read(path)
            except CrawlDecoderError as exc:
                # Go on with the others; the exit status says that one was missed.
                print(f"crawl-decoder: error: {exc}", file=sys.stderr)
                failed += 1
                continue
            _show(path, decode(body, args.content_type, args.url, overrides), json_out=args.json)
        sys.stdout.flush()  # inside the try: a closed pipe surfaces here, not at interpreter exit
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_CLOSED_PIPE
    if failed:
        print(f"crawl-decoder: {failed} of {len(args.files)} files could not be read", file=sys.stderr)
        return 2
    return 0


def _show(path: Path, decoded: Decoded, *, json_out: bool) -> None:
    if json_out:
        print(json.dumps({"file": str(path), **decoded.as_dict()}, ensure_ascii=False))
    elif decoded.binary is not None:
        # Not an error: the answer is "not text". On stderr, so the text output stays text only.
        print(f"{path}: binary ({decoded.binary}), not text: nothing decoded", file=sys.stderr)
    else:
        sys.stdout.write(decoded.text)
        if not decoded.text.endswith("\n"):
            sys.stdout.write("\n")


def _overrides(path: str | None) -> OverrideTable | None:
    """The explicit file, else ``$CRAWL_DECODER_OVERRIDES_PATH``; either must exist and be valid."""
    chosen = path or os.environ.get(ENV_PATH)
    if not chosen:
        return None
    return active_table(load_overrides(chosen), dt.datetime.now(dt.UTC).date())


def _silence_stdout() -> None:
    """The reader is gone: point stdout at /dev/null so the interpreter's last flush does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)


def _read(path: Path) -> bytes:
    if str(path) == "-":
        return sys.stdin.buffer.read()
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CrawlDecoderError(f"cannot read {path}: {exc.strerror}") from exc
