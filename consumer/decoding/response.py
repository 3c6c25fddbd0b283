"""One response as the resolution order reads it: what its Content-Type, byte order mark and markup declare.

``read_response`` reads them once per decode; the steps of ``resolve.py`` only look at the
``Response`` it gives.  Nothing here decides: a declaration here is a candidate there.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from .bom import BYTE_ORDER_MARKS, sniff_bom
from .content_type import CACHEABLE_LENGTH, MimeType, extract_mime_type, is_json_mime, is_xml_mime
from .labels import get_encoding
from .overrides import Override
from .prescan import prescan, prescan_unknown_label
from .xml_declaration import xml_declared_encoding

# xml_declared_encoding answers only for a body starting with its grammar's first token
# "<?xml" or with "<?x" in UTF-16: any other body has no XML declaration, unparsed.
XML_DECLARATION_STARTS = (b"<?xml", b"<\x00?\x00x\x00", b"\x00<\x00?\x00x")
#: A byte order mark or the start of an XML declaration, for one ``startswith`` that rules them all out.
BOMS_AND_XML_STARTS = (*BYTE_ORDER_MARKS, *XML_DECLARATION_STARTS)


class ContentTypeFacts(NamedTuple):
    """What a Content-Type value says: its MIME type, and about the encoding."""

    #: The MIME type (``content_type.extract_mime_type``), None when there is none or it does not parse.
    mime: MimeType | None
    #: The WHATWG encoding its charset parameter names, or None.
    charset: str | None
    #: The charset parameter when it names no encoding (empty, or an unknown label), else None.
    unknown_charset: str | None
    is_json: bool
    is_xml: bool


class Response(NamedTuple):
    """A response body with everything it and its Content-Type declare, and the override for its host."""

    #: The body without its byte order mark.
    payload: bytes
    url: str | None
    override: Override | None
    bom: str | None
    header: str | None
    is_json: bool
    is_xml: bool
    #: What the BOM, the header, the meta prescan and the XML declaration each named (``Decoded.declared``).
    declared: Mapping[str, str | None]
    #: What the declarations alone say is wrong: disagreements, labels that name no encoding.
    conflicts: tuple[str, ...]


def read_response(body: bytes, content_type: ContentTypeFacts, url: str | None, override: Override | None) -> Response:
    """The ``Response`` of *body* served with *content_type* (``content_type_facts``) from *url*, under
    *override* (or None)."""
    _, header, unknown_header, is_json, is_xml = content_type
    if body.startswith(BOMS_AND_XML_STARTS):
        bom, bom_length = sniff_bom(body)
        payload = body[bom_length:] if bom_length else body
        xml = xml_declared_encoding(payload) if payload.startswith(XML_DECLARATION_STARTS) else None
    else:  # most bodies: neither is there, and neither needs reading
        bom, payload, xml = None, body, None
    meta = prescan(payload)
    declared, disagreements = declared_by(bom, header, meta, xml)
    conflicts = list(disagreements)
    # A label that names no encoding is ignored, as browsers do, but said (the decode would otherwise
    # look as if nothing had been declared).
    if unknown_header is not None:
        conflicts.append(f"http-header charset {unknown_header!r} is not a known encoding: ignored")
    if meta is None and not (is_json or is_xml):
        unknown_meta = prescan_unknown_label(payload)
        if unknown_meta is not None:
            conflicts.append(f"meta-prescan charset {unknown_meta!r} is not a known encoding: ignored")
    return Response(payload, url, override, bom, header, is_json, is_xml, declared, tuple(conflicts))


@functools.lru_cache(maxsize=1024)
def declared_by(
    bom: str | None, header: str | None, meta: str | None, xml: str | None
) -> tuple[Mapping[str, str | None], tuple[str, ...]]:
    """``Response.declared`` for what each place named, and the disagreements between them.

    A function of four encoding names, so remembered: most responses name UTF-8 or nothing, and
    share one read-only mapping (nothing changes it once wrapped).
    """
    declared = {"bom": bom, "header": header, "meta": meta, "xml": xml}
    return MappingProxyType(declared), tuple(_disagreements(declared))


def content_type_facts(content_type: str | None) -> ContentTypeFacts:
    """What the Content-Type header value *content_type* (or None) says."""
    if content_type is None or len(content_type) > CACHEABLE_LENGTH:
        return _parse_content_type(content_type)
    return _parse_content_type_cached(content_type)


def _parse_content_type(content_type: str | None) -> ContentTypeFacts:
    mime = extract_mime_type(content_type)
    label = None if mime is None else mime.parameters.get("charset")
    charset = get_encoding(label)
    unknown = label if label is not None and charset is None else None
    return ContentTypeFacts(mime, charset, unknown, is_json_mime(mime), is_xml_mime(mime))


# Only short Content-Type values are cached, as extract_mime_type's own cache.
_parse_content_type_cached = functools.lru_cache(maxsize=4096)(_parse_content_type)


def _disagreements(declared: dict[str, str | None]) -> list[str]:
    named = [(place, encoding) for place, encoding in declared.items() if encoding]
    if len(named) < 2:
        return []
    return [
        f"{place_a} says {a} but {place_b} says {b}"
        for i, (place_a, a) in enumerate(named)
        for place_b, b in named[i + 1 :]
        if a != b
    ]
