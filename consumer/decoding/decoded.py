"""``Decoded``: the text of a response body and how its encoding was decided."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Literal

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


def _text_of_utf8(decoded: Decoded) -> str:
    return decoded._utf8.decode("utf-8")  # type: ignore[union-attr]  # valid: the decode checked it


@dataclass(frozen=True, init=False)
class Decoded:
    """The result of ``decode``.  Immutable; bad content is described, not raised.

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

    After ``decode(..., lazy_text=True)`` found the body valid UTF-8, ``text``
    is a cached property: the ``Decoded`` holds those bytes (``_utf8``; the
    first argument is None) and decodes them when ``text`` is first read.  The
    stream processor writes such a body's bytes as the text and never reads
    it: building the ``str`` is the largest cost of a decode (~50 us of a 30 KB
    page, against ~10 us to check the bytes).  Either way the value compares
    and prints the same.
    """

    text: str = cached_property(_text_of_utf8)  # type: ignore[assignment]
    # __init__ is written out below (init=False): the order of fields is no signature, text's default no default.
    encoding: str  # type: ignore[misc]
    source: Source  # type: ignore[misc]
    replacements: int = 0
    declared: Mapping[str, str | None] = field(default_factory=lambda: NOTHING_DECLARED)
    conflicts: tuple[str, ...] = ()
    confidence: float | None = None
    mojibake_suspected: bool = False
    override: Override | None = None
    binary: str | None = None
    #: The text's UTF-8 when a lazy decode has it at hand, else None: the valid UTF-8 of the body,
    #: decoded on the first read of ``text``, or the encoding of a legacy decode's text.
    _utf8: bytes | None = field(default=None, compare=False, repr=False)

    __hash__ = None  # type: ignore[assignment]  # declared is a mapping

    def __init__(
        self,
        text: str | None,
        encoding: str,
        source: Source,
        replacements: int = 0,
        declared: Mapping[str, str | None] = NOTHING_DECLARED,
        conflicts: tuple[str, ...] = (),
        confidence: float | None = None,
        mojibake_suspected: bool = False,
        override: Override | None = None,
        binary: str | None = None,
        _utf8: bytes | None = None,
    ) -> None:
        # frozen=True guards __setattr__ and __delattr__, so the __init__ it generates sets each field
        # through object.__setattr__: 1.1 us a decode, 5% of bench/decode.py's average page.  Stored
        # straight into the instance's dict (as cached_property stores) they take 0.3 us; every later
        # change is refused all the same.
        fields = vars(self)
        if text is not None:  # else the cached property builds it from _utf8
            fields["text"] = text
        fields["encoding"] = encoding
        fields["source"] = source
        fields["declared"] = declared
        # The other fields are read from the class (their defaults) unless they differ.
        if replacements:
            fields["replacements"] = replacements
        if conflicts:
            fields["conflicts"] = conflicts
        if confidence is not None:
            fields["confidence"] = confidence
        if mojibake_suspected:
            fields["mojibake_suspected"] = mojibake_suspected
        if override is not None:
            fields["override"] = override
        if binary is not None:
            fields["binary"] = binary
        if _utf8 is not None:
            fields["_utf8"] = _utf8

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
        }
        if include_text:
            out["text"] = self.text
        return out


def binary_decoded(media_type: str) -> Decoded:
    """The ``Decoded`` of a body that is not text: *media_type* says what it is; nothing is decoded."""
    return Decoded("", "", "binary", binary=media_type)
