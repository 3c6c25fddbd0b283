"""The meta prescan as the HTML Standard writes it: the reference that compiled.py is tested equal to.

Implements, one byte at a time, the HTML Standard's "prescan a byte stream to
determine its encoding"
(https://html.spec.whatwg.org/multipage/parsing.html#prescan-a-byte-stream-to-determine-its-encoding),
"get an attribute" (#concept-get-attributes-when-sniffing) and "the algorithm
for extracting a character encoding from a meta element"
(https://html.spec.whatwg.org/multipage/urls-and-fetching.html#algorithm-for-extracting-a-character-encoding-from-a-meta-element).
The numbered comments are the standard's steps and the names are its names
(position, attribute list, got pragma, need pragma, charset); bytes stand for
its strings, as every byte the algorithm appends is one code point.

The end condition is the one the standard encourages: the first 1024 bytes.
Reaching it is running out of bytes, and running out of bytes anywhere aborts
the prescan; its answer is then "get an XML encoding" of the same bytes.

This module is what the answers mean, and what runs where the compiled loop
(``../_native/prescan.c``) was not built; where it was, compiled.py runs the loop
compiled and this module's ``<meta`` branch on each ``<meta>`` tag the loop
stops at (``meta_tag``), and tests/decoding/test_prescan_loop.py requires its
answers to be this module's.
"""

from __future__ import annotations

from typing import NamedTuple

from ..labels import get_encoding
from ..xml_declaration import get_xml_encoding

#: The standard encourages user agents to prescan only the first 1024 bytes.
PRESCAN_BYTES = 1024

_WHITESPACE = b"\t\n\x0c\r "  # 0x09 (HT), 0x0A (LF), 0x0C (FF), 0x0D (CR), 0x20 (SP); also ASCII whitespace
_FAILURE = "failure"  # what "getting an encoding" gives for a label of no encoding: not null (None)


class _RanOutOfBytes(Exception):
    """The position pointer went beyond the end of the bytes (the first 1024: the end condition)."""


class _Loop(NamedTuple):
    """How the loop (steps 3 and 4) ended over some bytes."""

    #: What "return charset" returned; None when the loop ran out of bytes first.
    charset: str | None
    #: Not the standard's: the label of the first ``<meta>`` the loop passed over because the label
    #: names no encoding (``prescan_unknown_label``), lowercased as "get an attribute" reads it.
    passed_over_label: bytes | None


def prescan(body: bytes) -> str | None:
    """The standard's prescan of the first 1024 bytes of *body*: an encoding name, or None.

    The same answer as the product's ``consumer.decoding.prescan.prescan``.
    """
    stream = body[:PRESCAN_BYTES]
    # 1. Let position be a pointer to a byte in the input byte stream, initially pointing at
    #    the first byte.  (Step 2 reads the first bytes only; _loop starts at the first byte.)
    # 2. Prescan for UTF-16 XML declarations: If position points to:
    #    0x3C, 0x0, 0x3F, 0x0, 0x78, 0x0 (case-sensitive UTF-16 little-endian '<?x'): Return UTF-16LE.
    if stream.startswith(b"<\x00?\x00x\x00"):
        return "UTF-16LE"
    #    0x0, 0x3C, 0x0, 0x3F, 0x0, 0x78 (case-sensitive UTF-16 big-endian '<?x'): Return UTF-16BE.
    if stream.startswith(b"\x00<\x00?\x00x"):
        return "UTF-16BE"
    charset = _loop(stream).charset
    if charset is None:
        # Ran out of bytes: "abort ... and return the result of get an XML encoding applied to the
        # same bytes" (None is its failure).
        return get_xml_encoding(stream)
    return charset


def prescan_meta(body: bytes) -> str | None:
    """The loop alone (steps 1, 3 and 4) over the first 1024 bytes of *body*: what a ``<meta>``
    declares, without step 2's UTF-16 sniff and the XML declaration it falls back to.

    The same answer as the product's ``prescan_meta``.
    """
    return _loop(body[:PRESCAN_BYTES]).charset


