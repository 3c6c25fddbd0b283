"""The meta prescan with its loop compiled: standard.py's answers, the bytes between ``<meta>`` tags read in C.

The loop's branches that only move the position (other bytes, comments, tags and their
attributes, bogus markup) run in ``../_native/prescan.c`` (``next_meta``) and stop at a ``<meta``;
the C finds where that tag ends (``tag_end``), and standard.py's ``<meta`` branch reads the tag
(``standard.meta_tag``).  So the steps that decide are written once, in standard.py; the C only
skips what cannot decide, and tests/decoding/test_prescan_loop.py requires every answer here to
be standard.py's, on generated markup.  Importing this module fails where the extension was not
built: the package then runs standard.py's functions (``prescan.COMPILED`` says which).

Two things spare work without deciding anything: a ``<meta>`` without the word "charset"
(any case) cannot declare one and is not read, and an answer is remembered under the bytes that
decided it (``DecisionCache``), as is the branch's answer for a short tag.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from .._native import prescan as _prescan_loop
from ..xml_declaration import get_xml_encoding
from .standard import PRESCAN_BYTES, meta_tag

find_meta = _prescan_loop.find_meta
_next_meta, _tag_end = _prescan_loop.next_meta, _prescan_loop.tag_end


def prescan(body: bytes) -> str | None:
    """standard.prescan: the HTML Standard's "prescan a byte stream to determine its encoding"."""
    # Step 2, then the loop, then "get an XML encoding" when the loop finds nothing (it fails on
    # any body not starting with "<?xml").
    if body.startswith(b"<\x00?\x00x\x00"):
        return "UTF-16LE"
    if body.startswith(b"\x00<\x00?\x00x"):
        return "UTF-16BE"
    found = prescan_meta(body)
    if found is None and body.startswith(b"<?xml"):
        return get_xml_encoding(body)
    return found


def prescan_meta(body: bytes) -> str | None:
    """standard.prescan_meta: the loop alone over the first 1024 bytes, what a ``<meta>`` declares."""
    window_end = min(len(body), PRESCAN_BYTES)
    if find_meta(body, 0, window_end) < 0:  # no <meta at all (compiled search): nothing to decide
        return None
    decided = _DECISIONS.get(body)
    if decided is not None:
        return decided
    for charset, _, end in _metas(body, window_end):
        if charset is not None:
            _DECISIONS.put(body[:end], charset)
            return charset
    return None


def prescan_unknown_label(body: bytes) -> str | None:
    """standard.prescan_unknown_label: the label of the first ``<meta>`` the loop passes over, in the
    first 1024 bytes, because the label names no encoding."""
    for charset, label, _ in _metas(body, min(len(body), PRESCAN_BYTES)):
        if charset is not None:
            return None  # the prescan's answer: it reads no further
        if label is not None:
            return label.decode("latin-1")
    return None


def _metas(body: bytes, window_end: int) -> Iterator[tuple[str | None, bytes | None, int]]:
    """The loop over ``body[:window_end]``: for each ``<meta>`` holding the word "charset", what its
    branch gives (``standard.meta_tag``) and the position after its ">", until the bytes run out."""
    if find_meta(body, 0, window_end) < 0:
        return
    position = 0
    while True:
        position = _next_meta(body, position, window_end)
        if position < 0:  # the end, or a construct that ran out of bytes
            return
        end = _tag_end(body, position + 5, window_end)
        if end < 0:  # the bytes run out inside this <meta>: the prescan aborts
            return
        tag = body[position:end]
        # Both ways to declare (a charset attribute, "charset=" in a content attribute) need the
        # word: <meta name=viewport ...> cannot decide.
        if b"charset" in tag.lower():
            charset, label = _cached_meta_tag(tag) if len(tag) <= _CACHED_TAG_BYTES else meta_tag(tag)
            yield charset, label, end
        position = end


# Most pages declare with one of a few identical tags (<meta charset="utf-8">); short ones only are
# remembered, in a bounded cache, so hostile pages cannot fill memory.
_CACHED_TAG_BYTES = 256
_cached_meta_tag = functools.lru_cache(maxsize=1024)(meta_tag)


class DecisionCache:
    """The prescan's answers, each under the bytes that decided it: the body up to its ``<meta>``'s ">".

    Why a cached answer is exact: the prescan reads the window from its first
    byte, one construct after another, and looks at no byte past the ">" of
    the ``<meta>`` that gives its answer (``standard.meta_tag``).  Every body
    that starts with those bytes therefore has the same answer, and its window
    (at least as long as that prefix) cannot run out before it.

    Pages of one site, and many sites, share their head up to the
    ``<meta charset>``: a hit is a 32-byte slice, a dict lookup and a
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
