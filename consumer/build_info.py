"""What runs: this package's version, the interpreter, the Kafka client and the compiled decoders.

One source for ``crawl-decoder --version`` and the ``crawl_decoder_build_info`` metric, so what an
operator reads on a pod's /metrics is what a user reads on a terminal.
"""

from __future__ import annotations

import importlib.metadata
import platform

import confluent_kafka

from . import __version__
from .decoding import _native


def compiled() -> str:
    """The compiled extensions that loaded (``consumer.decoding._native``), space-separated in a fixed
    order, or ``none`` (without a compiler the readable decoders run instead: same answers, slower)."""
    return " ".join(_native.compiled()) or "none"


def build_info() -> dict[str, str]:
    """The labels of ``crawl_decoder_build_info``."""
    return {
        "version": __version__,
        "python": platform.python_version(),
        # The distribution's version: confluent_kafka.version() is a string in some releases, a tuple in others.
        "confluent_kafka": importlib.metadata.version("confluent-kafka"),
        "librdkafka": confluent_kafka.libversion()[0],
        "compiled": compiled(),
    }


def version_text() -> str:
    """``crawl-decoder --version``: the version on the first line, then one line per other label."""
    info = build_info()
    lines = [f"crawl-decoder {info.pop('version')}", *(f"{name}: {value}" for name, value in info.items())]
    return "\n".join(lines)
