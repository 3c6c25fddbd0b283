"""The ``crawl-decoder`` command: one sub-command per module of this package.

Each module exposes ``register(subparsers)``, which adds its sub-command and
sets ``func`` on it; ``func(args)`` returns the exit status.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .. import __version__
from ..exceptions import ConfigError, CrawlDecoderError
from ..observability.logging import get_logger, logs_json

#: Modules of ``consumer.cli`` that provide sub-commands, in help order.
COMMANDS = ("decode", "run", "demo", "broker", "overrides", "replay", "ingest")
#: The commands that log JSON when their output is not a terminal: their errors are log lines then too.
LOGGING_COMMANDS = ("run", "replay", "ingest")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crawl-decoder",
        description="Decode crawled HTTP response bodies the way browsers do.",
    )
    parser.add_argument("--version", action="version", version=f"crawl-decoder {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CrawlDecoderError as exc:
        if args.command in LOGGING_COMMANDS and logs_json():  # every line JSON, a refused setting included
            event = "cannot start" if isinstance(exc, ConfigError) else "command failed"
            get_logger(command=args.command).error(event, error=str(exc))
        else:
            print(f"crawl-decoder: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception:
        if args.command not in LOGGING_COMMANDS or not logs_json():
            raise
        # A bug, not a configuration: its traceback as the "exception" field of one JSON line.
        get_logger(command=args.command).exception("crashed")
        return 1


if __name__ == "__main__":
    sys.exit(main())