def prescan_unknown_label(body: bytes) -> str | None:
    """The label of the first ``<meta>`` the loop passes over, in the first 1024 bytes of *body*,
    because the label names no encoding; None when there is none.

    Such a ``<meta>`` is one whose charset is failure (step 13), or one with got pragma whose
    content's "charset=" names no encoding (the extraction returns none, and step 11 skips it).
    A ``<meta>`` after the one the prescan returns is not read.  The same answer as the
    product's ``prescan_unknown_label``.
    """
    label = _loop(body[:PRESCAN_BYTES]).passed_over_label
    return None if label is None else label.decode("latin-1")


def meta_tag(tag: bytes) -> tuple[str | None, bytes | None]:
    """The ``<meta`` branch (its steps 1 to 16) over *tag*, one whole ``<meta>`` from its "<" to its ">".

    Returns (the charset step 16 returns, or None when the steps jump to next byte; the label of
    a ``<meta>`` passed over for naming no encoding, or None).  The branch reads no byte past the
    tag's ">" ("get an attribute" stops at it), so its answer depends on these bytes alone: a
    caller that found the tag another way (the compiled loop) may run the branch on it, and
    remember the answer.
    """
    charset, label, _ = _meta(tag, 0)
    return charset, label


def find_meta(buf: bytes, start: int, end: int) -> int:
    """Where the first "<meta" (ASCII case-insensitively) of ``buf[start:end]`` starts, or -1.

    No step of the standard: a search in front of it (a body without "<meta" declares nothing).
    """
    return buf[:end].lower().find(b"<meta", start)


def _byte(stream: bytes, position: int) -> int:
    """The byte at *position*; reading past the end of *stream* is running out of bytes."""
    if position >= len(stream):
        raise _RanOutOfBytes
    return stream[position]


def _lowercase(byte: int) -> int:
    """0x41 (A) to 0x5A (Z) becomes "the code point b+0x20"; any other byte stays itself."""
    return byte + 0x20 if 0x41 <= byte <= 0x5A else byte


def _loop(stream: bytes) -> _Loop:
    """Steps 1, 3 and 4 over *stream*, until a ``<meta>`` returns a charset or the bytes run out."""
    passed_over_label = None
    # 1. Let position be a pointer to a byte in the input byte stream, initially pointing at the first byte.
    position = 0
    try:
        while True:
            # 3. Loop: If position points to:
            _byte(stream, position)  # (past the end, there is nothing to point to: the bytes ran out)
            if stream.startswith(b"<!--", position):
                # A sequence of bytes starting with: 0x3C 0x21 0x2D 0x2D (`<!--`): Advance the
                # position pointer so that it points at the first 0x3E byte which is preceded by two
                # 0x2D bytes (i.e. at the end of an ASCII '-->' sequence) and comes after the 0x3C
                # byte that was found.  (The two 0x2D bytes can be the same as those in the '<!--'.)
                position += 1
                while not (_byte(stream, position) == 0x3E and stream[position - 2 : position] == b"--"):
                    position += 1
            elif _is_meta_start(stream, position):
                # A sequence of bytes starting with: 0x3C, 0x4D or 0x6D, 0x45 or 0x65, 0x54 or 0x74,
                # 0x41 or 0x61, and one of 0x09, 0x0A, 0x0C, 0x0D, 0x20, 0x2F (case-insensitive
                # ASCII '<meta' followed by a space or slash):
                charset, label, position = _meta(stream, position)
                if charset is not None:
                    # 16. Return charset.
                    return _Loop(charset, passed_over_label)
                passed_over_label = passed_over_label if passed_over_label is not None else label
            elif _is_tag_start(stream, position):
                # A sequence of bytes starting with a 0x3C byte (<), optionally a 0x2F byte (/), and
                # finally a byte in the range 0x41-0x5A or 0x61-0x7A (A-Z or a-z):
                # 1. Advance the position pointer so that it points at the next 0x09 (HT), 0x0A (LF),
                #    0x0C (FF), 0x0D (CR), 0x20 (SP), or 0x3E (>) byte.
                while _byte(stream, position) not in _WHITESPACE + b">":
                    position += 1
                # 2. Repeatedly get an attribute until no further attributes can be found, then jump
                #    to the step below labeled next byte.
                attribute, position = get_an_attribute(stream, position)
                while attribute is not None:
                    attribute, position = get_an_attribute(stream, position)
            elif stream.startswith((b"<!", b"</", b"<?"), position):
                # A sequence of bytes starting with: 0x3C 0x21 (`<!`), 0x3C 0x2F (`</`) or 0x3C 0x3F
                # (`<?`): Advance the position pointer so that it points at the first 0x3E byte (>)
                # that comes after the 0x3C byte that was found.
                position += 1
                while _byte(stream, position) != 0x3E:
                    position += 1
            # Any other byte: Do nothing with that byte.
            # 4. Next byte: Move position so it points at the next byte in the input byte stream,
            #    and return to the step above labeled loop.
            position += 1
    except _RanOutOfBytes:
        return _Loop(None, passed_over_label)


