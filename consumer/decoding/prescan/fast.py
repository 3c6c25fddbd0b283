"""The meta prescan, fast: the same answers as standard.py, the HTML Standard's steps, at C speed.

The product's ``prescan``, ``prescan_meta`` and ``prescan_unknown_label`` are
this module's (``consumer.decoding.prescan`` exports them); each gives the
answer of standard.py's function of the same name, which
tests/decoding/test_prescan_loop.py checks on generated markup, with the
compiled loop and without it.  How it is fast and stays the standard's state machine:

* "get an attribute" is a deterministic automaton over bytes, so it is written
  as one compiled pattern (``_ATTRIBUTE``), step by step, with possessive
  quantifiers (``*+``) and alternatives that start on disjoint bytes: the
  engine never backtracks, so it reads each byte once, in C.  A pattern that
  does not match means the standard's "runs out of bytes".
* Every branch of the loop but ``<meta`` (other bytes, comments, tags and
  their attributes, bogus markup) only moves the position, so together they
  are one such pattern (``_loop_until_meta``) that stops where a ``<meta``
  starts; Python runs the ``<meta`` branch (attribute list, got pragma, need
  pragma, charset) with ``_ATTRIBUTE``.
* A ``<meta`` without the word "charset" cannot declare anything and is
  skipped whole; a window without ``<meta`` is answered without scanning.
* The loop and the ``<meta`` search also exist compiled (``../_prescan_loop.c``,
  built on install when a C compiler is there): a pattern costs ~0.3 us a
  call and ~0.3 us a tag in ``re``, several times the compiled loop's cost.
  The patterns are the fallback (``COMPILED`` says which runs).
* An answer is remembered under the bytes that decided it (``DecisionCache``):
  a page whose head starts like one seen before is answered by a lookup.
"""

from __future__ import annotations

import functools
import re

from ..labels import get_encoding
from ..xml_declaration import get_xml_encoding
from .standard import PRESCAN_BYTES, extract_meta_charset, meta_charset_label

# The bytes "get an attribute" treats as whitespace: 0x09 0x0A 0x0C 0x0D 0x20.
_WS = rb"\t\n\x0c\r\x20"
_NAME = rb"[^" + _WS + rb"/>][^=" + _WS + rb"/>]*+"
# After the name (steps 4-12): "=" (perhaps after spaces) and a value, or no
# value because the name ended at "/" or ">", or at spaces followed by
# something that is not "=".  Each alternative requires the byte that ends
# it, so running out of bytes makes the whole pattern fail, as the standard
# aborts.  An unterminated quote fails too: it runs out inside the quote loop.
_VALUE = (
    rb"(?:[" + _WS + rb"]*+=[" + _WS + rb"]*+"
    rb"""(?:"(?P<dq>[^"]*+)"|'(?P<sq>[^']*+)'|(?=>)"""
    rb"|(?P<uq>[^" + _WS + rb">\"'][^" + _WS + rb">]*+)(?=[" + _WS + rb">]))"
    rb"|(?=[/>])"
    rb"|[" + _WS + rb"]++(?=[^=" + _WS + rb"]))"
)
# One call of "get an attribute" from the current position.  Group "gt" is
# step 2's "there isn't one"; it consumes the ">" so that the match ends where
# the prescan's "next byte" step continues.
_ATTRIBUTE = re.compile(rb"[" + _WS + rb"/]*+(?:(?P<gt>>)|(?P<name>" + _NAME + rb")" + _VALUE + rb")")
# "Repeatedly get an attribute until no further attributes can be found",
# ending after the ">".
_ATTRIBUTES_TO_GT_PATTERN = (
    rb"(?:[" + _WS + rb"/]*+" + _NAME + re.sub(rb"\(\?P<\w+>", b"(?:", _VALUE) + rb")*+[" + _WS + rb"/]*+>"
)
_ATTRIBUTES_TO_GT = re.compile(_ATTRIBUTES_TO_GT_PATTERN)


def _loop_until_meta() -> re.Pattern[bytes]:
    """The prescan's loop, every branch but ``<meta``, as one pattern: it stops where a <meta begins.

    One alternative per branch of the standard's loop, in its order; they
    start on different bytes and each is possessive, so the engine never
    backtracks and reads each byte once.  The match ends at a ``<meta``
    followed by whitespace or "/", at the end of the bytes, or at a construct
    that runs out of bytes (a comment without "-->", a tag or bogus markup
    without its ">").
    """
    return re.compile(
        rb"(?:"
        # Any other byte: do nothing with it.
        rb"[^<]++"
        # "<!--": up to the first ">" preceded by "--", which may be the
        # dashes of "<!--" itself ("<!-->" is a whole comment).
        rb"|<!--(?:[^>]++|(?<!--)>)*+>"
        # "<" + letter or "</" + letter, but not "<meta" + space or "/": the
        # tag name up to whitespace or ">", then its attributes to the ">".
        rb"|<(?![Mm][Ee][Tt][Aa][" + _WS + rb"/])/?[A-Za-z][^" + _WS + rb">]*+"
        + _ATTRIBUTES_TO_GT_PATTERN
        # "<!" (not a comment), "</" (not a tag) and "<?": up to the first ">".
        + rb"|<(?:!(?!--)|/(?![A-Za-z])|\?)[^>]*+>"
        # "<" followed by anything else is a byte like any other; a run of
        # them is taken at once, but for a last one that starts a tag (the
        # engine gives back at most that one "<").
        rb"|<+(?![!/?A-Za-z])"
        rb")*+"
    )


