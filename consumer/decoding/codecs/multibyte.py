"""The legacy CJK encodings: Shift_JIS, EUC-JP, EUC-KR, Big5, gb18030 (and GBK) and ISO-2022-JP.

Implements the Encoding Standard's decoders of sections 11 to 14
(https://encoding.spec.whatwg.org/#legacy-multi-byte-chinese-(simplified)-encodings and on) twice:
the readable modules beside this one (``shift_jis`` ... ``iso_2022_jp``), a transcription of the
standard in Python and the reference, and ``_native/multibyte.c``, the same decoders compiled and
table-driven over the indexes of ``..data.whatwg``: this module turns each index into an array of
code points once, at import, and hands them to the extension, so the generated file stays the only
copy of the standard's data.  The compiled decoders run where the extension was built (``COMPILED``
says which runs), the readable ones elsewhere; both in time linear in the input
(tests/decoding/codecs/test_codecs_linear.py counts the readable ones' work), and
tests/decoding/codecs/test_codecs_compiled.py requires the two to agree on generated input.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable
from types import ModuleType

from .. import _native
from ..data.whatwg import (
    GB18030_RANGES,
    INDEX_BIG5,
    INDEX_EUC_KR,
    INDEX_GB18030,
    INDEX_JIS0208,
    INDEX_JIS0212,
)
from . import big5, euc_jp, euc_kr, gb18030, iso_2022_jp, shift_jis

__all__ = ["COMPILED", "DECODER_OF", "READABLE", "compiled_decoder", "decoders"]

#: Each legacy multi-byte encoding -> the decoder that decodes it: the name of its readable module
#: and of the extension's function.  GBK's decoder is gb18030's (the standard's GBK decoder section).
DECODER_OF: dict[str, str] = {
    "Shift_JIS": "shift_jis",
    "EUC-JP": "euc_jp",
    "EUC-KR": "euc_kr",
    "Big5": "big5",
    "gb18030": "gb18030",
    "GBK": "gb18030",
    "ISO-2022-JP": "iso_2022_jp",
}

#: A decoder's name -> its readable module (the reference).
READABLE: dict[str, ModuleType] = {
    module.__name__.rsplit(".", 1)[-1]: module for module in (shift_jis, euc_jp, euc_kr, big5, gb18030, iso_2022_jp)
}

Lossy = Callable[[bytes], "tuple[str, int]"]
Strict = Callable[[bytes], "str | None"]


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


#: Whether the compiled decoders run (else the readable ones).
COMPILED = _native.extension("multibyte") is not None
if COMPILED:
    from .._native import multibyte as _multibyte

    _configure(_multibyte)


def decoders(encoding: str, compiled: bool = COMPILED) -> tuple[Lossy, Strict]:
    """(``decode_bytes``, ``decode_strict``) for *encoding*, a key of ``DECODER_OF``: the compiled
    decoder when *compiled* (which needs ``COMPILED``), else the readable one."""
    name = DECODER_OF[encoding]
    if compiled:
        return _compiled(getattr(_multibyte, name))
    return _readable(READABLE[name])


def compiled_decoder(encoding: str) -> Callable[[bytes, bool], tuple[str, int] | None] | None:
    """The extension's decoder of *encoding* (``run(data, fatal)``: the text and its errors, or None when fatal and
    *data* holds an error), or None where the extension was not built."""
    return getattr(_multibyte, DECODER_OF[encoding]) if COMPILED else None


def _compiled(run: Callable[[bytes, bool], tuple[str, int] | None]) -> tuple[Lossy, Strict]:
    def lossy(data: bytes) -> tuple[str, int]:
        return run(data, False)  # type: ignore[return-value]  # not fatal: never None

    def strict(data: bytes) -> str | None:
        result = run(data, True)
        return None if result is None else result[0]

    return lossy, strict


def _readable(module: ModuleType) -> tuple[Lossy, Strict]:
    run: Callable[..., tuple[str, int] | None] = module.decode
    # Bytes that decode to themselves (ASCII, without ISO-2022-JP's escapes) are not walked.
    plain: Callable[[bytes], bool] = module.is_plain

    def lossy(data: bytes) -> tuple[str, int]:
        return (data.decode("ascii"), 0) if plain(data) else run(data)  # type: ignore[return-value]  # not fatal

    def strict(data: bytes) -> str | None:
        if plain(data):
            return data.decode("ascii")
        result = run(data, True)
        return None if result is None else result[0]

    return lossy, strict
