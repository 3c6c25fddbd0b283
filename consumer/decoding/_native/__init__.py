"""The compiled tier: one C extension per concept, and the one place that decides whether it runs.

Every concept of ``consumer.decoding`` with a hot loop has a readable reference in Python and, where a
C compiler was at install, an extension in this folder that gives the same answers faster:

==============  ==============================  ===============================================
extension       used by                         reference (what runs without it)
==============  ==============================  ===============================================
prescan.c       prescan/compiled.py             prescan/standard.py
utf8.c          codecs/utf8.py                  decoding with Python's codec
utf16.c         codecs/utf16.py                 Python's codec
single_byte.c   codecs/single_byte.py           ``codecs.charmap_decode``
multibyte.c     codecs/multibyte.py             codecs/shift_jis.py ... iso_2022_jp.py
mojibake.c      mojibake.py                     the regular expression
detection.c     detection/loops.py              detection/reference.py
undisputed.c    resolve.py (the fast path)      ``resolve.reference_undisputed_utf8``
==============  ==============================  ===============================================

``native.h`` holds what they share: the 8-byte ASCII skip, the high-bit masks, the size from which the
GIL is released and the reading of arguments.  tests/decoding require each extension's every entry
point to answer as its reference (differential tests) and count its instructions on worst-case input
(test_compiled_linear.py).

``extension(name)`` is the module, or None where it was not built (an install without a C compiler
succeeds: every extension is optional); each user binds compiled or reference from it once, at
import.  ``compiled()`` lists what loaded, for ``consumer.build_info``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: The extensions, by module name, in the order ``compiled()`` lists them.
NAMES = ("prescan", "utf8", "utf16", "single_byte", "multibyte", "mojibake", "detection", "undisputed")


def _load(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ImportError:  # installed without a C compiler: the reference runs, same answers, slower
        return None


_LOADED: dict[str, ModuleType | None] = {name: _load(name) for name in NAMES}


def extension(name: str) -> ModuleType | None:
    """The compiled extension *name* (one of ``NAMES``), or None where it was not built."""
    return _LOADED[name]


def compiled() -> list[str]:
    """The names of the extensions that loaded, in ``NAMES``' order."""
    return [name for name in NAMES if _LOADED[name] is not None]
