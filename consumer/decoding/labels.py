"""Encoding labels: implements the Encoding Standard's "get an encoding".

https://encoding.spec.whatwg.org/#concept-encoding-get
"""

from __future__ import annotations

from .data.whatwg import LABELS

# The Encoding Standard's definition of ASCII whitespace.
_ASCII_WHITESPACE = "\t\n\x0c\r "

#: Every encoding name the standard defines, in the order of encodings.json.
ENCODINGS: tuple[str, ...] = tuple(dict.fromkeys(LABELS.values()))


def get_encoding(label: str | bytes | None) -> str | None:
    """Return the WHATWG encoding name for *label*, or None when it names none.

    Strips leading and trailing ASCII whitespace and matches ASCII
    case-insensitively, as the standard says.  An unknown label is not an
    error: the caller moves on to the next source of an encoding.
    """
    if label is None:
        return None
    if isinstance(label, bytes):
        label = label.decode("latin-1")
    return LABELS.get(ascii_lower(label.strip(_ASCII_WHITESPACE)))


def ascii_lower(text: str) -> str:
    """The Infra Standard's "ASCII lowercase" (https://infra.spec.whatwg.org/#ascii-lowercase): A-Z only.

    str.lower() also folds non-ASCII letters (the Kelvin sign U+212A to "k"), which would accept
    labels, MIME types and attribute names the standards reject.  The one copy: Content-Type and
    the late ``<meta>`` parser use it too.
    """
    return text.translate(_ASCII_UPPER_TO_LOWER)


_ASCII_UPPER_TO_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}
