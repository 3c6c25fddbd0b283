"""The meta prescan: the HTML Standard's "prescan a byte stream to determine its encoding".

https://html.spec.whatwg.org/multipage/parsing.html#prescan-a-byte-stream-to-determine-its-encoding,
with "get an attribute" and "the algorithm for extracting a character encoding
from a meta element".  One concept, written twice:

* ``standard.py`` is the algorithm as the standard reads it, step by step, one
  byte at a time: the reference, what an answer means.
* ``fast.py`` gives the same answers at C speed (patterns that never backtrack,
  a cache of decided heads, and the optional compiled loop ``_prescan_loop.c``
  next to this package).  The product runs it: the names below are bound to
  its functions here, in one place, and tests/decoding/test_prescan_loop.py
  requires each to answer as ``standard``'s function of the same name does, on
  generated markup, with the compiled loop and without it.

Which to call:

* ``prescan(body)``: the prescan's answer, a ``<meta>``'s or else an XML declaration's.
* ``prescan_meta(body)``: the ``<meta>`` part alone, to tell the two sources apart.
* ``prescan_unknown_label(body)``: the label of a ``<meta>`` passed over for naming no encoding.
* ``may_declare_a_charset(body)``: a cheap filter; False means both of the above are None.
* ``extract_meta_charset(content)``: the extraction algorithm on a content attribute's value.
"""

from .fast import COMPILED, DecisionCache, may_declare_a_charset, prescan, prescan_meta, prescan_unknown_label
from .standard import PRESCAN_BYTES, extract_meta_charset

__all__ = [
    "COMPILED",
    "PRESCAN_BYTES",
    "DecisionCache",
    "extract_meta_charset",
    "may_declare_a_charset",
    "prescan",
    "prescan_meta",
    "prescan_unknown_label",
]
