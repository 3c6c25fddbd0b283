"""``Decoded``: the text of a response body and how its encoding was decided."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, NamedTuple

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


#: ``declared`` when nothing was declared anywhere.
NOTHING_DECLARED: Mapping[str, str | None] = MappingProxyType(dict.fromkeys(DECLARATION_PLACES))


class Decoded(NamedTuple):
    """The result of ``decode``.  Immutable; bad content is described, not raised.

    ``replacements`` counts the U+FFFD the decode introduced (not those the
    page itself encodes).  ``lossy`` is true when the text is not an exact
    rendering of the bytes under ``encoding``.  ``declared`` maps each place of
    ``DECLARATION_PLACES`` to the WHATWG encoding it named, or None; it is a
    read-only mapping (``decode`` gives a ``MappingProxyType``).
    ``conflicts`` says, one sentence each, what disagreed or failed on the way.

    A named tuple rather than a frozen dataclass: ``decode`` builds one per
    response, and a frozen dataclass's ``__init__`` (one ``object.__setattr__``
    a field) cost 0.75 us of a call that must stay within a few microseconds
    of the raw UTF-8 decode (bench/decode.py); a tuple costs 0.15 us.
    """

    text: str
    encoding: str
    source: Source
    replacements: int = 0
    declared: Mapping[str, str | None] = NOTHING_DECLARED
    conflicts: tuple[str, ...] = ()
    confidence: float | None = None
    mojibake_suspected: bool = False
    override: Override | None = None

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
