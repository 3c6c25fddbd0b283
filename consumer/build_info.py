"""What runs: this package's version, the interpreter, the Kafka client and the compiled decoders.

One source for ``crawl-decoder --version`` and the ``crawl_decoder_build_info`` metric, so what an
operator reads on a pod's /metrics is what a user reads on a terminal.
"""

from __future__ import annotations

import importlib.metadata
import platform
from collections.abc import Callable

import confluent_kafka

from . import __version__
from .decoding import detection, mojibake, prescan
from .decoding.codecs import multibyte, single_byte, utf8, utf16

#: Each optional C extension by the short name the metric and --version give it, with whether it loaded
#: (without a compiler the readable decoders run instead: same answers, slower).
COMPILED_EXTENSIONS: dict[str, Callable[[], bool]] = {
    "prescan": lambda: prescan.COMPILED,
    "utf8": lambda: utf8.COMPILED,
    "utf8_counts": lambda: utf8.COUNTS_COMPILED,
    "cjk": lambda: multibyte.COMPILED,
    "single_byte": lambda: single_byte.COMPILED,
    "utf16": lambda: utf16.COMPILED,
    "utf16_errors": lambda: utf16.ERRORS_COMPILED,
    "mojibake": lambda: mojibake.COMPILED,
    "detection": lambda: detection.COMPILED,
}


def compiled() -> str:
    """The compiled extensions that loaded, space-separated in a fixed order, or ``none``."""
    names = [name for name, loaded in COMPILED_EXTENSIONS.items() if loaded()]
    return " ".join(names) or "none"


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
