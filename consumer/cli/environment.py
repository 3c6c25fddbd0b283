"""The ``CRAWL_DECODER_*`` variables a command was started with that name no setting.

``Settings.load`` reads one variable a setting and ignores any other, so a typo
would silently leave a setting at its default.  Every command that loads the
settings says so at start: ``report_unknown_env`` in its log (run, replay,
ingest, through ``load_settings``), ``warn_unknown_env`` as plain lines beside a command's table output
(``overrides``).
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import sys
from collections.abc import Mapping
from typing import TextIO

from ..observability.logging import configure_logging, get_logger
from ..settings import CONFIG_ENV, ENV_PREFIX, KAFKA_CONFIG_ENV_PREFIX, Settings
from . import allocator


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


def load_settings(config: str | None, stream: TextIO | None = None) -> Settings:
    """The settings of a command that logs (run, replay, ingest), its logging configured by them.

    Logging is configured first, at info, so that a bad setting is refused in the same JSON as every
    other line; then at the settings' level, and each unknown variable is reported (``report_unknown_env``).
    *stream* is where the command logs (None: stdout, at call time), in JSON unless it is a terminal.
    """
    json = not (stream or sys.stdout).isatty()
    configure_logging("info", json=json, stream=stream)
    settings = Settings.load(config)
    configure_logging(settings.log_level, json=json, stream=stream)
    report_unknown_env()
    return settings


def known_env() -> frozenset[str]:
    """Every ``CRAWL_DECODER_*`` variable ``Settings.load`` reads: one per setting, and the settings file's path.

    (``CRAWL_DECODER_SCHEMAS_DIR`` and ``CRAWL_DECODER_OVERRIDES_PATH``, also read outside ``Settings``, are
    settings' names; the ``CRAWL_DECODER_*`` names of the Scrapy extension are Scrapy settings, not variables.
    ``CRAWL_DECODER_MALLOC`` is read before any setting, by every command: allocator.py.)
    """
    settings = (ENV_PREFIX + field.name.upper() for field in dataclasses.fields(Settings))
    return frozenset({CONFIG_ENV, allocator.ENV, *settings})


def unknown_env(environ: Mapping[str, str] = os.environ) -> list[tuple[str, str | None]]:
    """``CRAWL_DECODER_*`` variables that name nothing ``Settings.load`` reads, which it therefore ignores.

    Each with the known variable it most likely meant (a misspelling, a lower-case name), or None.
    """
    known = known_env()
    suffixes = {name[len(ENV_PREFIX):]: name for name in known}
    found = []
    for variable in sorted(environ):
        if variable.startswith(KAFKA_CONFIG_ENV_PREFIX):
            continue  # a librdkafka property for kafka_config (librdkafka itself refuses an unknown one)
        if variable.startswith(ENV_PREFIX) and variable not in known:
            close = difflib.get_close_matches(variable[len(ENV_PREFIX):].upper(), sorted(suffixes), n=1, cutoff=0.7)
            found.append((variable, suffixes[close[0]] if close else None))
    return found


def warn_unknown_env(environ: Mapping[str, str] = os.environ, stream: TextIO | None = None) -> int:
    """``report_unknown_env`` as plain lines on *stream* (stderr), for commands that do not log."""
    found = unknown_env(environ)
    for variable, meant in found:
        hint = f" (did you mean {meant}?)" if meant else ""
        print(f"warning: {variable} names no setting and is ignored{hint}", file=stream or sys.stderr)
    return len(found)
