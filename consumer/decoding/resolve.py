"""The resolution order: which encoding a response body is decoded with.

Implements the HTML Standard's "determining the character encoding"
(https://html.spec.whatwg.org/multipage/parsing.html#determining-the-character-encoding)
for a whole, already-received body, with two documented improvements:

1. *Strict first.*  Each declaration and guess is tried strictly, in
   precedence order; one that does not decode without errors is recorded in
   ``conflicts`` and the next is tried.  Only when no candidate decodes
   cleanly is the result lossy, and then it is the browser's choice, decoded
   with U+FFFD and counted.  A byte order mark is not a candidate but the
   answer, as in the Encoding Standard's decode: malformed bytes after it are
   replaced and counted, never a reason to read the body another way.
2. *Valid UTF-8 is UTF-8.*  When nothing is declared, a body that is valid
   UTF-8 is decoded as UTF-8 before detection is consulted.

Precedence, highest first (each step is one small function below):

    BOM (final) > override (force) > Content-Type charset > meta prescan (first 1024
    bytes) > late <meta> in the head > XML declaration (XML types) > JSON is
    UTF-8 > valid UTF-8 > override (fallback) > detection (TLD hint) >
    windows-1252

A body that looks like damaged UTF-8 (mostly well-formed multi-byte sequences
with a few errors) is never "rescued" by a single-byte detector guess that
would turn every accented letter into mojibake; it is reported lossy instead.

``decode`` first tries ``_undisputed_utf8``: the commonest response (UTF-8
declared or undeclared, nothing disagreeing) decided without the candidate
machinery, with the same result; everything else goes to ``_Resolution``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from types import MappingProxyType

from .bom import BYTE_ORDER_MARKS, sniff_bom
from .codecs import decode_bytes, decode_strict
from .codecs.utf8 import is_valid as utf8_is_valid
from .content_type import extract_mime_type, is_json_mime, is_xml_mime
from .decoded import Decoded, binary_decoded, new_decoded
from .detection import detect
from .labels import get_encoding
from .mime_sniff import non_text_type
from .mojibake import looks_double_encoded, utf8_looks_double_encoded
from .overrides import Override, OverrideMode, OverrideTable, as_table
from .late_meta import late_meta_labels
from .prescan import may_declare_a_charset, prescan, prescan_meta, prescan_unknown_label
from .hosts import host_of, tld_of
from .xml_declaration import xml_declared_encoding

DEFAULT_ENCODING = "windows-1252"
#: ESC $ @, ESC $ B (JIS X 0208), ESC ( J (Roman), ESC ( I (katakana): ISO-2022-JP's switches.
_ISO_2022_JP_ESCAPE = re.compile(rb"\x1b(?:\$[@B]|\([JI])")
#: A detector guess is taken after failed declarations only above this confidence.
CONFIDENT_DETECTION = 0.5
# xml_declared_encoding answers only for a body starting with its grammar's first token
# "<?xml" or with "<?x" in UTF-16: any other body has no XML declaration, unparsed.
_XML_DECLARATION_STARTS = (b"<?xml", b"<\x00?\x00x\x00", b"\x00<\x00?\x00x")
_NOT_PARSED = object()
_BOMS_AND_XML_STARTS = (*BYTE_ORDER_MARKS, *_XML_DECLARATION_STARTS)


def decode(
    body: bytes,
    content_type: str | None = None,
    url: str | None = None,
    overrides: OverrideTable | None = None,
    *,
    lazy_text: bool = False,
) -> Decoded:
    """Decode a response *body* as a browser would, and say how it was decided.

    *content_type* is the response's Content-Type header value (several values
    may be combined with commas), *url* the response URL (its host selects an
    override and its top-level domain hints detection), *overrides* an
    ``OverrideTable`` (or an iterable of ``Override``).  Never raises on content.

    With *lazy_text*, a body found to be valid UTF-8 is checked, not decoded:
    ``Decoded.text`` decodes it when first read.  For a caller that needs the
    bytes rather than the text (the processor writes a UTF-8 page's bytes as
    its text, ``text_utf8``); one that reads the text pays for the check too.
    """
    if type(body) is not bytes:  # noqa: E721 - a bytes subclass is copied too
        body = bytes(body)
    # Not text at all (an image, a PDF): nothing to decode (mime_sniff.py).  A text/html type is
    # two string comparisons; extract_mime_type is cached.
    binary = non_text_type(body, extract_mime_type(content_type))
    if binary is not None:
        return binary_decoded(binary)
    table = _NO_OVERRIDES if overrides is None else as_table(overrides)
    if table is _NO_OVERRIDES or not table or table.lookup(host_of(url)) is None:
        decoded = _undisputed_utf8(body, content_type, lazy_text)
        if decoded is not None:
            return decoded
    return _Resolution(body, content_type, url, table, lazy_text).run()


def text_utf8(decoded: Decoded, body: bytes) -> bytes | None:
    """``decoded.text`` encoded as UTF-8, when *body* (what ``decode`` was given) already holds it.

    A UTF-8 decode without replacements is the text of these very bytes, minus
    the BOM (which always decides: ``_Resolution.decided_by_bom``): a writer can
    copy them instead of encoding the text again.  None for any other decode.
    """
    if decoded.encoding != "UTF-8" or decoded.replacements:
        return None
    return body[sniff_bom(body)[1] :] if decoded.source == "bom" else body


def _undisputed_utf8(body: bytes, content_type: str | None, lazy_text: bool = False) -> Decoded | None:
    """The commonest response, decided without the general resolution; None for any other.

    A body with no BOM, under no override, of a type that is neither JSON nor
    XML, whose Content-Type charset and first-1024-bytes <meta> each say UTF-8
    or nothing (when both say nothing: no late <meta> follows, and the body is
    not 7-bit with an ESC, as ISO-2022-JP is), and that is valid UTF-8: every
    candidate of the resolution order before UTF-8 is absent or UTF-8, so
    ``_Resolution`` would take UTF-8 from the first source that names it, with
    nothing to report in ``conflicts``.
    This path gives that same ``Decoded`` without building the candidate
    generators (half the cost of a decode, bench/decode.py).
    tests/decoding/test_resolve.py checks it against ``_Resolution``.
    """
    header, unknown_label, is_json, is_xml = _content_type_facts(content_type)
    if is_json or is_xml or unknown_label is not None or body.startswith(_BOMS_AND_XML_STARTS):
        return None
    # Neither "<?xml" nor a UTF-16 "<?x" starts the body: the prescan's answer is its <meta> part.
    meta = prescan_meta(body)
    if meta is None and may_declare_a_charset(body):
        return None  # perhaps a <meta> naming an unknown charset, which the resolution reports
    if header is not None:
        if header != "UTF-8" or meta not in (None, "UTF-8"):
            return None
        source = "http-header"
    elif meta is not None:
        if meta != "UTF-8":
            return None
        source = "meta-prescan"
    else:
        source = "utf-8-valid"
    decoded = _utf8_decoded(body, source, lazy_text, _UNDISPUTED_DECLARATIONS[header, meta])
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


def _utf8_decoded(
    data: bytes,
    source: str,
    lazy_text: bool,
    declared: MappingProxyType,
    conflicts: tuple[str, ...] = (),
    confidence: float | None = None,
    override: Override | None = None,
) -> Decoded | None:
    """*data* decoded as UTF-8, or None when it is not valid UTF-8 (the standard's decoder, error mode fatal)."""
    if lazy_text:
        if not utf8_is_valid(data):
            return None
        # Checked ~5x faster than decoded: the text is built only if someone reads it.
        mojibake = utf8_looks_double_encoded(data)
        return new_decoded(None, data, "UTF-8", source, 0, declared, conflicts, confidence, mojibake, override)
    try:
        text = data.decode("utf-8")  # the standard's UTF-8 decoder, error mode fatal (codecs/utf8.py)
    except UnicodeDecodeError:
        return None
    # A str knows whether it is ASCII (bytes.isascii() reads them all: ~3 us for 30 KB).
    mojibake = not text.isascii() and utf8_looks_double_encoded(data)
    return new_decoded(text, None, "UTF-8", source, 0, declared, conflicts, confidence, mojibake, override)


_NO_OVERRIDES = as_table(None)
_NO_LATE_META = (None, None)  # late_meta_labels: no late <meta>, no unknown label in one

# ``declared`` of the shortcut's answers: the header and the meta each say UTF-8 or nothing.  Built
# once and shared (read-only views of dicts nothing else holds) instead of one dict and view a decode.
_UNDISPUTED_DECLARATIONS = {
    (header, meta): MappingProxyType({"bom": None, "header": header, "meta": meta, "xml": None})
    for header in (None, "UTF-8")
    for meta in (None, "UTF-8")
}


class _Resolution:
    """The state of one decode: the declarations found and the attempts made."""

    __slots__ = (
        "body", "header", "is_json", "is_xml", "url", "_host", "override", "bom", "bom_length", "payload",
        "declared", "conflicts", "tried", "browser_choice", "lazy_text",
    )  # fmt: skip

    def __init__(
        self, body: bytes, content_type: str | None, url: str | None, table: OverrideTable, lazy_text: bool = False
    ):
        self.body = body
        self.lazy_text = lazy_text
        self.header, unknown_label, self.is_json, self.is_xml = _content_type_facts(content_type)
        self.url = url
        self._host = _NOT_PARSED
        # An empty table has no override for any host: the URL is parsed only when needed.
        self.override: Override | None = table.lookup(self.host) if table else None
        self.bom, self.bom_length = sniff_bom(body)
        self.payload = body[self.bom_length :] if self.bom_length else body
        self.declared = {
            "bom": self.bom,
            "header": self.header,
            "meta": prescan(self.payload),
            "xml": xml_declared_encoding(self.payload) if self.payload.startswith(_XML_DECLARATION_STARTS) else None,
        }
        self.conflicts: list[str] = _disagreements(self.declared)
        if unknown_label is not None:
            self.conflicts.append(f"http-header charset {unknown_label!r} is not a known encoding: ignored")
        if self.declared["meta"] is None and not (self.is_json or self.is_xml):
            unknown_label = prescan_unknown_label(self.payload)
            if unknown_label is not None:
                self.conflicts.append(f"meta-prescan charset {unknown_label!r} is not a known encoding: ignored")
        self.tried: set[str] = set()
        self.browser_choice: tuple[str, str] | None = None

    @property
    def host(self) -> str | None:
        if self._host is _NOT_PARSED:
            self._host = host_of(self.url)
        return self._host

    def run(self) -> Decoded:
        if self.bom:
            return self.decided_by_bom()
        for source, encoding, confidence in self.candidates():
            if self.browser_choice is None:
                self.browser_choice = (source, encoding)
            if encoding in self.tried:
                continue
            self.tried.add(encoding)
            data = self.payload  # the body: a body with a BOM never gets here
            if encoding == "UTF-8":
                decoded = self.utf8(data, source, confidence)
                if decoded is not None:
                    return decoded
            else:
                text = decode_strict(encoding, data)
                if text is not None:
                    return self.result(text, encoding, source, 0, confidence)
            self.conflicts.append(f"{source} {encoding} does not decode without errors")
        return self.lossy()

    # -- candidates, in precedence order ---------------------------------

    def candidates(self) -> Iterator[tuple[str, str, float | None]]:
        """Yield (source, encoding, confidence), highest precedence first, lazily (a BOM is not one: ``run``)."""
        if self._override_is(OverrideMode.FORCE):
            yield "override", self.override.encoding, None
        yield from self.declarations()
        # run() records the first candidate it is handed, so by now this says
        # whether anything (BOM, forced override, declaration) named an encoding.
        declared_any = self.browser_choice is not None
        # ISO-2022-JP is 7-bit, hence valid UTF-8: a 7-bit body's escapes must be looked at
        # first.  A body with any byte >= 0x80 cannot be ISO-2022-JP, and is left to the UTF-8
        # step (a stray ESC $ B in a UTF-8 page must not hand it to the detector).  Every
        # escape starts with ESC: the memchr-speed test spares the other two most bodies.
        # XML with nothing declared is UTF-8 by XML's own rule (XML 1.0, 4.3.3): the UTF-8 step first.
        if (
            not declared_any
            and not self.is_xml
            and b"\x1b" in self.payload
            and self.payload.isascii()
            and _ISO_2022_JP_ESCAPE.search(self.payload)
        ):
            guess = detect(self.payload, tld_of(self.host))
            yield "detector", guess.encoding, guess.confidence
        yield "utf-8-valid", "UTF-8", None
        if not declared_any and self._override_is(OverrideMode.FALLBACK):
            yield "override", self.override.encoding, None
        elif self._override_is(OverrideMode.FALLBACK):
            self.conflicts.append(f"fallback override for {self.override.host} not used: the page declares its encoding")
        yield from self.detection(declared_any)

    def declarations(self) -> Iterator[tuple[str, str, float | None]]:
        if self.is_json:
            # JSON is UTF-8 (RFC 8259; browsers' response.json()): a charset is not consulted.
            yield "json", "UTF-8", None
            return
        if self.header:
            yield "http-header", self.header, None
        if self.is_xml:
            if self.declared["xml"]:
                yield "xml-declaration", self.declared["xml"], None
            return
        if self.declared["meta"]:
            yield "meta-prescan", self.declared["meta"], None
        else:
            late, unknown_label = late_meta_labels(self.payload)
            if unknown_label is not None:
                self.conflicts.append(f"meta-late charset {unknown_label!r} is not a known encoding: ignored")
            if late:
                yield "meta-late", late, None

    def detection(self, declared_any: bool) -> Iterator[tuple[str, str, float | None]]:
        if self._damaged_utf8():
            self.conflicts.append("body is mostly well-formed UTF-8 with errors: not guessing another encoding")
            if not declared_any:
                self.browser_choice = ("utf-8-valid", "UTF-8")
            return
        guess = detect(self.payload, tld_of(self.host))
        # A late <meta> is the weakest declaration (read past the prescan's window, Chromium's rule):
        # once it failed strictly, a guess that decodes cleanly beats it at any confidence.
        declared_firmly = declared_any and self.browser_choice[0] != "meta-late"
        if declared_firmly and guess.confidence < CONFIDENT_DETECTION:
            self.conflicts.append(f"detector guessed {guess.encoding} with low confidence {guess.confidence:.2f}: not used")
            return
        yield "detector", guess.encoding, guess.confidence
        if not declared_any:
            yield "default", DEFAULT_ENCODING, None

    # -- results -----------------------------------------------------------

    def result(
        self, text: str, encoding: str, source: str, replacements: int, confidence: float | None = None
    ) -> Decoded:
        """The answer: *text*, decoded (valid UTF-8 is answered by ``utf8`` instead)."""
        # Positional, in Decoded's field order (keywords cost a third of the construction).
        # The proxy spares Decoded a copy: nothing changes self.declared once the result exists.
        return Decoded(
            text,
            encoding,
            source,
            replacements,
            MappingProxyType(self.declared),
            tuple(self.conflicts),
            confidence,
            looks_double_encoded(text),
            self.override if source == "override" else None,
        )

    def decided_by_bom(self) -> Decoded:
        """The BOM's encoding, final: the Encoding Standard's decode never looks past a BOM.

        Malformed bytes after it become U+FFFD, counted in ``replacements`` (so
        ``lossy``); a header, ``<meta>`` or detector that would decode the bytes
        cleanly another way is not consulted (the bytes after a UTF-8 BOM read
        as windows-1252 start with "ï»¿").
        """
        if self.bom == "UTF-8":
            decoded = self.utf8(self.payload, "bom", None)
            if decoded is not None:
                return decoded
        else:
            text = decode_strict(self.bom, self.payload)
            if text is not None:
                return self.result(text, self.bom, "bom", 0)
        text, replacements = decode_bytes(self.bom, self.payload)
        self.conflicts.append(f"bom {self.bom}: the bytes after it do not decode without errors")
        return self.result(text, self.bom, "bom", replacements)

    def utf8(self, data: bytes, source: str, confidence: float | None) -> Decoded | None:
        """The answer if *data* (the body, or the payload after the BOM) is valid UTF-8, else None."""
        override = self.override if source == "override" else None
        declared = MappingProxyType(self.declared)
        return _utf8_decoded(data, source, self.lazy_text, declared, tuple(self.conflicts), confidence, override)

    def lossy(self) -> Decoded:
        """Nothing decodes cleanly: the browser's choice, with U+FFFD counted."""
        source, encoding = self.browser_choice or ("default", DEFAULT_ENCODING)
        data = self.payload
        text, replacements = decode_bytes(encoding, data)
        return self.result(text, encoding, source, replacements)

    # -- helpers -------------------------------------------------------------

    def _override_is(self, mode: OverrideMode) -> bool:
        return self.override is not None and self.override.mode is mode

    def _damaged_utf8(self) -> bool:
        if "UTF-8" not in self.tried:
            return False
        text, errors = decode_bytes("UTF-8", self.payload)
        multibyte = len(text) - errors - _ascii_count(text)
        return multibyte > errors


def _content_type_facts(content_type: str | None) -> tuple[str | None, str | None, bool, bool]:
    """Of a Content-Type value: (the charset parameter's encoding, the charset parameter when it
    names no encoding, JSON MIME type?, XML MIME type?)."""
    if content_type is None or len(content_type) > _CACHEABLE_LENGTH:
        return _parse_content_type(content_type)
    return _parse_content_type_cached(content_type)


def _parse_content_type(content_type: str | None) -> tuple[str | None, str | None, bool, bool]:
    mime = extract_mime_type(content_type)
    label = None if mime is None else mime.parameters.get("charset")
    header = get_encoding(label)
    # An empty or unknown label is ignored as browsers do, but said (the decode would otherwise
    # look as if nothing had been declared).
    unknown = label if label is not None and header is None else None
    return header, unknown, is_json_mime(mime), is_xml_mime(mime)


# A crawl sees few distinct Content-Type values; only short ones are cached, so hostile
# values cannot fill memory (as extract_mime_type's own cache).
_CACHEABLE_LENGTH = 256
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


def _ascii_count(text: str) -> int:
    return len(text.encode("ascii", "ignore"))
