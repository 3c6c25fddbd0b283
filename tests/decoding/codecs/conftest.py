"""Fixtures for the codec tests (helpers live in ``whatwg_reference``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from whatwg_reference import read_index


@pytest.fixture(scope="session")
def index() -> Callable[[str], dict[int, int]]:
    """``index("jis0208")`` -> {pointer: code point}, from the standard's file."""
    return read_index
