"""A ``<meta>`` charset past the prescan's first 1024 bytes, found the way Chromium finds it.

Chromium does not run the HTML Standard's prescan.  Its decoder
(``TextResourceDecoder::CheckForMetaCharset``, third_party/blink/renderer/core/html/parser/
text_resource_decoder.cc) feeds the bytes to ``HTMLMetaCharsetParser::CheckForMetaCharset``
(third_party/blink/renderer/core/html/parser/html_meta_charset_parser.cc, descended from WebKit's
Source/WebCore/html/parser/HTMLMetaCharsetParser.cpp), which:

* reads the bytes as Latin-1, one character a byte, with Blink's HTML tokenizer
  (third_party/blink/renderer/core/html/parser/html_tokenizer.cc) from the first byte, scripting off;
* after each start tag of a known element calls ``UpdateStateFor``: title and textarea switch the
  tokenizer to RCDATA, script to script data (with its escaped and double-escaped states), style,
  xmp, iframe, noembed and noframes to RAWTEXT, plaintext to PLAINTEXT; noscript stays markup
  (scripting is off).  What looks like a tag in those is text, up to the "appropriate end tag";
* at a ``<meta>`` start tag, decides with ``EncodingFromMetaAttributes``
  (third_party/blink/renderer/core/html/parser/html_parser_idioms.cc) and stops when it gives a
  valid encoding; comments, DOCTYPEs and text are ignored;
* leaves "the head" at the first start tag not in {script, noscript, style, link, meta, object,
  title, base, html, head} or end tag not in {script, noscript, style, link, meta, object, title,
  base}, and stops without an answer after the first token at which it has left the head and
  consumed at least 1024 characters.  So a ``<meta>`` after ``<p>`` still counts while it starts
  within the first 1024 bytes, and ``<div>`` or ``</head>`` past them ends the search.

``TextResourceDecoder::SetEncoding`` then maps x-user-defined to windows-1252 and UTF-16 to UTF-8
(``TextEncoding::ClosestByteBasedEquivalent``).  ``EncodingFromMetaAttributes`` is not the
standard's prescan: it sees every attribute, duplicates included (the tokenizer keeps them), so
the *last* ``charset`` attribute decides; a ``content`` attribute counts only before any
``charset`` and each one replaces the previous (an empty extraction included); ``http-equiv`` must
equal "content-type" ASCII case-insensitively.  Its ``ExtractCharset`` skips any control
character as space and ends an unquoted value at a quote as well as at space or ";".
Attribute values are the tokenizer's: character references decoded, NUL as U+FFFD.

How it runs in linear time: the tokenizer is a handful of compiled patterns with possessive
quantifiers and alternatives that start on different bytes, so ``re`` reads each byte once, without
backtracking.  ``_SKIP`` jumps over everything that changes neither the tokenizer's state nor "the
head" nor can declare a charset (text, comments, bogus markup, head tags, ``<meta>`` tags without
the word "charset", whole script, style and title elements); Python looks only at the ``<meta>``
tags that hold the word and at the tags that end the head (at most 1024 bytes' worth of them, as
the search stops past that).  bench/late_meta.py measures it.

Deliberate differences:

* Only the first ``limit`` bytes (64 KiB) are read; Chromium reads on until it decides.
* The body is read as one piece.  Chromium checks each network chunk as it arrives and decodes the
  chunks before a late ``<meta>`` with the encoding it had (``Document::SetEncodingData`` then
  re-decodes the title only); the encoding found here applies to the whole body, as it does in
  Chromium for a page that arrives in one chunk.
* Labels are the Encoding Standard's (``labels.get_encoding``), where Chromium looks them up in its
  own TextEncoding registry.  No label tried told them apart in Chromium 156 (cp932, cp949,
  utf_8 and utf-32 are unknown to both; tis-620, sjis, ks_c_5601-1987, latin1, utf-16 and
  x-user-defined mean the same; iso-2022-kr is the replacement encoding in both).
* A ``content`` value that spells "charset" with character references (``&#99;harset=``) is not
  seen: a ``<meta>`` without the literal word is skipped unread.  References are decoded with
  ``html.unescape``, which also decodes a legacy named reference without ";" before "=" or a
  letter or digit, which the tokenizer leaves alone in attribute values; no label is affected.
* Only a ``<meta>`` that ends past the first 1024 bytes is reported: one within them is the
  prescan's business (the HTML Standard's algorithm, in the prescan package).
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable

from .labels import ascii_lower, get_encoding
from .prescan import PRESCAN_BYTES, find_meta

#: How far ``late_meta`` looks by default.
LATE_META_LIMIT = 65536

# -- the tokenizer, as patterns -------------------------------------------------------------------

_WS = rb"\t\n\x0c\r "  # the tokenizer's whitespace (a CR is read as a LF)
_ENDS_NAME = rb"[\t\n\x0c\r />]"  # what ends a tag name in the tag name and end tag name states


def _name_pattern(one: Callable[[bytes], bytes], run: Callable[[bytes], bytes]) -> bytes:
    """An attribute's name: its first byte may be "=", the others end at "=", whitespace, "/" or ">"."""
    return one(_WS + rb"/>") + run(rb"=" + _WS + rb"/>")