_PRESCAN_LOOP = _loop_until_meta()
_META_END = b"\t\n\x0c\r /"  # the bytes that may follow "<meta"
_PRAGMA_NAMES = frozenset((b"http-equiv", b"content", b"charset"))
# "<meta" ASCII case-insensitively, as bytes.lower() would find it, without lowercasing a copy.
_META_START = re.compile(rb"<[Mm][Ee][Tt][Aa]")
_GAVE_UP = -1  # _scan's position when the loop ran out of bytes
_FAILURE = "failure"  # "getting an encoding" found no encoding; distinct from null (None)


def prescan(body: bytes) -> str | None:
    """Implements the HTML Standard's "prescan a byte stream to determine its encoding".

    Scans the first 1024 bytes of *body* (after the caller removed a BOM) and
    returns the WHATWG encoding name a ``<meta charset>`` or
    ``<meta http-equiv=content-type content="...charset=...">`` declares, or
    None.  As the standard says: a UTF-16 label means UTF-8, x-user-defined
    means windows-1252, a ``<meta>`` not finished within the window does not
    count, and when the scan finds nothing its result is "get an XML
    encoding" (an ``<?xml ... encoding="..."?>`` at the very start).  The one
    answer that is not UTF-8-compatible is the standard's UTF-16 XML
    declaration sniff: a body starting ``<\\0?\\0x\\0`` is UTF-16LE
    (``\\0<\\0?\\0x`` UTF-16BE).  Use ``prescan_meta`` to tell the two
    sources apart.  standard.prescan is the reference.
    """
    if body.startswith(b"<\x00?\x00x\x00"):
        return "UTF-16LE"
    if body.startswith(b"\x00<\x00?\x00x"):
        return "UTF-16BE"
    found = prescan_meta(body)
    if found is None and body.startswith(b"<?xml"):  # "get an XML encoding" fails on any other start
        return get_xml_encoding(body)
    return found


def prescan_meta(body: bytes) -> str | None:
    """The ``<meta>`` part of ``prescan`` alone: the loop over the first 1024 bytes, no XML declaration.

    Lets a caller attribute the prescan's answer to a ``<meta>`` rather than to
    an XML declaration; ``prescan`` is this, then ``get_xml_encoding``.  The
    window is bounded by position rather than by a slice (no copy), and an
    answer already decided by the same leading bytes comes from ``DecisionCache``.
    standard.prescan_meta is the reference.
    """
    decided = _DECISIONS.get(body)
    if decided is not None:
        return decided
    window_end = min(len(body), PRESCAN_BYTES)
    if _find_meta(body, 0, window_end) < 0:
        return None
    found, end = _scan(body, window_end)
    if found is not None:
        _DECISIONS.put(body[:end], found)
    return found


class DecisionCache:
    """The prescan's answers, each under the bytes that decided it: the body up to its ``<meta>``'s ">".

    Why a cached answer is exact: the prescan reads the window from its first
    byte, one construct after another, and looks at no byte past the ">" of
    the ``<meta>`` that gives its answer (the standard's "get an attribute"
    stops at that ">", and ``_meta_encoding`` already relies on it).  Every
    body that starts with those bytes therefore has the same answer, and its
    window (at least as long as that prefix) cannot run out before it.

    Pages of one site, and many sites, share their head up to the
    ``<meta charset>``: a hit costs a 32-byte slice, a dict lookup and a
    ``startswith`` instead of the scan.  Bounded: at most ``max_keys`` keys
    (the first ``key_bytes`` bytes) of ``per_key`` prefixes of at most 1024
    bytes, oldest key dropped first; a hostile stream only causes misses.
    tests/decoding/test_prescan_loop.py checks cached answers against the
    standard's steps on bodies sharing prefixes.
    """

    __slots__ = ("key_bytes", "max_keys", "per_key", "_by_key")

    def __init__(self, key_bytes: int = 32, max_keys: int = 512, per_key: int = 4) -> None:
        self.key_bytes, self.max_keys, self.per_key = key_bytes, max_keys, per_key
        self._by_key: dict[bytes, tuple[tuple[bytes, str], ...]] = {}

    def get(self, body: bytes) -> str | None:
        """The answer of a stored prefix *body* starts with, or None."""
        for prefix, answer in self._by_key.get(body[: self.key_bytes], ()):
            if body.startswith(prefix):
                return answer
        return None

    def put(self, prefix: bytes, answer: str) -> None:
        """Remember that a body starting with *prefix* (the bytes up to the deciding ">") prescans to *answer*."""
        if len(prefix) < self.key_bytes:
            return  # too short to be keyed; such a body is scanned in a few steps anyway
        key = prefix[: self.key_bytes]
        entries = self._by_key.get(key)
        if entries is None and len(self._by_key) >= self.max_keys:
            try:
                del self._by_key[next(iter(self._by_key))]
            except (KeyError, RuntimeError, StopIteration):  # another thread evicted or inserted meanwhile
                pass
        # The newest first, as a new tuple: a reader in another thread sees the old one or the new one.
        self._by_key[key] = ((prefix, answer), *(entries or ())[: self.per_key - 1])


