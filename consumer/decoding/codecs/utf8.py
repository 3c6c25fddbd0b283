"""UTF-8: implements the Encoding Standard's UTF-8 decoder
(https://encoding.spec.whatwg.org/#utf-8-decoder) without BOM handling (the
caller strips the BOM).

Python's utf-8 codec is the implementation: it rejects exactly what the
standard rejects (overlongs via the lower boundary, surrogates ED A0..ED BF via
the upper boundary, values above U+10FFFF, bytes C0, C1, F5..FF) and, with
"replace", emits one U+FFFD per maximal subpart of an ill-formed sequence, as
the standard's "prepend byte" rule does.  tests/decoding/codecs checks this
against a literal transcription of the standard's algorithm.
"""

from __future__ import annotations

from .. import _native

# EF BF BD is U+FFFD itself.  Its lead EF is never a continuation byte, so every
# occurrence decodes to one legitimate U+FFFD however malformed its context is.
_ENCODED_REPLACEMENT = b"\xef\xbf\xbd"


def decode(data: bytes) -> tuple[str, int]:
    """Decode *data*, one U+FFFD per maximal subpart of each malformed sequence."""
    text = data.decode("utf-8", "replace")
    if "\ufffd" not in text:
        return text, 0
    return text, text.count("\ufffd") - data.count(_ENCODED_REPLACEMENT)


def decode_strict(data: bytes) -> str | None:
    """Decode *data*, or None if it is not well-formed UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _is_valid_by_decoding(data: bytes) -> bool:
    return decode_strict(data) is not None


# is_valid(data) -> bool: whether *data* is well-formed UTF-8, that is ``decode_strict(data) is not
# None``, without building the text: _native/utf8.c checks 16 bytes a step (the processor
# writes a valid page's bytes as its text and needs no str).
#: ``validity``'s answers.
NOT_UTF8, UTF8, ASCII_WITH_ESCAPE = 0, 1, 2


def _validity_by_decoding(data: bytes) -> int:
    """``validity`` by decoding: what runs without the extension, and the reference."""
    if not _is_valid_by_decoding(data):
        return NOT_UTF8
    return ASCII_WITH_ESCAPE if data.isascii() and b"\x1b" in data else UTF8


# validity(data) -> int: ``is_valid`` in the same pass, telling apart valid UTF-8 that is all ASCII
# with an ESC byte (``ASCII_WITH_ESCAPE``), which only ISO-2022-JP's escapes put in a page: the
# fast path hands such a body declared UTF-8 to the resolution (contradiction.py) for the price of
# two instructions a 16-byte step, where a memchr of its own would cost the UTF-8 mix 3%.
def reference_counts(data: bytes) -> tuple[int, int]:
    """``counts`` by decoding: what runs without the extension, and the reference."""
    text, errors = decode(data)
    # Every ASCII byte decodes to itself (one after a lead byte is read again), so the characters
    # left are the multi-byte sequences.
    return len(text) - errors - len(text.encode("ascii", "ignore")), errors


# counts(data) -> (sequences, errors): how *data* reads as UTF-8, the well-formed multi-byte
# sequences and the U+FFFD ``decode`` would introduce, without building the text.  Resolution asks
# it of bodies that are not valid UTF-8, where decoding calls CPython's error handler per bad byte;
# _native/utf8.c counts in one pass.
def reference_more_sequences_than_errors(data: bytes) -> bool:
    """``more_sequences_than_errors`` from ``reference_counts``."""
    sequences, errors = reference_counts(data)
    return sequences > errors


# more_sequences_than_errors(data) -> bool: ``counts``' sequences > errors, resolution's "damaged
# UTF-8?" question; compiled, it stops where the rest of *data* cannot change the answer (its
# continuation bytes are too few to complete enough sequences): for a legacy page, early.

#: Whether the compiled check and counts run (else they decode, with the same answers, slower).
COMPILED = _native.extension("utf8") is not None
if COMPILED:
    from .._native.utf8 import count as _compiled_counts
    from .._native.utf8 import is_valid as is_valid
    from .._native.utf8 import more_sequences_than_errors as more_sequences_than_errors
    from .._native.utf8 import validity as validity

    counts = _compiled_counts
else:  # installed without a C compiler
    is_valid = _is_valid_by_decoding
    validity = _validity_by_decoding
    counts = reference_counts
    more_sequences_than_errors = reference_more_sequences_than_errors
