"""The fast path: the commonest response, decided without the resolution order's machinery.

``undisputed_utf8`` answers for a response whose every candidate before UTF-8
in the resolution order (resolve.py) is absent or UTF-8, and whose body is
valid UTF-8: no BOM, no override (``decode`` calls it only without one), a type
neither JSON nor XML, a Content-Type charset and a first-1024-bytes ``<meta>``
that each say UTF-8 or nothing, and, when both say nothing, no late ``<meta>``
and no 7-bit body with an ESC (as ISO-2022-JP is).  ``resolve`` would then take
UTF-8 from the first source that names it, with nothing to report in
``conflicts``; this gives that same ``Decoded`` in about half the time, and None
for every other response.

It is the only fast path, behind one boundary: ``decode`` asks it first.
tests/decoding/test_undisputed.py requires its every answer to equal ``resolve``'s
on generated bodies and content types.
"""

from __future__ import annotations

from types import MappingProxyType

from .attempt import utf8
from .decoded import Decoded, Source
from .late_meta import late_meta_labels
from .prescan import may_declare_a_charset, prescan_meta
from .response import BOMS_AND_XML_STARTS, ContentTypeFacts

_NO_LATE_META = (None, None)  # late_meta_labels: no late <meta>, no unknown label in one

# ``declared`` of the answers: the header and the meta each say UTF-8 or nothing.  Built once and
# shared (read-only views of dicts nothing else holds) instead of one dict and view a decode.
_DECLARATIONS = {
    header: {
        meta: MappingProxyType({"bom": None, "header": header, "meta": meta, "xml": None}) for meta in (None, "UTF-8")
    }
    for header in (None, "UTF-8")
}


def undisputed_utf8(body: bytes, content_type: ContentTypeFacts, lazy_text: bool = False) -> Decoded | None:
    """The ``Decoded`` of an undisputed UTF-8 *body* (the module docstring) served with *content_type*
    (``response.content_type_facts``), else None."""
    _, header, unknown_charset, is_json, is_xml = content_type
    if is_json or is_xml or unknown_charset is not None or body.startswith(BOMS_AND_XML_STARTS):
        return None
    # Neither "<?xml" nor a UTF-16 "<?x" starts the body: the prescan's answer is its <meta> part.
    meta = prescan_meta(body)
    if meta is None and may_declare_a_charset(body):
        return None  # perhaps a <meta> naming an unknown charset, which the resolution reports
    if header is not None:
        if header != "UTF-8" or meta not in (None, "UTF-8"):
            return None
        source: Source = "http-header"
    elif meta is not None:
        if meta != "UTF-8":
            return None
        source = "meta-prescan"
    else:
        source = "utf-8-valid"
    decoded = utf8(body, source, _DECLARATIONS[header][meta], (), None, None, lazy_text)
    if decoded is None or source != "utf-8-valid":
        return decoded
    # Nothing declared in the header or the first 1024 bytes.  A late <meta> (or an unknown label
    # in one) and ISO-2022-JP's escapes are the resolution's to weigh; looked for only once the
    # body is known to be UTF-8, so that a body that is not is scanned once, by the resolution.
    if late_meta_labels(body) != _NO_LATE_META or _seven_bit_with_escape(body, None if lazy_text else decoded.text):
        return None
    return decoded


def _seven_bit_with_escape(body: bytes, text: str | None) -> bool:
    """Whether *body* is 7-bit with an ESC.  Its decoded *text*, when there is one, says whether it
    is ASCII at no cost (a str knows); else the bytes are read, after the ESC search (an ESC is rare)."""
    if text is not None:
        return text.isascii() and b"\x1b" in body
    return b"\x1b" in body and body.isascii()