def _value_pattern(
    one: Callable[[bytes], bytes], run: Callable[[bytes], bytes], dq: bytes, sq: bytes, uq: bytes
) -> bytes:
    """After an attribute's name: "=" and a value (quoted, empty before ">", unquoted), or no value
    (the name ended at "/" or ">", or at spaces followed by something other than "=").  *dq*, *sq*
    and *uq* open the group around a double-quoted, single-quoted and unquoted value's bytes."""
    return (
        rb"(?:[" + _WS + rb"]*+=[" + _WS + rb"]*+"
        + rb'(?:"' + dq + run(rb'"') + rb')"' + rb"|'" + sq + run(rb"'") + rb")'|(?=>)"
        + rb"|" + uq + one(_WS + rb">\"'") + run(_WS + rb">") + rb")(?=[" + _WS + rb">]))"
        + rb"|(?=[/>])|[" + _WS + rb"]++(?=[^=" + _WS + rb"]))"
    )  # fmt: skip


def _attributes(one: Callable[[bytes], bytes], run: Callable[[bytes], bytes]) -> bytes:
    """A tag's attributes from the byte after its name to its ">" included.

    The rules of the HTML Standard's "get an attribute" until ">" (prescan/standard.py) are the
    tokenizer's before-attribute-name to after-attribute-value-quoted states (a quoted value hides
    ">", "=" may start a name, "/" between attributes is skipped), and the pattern fails where the
    bytes run out.  *one* and *run* make one byte and a possessive run of bytes not in a set
    (``b"=/>"``) wherever a name or value may hold a letter.
    """
    value = _value_pattern(one, run, rb"(?:", rb"(?:", rb"(?:")
    return rb"(?:[" + _WS + rb"/]*+" + _name_pattern(one, run) + value + rb")*+[" + _WS + rb"/]*+>"


def _one(not_in: bytes) -> bytes:
    return rb"[^" + not_in + rb"]"


def _run(not_in: bytes) -> bytes:
    return rb"[^" + not_in + rb"]*+"


_ATTRS = _attributes(_one, _run)
# One attribute from where the previous one ended, its name and value in groups; or "there isn't
# one" (group "gt", which consumes the ">").  Reads a <meta>'s attributes one by one.
_ATTRIBUTE = re.compile(
    rb"[" + _WS + rb"/]*+(?:(?P<gt>>)|(?P<name>" + _name_pattern(_one, _run) + rb")"
    + _value_pattern(_one, _run, rb"(?P<dq>", rb"(?P<sq>", rb"(?P<uq>") + rb")"
)  # fmt: skip
# The same, failing where the word "charset" (any case) appears: no byte that ends a name or a
# value is in the word, so it can only lie inside one, where each "c" is checked.
_NOT_CHARSET = rb"[Cc](?![Hh][Aa][Rr][Ss][Ee][Tt])"
_ATTRS_WITHOUT_CHARSET = _attributes(
    lambda not_in: rb"(?:[^Cc" + not_in + rb"]|" + _NOT_CHARSET + rb")",
    lambda not_in: rb"(?:[^Cc" + not_in + rb"]++|" + _NOT_CHARSET + rb")*+",
)