_DECISIONS = DecisionCache()


def _next_meta_by_pattern(buf: bytes, position: int, length: int, stop_at_body: bool = False) -> int:
    """The prescan's loop over ``buf[position:length]`` by pattern: where the ``<meta`` it stops at
    starts, or -1 when it stops anywhere else (the end, or a construct that ran out of bytes).

    *stop_at_body* mirrors the compiled ``next_meta``'s fourth argument, which made the loop stop
    at "<body" and "</head" for the late ``<meta>`` scan that late_meta.py now does Chromium's
    way; the prescan passes False, the only value this fallback implements.
    """
    if stop_at_body:
        raise ValueError("the prescan's loop no longer stops at the end of the head")
    length = min(length, len(buf))  # as a slice would, and the compiled loop does
    position = _PRESCAN_LOOP.match(buf, position, length).end()  # type: ignore[union-attr]  # X* matches
    after = position + 5
    if after >= length or buf[after] not in _META_END or buf[position + 1 : after].lower() != b"meta":
        return -1
    return position


def _find_meta_by_pattern(buf: bytes, start: int, end: int) -> int:
    """Where the first ``<meta`` (any case) of ``buf[start:end]`` starts, or -1."""
    found = _META_START.search(buf, start, end)
    return -1 if found is None else found.start()


try:
    from .. import _prescan_loop

    _find_meta, _next_meta = _prescan_loop.find_meta, _prescan_loop.next_meta

    #: Whether the compiled loop runs (else the patterns, with the same answers, slower).
    COMPILED = True
except ImportError:  # installed without a C compiler
    _find_meta, _next_meta = _find_meta_by_pattern, _next_meta_by_pattern
    COMPILED = False


def _scan(buf: bytes, length: int) -> tuple[str | None, int]:
    """The prescan's loop over ``buf[:length]``: (encoding, position after its ``<meta>``'s ">").

    (None, _GAVE_UP) when the loop runs out of bytes.
    """
    position = 0
    while True:
        position = _next_meta(buf, position, length, False)  # False: the compiled loop's stop_at_body
        if position < 0:  # the end, or a construct that ran out of bytes
            return None, _GAVE_UP
        found, position = _meta(buf, position + 5, length)
        if found is not None or position == _GAVE_UP:
            return found, position


def _meta(buf: bytes, position: int, length: int) -> tuple[str | None, int]:
    """The ``<meta`` branch from the byte after "meta", within ``buf[:length]``: (encoding, position after ">").

    (None, position) lets the loop go on at the next byte; (None, _GAVE_UP)
    means the attributes ran out of bytes.
    """
    # Where the tag ends does not depend on what its attributes mean, so
    # find it first: a truncated <meta> aborts the whole prescan, and a
    # well-formed one needs its attributes read only up to the last of the
    # three names that matter.
    tag = _ATTRIBUTES_TO_GT.match(buf, position, length)
    if tag is None:
        return None, _GAVE_UP
    end = tag.end()
    attributes = buf[position:end]
    if b"charset" not in attributes.lower():
        # Both ways to declare (a charset attribute, "charset=" in a content
        # attribute) need the word: <meta name=viewport ...> is done here.
        return None, end
    if len(attributes) <= _CACHED_ATTRIBUTES_BYTES:
        return _cached_meta_encoding(attributes), end
    return _meta_encoding(attributes), end


