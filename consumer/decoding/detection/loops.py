"""Detection's counting loops, bound in one place: compiled where the extension was built, else the reference.

``COMPILED`` says which: the names below are ``../_native/detection.c``'s functions, or
``reference.py``'s of the same name with a ``reference_`` prefix (the same answers, to the last bit;
tests/decoding/detection/test_compiled.py).  The detector (``__init__.py``) calls them by these names.
"""

from __future__ import annotations

import re
from array import array
from codecs import IncrementalDecoder
from collections.abc import Callable

from .. import _native
from .reference import (
    reference_best_dot_products,
    reference_first_high_byte,
    reference_four_byte_gb18030,
    reference_high_byte_count,
    reference_high_byte_counts,
    reference_high_bytes,
    reference_mixed_pairs,
    reference_pair_sum,
    reference_softmax_weights,
    reference_squeeze,
    reference_strict_decodes,
    reference_text_likelihood,
)

# high_bytes(data) -> Histogram, best_dot_products, mixed_pairs and the character likelihood
# of the compiled loops (_native/detection.c): the same answers as the references, without a dict
# operation per byte or character; and the steps whose Python loops over a few dozen candidates, or
# bytes.translate passes and regular expressions, cost more than the counting itself (best_dot_products,
# high_byte_count, first_high_byte, four_byte_gb18030, softmax_weights; strict_decodes, whose
# candidates mostly fail, where a try/except in Python costs most of the failure).
#: Whether the compiled loops run (else reference.py's, with the same answers, slower).
COMPILED = _native.extension("detection") is not None
if COMPILED:
    from .._native.detection import (
        agreed_decodes,
        best_dot_products,
        first_high_byte,
        four_byte_gb18030,
        high_byte_count,
        high_byte_counts,
        high_bytes,
        high_runs,
        latin_after_non_ascii,
        mixed_pairs,
        non_ascii_capitals,
        pair_sum,
        softmax_weights,
        squeeze,
        strict_decodes,
    )
    from .._native.detection import text_likelihood as compiled_text_likelihood
else:  # installed without a C compiler
    high_bytes, mixed_pairs, pair_sum = reference_high_bytes, reference_mixed_pairs, reference_pair_sum
    squeeze, high_byte_counts = reference_squeeze, reference_high_byte_counts
    best_dot_products, four_byte_gb18030 = reference_best_dot_products, reference_four_byte_gb18030
    high_byte_count, softmax_weights = reference_high_byte_count, reference_softmax_weights
    first_high_byte, strict_decodes = reference_first_high_byte, reference_strict_decodes

    def agreed_decodes(  # type: ignore[misc]  # the readers' type is the compiled function's, unused here
        data: bytes, decoders: tuple[Callable[[str], IncrementalDecoder], ...], readers: tuple[object, ...], /
    ) -> list[str | None]:
        """``strict_decodes``: the compiled function's answers, every codec run (its readers unused)."""
        return reference_strict_decodes(data, decoders)

    def compiled_text_likelihood(
        text: str, logp: dict[str, float], unseen: Callable[[str], float], memo: array[float], /
    ) -> float:
        """``reference_text_likelihood``, the compiled function's memo unused."""
        return reference_text_likelihood(text, logp, unseen)

    def non_ascii_capitals(text: str, /) -> int:
        """``reference_non_ascii_capitals``."""
        return reference_non_ascii_capitals(text)

    def high_runs(data: bytes, /) -> int:
        """``reference_high_runs``."""
        return reference_high_runs(data)

    def latin_after_non_ascii(text: str, /) -> int:
        """``reference_latin_after_non_ascii``."""
        return reference_latin_after_non_ascii(text)


#: The capital letters (``str.isupper``) of U+0080-U+2FFF: those of the scripts that have case.
NON_ASCII_CAPITAL = re.compile("[" + "".join(chr(code) for code in range(0x80, 0x3000) if chr(code).isupper()) + "]")


def reference_non_ascii_capitals(text: str) -> int:
    """How many characters of *text* are capital letters of U+0080-U+2FFF (``NON_ASCII_CAPITAL``): the compiled
    ``non_ascii_capitals``' reference (a regular expression, ~5 ns a character of a CJK text)."""
    return len(NON_ASCII_CAPITAL.findall(text))


_LATIN_AFTER_NON_ASCII = re.compile("(?<=[^\\x00-\\x7f])[A-Za-z]")


def reference_latin_after_non_ascii(text: str) -> int:
    """How many characters >= U+0080 of *text* an ASCII letter follows: the compiled ``latin_after_non_ascii``'
    reference (a regular expression, ~30 ns a character of a CJK text)."""
    return len(_LATIN_AFTER_NON_ASCII.findall(text))


_HIGH_RUN = re.compile(rb"[\x80-\xff]+")


def reference_high_runs(data: bytes) -> int:
    """How many maximal runs of bytes >= 0x80 *data* holds: the compiled ``high_runs``' reference."""
    return len(_HIGH_RUN.findall(data))


__all__ = [
    "COMPILED",
    "NON_ASCII_CAPITAL",
    "agreed_decodes",
    "best_dot_products",
    "compiled_text_likelihood",
    "first_high_byte",
    "four_byte_gb18030",
    "high_byte_count",
    "high_byte_counts",
    "high_bytes",
    "high_runs",
    "latin_after_non_ascii",
    "mixed_pairs",
    "non_ascii_capitals",
    "pair_sum",
    "reference_high_runs",
    "reference_latin_after_non_ascii",
    "reference_non_ascii_capitals",
    "softmax_weights",
    "squeeze",
    "strict_decodes",
]