def _named(names: bytes) -> bytes:
    """A tag name among *names* (``a|b``), ASCII case-insensitively, and nothing longer."""
    return rb"(?i:" + names + rb")(?=" + _ENDS_NAME + rb")"


# Comment start, start dash, comment, end dash, end and end bang states: "<!-->" and "<!--->" are
# whole comments, and one ends at the first ">" after two or more dashes, or after "--!".
_COMMENT = rb"<!--(?:>|->|(?:[^-]++|-(?!-)|-{2,}+(?!!?>))*+-{2,}+!?>)"

# Script data.  An end tag is "</script" then whitespace, "/" or ">" (the appropriate end tag).
# "<!--" enters the escaped states, where "-->" (two or more dashes, then ">") leads back, and
# "<script" + ender enters the double-escaped states, which "</script" + ender leaves for the
# escaped ones ("-->" there leads back to script data too).  Every dash goes through the dash
# states, so a dash run is read whole: two or more dashes then ">" close, anything else is text.
_SCRIPT_WORD = rb"(?i:script)" + _ENDS_NAME  # consumes the ender, as the double-escape states do
_ESCAPED_TEXT = rb"[^<-]++|-(?!-)|-{2,}+(?!>)"
_DOUBLE_ESCAPED = (
    rb"<" + _SCRIPT_WORD + rb"(?:" + _ESCAPED_TEXT + rb"|<(?!/" + _SCRIPT_WORD + rb"))*+(?:</" + _SCRIPT_WORD + rb")?+"
)
# "<!" then the dashes of "<!--", which count as the escaped dash dash state's.
_ESCAPED = (
    rb"<!(?=--)(?:" + _ESCAPED_TEXT + rb"|<(?!/?" + _SCRIPT_WORD + rb")|" + _DOUBLE_ESCAPED + rb")*+(?:-{2,}+>)?+"
)
_SCRIPT_DATA = rb"(?:[^<]++|<(?!/" + _SCRIPT_WORD + rb"|!--)|" + _ESCAPED + rb")*+"
_SCRIPT_CONTENT = _SCRIPT_DATA + rb"</" + _named(rb"script") + _ATTRS


def _raw_text(name: bytes) -> bytes:
    """RAWTEXT or RCDATA content of element *name*, then its end tag: text up to "</name" + ender."""
    return rb"(?:[^<]++|<(?!/(?i:" + name + rb")" + _ENDS_NAME + rb"))*+</" + _named(name) + _ATTRS