def _is_meta_start(stream: bytes, position: int) -> bool:
    """'<meta' (ASCII case-insensitively) then one of 0x09, 0x0A, 0x0C, 0x0D, 0x20, 0x2F at *position*."""
    after = stream[position + 5 : position + 6]
    return stream[position : position + 5].lower() == b"<meta" and after != b"" and after in _WHITESPACE + b"/"


def _is_tag_start(stream: bytes, position: int) -> bool:
    """0x3C (<), optionally 0x2F (/), then an ASCII letter, at *position*."""
    if stream[position : position + 1] != b"<":
        return False
    letter = position + 2 if stream[position + 1 : position + 2] == b"/" else position + 1
    return stream[letter : letter + 1].isalpha()  # bytes.isalpha is ASCII letters only


def _meta(stream: bytes, position: int) -> tuple[str | None, bytes | None, int]:
    """The ``<meta`` branch's steps 1-16 from the "<" of "<meta" at *position*.

    Returns (the charset step 16 returns, or None when the steps jump to next byte; the label
    of a ``<meta>`` passed over for naming no encoding, or None; the position of the ">").
    """
    # 1. Advance the position pointer so that it points at the next 0x09, 0x0A, 0x0C, 0x0D, 0x20,
    #    or 0x2F byte (the one in sequence of characters matched above).
    position += 5
    # 2. Let attribute list be an empty list of strings.
    attribute_list: list[bytes] = []
    # 3. Let got pragma be false.
    got_pragma = False
    # 4. Let need pragma be null.
    need_pragma: bool | None = None
    # 5. Let charset be the null value (which, for the purposes of this algorithm, is distinct from
    #    an unrecognized encoding or the empty string).
    charset: str | None = None
    # Not the standard's: the labels behind a failure, for prescan_unknown_label.
    charset_label = content_label = None
    while True:
        # 6. Attributes: Get an attribute and its value.  If no attribute was sniffed, then jump to
        #    the processing step below.
        attribute, position = get_an_attribute(stream, position)
        if attribute is None:
            break
        name, value = attribute
        # 7. If the attribute's name is already in attribute list, then return to the step labeled
        #    attributes.
        if name in attribute_list:
            continue
        # 8. Add the attribute's name to attribute list.
        attribute_list.append(name)
        # 9. Run the appropriate step from the following list, if one applies:
        if name == b"http-equiv":
            # If the attribute's value is "content-type", then set got pragma to true.
            if value == b"content-type":
                got_pragma = True
        elif name == b"content":
            # Apply the algorithm for extracting a character encoding from a meta element, giving
            # the attribute's value as the string to parse.  If a character encoding is returned,
            # and if charset is still set to null, let charset be the encoding returned, and set
            # need pragma to true.
            label = meta_charset_label(value)
            encoding = None if label is None else get_encoding(label)
            if encoding is not None and charset is None:
                charset, need_pragma = encoding, True
            elif encoding is None and label is not None:
                content_label = label
        elif name == b"charset":
            # Let charset be the result of getting an encoding from the attribute's value, and set
            # need pragma to false.
            charset, need_pragma, charset_label = get_encoding(value) or _FAILURE, False, value
        # 10. Return to the step labeled attributes.
    # 11. Processing: If need pragma is null, then jump to the step below labeled next byte.
    if need_pragma is None:
        return None, content_label if got_pragma else None, position
    # 12. If need pragma is true but got pragma is false, then jump to the step below labeled next byte.
    if need_pragma and not got_pragma:
        return None, None, position
    # 13. If charset is failure, then jump to the step below labeled next byte.
    if charset == _FAILURE:
        return None, charset_label, position
    # 14. If charset is UTF-16BE/LE, then set charset to UTF-8.
    if charset in ("UTF-16BE", "UTF-16LE"):
        charset = "UTF-8"
    # 15. If charset is x-user-defined, then set charset to windows-1252.
    if charset == "x-user-defined":
        charset = "windows-1252"
    # 16. Return charset.
    return charset, None, position


