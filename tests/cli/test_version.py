"""``crawl-decoder --version`` says what the metrics' build_info says, one label a line."""

from __future__ import annotations

import subprocess
import sys

from consumer import __version__
from consumer.build_info import build_info


def test_version_prints_the_build_info_labels():
    result = subprocess.run(
        [sys.executable, "-m", "consumer.cli", "--version"], capture_output=True, text=True, check=True
    )
    first, *rest = result.stdout.splitlines()
    assert first == f"crawl-decoder {__version__}"
    info = build_info()
    del info["version"]
    assert rest == [f"{name}: {value}" for name, value in info.items()]


def test_the_package_version_is_the_distributions():
    import importlib.metadata

    # pyproject.toml reads it from consumer.__version__: one source, seen the same from both sides.
    assert importlib.metadata.version("crawl-decoder") == __version__