# The data state over everything that changes neither the tokenizer's state nor "the head", nor
# can declare a charset.  One alternative per construct; they start on different bytes and each is
# possessive, so the match reads each byte once.  It stops at a <meta> holding the word "charset",
# at a tag that leaves the head or switches the tokenizer (textarea, xmp...), at a construct that
# runs out of bytes, or at the end.
_SKIP = re.compile(
    rb"(?:[^<]++"
    # Start tags of the head that change nothing in the tokenizer, and end tags of the head.
    + rb"|<" + _named(rb"link|base|object|html|head|noscript") + _ATTRS
    + rb"|</" + _named(rb"script|noscript|style|link|meta|object|title|base") + _ATTRS
    + rb"|<" + _named(rb"meta") + _ATTRS_WITHOUT_CHARSET
    # Whole elements of the head whose content is not markup.
    + rb"|<" + _named(rb"script") + _ATTRS + _SCRIPT_CONTENT
    + rb"|<" + _named(rb"style") + _ATTRS + _raw_text(rb"style")
    + rb"|<" + _named(rb"title") + _ATTRS + _raw_text(rb"title")
    + rb"|" + _COMMENT
    # "<!" (DOCTYPE or bogus comment), "<?", "</" + not a letter: up to the first ">".
    + rb"|<!(?!--)[^>]*+>|<\?[^>]*+>|</(?![A-Za-z])[^>]*+>"
    # "<" before anything else is text.
    + rb"|<(?![A-Za-z!/?]))*+"
)  # fmt: skip
_TAG = re.compile(rb"<(/?)([A-Za-z][^\t\n\x0c\r />]*+)" + _ATTRS)
# What a start tag switches the tokenizer to, as the pattern of its content and end tag.
_CONTENT = {
    name: re.compile(_SCRIPT_CONTENT if name == b"script" else _raw_text(name))
    for name in (b"script", b"style", b"title", b"textarea", b"xmp", b"iframe", b"noembed", b"noframes")
}
_PLAINTEXT = b"plaintext"  # never ends
_HEAD_START_TAGS = frozenset(b"script noscript style link meta object title base html head".split())
_HEAD_END_TAGS = frozenset(b"script noscript style link meta object title base".split())


def late_meta(body: bytes, limit: int = LATE_META_LIMIT) -> str | None:
    """The encoding a ``<meta>`` declares past the first 1024 bytes, read the way Chromium reads it.

    Implements Chromium's ``HTMLMetaCharsetParser::CheckForMetaCharset`` (see the module
    docstring) over the first *limit* bytes of *body* and returns the WHATWG encoding name of the
    ``<meta>`` it decides on, but only when that tag ends past the first 1024 bytes
    (``prescan.PRESCAN_BYTES``): one that ends within them is the prescan's to find.  None when
    it decides on nothing, and for a ``<meta>`` inside a script, style, title, textarea or comment,
    or after the head ended past the first 1024 bytes.  Use ``late_meta_labels`` to also learn an
    unknown label met on the way.
    """
    return _late(body, limit)[0]


def late_meta_labels(body: bytes, limit: int = LATE_META_LIMIT) -> tuple[str | None, str | None]:
    """``late_meta``, and the first unknown charset label that a late ``<meta>`` declared on the way.

    The label is the raw text (character references decoded, surrounding whitespace stripped) of
    the first ``<meta>`` ending past the first 1024 bytes whose declaration Chromium's rule reads
    but whose label names no encoding, met before the answer, or anywhere in the scan when there
    is none; None otherwise.  Labels of the first 1024 bytes are ``prescan.prescan_unknown_label``'s
    to report.  The scan is ``late_meta``'s: it costs the same.
    """
    return _late(body, limit)


def _late(body: bytes, limit: int) -> tuple[str | None, str | None]:
    end = min(limit, len(body))
    # Nothing can be a late <meta> in 1024 bytes or without "<meta" at all (compiled search).
    if end <= PRESCAN_BYTES or find_meta(body, 0, end) < 0:
        return None, None
    found, meta_end, unknown = _scan(body, end)
    return (found if meta_end > PRESCAN_BYTES else None), unknown


