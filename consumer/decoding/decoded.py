"""``Decoded``: the text of a response body and how its encoding was decided."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from .overrides import Override

#: Where the encoding came from, in the order the resolution tries them.
Source = Literal[
    "bom",
    "override",
    "http-header",
    "meta-prescan",
    "meta-late",
    "xml-declaration",
    "json",
    "utf-8-valid",
    "detector",
    "default",
]

SOURCES: tuple[str, ...] = Source.__args__  # type: ignore[attr-defined]

#: The places a response can declare its encoding, as keys of ``Decoded.declared``.
DECLARATION_PLACES = ("bom", "header", "meta", "xml")


def _frozen(mapping: Mapping[str, str | None]) -> Mapping[str, str | None]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True, slots=True)
class Decoded:
    """The result of ``decode``.  Immutable; bad content is described, not raised.

    ``replacements`` counts the U+FFFD the decode introduced (not those the
    page itself encodes).  ``lossy`` is true when the text is not an exact
    rendering of the bytes under ``encoding``.  ``declared`` maps each place of
    ``DECLARATION_PLACES`` to the WHATWG encoding it named, or None.
    ``conflicts`` says, one sentence each, what disagreed or failed on the way.
    """

    text: str
    encoding: str
    source: Source
    replacements: int = 0
    declared: Mapping[str, str | None] = field(
        default_factory=lambda: _frozen(dict.fromkeys(DECLARATION_PLACES))
    )
    conflicts: tuple[str, ...] = ()
    confidence: float | None = None
    mojibake_suspected: bool = False
    override: Override | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.declared, MappingProxyType):
            object.__setattr__(self, "declared", _frozen(self.declared))

    @property
    def lossy(self) -> bool:
        return self.replacements > 0

    def as_dict(self, *, include_text: bool = True) -> dict:
        """A JSON-ready description of the decision (used by the CLI and logs)."""
        out = {
            "encoding": self.encoding,
            "source": self.source,
            "confidence": self.confidence,
            "replacements": self.replacements,
            "lossy": self.lossy,
            "declared": dict(self.declared),
            "conflicts": list(self.conflicts),
            "mojibake_suspected": self.mojibake_suspected,
            "override": None
            if self.override is None
            else {
                "host": self.override.host,
                "encoding": self.override.encoding,
                "mode": self.override.mode.value,
                "reason": self.override.reason,
                "review_by": self.override.review_by.isoformat(),
                "owner": self.override.owner,
            },
        }
        if include_text:
            out["text"] = self.text
        return out
