"""The meta prescan: the HTML Standard's "prescan a byte stream to determine its encoding".

https://html.spec.whatwg.org/multipage/parsing.html#prescan-a-byte-stream-to-determine-its-encoding,
with "get an attribute" and "the algorithm for extracting a character encoding
from a meta element".  Two tiers:

* ``standard.py`` is the algorithm as the standard reads it, step by step, one
  byte at a time: the reference, what an answer means, and what runs where the
  compiled loop was not built.
* ``compiled.py`` runs the loop compiled (``../_native/prescan.c``) and
  standard.py's ``<meta`` branch on the tags it stops at, with a cache of
  decided heads.  tests/decoding/test_prescan_loop.py requires each of its
  functions to answer as ``standard``'s function of the same name does, on
  generated markup.

The names below are bound here, in one place, to compiled.py's functions where
it was built (``COMPILED``), else to standard.py's.  Which to call:

* ``prescan(body)``: the prescan's answer, a ``<meta>``'s or else an XML declaration's.
* ``prescan_meta(body)``: the ``<meta>`` part alone, to tell the two sources apart.
* ``prescan_unknown_label(body)``: the label of a ``<meta>`` passed over for naming no encoding.
* ``may_declare_a_charset(body)``: a cheap filter; False means both of the above are None.
* ``find_meta(buf, start, end)``: where the first "<meta" (any case) is, or -1.
* ``extract_meta_charset(content)``: the extraction algorithm on a content attribute's value.
"""

from .. import _native
from .standard import PRESCAN_BYTES, extract_meta_charset

#: Whether the compiled loop runs (else standard.py's steps, with the same answers).
COMPILED = _native.extension("prescan") is not None
if COMPILED:
    from .compiled import find_meta, prescan, prescan_meta, prescan_unknown_label
else:  # installed without a C compiler: the same functions, the reference's
    from .standard import find_meta, prescan, prescan_meta, prescan_unknown_label


def may_declare_a_charset(body: bytes) -> bool:
    """Whether the prescan's window holds a ``<meta`` and the word "charset" (any case), cheaply.

    False means no ``<meta>`` there declares a charset, known or not (``prescan_meta`` and
    ``prescan_unknown_label`` are None).  No step of the standard: a filter in front of it.
    """
    window_end = min(len(body), PRESCAN_BYTES)
    return find_meta(body, 0, window_end) >= 0 and b"charset" in body[:window_end].lower()


__all__ = [
    "COMPILED",
    "PRESCAN_BYTES",
    "extract_meta_charset",
    "find_meta",
    "may_declare_a_charset",
    "prescan",
    "prescan_meta",
    "prescan_unknown_label",
]