def _scan(body: bytes, end: int) -> tuple[str | None, int, str | None]:
    """Chromium's meta charset loop over ``body[:end]``: (encoding, position after its ``<meta>``'s ">",
    first late unknown label); (None, -1, label) when it stops without an answer or runs out of bytes."""
    position = 0
    in_head = True
    unknown: str | None = None
    while True:
        position = _SKIP.match(body, position, end).end()  # type: ignore[union-attr]  # X* matches
        # Chromium stops after the first token at which it is out of the head with 1024 characters
        # consumed.  The token before this one ended here, and every later one ends later.
        if position >= end or (not in_head and position >= PRESCAN_BYTES):
            return None, -1, unknown
        tag = _TAG.match(body, position, end)
        if tag is None:  # a tag, comment or bogus markup that runs out of bytes: nothing more is emitted
            return None, -1, unknown
        position = tag.end()
        name = tag.group(2).lower()
        if tag.group(1):
            in_head = in_head and name in _HEAD_END_TAGS
            continue
        if name == b"meta":  # one holding "charset": _SKIP went over the others
            attributes = body[tag.start() + 5 : position]
            found, label = _declaration(attributes) if len(attributes) > 256 else _cached_declaration(attributes)
            if found is not None:
                return found, position, unknown
            if unknown is None and position > PRESCAN_BYTES:  # the window's labels are the prescan's to report
                unknown = label
            continue
        in_head = in_head and name in _HEAD_START_TAGS
        if name == _PLAINTEXT:
            return None, -1, unknown
        content = _CONTENT.get(name)
        if content is not None:
            element_end = content.match(body, position, end)
            if element_end is None:
                return None, -1, unknown
            position = element_end.end()


def _declaration(attributes: bytes) -> tuple[str | None, str | None]:
    """Chromium's ``EncodingFromMetaAttributes`` on a ``<meta>``'s attributes (from after "meta"
    to ">"): (encoding, None), or (None, the label) when the declaration names no encoding, or
    (None, None) when there is no declaration or its label is empty."""
    got_pragma = has_charset = False
    mode: bytes | None = None
    charset = ""
    position = 0
    while True:
        attribute = _ATTRIBUTE.match(attributes, position)
        assert attribute is not None  # attributes run to the ">", which the pattern matches if no name does
        if attribute.group("name") is None:
            break
        position = attribute.end()
        name = attribute.group("name").lower()
        if name == b"http-equiv":
            got_pragma = got_pragma or ascii_lower(_value(attribute)) == "content-type"
        elif name == b"charset":
            has_charset, charset, mode = True, _value(attribute), name
        elif name == b"content" and not has_charset:
            charset = _extract_charset(_value(attribute))
            if charset:
                mode = name
    if mode is None or (mode == b"content" and not got_pragma):
        return None, None
    label = charset.strip("\t\n\x0c\r ")  # StripLeadingAndTrailingHTMLSpaces
    encoding = get_encoding(label)
    if encoding is None:
        return None, label or None
    # TextResourceDecoder::SetEncoding, for an encoding from a <meta>.
    if encoding == "x-user-defined":
        return "windows-1252", None
    if encoding in ("UTF-16BE", "UTF-16LE"):
        return "UTF-8", None
    return encoding, None


_cached_declaration = functools.lru_cache(maxsize=1024)(_declaration)


def _value(attribute: re.Match[bytes]) -> str:
    """An attribute's value as the tokenizer gives it: NUL as U+FFFD, character references decoded."""
    raw = attribute.group("dq") or attribute.group("sq") or attribute.group("uq") or b""
    value = raw.decode("latin-1").replace("\0", "\ufffd")
    return html.unescape(value) if "&" in value else value


def _extract_charset(value: str) -> str:
    """Chromium's ``ExtractCharset`` (html_parser_idioms.cc): the label after "charset=", or ""."""
    lowered = ascii_lower(value)
    length = len(value)
    position = 0
    while (position := lowered.find("charset", position)) >= 0:
        position += 7
        while position < length and value[position] <= " ":  # any control character is skipped
            position += 1
        if position >= length or value[position] != "=":
            continue
        position += 1
        while position < length and value[position] <= " ":
            position += 1
        quote = value[position] if position < length and value[position] in "\"'" else ""
        position += len(quote)
        if position >= length:
            return ""
        if quote:
            end = value.find(quote, position)
            return "" if end < 0 else value[position:end]  # no closing quote: nothing
        end = position
        while end < length and value[end] > " " and value[end] not in "\"';":
            end += 1
        return value[position:end]
    return ""

