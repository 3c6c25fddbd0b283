"""Errors of the overrides layer: a file operators wrote that cannot be used."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..exceptions import ConfigError


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with (or worth saying about) an overrides file.

    *line* is 1-based, or None when the problem is about the file as a whole
    (missing, unreadable).
    """

    line: int | None
    message: str

    def render(self, source: str) -> str:
        """``FILE:LINE: message``, the form editors and CI logs link to."""
        if self.line is None:
            return f"{source}: {self.message}"
        return f"{source}:{self.line}: {self.message}"


class OverridesError(ConfigError):
    """An overrides file was refused; carries every problem found, not just the first."""

    def __init__(self, source: str, problems: Iterable[Problem]) -> None:
        self.source = source
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__(self.__str__())

    def __str__(self) -> str:
        return "\n".join(problem.render(self.source) for problem in self.problems)