def get_an_attribute(stream: bytes, position: int) -> tuple[tuple[bytes, bytes] | None, int]:
    """Implements the HTML Standard's "get an attribute" from *position*.

    Returns ((attribute name, attribute value), the position after it), or (None, the position
    of the ">") when there isn't one.  Raises ``_RanOutOfBytes`` where the standard runs out.
    """
    # 1. If the byte at position is one of 0x09 (HT), 0x0A (LF), 0x0C (FF), 0x0D (CR), 0x20 (SP),
    #    or 0x2F (/), then advance position to the next byte and redo this step.
    while _byte(stream, position) in _WHITESPACE + b"/":
        position += 1
    # 2. If the byte at position is 0x3E (>), then abort the get an attribute algorithm.  There isn't one.
    if _byte(stream, position) == 0x3E:
        return None, position
    # 3. Otherwise, the byte at position is the start of the attribute name.  Let attribute name
    #    and attribute value be the empty string.
    attribute_name, attribute_value = bytearray(), bytearray()
    while True:
        # 4. Process the byte at position as follows:
        byte = _byte(stream, position)
        if byte == 0x3D and attribute_name:
            # If it is 0x3D (=), and the attribute name is longer than the empty string: Advance
            # position to the next byte and jump to the step below labeled value.
            position += 1
            break
        if byte in _WHITESPACE:
            # If it is 0x09 (HT), 0x0A (LF), 0x0C (FF), 0x0D (CR), or 0x20 (SP): Jump to the step
            # below labeled spaces.
            # 6. Spaces: If the byte at position is one of 0x09 (HT), 0x0A (LF), 0x0C (FF), 0x0D (CR),
            #    or 0x20 (SP), then advance position to the next byte, then, repeat this step.
            while _byte(stream, position) in _WHITESPACE:
                position += 1
            # 7. If the byte at position is not 0x3D (=), abort the get an attribute algorithm.  The
            #    attribute's name is the value of attribute name, its value is the empty string.
            if _byte(stream, position) != 0x3D:
                return (bytes(attribute_name), b""), position
            # 8. Advance position past the 0x3D (=) byte.
            position += 1
            break
        if byte in (0x2F, 0x3E):
            # If it is 0x2F (/) or 0x3E (>): Abort the get an attribute algorithm.  The attribute's
            # name is the value of attribute name, its value is the empty string.
            return (bytes(attribute_name), b""), position
        # If it is in the range 0x41 (A) to 0x5A (Z): Append the code point b+0x20 to attribute
        # name.  Anything else: Append the code point with the same value as the byte at position.
        attribute_name.append(_lowercase(byte))
        # 5. Advance position to the next byte and return to the previous step.
        position += 1
    # 9. Value: If the byte at position is one of 0x09 (HT), 0x0A (LF), 0x0C (FF), 0x0D (CR), or
    #    0x20 (SP), then advance position to the next byte, then, repeat this step.
    while _byte(stream, position) in _WHITESPACE:
        position += 1
    # 10. Process the byte at position as follows:
    byte = _byte(stream, position)
    if byte in (0x22, 0x27):
        # If it is 0x22 (") or 0x27 ('):
        # 1. Let b be the value of the byte at position.
        b = byte
        while True:
            # 2. Quote loop: Advance position to the next byte.
            position += 1
            # 3. If the value of the byte at position is the value of b, then advance position to
            #    the next byte and abort the "get an attribute" algorithm.  The attribute's name is
            #    the value of attribute name, and its value is the value of attribute value.
            if _byte(stream, position) == b:
                return (bytes(attribute_name), bytes(attribute_value)), position + 1
            # 4. Otherwise, if the value of the byte at position is in the range 0x41 (A) to 0x5A
            #    (Z), then append a code point to attribute value whose value is 0x20 more than the
            #    value of the byte at position.
            # 5. Otherwise, append a code point to attribute value whose value is the same as the
            #    value of the byte at position.
            attribute_value.append(_lowercase(_byte(stream, position)))
            # 6. Return to the step above labeled quote loop.
    if byte == 0x3E:
        # If it is 0x3E (>): Abort the get an attribute algorithm.  The attribute's name is the
        # value of attribute name, its value is the empty string.
        return (bytes(attribute_name), b""), position
    # If it is in the range 0x41 (A) to 0x5A (Z): Append a code point b+0x20 to attribute value.
    # Anything else: Append a code point with the same value as the byte at position to attribute
    # value.  Advance position to the next byte.
    attribute_value.append(_lowercase(byte))
    position += 1
    while True:
        # 11. Process the byte at position as follows:
        byte = _byte(stream, position)
        if byte in _WHITESPACE or byte == 0x3E:
            # If it is 0x09 (HT), 0x0A (LF), 0x0C (FF), 0x0D (CR), 0x20 (SP), or 0x3E (>): Abort the
            # get an attribute algorithm.  The attribute's name is the value of attribute name and
            # its value is the value of attribute value.
            return (bytes(attribute_name), bytes(attribute_value)), position
        # If it is in the range 0x41 (A) to 0x5A (Z): Append a code point b+0x20 to attribute
        # value.  Anything else: Append a code point with the same value as the byte at position
        # to attribute value.
        attribute_value.append(_lowercase(byte))
        # 12. Advance position to the next byte and return to the previous step.
        position += 1


