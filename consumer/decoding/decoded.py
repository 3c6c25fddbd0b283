"""``Decoded``: the text of a response body and how its encoding was decided."""

from __future__ import annotations

from collections.abc import Mapping
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


class Decoded:
    """The result of ``decode``.  Immutable; bad content is described, not raised.

    ``replacements`` counts the U+FFFD the decode introduced (not those the
    page itself encodes).  ``lossy`` is true when the text is not an exact
    rendering of the bytes under ``encoding``.  ``declared`` maps each place of
    ``DECLARATION_PLACES`` to the WHATWG encoding it named, or None; it is a
    read-only mapping (``decode`` gives a ``MappingProxyType``).
    ``conflicts`` says, one sentence each, what disagreed or failed on the way.

    ``binary`` is None for text.  A body that is not text at all (an image, a
    PDF: ``mime_sniff.non_text_type``) is not decoded: ``binary`` is its media
    type ("image/png"), ``source`` is "binary", ``text`` and ``encoding`` are
    empty and nothing is declared (``binary_decoded``).

    With ``decode(..., lazy_text=True)``, the ``text`` of a body found to be
    valid UTF-8 is decoded on first read (``new_decoded``): the stream
    processor writes such a body's bytes as the text and never reads it, and
    building the ``str`` was the largest cost of a decode (58 us for a 30 KB
    page of the bench corpus, against 12 us to check the bytes).

    A slotted class rather than a named tuple, for the lazy text; immutable as
    a frozen dataclass is, without the cost of its ``__init__`` (``new_decoded``).
    """

    __slots__ = (
        "text", "_utf8", "encoding", "source", "replacements", "declared", "conflicts", "confidence",
        "mojibake_suspected", "override", "binary",
    )  # fmt: skip

    text: str
    _utf8: bytes | None
    encoding: str
    source: Source
    replacements: int
    declared: Mapping[str, str | None]
    conflicts: tuple[str, ...]
    confidence: float | None
    mojibake_suspected: bool
    override: Override | None
    binary: str | None

    def __new__(
        cls,
        text: str,
        encoding: str,
        source: Source,
        replacements: int = 0,
        declared: Mapping[str, str | None] = NOTHING_DECLARED,
        conflicts: tuple[str, ...] = (),
        confidence: float | None = None,
        mojibake_suspected: bool = False,
        override: Override | None = None,
        binary: str | None = None,
    ) -> Decoded:
        return new_decoded(
            text, None, encoding, source, replacements, declared, conflicts, confidence, mojibake_suspected, override,
            binary,
        )  # fmt: skip

    def __getattr__(self, name: str) -> str:
        # Reached only when a slot is unset: "text" of a lazy decode (new_decoded), built on first
        # read and kept.  An eager decode's text is a plain slot read, as fast as a tuple's field.
        if name != "text" or self._utf8 is None:
            raise AttributeError(f"'Decoded' object has no attribute {name!r}")
        text = self._utf8.decode("utf-8")  # valid: new_decoded's caller checked
        # Set once, as new_decoded would have (this is the one change a Decoded sees).
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "_utf8", None)
        return text

    def _fields(self) -> tuple:
        return (
            self.text, self.encoding, self.source, self.replacements, self.declared, self.conflicts,
            self.confidence, self.mojibake_suspected, self.override, self.binary,
        )  # fmt: skip

    def __eq__(self, other: object) -> bool:
        if type(other) is not Decoded:
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # equal values may differ in how their text is held

    def __repr__(self) -> str:
        names = ("text",) + Decoded.__slots__[2:]
        return f"Decoded({', '.join(f'{name}={value!r}' for name, value in zip(names, self._fields()))})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Decoded is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Decoded is immutable: cannot delete {name!r}")

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
            "binary": self.binary,
        }
        if include_text:
            out["text"] = self.text
        return out


class _Unsealed(Decoded):
    """A ``Decoded`` being built: the same slots, which it may set.  Once set, ``new_decoded`` turns it
    into a ``Decoded`` (``__class__`` may change between classes of the same layout).  Fields set
    through ``object.__setattr__`` instead, as a frozen dataclass does, cost 2.3 us a decode against
    ~0.5 us this way (a tuple: 0.22 us)."""

    __slots__ = ()
    # Both, or CPython keeps a Python-level attribute store for every field (~0.3 us each):
    # __setattr__ and __delattr__ share one type slot.
    __setattr__ = object.__setattr__
    __delattr__ = object.__delattr__


def new_decoded(
    text, utf8, encoding, source, replacements, declared, conflicts, confidence, mojibake_suspected, override,
    binary=None,
) -> Decoded:
    """A ``Decoded`` of every field in order; for a lazy one, *text* None and *utf8* the bytes, which
    the caller has checked are valid UTF-8.  The decoding core calls it directly: ``Decoded(...)``
    is this with one Python frame more (0.3 us of a decode that bench/decode.py holds within a few
    microseconds of the raw UTF-8 decode)."""
    decoded = object.__new__(_Unsealed)
    if text is not None:  # else decoded on first read (__getattr__)
        decoded.text = text
    decoded._utf8 = utf8
    decoded.encoding = encoding
    decoded.source = source
    decoded.replacements = replacements
    decoded.declared = declared
    decoded.conflicts = conflicts
    decoded.confidence = confidence
    decoded.mojibake_suspected = mojibake_suspected
    decoded.override = override
    decoded.binary = binary
    decoded.__class__ = Decoded
    return decoded


def binary_decoded(media_type: str) -> Decoded:
    """The ``Decoded`` of a body that is not text: *media_type* says what it is; nothing is decoded."""
    return new_decoded("", None, "", "binary", 0, NOTHING_DECLARED, (), None, False, None, media_type)
