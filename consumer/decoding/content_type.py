"""Content-Type: MIME types as the MIME Sniffing and Fetch Standards parse them.

Implements the MIME Sniffing Standard's "parse a MIME type"
(https://mimesniff.spec.whatwg.org/#parse-a-mime-type) and the Fetch
Standard's "extract a MIME type"
(https://fetch.spec.whatwg.org/#concept-header-extract-mime-type) over a
combined header value, with "get, decode, and split"
(https://fetch.spec.whatwg.org/#concept-header-list-get-decode-split) and
"collect an HTTP quoted string"
(https://fetch.spec.whatwg.org/#collect-an-http-quoted-string).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .labels import ascii_lower

# Fetch: HTTP whitespace is LF, CR, tab and space; HTTP tab or space is the last two.
_HTTP_WHITESPACE = "\n\r\t "
_HTTP_TAB_OR_SPACE = "\t "
# MIME Sniffing: HTTP token code points, and HTTP quoted-string token code points.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_QUOTED_STRING_TOKEN = re.compile(r"[\t\x20-\x7e\x80-\xff]*")
# What "collect a sequence of code points that are not ..." stops at, per use.
_NOT_QUOTE_OR_BACKSLASH = re.compile(r'[^"\\]*')
_NOT_QUOTE_OR_COMMA = re.compile(r'[^",]*')
_NOT_SEMICOLON = re.compile(r"[^;]*")
_NOT_SEMICOLON_OR_EQUALS = re.compile(r"[^;=]*")


@dataclass(frozen=True)
class MimeType:
    """A MIME type record: lowercase type and subtype, parameters in order of first occurrence.

    Parameter names are ASCII lowercase; values keep their case (a charset
    label is matched case-insensitively later, by ``get_encoding``).
    """

    type: str
    subtype: str
    parameters: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if not isinstance(self.parameters, MappingProxyType):
            object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))

    @property
    def essence(self) -> str:
        return f"{self.type}/{self.subtype}"


def parse_mime_type(value: str) -> MimeType | None:
    """Implements the MIME Sniffing Standard's "parse a MIME type"; None is its failure.

    https://mimesniff.spec.whatwg.org/#parse-a-mime-type
    """
    text = value.strip(_HTTP_WHITESPACE)
    slash = text.find("/")
    if slash < 0:
        return None
    type_ = text[:slash]
    if not _is_token(type_):
        return None
    position = slash + 1
    semicolon = text.find(";", position)
    end = len(text) if semicolon < 0 else semicolon
    subtype = text[position:end].rstrip(_HTTP_WHITESPACE)
    if not _is_token(subtype):
        return None
    parameters = _parse_parameters(text, end)
    return MimeType(ascii_lower(type_), ascii_lower(subtype), MappingProxyType(parameters))


def _parse_parameters(text: str, position: int) -> dict[str, str]:
    """The parameter loop of "parse a MIME type": *position* is at a ";" or the end."""
    parameters: dict[str, str] = {}
    length = len(text)
    while position < length:
        position += 1  # past the ";"
        while position < length and text[position] in _HTTP_WHITESPACE:
            position += 1
        name_start = position
        position = _NOT_SEMICOLON_OR_EQUALS.match(text, position).end()  # type: ignore[union-attr]  # X* matches
        name = ascii_lower(text[name_start:position])
        if position < length:
            if text[position] == ";":
                continue
            position += 1  # past the "="
        if position >= length:
            break
        if text[position] == '"':
            parameter_value, position = collect_http_quoted_string(text, position, extract_value=True)
            position = _NOT_SEMICOLON.match(text, position).end()  # type: ignore[union-attr]  # X* matches
        else:
            end = _NOT_SEMICOLON.match(text, position).end()  # type: ignore[union-attr]  # X* matches
            parameter_value = text[position:end].rstrip(_HTTP_WHITESPACE)
            position = end
            if not parameter_value:
                continue
        if (
            _is_token(name)
            and _QUOTED_STRING_TOKEN.fullmatch(parameter_value)
            and name not in parameters  # the first occurrence wins
        ):
            parameters[name] = parameter_value
    return parameters


def _is_token(text: str) -> bool:
    return _TOKEN.fullmatch(text) is not None


def collect_http_quoted_string(text: str, position: int, *, extract_value: bool = False) -> tuple[str, int]:
    """Implements the Fetch Standard's "collect an HTTP quoted string"; *position* is at a '"'.

    Returns the collected string and the new position.  With *extract_value*
    the result is the unescaped value, otherwise the raw span, quotes included.
    https://fetch.spec.whatwg.org/#collect-an-http-quoted-string
    """
    start = position
    pieces: list[str] = []
    position += 1
    length = len(text)
    while True:
        end = _NOT_QUOTE_OR_BACKSLASH.match(text, position).end()  # type: ignore[union-attr]  # X* matches
        pieces.append(text[position:end])
        position = end
        if position >= length:
            break
        quote_or_backslash = text[position]
        position += 1
        if quote_or_backslash == "\\":
            if position >= length:
                pieces.append("\\")
                break
            pieces.append(text[position])
            position += 1
        else:
            break
    if extract_value:
        return "".join(pieces), position
    return text[start:position], position


def get_decode_split(value: str) -> list[str]:
    """Implements the Fetch Standard's "get, decode, and split" of a header value.

    *value* is the combined header value, already isomorphic decoded (each
    byte one code point, as ``bytes.decode("latin-1")`` gives).  Commas
    inside quoted strings do not split.
    https://fetch.spec.whatwg.org/#header-value-get-decode-and-split
    """
    values: list[str] = []
    position = 0
    length = len(value)
    temporary = ""
    while True:
        end = _NOT_QUOTE_OR_COMMA.match(value, position).end()  # type: ignore[union-attr]  # X* matches
        temporary += value[position:end]
        position = end
        if position < length and value[position] == '"':
            quoted, position = collect_http_quoted_string(value, position)
            temporary += quoted
            if position < length:
                continue
        values.append(temporary.strip(_HTTP_TAB_OR_SPACE))
        temporary = ""
        if position >= length:
            return values
        position += 1  # past the ","


def extract_mime_type(header_value: str | None) -> MimeType | None:
    """Implements the Fetch Standard's "extract a MIME type" over a combined Content-Type value.

    *header_value* is every Content-Type field value of the response joined
    with ", " (how a header list "gets" a name), or None when there was none.
    The last value that parses wins, but it keeps the charset of an earlier
    value with the same essence when it has none itself.
    https://fetch.spec.whatwg.org/#concept-header-extract-mime-type

    Cached: a crawl sees few distinct Content-Type values, and ``MimeType`` is
    immutable.  Only short values are cached, so hostile ones cannot fill memory.
    """
    if header_value is None:
        return None
    if len(header_value) <= CACHEABLE_LENGTH:
        return _extract_cached(header_value)
    return _extract(header_value)


#: The longest Content-Type value whose parse is cached: a crawl sees few distinct ones, and a bound
#: keeps hostile values from filling memory (here and in ``response.content_type_facts``).
CACHEABLE_LENGTH = 256


def _extract(header_value: str) -> MimeType | None:
    charset: str | None = None
    essence: str | None = None
    mime_type: MimeType | None = None
    for value in get_decode_split(header_value):
        temporary = parse_mime_type(value)
        if temporary is None or temporary.essence == "*/*":
            continue
        mime_type = temporary
        if mime_type.essence != essence:
            charset = mime_type.parameters.get("charset")
            essence = mime_type.essence
        elif "charset" not in mime_type.parameters and charset is not None:
            mime_type = MimeType(mime_type.type, mime_type.subtype, {**mime_type.parameters, "charset": charset})
    return mime_type


def is_xml_mime(mime: MimeType | None) -> bool:
    """The MIME Sniffing Standard's "XML MIME type" (https://mimesniff.spec.whatwg.org/#xml-mime-type)."""
    if mime is None:
        return False
    return mime.subtype.endswith("+xml") or mime.essence in ("text/xml", "application/xml")


def is_json_mime(mime: MimeType | None) -> bool:
    """The MIME Sniffing Standard's "JSON MIME type" (https://mimesniff.spec.whatwg.org/#json-mime-type)."""
    if mime is None:
        return False
    return mime.subtype.endswith("+json") or mime.essence in ("application/json", "text/json")


#: The MIME Sniffing Standard's JavaScript MIME type essences.
_JAVASCRIPT_ESSENCES = frozenset({
    "application/ecmascript", "application/javascript", "application/x-ecmascript", "application/x-javascript",
    "text/ecmascript", "text/javascript", "text/javascript1.0", "text/javascript1.1", "text/javascript1.2",
    "text/javascript1.3", "text/javascript1.4", "text/javascript1.5", "text/jscript", "text/livescript",
    "text/x-ecmascript", "text/x-javascript",
})  # fmt: skip


def is_javascript_mime(mime: MimeType | None) -> bool:
    """The MIME Sniffing Standard's "JavaScript MIME type" (https://mimesniff.spec.whatwg.org/#javascript-mime-type)."""
    return mime is not None and mime.essence in _JAVASCRIPT_ESSENCES


_extract_cached = functools.lru_cache(maxsize=4096)(_extract)
