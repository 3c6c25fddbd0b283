"""The ``crawl-decoder`` command: one sub-command per module of this package.

Each module exposes ``register(subparsers)``, which adds its sub-command and
sets ``func`` on it; ``func(args)`` returns the exit status.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import threading

from ..build_info import version_text
from ..exceptions import ConfigError, CrawlDecoderError
from ..observability.logging import get_logger, logs_json
from .allocator import keep_freed_memory

#: Modules of ``consumer.cli`` that provide sub-commands, in help order.
COMMANDS = ("decode", "run", "demo", "broker", "overrides", "replay", "ingest")
#: The commands that log JSON when their output is not a terminal: their errors are log lines then too.
LOGGING_COMMANDS = ("run", "replay", "ingest")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crawl-decoder",
        description="Decode crawled HTTP response bodies the way browsers do.",
        # Keeps --version's lines as build_info.version_text() writes them (the description is one line).
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=version_text())
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        keep_freed_memory()  # before any batch: glibc keeps what one frees for the next (allocator.py)
        status = int(args.func(args) or 0)
    except CrawlDecoderError as exc:
        if args.command in LOGGING_COMMANDS and logs_json():  # every line JSON, a refused setting included
            event = "cannot start" if isinstance(exc, ConfigError) else "command failed"
            get_logger(command=args.command).error(event, error=str(exc))
        else:
            print(f"crawl-decoder: error: {exc}", file=sys.stderr)
        status = 2
    except KeyboardInterrupt:
        status = 130
    except Exception:
        if args.command not in LOGGING_COMMANDS or not logs_json():
            raise
        # A bug, not a configuration: its traceback as the "exception" field of one JSON line.
        get_logger(command=args.command).exception("crashed")
        status = 1
    _ignore_signals_until_exit()
    return status


def _ignore_signals_until_exit() -> None:
    """Once the exit status is decided, SIGTERM and SIGINT change nothing: ignore them until the process is gone.

    A command's handler (finish the batch in hand) would otherwise be reset to the default action by
    CPython's finalization, and a SIGTERM in the process's last milliseconds would end it by the signal
    (status 143) instead of the documented 0 or 1. An ignored signal stays ignored through finalization.
    SIGKILL (Kubernetes after the grace period) still ends a process stuck in closing its clients."""
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, signal.SIG_IGN)


if __name__ == "__main__":
    sys.exit(main())
