"""The Encoding Standard's decoders, one module per codec family.

``decode_bytes`` is the standard's "decode" with error mode "replacement" and
no BOM sniffing (the caller has removed the BOM); ``decode_strict`` is the same
with error mode "fatal", returning None instead of raising.  Both take a
WHATWG encoding name (``SUPPORTED``); an unknown name is a programming error
(KeyError), while bad bytes never raise.

Which code runs: single-byte encodings run through a compiled table decoder
(``single_byte.COMPILED``; else ``codecs.charmap_decode``) over the standard's indexes; UTF-8
and UTF-16 through Python's codecs, which match the standard (checked by
tests); the CJK encodings through table-driven C decoders over the standard's
indexes where their extension was built, else through the readable
transcriptions of the standard (``multibyte`` chooses).
"""

from __future__ import annotations

from collections.abc import Callable

from ..labels import ENCODINGS
from . import cpython, multibyte, replacement, single_byte, utf8, utf16

__all__ = ["SUPPORTED", "decode_bytes", "decode_strict"]


Lossy = Callable[[bytes], "tuple[str, int]"]
Strict = Callable[[bytes], "str | None"]


def _utf16(codec: str) -> tuple[Lossy, Strict]:
    return (
        lambda data: utf16.decode(codec, data),
        lambda data: utf16.decode_strict(codec, data),
    )


def _decoders() -> dict[str, tuple[Lossy, Strict]]:
    table: dict[str, tuple[Lossy, Strict]] = {
        name: single_byte.decoders(name) for name in single_byte.TABLES
    }
    table["UTF-8"] = (utf8.decode, utf8.decode_strict)
    table.update({name: _utf16(cpython.DECODERS[name]) for name in ("UTF-16LE", "UTF-16BE")})
    table["replacement"] = (replacement.decode, replacement.decode_strict)
    table.update({name: multibyte.decoders(name) for name in multibyte.DECODER_OF})
    return table


_DECODERS = _decoders()
_LOSSY: dict[str, Lossy] = {name: pair[0] for name, pair in _DECODERS.items()}
_STRICT: dict[str, Strict] = {name: pair[1] for name, pair in _DECODERS.items()}

#: Every encoding name the Encoding Standard defines.
SUPPORTED: frozenset[str] = frozenset(ENCODINGS)

if set(_DECODERS) != SUPPORTED:  # pragma: no cover - a new encoding in encodings.json
    raise RuntimeError(f"no decoder for {sorted(SUPPORTED ^ set(_DECODERS))}")


def decode_bytes(encoding: str, data: bytes) -> tuple[str, int]:
    """Decode *data* as *encoding* with error mode "replacement".

    Implements the Encoding Standard's decoders
    (https://encoding.spec.whatwg.org/#decode) minus BOM sniffing.  Returns
    the text and the number of U+FFFD the decoder introduced (a U+FFFD that
    the bytes encode is not counted).  Use when a result is needed whatever
    the bytes; use ``decode_strict`` to test a candidate encoding.
    """
    return _LOSSY[encoding](data)


def decode_strict(encoding: str, data: bytes) -> str | None:
    """Decode *data* as *encoding* with error mode "fatal": the text, or None on any error.

    Same result as ``decode_bytes`` when that counts no error.  The fast path:
    resolvers try candidates strictly first.
    """
    return _STRICT[encoding](data)
