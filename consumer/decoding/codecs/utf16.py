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
transcription of the standard's decoder (``_utf16_errors.c``) that counts the
errors as it replaces them, where Python's codec calls an error handler per
lone surrogate.  Without the extensions, Python's codec decodes everything.
"""

from __future__ import annotations

# decode_bmp(data, big_endian) -> str | None: the text of an even-length input without surrogate
# code units (every unit its code point, no error possible), else None.  _utf16_bmp.c does that at
# memory speed, 2x Python's codec; the rest (surrogate pairs, errors) takes Python's codec.
try:
    from ._utf16_bmp import decode as decode_bmp

    #: Whether the compiled surrogate-free path runs (else Python's codec decodes all of UTF-16).
    COMPILED = True
except ImportError:  # installed without a C compiler

    def decode_bmp(data: bytes, big_endian: bool, /) -> str | None:
        return None

    COMPILED = False

try:
    from ._utf16_errors import decode as _decode_whole

    #: Whether the compiled decoder of surrogates and errors runs (else Python's codec decodes them).
    ERRORS_COMPILED = True
except ImportError:  # installed without a C compiler
    ERRORS_COMPILED = False


def decode(codec: str, data: bytes) -> tuple[str, int]:
    """Decode *data* with Python *codec*, counting the U+FFFD it introduced."""
    text = decode_bmp(data, codec == "utf-16-be")
    if text is not None:
        return text, 0
    if ERRORS_COMPILED:
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
    if ERRORS_COMPILED:
        whole = _decode_whole(data, codec == "utf-16-be", True)
        return None if whole is None else whole[0]
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        return None
