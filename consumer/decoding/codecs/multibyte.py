"""The legacy CJK decoders compiled: Shift_JIS, EUC-JP, EUC-KR, Big5, gb18030 (and GBK) and ISO-2022-JP.

Implements the Encoding Standard's decoders of sections 11 to 14
(https://encoding.spec.whatwg.org/#legacy-multi-byte-chinese-(simplified)-encodings and on) in C
(``_multibyte.c``), table-driven over the indexes of ``..data.whatwg``: this module turns each
index into an array of code points once, at import, and hands them to the extension, so the
generated file stays the only copy of the standard's data.

Why compiled: the readable decoders beside this module are a transcription of the standard in
Python, 1-4 MB/s; ``pyfast`` makes them fast only where Python's codecs provably agree, which
Big5 and EUC-JP pages often defeat (one character Python maps differently sends the whole page to
the reference) and ISO-2022-JP always does.  The compiled decoders run every input at C speed, in
time linear in its length, without the GIL for large inputs.  The readable modules stay the
reference (tests/decoding/codecs/test_codecs_compiled.py checks the two agree) and the fallback
where the extension was not built (``COMPILED`` says which runs).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable
from types import ModuleType

from ..data.whatwg import (
    GB18030_RANGES,
    INDEX_BIG5,
    INDEX_EUC_KR,
    INDEX_GB18030,
    INDEX_JIS0208,
    INDEX_JIS0212,
)

__all__ = ["COMPILED", "ENCODINGS", "decoders"]

#: WHATWG encoding name -> the extension's function.
ENCODINGS = {
    "Shift_JIS": "shift_jis",
    "EUC-JP": "euc_jp",
    "EUC-KR": "euc_kr",
    "Big5": "big5",
    "gb18030": "gb18030",
    "GBK": "gb18030",  # GBK's decoder is gb18030's decoder.
    "ISO-2022-JP": "iso_2022_jp",
}


def _code_points(index: str) -> array[int]:
    """*index* (one character a pointer) as an array('I') of code points, in native byte order."""
    table = array("I")
    table.frombytes(index.encode("utf-32-le"))
    if sys.byteorder == "big":
        table.byteswap()
    return table


def _configure(module: ModuleType) -> None:
    module.configure(
        _code_points(INDEX_JIS0208),
        _code_points(INDEX_JIS0212),
        _code_points(INDEX_EUC_KR),
        _code_points(INDEX_BIG5),
        _code_points(INDEX_GB18030),
        array("I", [pointer for pointer, _ in GB18030_RANGES]),
        array("I", [code_point for _, code_point in GB18030_RANGES]),
    )


try:
    from . import _multibyte
except ImportError:  # installed without a C compiler
    _multibyte = None  # type: ignore[assignment]
    #: Whether the compiled decoders run (else the readable ones, sped up by ``pyfast``).
    COMPILED = False
else:
    _configure(_multibyte)
    COMPILED = True


def decoders(encoding: str) -> tuple[Callable[[bytes], tuple[str, int]], Callable[[bytes], str | None]]:
    """(``decode_bytes``, ``decode_strict``) for *encoding*, a key of ``ENCODINGS``; needs ``COMPILED``."""
    run: Callable[[bytes, bool], tuple[str, int] | None] = getattr(_multibyte, ENCODINGS[encoding])

    def lossy(data: bytes) -> tuple[str, int]:
        return run(data, False)  # type: ignore[return-value]  # not fatal: never None

    def strict(data: bytes) -> str | None:
        result = run(data, True)
        return None if result is None else result[0]

    return lossy, strict
