"""``crawl-decoder run``: the stream processor."""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import os
import sys
from collections.abc import Mapping

from ..app import App
from ..engine import EngineFatalError
from ..kafka.config import KafkaConnection
from ..observability.logging import configure_logging, get_logger
from ..settings import CONFIG_ENV, ENV_PREFIX, Settings


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run the stream processor (landing -> clean | quarantine)",
        description="Consume raw responses from the landing topic, decode each body once, and write it to the "
        "clean topic or the quarantine topic. Settings: --config FILE or CRAWL_DECODER_CONFIG, then "
        "CRAWL_DECODER_<SETTING> variables (one that names no setting is ignored, with a warning at start "
        "naming the setting it probably meant); the Kafka connection from KAFKA_* variables.",
    )
    parser.add_argument("--config", help="settings YAML file (default: $CRAWL_DECODER_CONFIG)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    settings = Settings.load(args.config)
    configure_logging(settings.log_level, json=not sys.stdout.isatty())
    report_unknown_env()
    app = App(settings, KafkaConnection.from_env())
    app.install_signal_handlers()
    try:
        app.run()
    except EngineFatalError as exc:
        app.log.error("processor stopped on a fatal error", error=str(exc))
        return 1
    return 0


def report_unknown_env(environ: Mapping[str, str] = os.environ) -> int:
    """Warn about each ``CRAWL_DECODER_*`` variable that names no setting (a typo is otherwise silently ignored).

    A warning, not a refusal: a variable a newer chart sets for a setting this image does not know yet (or no
    longer knows, after a rollback) must not stop every pod of a rollout; the log names it, and the setting it
    probably meant.  Returns how many were reported.
    """
    log = get_logger(component="settings")
    found = unknown_env(environ)
    for variable, meant in found:
        extra = {"did_you_mean": meant} if meant else {}
        log.warning("unknown settings variable ignored", variable=variable, **extra)
    return len(found)


def known_env() -> frozenset[str]:
    """Every ``CRAWL_DECODER_*`` variable ``Settings.load`` reads: one per setting, and the settings file's path.

    (``CRAWL_DECODER_SCHEMAS_DIR`` and ``CRAWL_DECODER_OVERRIDES_PATH``, also read outside ``Settings``, are
    settings' names; the ``CRAWL_DECODER_*`` names of the Scrapy extension are Scrapy settings, not variables.)
    """
    return frozenset({CONFIG_ENV, *(ENV_PREFIX + field.name.upper() for field in dataclasses.fields(Settings))})


def unknown_env(environ: Mapping[str, str] = os.environ) -> list[tuple[str, str | None]]:
    """``CRAWL_DECODER_*`` variables that name nothing ``Settings.load`` reads, which it therefore ignores.

    Each with the known variable it most likely meant (a misspelling, a lower-case name), or None.
    """
    known = known_env()
    suffixes = {name[len(ENV_PREFIX):]: name for name in known}
    found = []
    for variable in sorted(environ):
        if variable.startswith(ENV_PREFIX) and variable not in known:
            close = difflib.get_close_matches(variable[len(ENV_PREFIX):].upper(), sorted(suffixes), n=1, cutoff=0.7)
            found.append((variable, suffixes[close[0]] if close else None))
    return found
