"""The XML declaration: the encoding an ``<?xml ... encoding="..."?>`` at the start of a body names.

Two readings, for two kinds of document:

* ``xml_declared_encoding``: the XML specification's grammar for ``XMLDecl``
  and ``EncodingDecl`` (https://www.w3.org/TR/xml/#NT-XMLDecl), for XML
  MIME types.
* ``get_xml_encoding``: the HTML Standard's looser "get an XML encoding"
  (https://html.spec.whatwg.org/multipage/parsing.html#concept-get-xml-encoding-when-sniffing),
  which the meta prescan falls back to for text/html.

Both resolve the name with the Encoding Standard's "get an encoding", and both
read a UTF-16 label in a byte stream they could read as ASCII as UTF-8: the
declaration was legible one byte per character, so the body is not UTF-16.
"""

from __future__ import annotations

import re

from .labels import get_encoding

#: No declaration is longer than this in practice; neither reading looks further.
XML_DECLARATION_BYTES = 1024

# XMLDecl ::= '<?xml' VersionInfo EncodingDecl? SDDecl? S? '?>', with
# S ::= (#x20 | #x9 | #xD | #xA)+ and Eq ::= S? '=' S?
# VersionInfo ::= S 'version' Eq ("'" VersionNum "'" | '"' VersionNum '"'), VersionNum ::= '1.' [0-9]+
# EncodingDecl ::= S 'encoding' Eq ('"' EncName '"' | "'" EncName "'"), EncName ::= [A-Za-z] ([A-Za-z0-9._] | '-')*
# SDDecl ::= S 'standalone' Eq (("'" ('yes' | 'no') "'") | ('"' ('yes' | 'no') '"'))
# Every quantifier is over a class its successor cannot start with, so the
# pattern cannot backtrack more than a byte.
_S = rb"[\x20\t\r\n]"
_EQ = _S + rb"*=" + _S + rb"*"
_XML_DECL = re.compile(
    rb"<\?xml" + _S + rb"+version" + _EQ + rb"""(?:'1\.[0-9]+'|"1\.[0-9]+")"""
    rb"(?:" + _S + rb"+encoding" + _EQ
    + rb"""(?:"(?P<dq>[A-Za-z][A-Za-z0-9._\-]*)"|'(?P<sq>[A-Za-z][A-Za-z0-9._\-]*)'))?"""
    rb"(?:" + _S + rb"+standalone" + _EQ + rb"""(?:'(?:yes|no)'|"(?:yes|no)"))?"""
    + _S + rb"*\?>"
)
_UTF_16 = ("UTF-16BE", "UTF-16LE")


def xml_declared_encoding(body: bytes) -> str | None:
    """The WHATWG encoding an XML declaration at the very start of *body* names, or None.

    *body* is the response body after the caller removed a BOM.  The
    declaration must follow the XML grammar exactly (version first, then
    encoding, then standalone, then ``?>``); one that does not is no
    declaration.  A body starting with ``<?x`` in UTF-16 (``3C 00 3F 00 78 00``
    or ``00 3C 00 3F 00 78``) is UTF-16LE or UTF-16BE without the encoding
    name being read, as the HTML Standard's prescan does.  A UTF-16 label in a
    declaration readable as ASCII means UTF-8.
    """
    if body.startswith(b"<\x00?\x00x\x00"):
        return "UTF-16LE"
    if body.startswith(b"\x00<\x00?\x00x"):
        return "UTF-16BE"
    match = _XML_DECL.match(body[:XML_DECLARATION_BYTES])
    if match is None:
        return None
    return _not_utf_16(get_encoding(match.group("dq") or match.group("sq")))


def get_xml_encoding(body: bytes) -> str | None:
    """Implements the HTML Standard's "get an XML encoding" over the first 1024 bytes of *body*.

    Returns the encoding named by ``encoding="..."`` inside an ``<?xml``
    at the very start, up to the first ">", or None (the standard's failure).
    Unlike the XML grammar it accepts any bytes around the name, lowercase
    ``encoding`` only, and whitespace meaning any byte up to 0x20.
    """
    window = body[:XML_DECLARATION_BYTES]
    if not window.startswith(b"<?xml"):
        return None
    # The standard defines xmlDeclarationEnd as the first ">" and then searches
    # "at or after" the start without using it; like Servo, bound the search
    # by it, which is what the name is for.
    declaration_end = window.find(b">")
    if declaration_end < 0:
        return None
    declaration = window[:declaration_end]
    position = declaration.find(b"encoding")
    if position < 0:
        return None
    position = _skip_controls_and_spaces(declaration, position + len(b"encoding"))
    if declaration[position : position + 1] != b"=":
        return None
    position = _skip_controls_and_spaces(declaration, position + 1)
    quote = declaration[position : position + 1]
    if quote not in (b'"', b"'"):
        return None
    end = declaration.find(quote, position + 1)
    if end < 0:
        return None
    potential = declaration[position + 1 : end]
    if any(byte <= 0x20 for byte in potential):
        return None
    return _not_utf_16(get_encoding(potential))


def _skip_controls_and_spaces(data: bytes, position: int) -> int:
    # "While the byte at encodingPosition is less than or equal to 0x20".
    while position < len(data) and data[position] <= 0x20:
        position += 1
    return position


def _not_utf_16(encoding: str | None) -> str | None:
    return "UTF-8" if encoding in _UTF_16 else encoding