def _meta_encoding(attributes: bytes) -> str | None:
    """What a complete ``<meta>``'s attributes declare: *attributes* runs from the byte after
    "meta" to the tag's ">" included.

    Reading them needs no byte past that ">" (each attribute's lookahead stops at it), so
    the answer depends on these bytes only, and ``_cached_meta_encoding`` can reuse it.
    """
    seen: set[bytes] = set()
    got_pragma = False
    need_pragma: bool | None = None
    charset: str | None = None
    position = 0
    while not seen >= _PRAGMA_NAMES:
        attribute = _ATTRIBUTE.match(attributes, position)
        assert attribute is not None  # attributes run to the ">", which the pattern matches if no name does
        position = attribute.end()
        name = attribute.group("name")
        if name is None:
            break
        name = name.lower()
        if name in seen:  # a duplicate attribute is ignored: the first one wins
            continue
        seen.add(name)
        if name not in _PRAGMA_NAMES:
            continue
        double_quoted, single_quoted, unquoted = attribute.group("dq", "sq", "uq")
        value = (double_quoted or single_quoted or unquoted or b"").lower()
        if name == b"http-equiv":
            got_pragma = got_pragma or value == b"content-type"
        elif name == b"content":
            extracted = extract_meta_charset(value)
            if extracted is not None and charset is None:
                charset, need_pragma = extracted, True
        else:
            charset, need_pragma = get_encoding(value) or _FAILURE, False
            break  # a charset attribute decides: no later attribute can change the result
    if need_pragma is None or (need_pragma and not got_pragma) or charset in (None, _FAILURE):
        return None
    if charset in ("UTF-16BE", "UTF-16LE"):
        return "UTF-8"
    if charset == "x-user-defined":
        return "windows-1252"
    return charset


# Most pages declare with one of a few identical tags (' charset="utf-8">'); short ones
# only are cached, in a bounded cache, so hostile pages cannot fill memory.
_CACHED_ATTRIBUTES_BYTES = 256
_cached_meta_encoding = functools.lru_cache(maxsize=1024)(_meta_encoding)


# -- labels the prescan passes over ---------------------------------------------------------


def may_declare_a_charset(body: bytes) -> bool:
    """Whether the prescan's window holds a ``<meta`` and the word "charset" (any case), cheaply.

    False means no ``<meta>`` there declares a charset, known or not (``prescan_meta`` and
    ``prescan_unknown_label`` are None): 0.1 us (the compiled ``<meta`` search) for most
    pages, ~1 us when there is a ``<meta``.  No step of the standard: a filter in front of it.
    """
    window_end = min(len(body), PRESCAN_BYTES)
    return _find_meta(body, 0, window_end) >= 0 and b"charset" in body[:window_end].lower()


def prescan_unknown_label(body: bytes) -> str | None:
    """The label of the first ``<meta>`` the prescan passes over, in its window, because the
    label names no encoding; None when there is none.

    Such a ``<meta>`` is one whose charset is failure (the standard's step 13, "if charset is
    failure, jump to next byte"), or one with ``http-equiv="content-type"`` whose content's
    "charset=" names no encoding; a browser ignores it, and the resolver says so in
    ``conflicts``.  The label is lowercased, as "get an attribute" reads values.  A ``<meta>``
    after the one the prescan's answer comes from is not read.  standard.prescan_unknown_label
    is the reference.
    """
    if not may_declare_a_charset(body):
        return None
    window_end = min(len(body), PRESCAN_BYTES)
    position = 0
    while True:
        position = _next_meta(body, position, window_end, False)
        if position < 0:
            return None
        tag = _ATTRIBUTES_TO_GT.match(body, position + 5, window_end)
        if tag is None:
            return None  # the bytes run out inside this <meta>: the prescan stops here
        attributes = body[position + 5 : tag.end()]
        if b"charset" in attributes.lower():  # both ways to name a label need the word
            if _meta_encoding(attributes) is not None:
                return None  # the prescan's answer: it reads no further
            label = _passed_over_label(attributes)
            if label is not None:
                return label.decode("latin-1")
        position = tag.end()


def _passed_over_label(attributes: bytes) -> bytes | None:
    """The label a complete ``<meta>`` that gives no answer names, when that label names no
    encoding: its charset attribute's value, or with got pragma and no charset attribute, its
    content's "charset=".  *attributes* as in ``_meta_encoding``.
    """
    values: dict[bytes, bytes] = {}
    position = 0
    while True:
        attribute = _ATTRIBUTE.match(attributes, position)
        if attribute is None or attribute.group("name") is None:
            break
        position = attribute.end()
        double_quoted, single_quoted, unquoted = attribute.group("dq", "sq", "uq")
        # The first of duplicated names counts (the standard's attribute list).
        values.setdefault(attribute.group("name").lower(), (double_quoted or single_quoted or unquoted or b"").lower())
    label: bytes | None
    if b"charset" in values:
        label = values[b"charset"]
    elif values.get(b"http-equiv") == b"content-type" and b"content" in values:
        label = meta_charset_label(values[b"content"])
    else:
        return None
    return label if label is not None and get_encoding(label) is None else None
