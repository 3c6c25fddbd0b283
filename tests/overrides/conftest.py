"""Fixtures of the overrides tests: files written on demand, the CLI run in-process."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import pytest

from consumer.cli import overrides as overrides_cli

@pytest.fixture
def write(tmp_path: Path) -> Callable[[str], Path]:
    """Write text to ``overrides.yaml`` under a fresh directory and return its path."""
    path = tmp_path / "overrides.yaml"

    def _write(text: str | bytes) -> Path:
        path.write_bytes(text.encode() if isinstance(text, str) else text)
        return path

    return _write


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Run ``crawl-decoder overrides ...`` through ``register`` as ``consumer.cli.main`` does; (status, out, err)."""

    def _run(*argv: str) -> tuple[int, str, str]:
        parser = argparse.ArgumentParser(prog="crawl-decoder")
        overrides_cli.register(parser.add_subparsers(dest="command", required=True))
        args = parser.parse_args(["overrides", *argv])
        status = args.func(args)
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return _run
