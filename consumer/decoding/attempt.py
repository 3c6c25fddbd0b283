"""Decoding by one candidate encoding, the resolution order's unit of work (resolve.py).

``strictly`` is "strict first": the ``Decoded`` of the bytes when they decode
without errors under the encoding (the Encoding Standard's decode, error mode
fatal), else None.  ``with_replacements`` decodes them whatever they hold,
U+FFFD counted: what is left when no candidate decodes strictly, and after a
byte order mark, which is final.  ``as_final`` is either, whichever the bytes
make it, from one decode: for the candidate that is the answer whether or not
it decodes strictly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from .codecs import decode_bytes, decode_strict
from .codecs.utf8 import UTF8
from .codecs.utf8 import is_valid as utf8_is_valid
from .codecs.utf8 import validity as utf8_validity
from .decoded import Decoded, Source
from .mojibake import looks_double_encoded, possible_in, utf8_looks_double_encoded
from .overrides import Override


class Provenance(NamedTuple):
    """How a candidate came to be tried: the ``Decoded``'s fields that its decode does not set."""

    source: Source
    declared: Mapping[str, str | None]
    conflicts: tuple[str, ...] = ()
    confidence: float | None = None
    override: Override | None = None


def strictly(encoding: str, data: bytes, why: Provenance, lazy_text: bool = False) -> Decoded | None:
    """*data* decoded as *encoding*, or None when it does not decode without errors.

    *why* gives the ``Decoded``'s other fields.  With *lazy_text*, the
    ``Decoded`` carries the text's UTF-8 (``Decoded.utf8``): valid UTF-8 is
    checked, not decoded (the bytes are the text's UTF-8, and checking them
    costs a fraction of building the ``str``); any other text is decoded and
    encoded once.
    """
    if encoding == "UTF-8":
        return utf8(data, why, lazy_text)
    text = decode_strict(encoding, data)
    if text is None:
        return None
    return _clean(text, encoding, why, lazy_text)


def with_replacements(encoding: str, data: bytes, why: Provenance) -> Decoded:
    """*data* decoded as *encoding*, one U+FFFD per malformed sequence as the standard says, counted."""
    text, replacements = decode_bytes(encoding, data)
    return _lossy(text, encoding, replacements, why)


def as_final(encoding: str, data: bytes, why: Provenance, failed: str, lazy_text: bool = False) -> Decoded:
    """``strictly`` when *data* decodes as *encoding* (not UTF-8) without errors, else ``with_replacements``
    with *failed* added to the conflicts: the same ``Decoded`` either way, from one decode, not two."""
    text, replacements = decode_bytes(encoding, data)  # the strict decode's text when nothing is replaced
    if not replacements:
        return _clean(text, encoding, why, lazy_text)
    return _lossy(text, encoding, replacements, why._replace(conflicts=(*why.conflicts, failed)))


def utf8(data: bytes, why: Provenance, lazy_text: bool = False, *, refuse_escapes: bool = False) -> Decoded | None:
    """``strictly`` for UTF-8.  With *refuse_escapes*, also None for a body that is all ASCII with an ESC byte
    (perhaps ISO-2022-JP: the fast path leaves it to the resolution, contradiction.py)."""
    source, declared, conflicts, confidence, override = why
    if lazy_text:
        if refuse_escapes:
            if utf8_validity(data) != UTF8:
                return None
        elif not utf8_is_valid(data):
            return None
        mojibake = utf8_looks_double_encoded(data)
        checked = (None, "UTF-8", source, 0, declared, conflicts, confidence, mojibake, override, None, None, data)
        return tuple.__new__(Decoded, checked)  # see below
    try:
        text = data.decode("utf-8")  # the standard's UTF-8 decoder, error mode fatal (codecs/utf8.py)
    except UnicodeDecodeError:
        return None
    if refuse_escapes and text.isascii() and "\x1b" in text:  # a str knows whether it is ASCII
        return None
    # A str knows whether it is ASCII (bytes.isascii() would read them all).
    mojibake = not text.isascii() and utf8_looks_double_encoded(data)
    # Every field given, in order, to tuple's constructor: most responses are UTF-8 and come here, and the named
    # tuple's generated constructor (a Python function that fills in defaults) costs ~400 ns, where this costs
    # ~150: on bench/decode.py's pages, a tenth of what decode() adds to the UTF-8 decode.
    fields = (text, "UTF-8", source, 0, declared, conflicts, confidence, mojibake, override, None, None, None)
    return tuple.__new__(Decoded, fields)


def _clean(text: str, encoding: str, why: Provenance, lazy_text: bool) -> Decoded:
    """The ``Decoded`` of *text*, a decode by *encoding* (not UTF-8) without errors."""
    source, declared, conflicts, confidence, override = why
    if lazy_text:
        # The writer will need the text's UTF-8 and the mojibake check reads it: encoded once, for
        # both.  A strict decode holds no lone surrogate.
        encoded = text.encode("utf-8")
        mojibake = possible_in(encoding) and utf8_looks_double_encoded(encoded)
        return Decoded(
            text, encoding, source, 0, declared, conflicts, confidence, mojibake, override, None, None, encoded
        )
    mojibake = possible_in(encoding) and looks_double_encoded(text)
    return Decoded(text, encoding, source, 0, declared, conflicts, confidence, mojibake, override)


def _lossy(text: str, encoding: str, replacements: int, why: Provenance) -> Decoded:
    """The ``Decoded`` of *text*, a decode by *encoding* that introduced *replacements* U+FFFD."""
    source, declared, conflicts, confidence, override = why
    mojibake = possible_in(encoding) and looks_double_encoded(text)
    return Decoded(text, encoding, source, replacements, declared, conflicts, confidence, mojibake, override)
