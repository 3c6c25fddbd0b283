"""UTF-16BE and UTF-16LE: implements the Encoding Standard's shared UTF-16
decoder (https://encoding.spec.whatwg.org/#shared-utf-16-decoder) without BOM
handling (the caller strips the BOM).

Python's utf-16-le/utf-16-be codecs are the implementation.  With "replace"
they emit what the standard does: one U+FFFD per unpaired surrogate code unit
(a lead surrogate followed by a non-trail unit is an error and the unit is
decoded afresh), and one U+FFFD for an odd trailing byte, the same single one
when that byte follows a pending lead surrogate.  tests/decoding/codecs checks
this against a literal transcription of the standard's algorithm.  Input of
even length without surrogate code units, the usual page, takes a compiled
shortcut first (``decode_bmp``, below); the rest, surrogate pairs and errors, a compiled
transcription of the standard's decoder (``_native/utf16.c``'s ``decode``) that counts the
errors as it replaces them, where Python's codec calls an error handler per
lone surrogate.  Without the extensions, Python's codec decodes everything.
"""

from __future__ import annotations

from .. import _native


def _no_shortcut(data: bytes, big_endian: bool, /) -> str | None:
    return None


# decode_bmp(data, big_endian) -> str | None: the text of an even-length input without surrogate
# code units (every unit its code point, no error possible), else None.  _native/utf16.c does that at
# memory speed, 2x Python's codec; the rest (surrogate pairs, errors) its ``decode``.
#: Whether the compiled decoders run (else Python's codec decodes all of UTF-16).
COMPILED = _native.extension("utf16") is not None
if COMPILED:
    from .._native.utf16 import decode as _decode_whole
    from .._native.utf16 import decode_bmp as decode_bmp
else:  # installed without a C compiler
    decode_bmp = _no_shortcut


def decode(codec: str, data: bytes) -> tuple[str, int]:
    """Decode *data* with Python *codec*, counting the U+FFFD it introduced."""
    text = decode_bmp(data, codec == "utf-16-be")
    if text is not None:
        return text, 0
    if COMPILED:
        whole = _decode_whole(data, codec == "utf-16-be", False)
        assert whole is not None  # not fatal: never None
        return whole
    return reference_decode(codec, data)


def reference_decode(codec: str, data: bytes) -> tuple[str, int]:
    """``decode`` by Python's codec alone: what runs without the extensions, and the reference."""
    text = data.decode(codec, "replace")
    if "\ufffd" not in text:
        return text, 0
    # The code unit FFFD is a legitimate U+FFFD; "surrogatepass" keeps lone
    # surrogates as themselves, so its output holds exactly the legitimate ones.
    even = data[: len(data) & ~1]
    legitimate = even.decode(codec, "surrogatepass").count("\ufffd")
    return text, text.count("\ufffd") - legitimate


def decode_strict(codec: str, data: bytes) -> str | None:
    """Decode *data* with Python *codec*, or None on an unpaired surrogate or odd byte."""
    text = decode_bmp(data, codec == "utf-16-be")
    if text is not None:
        return text
    if COMPILED:
        whole = _decode_whole(data, codec == "utf-16-be", True)
        return None if whole is None else whole[0]
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        return None
