"""Fixtures of the overrides tests: files written on demand, the CLI run in-process."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from consumer.cli import main


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
    """Run ``crawl-decoder overrides ...`` in-process through ``consumer.cli.main``; (status, out, err)."""

    def _run(*argv: str) -> tuple[int, str, str]:
        status = main(["overrides", *argv])
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return _run
