"""``crawl-decoder run``: the stream processor."""

from __future__ import annotations

import argparse

from ..app import App
from ..engine import EngineFatalError
from ..kafka.config import KafkaConnection
from .environment import load_settings


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    settings = load_settings(args.config)
    app = App(settings, KafkaConnection.from_env(extra=settings.kafka_config, instance=settings.transactional_id))
    app.install_signal_handlers()
    try:
        app.run()
    except EngineFatalError as exc:
        app.log.error("processor stopped on a fatal error", error=str(exc))
        return 1
    return 0
