"""``Decoded``: the text of a response body and how its encoding was decided."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

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
    "utf-8-over-declaration",  # valid UTF-8 that a legacy declaration would turn into mojibake (contradiction.py)
    "detector",
    "default",
    "binary",  # decided before all of them: not text, nothing decoded (``Decoded.binary``, mime_sniff.py)
]

#: The sources of a decode that gave text, in resolution order: every ``source`` a clean record can carry
#: (a binary body is never published as text).
SOURCES: tuple[str, ...] = tuple(
    source for source in Source.__args__ if source != "binary"  # type: ignore[attr-defined]
)

#: The places a response can declare its encoding, as keys of ``Decoded.declared``.
DECLARATION_PLACES = ("bom", "header", "meta", "xml")


#: ``declared`` when nothing was declared anywhere.
NOTHING_DECLARED: Mapping[str, str | None] = MappingProxyType(dict.fromkeys(DECLARATION_PLACES))


class Decoded(NamedTuple):
    """The result of ``decode``: an immutable value (a named tuple: the cheapest to build of Python's
    frozen records).  Bad content is described, not raised.

    ``text`` is the decoded text.  ``replacements`` counts the U+FFFD the
    decode introduced (not those the page itself encodes).  ``lossy`` is true
    when the text is not an exact rendering of the bytes under ``encoding``.
    ``declared`` maps each place of ``DECLARATION_PLACES`` to the WHATWG
    encoding it named, or None; it is a read-only mapping (``decode`` gives a
    ``MappingProxyType``).  ``conflicts`` says, one sentence each, what
    disagreed or failed on the way.

    ``binary`` is None for text.  A body that is not text at all (an image, a
    PDF: ``mime_sniff.non_text_type``) is not decoded: ``binary`` is its media
    type ("image/png"), ``source`` is "binary", ``text`` and ``encoding`` are
    empty and nothing is declared (``binary_decoded``).

    ``doubted`` is None but for a clean decode by a declared legacy encoding that the
    text itself contradicts: then it names the encoding whose reading the
    detection model finds far likelier (``contradiction.doubted``).  The text
    is the declaration's, as a browser shows it; the stream processor
    quarantines such a record (reason ``declaration-doubted``) rather than
    publish it as clean.

    ``utf8`` is the text encoded as UTF-8 when the decode has those bytes at
    hand, else None.  Only ``decode(..., lazy_text=True)`` sets it, for a text
    decoded without replacements: a valid UTF-8 body's own bytes (after its
    BOM), or a legacy text encoded once (the mojibake check reads it).  A
    writer that stores UTF-8 (the stream processor) writes these bytes and
    need never build the ``str``: for a valid UTF-8 body it is not built by
    the decode (``built_text`` is None), and ``text`` decodes ``utf8`` at each
    read.  Two values are equal when their text and every other field but
    ``utf8`` are.
    """

    #: The text as built by the decode; None when only ``utf8`` was (read ``text``).
    built_text: str | None
    encoding: str
    source: Source
    replacements: int = 0
    declared: Mapping[str, str | None] = NOTHING_DECLARED
    conflicts: tuple[str, ...] = ()
    confidence: float | None = None
    mojibake_suspected: bool = False
    override: Override | None = None
    binary: str | None = None
    doubted: str | None = None
    utf8: bytes | None = None

    @property
    def text(self) -> str:
        """The decoded text: ``built_text``, else ``utf8`` decoded (valid: the decode checked it)."""
        if self.built_text is not None:
            return self.built_text
        assert self.utf8 is not None  # the decode sets one of the two
        return self.utf8.decode("utf-8")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Decoded):
            return NotImplemented
        # The text, however it is held, and every field after built_text but utf8 (the last).
        return self[1:-1] == other[1:-1] and self.text == other.text

    def __ne__(self, other: object) -> bool:
        return not self == other

    @property
    def lossy(self) -> bool:
        return self.replacements > 0

    def as_dict(self, *, include_text: bool = True) -> dict[str, Any]:
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
            "binary": self.binary,
            "doubted": self.doubted,
        }
        if include_text:
            out["text"] = self.text
        return out


def binary_decoded(media_type: str) -> Decoded:
    """The ``Decoded`` of a body that is not text: *media_type* says what it is; nothing is decoded."""
    return Decoded("", "", "binary", binary=media_type)