def extract_meta_charset(s: bytes) -> str | None:
    """Implements the HTML Standard's "algorithm for extracting a character encoding from a meta element".

    *s* is a ``content`` attribute's value.  Returns the WHATWG encoding its
    "charset=" names, or None ("nothing"), which includes an unmatched quote
    and a label of no encoding.
    """
    label = meta_charset_label(s)
    return None if label is None else get_encoding(label)


def meta_charset_label(s: bytes) -> bytes | None:
    """The extraction algorithm's steps 1-6 up to the substring it gets an encoding from: that
    substring, or None where the algorithm returns nothing.

    ``extract_meta_charset`` is "getting an encoding" from it; ``prescan_unknown_label``
    reports it when that gives no encoding.
    """
    lowercase = s.lower()  # "an ASCII case-insensitive match for the word charset"
    # 1. Let position be a pointer into s, initially pointing at the start of the string.
    position = 0
    while True:
        # 2. Loop: Find the first seven characters in s after position that are an ASCII
        #    case-insensitive match for the word "charset".  If no such match is found, return nothing.
        found = lowercase.find(b"charset", position)
        if found < 0:
            return None
        position = found + 7
        # 3. Skip any ASCII whitespace that immediately follow the word "charset" (there might not be any).
        while position < len(s) and s[position] in _WHITESPACE:
            position += 1
        # 4. If the next character is not a U+003D EQUALS SIGN (=), then move position to point
        #    just before that next character, and jump back to the step labeled loop.
        if s[position : position + 1] == b"=":
            break
    # 5. Skip any ASCII whitespace that immediately follow the equals sign (there might not be any).
    position += 1
    while position < len(s) and s[position] in _WHITESPACE:
        position += 1
    # 6. Process the next character as follows:
    if position >= len(s):
        # If there is no next character: Return nothing.
        return None
    character = s[position]
    if character in (0x22, 0x27):
        # If it is a U+0022 (") and there is a later U+0022 (") in s, or a U+0027 (') and there is
        # a later U+0027 (') in s: Return the result of getting an encoding from the substring that
        # is between this character and the next earliest occurrence of this character.
        end = s.find(bytes([character]), position + 1)
        # If it is an unmatched U+0022 (") or an unmatched U+0027 ('): Return nothing.
        return None if end < 0 else s[position + 1 : end]
    # Otherwise: Return the result of getting an encoding from the substring that consists of this
    # character up to but not including the first ASCII whitespace or U+003B SEMICOLON character
    # (;), or the end of s, whichever comes first.
    end = position
    while end < len(s) and s[end] not in _WHITESPACE and s[end] != 0x3B:
        end += 1
    return s[position:end]
