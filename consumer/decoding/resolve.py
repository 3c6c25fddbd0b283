"""The resolution order: which encoding a response body is decoded with.

Implements the HTML Standard's "determining the character encoding"
(https://html.spec.whatwg.org/multipage/parsing.html#determining-the-character-encoding)
for a whole, already-received body, with two documented improvements:

1. *Strict first.*  Each declaration and guess is tried strictly, in
   precedence order; one that does not decode without errors is recorded in
   ``conflicts`` and the next is tried.  Only when no candidate decodes
   cleanly is the result lossy, and then it is the browser's choice, decoded
   with U+FFFD and counted.  When nothing is declared, the detector's guess is
   that choice: one that fails strictly (a multi-byte page cut mid-character
   by a crawler's size limit) is decoded so, not replaced by the windows-1252
   default, whose clean decode of any bytes says nothing.  A byte order mark is not a candidate but the
   answer, as in the Encoding Standard's decode: malformed bytes after it are
   replaced and counted, never a reason to read the body another way.
2. *Valid UTF-8 is UTF-8.*  When nothing is declared, a body that is valid
   UTF-8 is decoded as UTF-8 before detection is consulted.

``resolve`` reads the order as the README's table does, highest precedence
first, one small function per step; its docstring states the precedence and
tests/decoding/test_resolve.py pins each "X beats Y".

A body that looks like damaged UTF-8 (mostly well-formed multi-byte sequences
with a few errors) is never "rescued" by a single-byte detector guess that
would turn every accented letter into mojibake; it is reported lossy instead.

``decode`` first asks the one fast path, ``undisputed_utf8``: for the
commonest response, UTF-8 with nothing disagreeing, it skips reading the
response whole but takes its answer from the same steps (tested equal to
``resolve``); compiled where the extension was built (_native/undisputed.c),
``reference_undisputed_utf8`` otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

from . import _native, contradiction
from .attempt import Provenance, as_final, strictly, utf8, with_replacements
from .codecs import utf8 as utf8_codec
from .codecs.iso_2022_jp import SWITCHING_ESCAPE
from .decoded import Decoded, Source, binary_decoded
from .detection import DEFAULT_ENCODING, detect, non_ascii_bytes
from .hosts import host_of, tld_of
from .late_meta import LATE_META_LIMIT, late_meta_labels
from .mime_sniff import non_text_type
from .mojibake import utf8_looks_double_encoded
from .overrides import Override, OverrideMode, OverrideTable, as_table
from .prescan import PRESCAN_BYTES, find_meta, may_declare_a_charset, prescan_meta
from .response import (
    BOMS_AND_XML_STARTS,
    ContentTypeFacts,
    Response,
    content_type_facts,
    declared_by,
    read_response,
)

#: A detector guess is taken after failed declarations only above this confidence...
CONFIDENT_DETECTION = 0.5
#: ... and from at least this many non-ASCII bytes.  On fewer the candidates' softmax can be sure of
#: the wrong one ("Grinius-Gaižauskas" in windows-1257 read as windows-1254 at 0.9997, "στη" in
#: windows-1253 as windows-1252 at 0.95, "<p>Шум</p>" in windows-1251 as windows-1250 at 0.51):
#: overruling a declaration on so little publishes wrong text as clean, where keeping the
#: declaration quarantines it lossy, as a browser shows it.
OVERRULING_EVIDENCE = 16


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

    With *lazy_text*, the text comes as UTF-8 too (``Decoded.utf8``) when it
    has no replacements, and a body found to be valid UTF-8 is checked, not
    decoded: its bytes are that UTF-8, and ``Decoded.text`` decodes them at
    each read.  For a caller that writes UTF-8 rather than reads the text
    (the stream processor); one that reads the text pays for the check too.
    """
    if type(body) is not bytes:  # a bytes subclass is copied too
        body = bytes(body)
    facts = content_type_facts(content_type)
    # Not text at all (an image, a PDF): nothing to decode (mime_sniff.py).  A text/html type is
    # two string comparisons.
    binary = non_text_type(body, facts.mime)
    if binary is not None:
        return binary_decoded(binary)
    override = None if overrides is None else _override_for(url, overrides)
    if override is None:
        decoded = undisputed_utf8(body, facts, lazy_text)
        if decoded is not None:
            return decoded
    return resolve(read_response(body, facts, url, override), lazy_text)


def resolve(response: Response, lazy_text: bool = False) -> Decoded:
    """Decode *response* by the first candidate that decodes it strictly, highest precedence first:

        BOM (final) > override (force) > Content-Type charset > meta prescan (first 1024
        bytes) > late <meta> in the head > XML declaration (XML types) > JSON is UTF-8 >
        valid UTF-8 > override (fallback) > detection (TLD hint) > windows-1252

    Each step below proposes a candidate or nothing (``declarations``, then
    ``undeclared``), and ``_Trial.attempt`` tries it.  A BOM is not a
    candidate but the answer.  A declaration that fails strictly gives way to
    the next candidate; after one, detection is taken only when confident (a
    late ``<meta>`` excepted: the weakest declaration); ISO-2022-JP's escapes
    are looked at before UTF-8 when nothing is declared (it is 7-bit, hence
    valid UTF-8), except for XML, which is UTF-8 by its own rule.  When nothing decodes strictly, the
    browser's choice (the first candidate; with nothing declared, the detector's guess, before the
    default) is decoded with U+FFFD counted.
    *lazy_text* as in ``decode``.
    """
    if response.bom is not None:
        return _decided_by_bom(response, lazy_text)
    trial = _Trial(response, lazy_text)
    decoded = trial.first_strict(declarations(response, trial.note))
    if decoded is not None:
        return _unless_contradicted(decoded, trial)
    declaration = trial.first  # the strongest declaration, which failed; None when nothing is declared
    decoded = trial.first_strict(undeclared(response, declaration, trial.note))
    if decoded is not None:
        return decoded
    if damaged_utf8(response.payload):
        trial.note("body is mostly well-formed UTF-8 with errors: not guessing another encoding")
        return trial.with_replacements()
    guess = _detection(response, declaration, trial.note)
    if declaration is None and guess is not None and guess.encoding not in trial.tried:
        # Nothing declared: the guess is the browser's choice.  windows-1252 decodes any bytes, so its
        # clean decode would say nothing against the evidence the guess was made on: a guess that fails
        # strictly (a body cut mid-character by a crawler's size limit) is decoded with U+FFFD, counted.
        return trial.final(guess)
    return trial.attempt(guess) or trial.attempt(_default(declaration)) or trial.with_replacements()


class Candidate(NamedTuple):
    """An encoding to try, and which step of the resolution order proposes it."""

    source: Source
    encoding: str
    confidence: float | None = None


# The candidates that name no declared label, made once.
_JSON = Candidate("json", "UTF-8")
_VALID_UTF8 = Candidate("utf-8-valid", "UTF-8")

#: Where a step says what it passed over (an unknown label, an unused override): ``conflicts``.
Note = Callable[[str], None]


def declarations(response: Response, note: Note) -> Iterator[Candidate | None]:
    """What *response* declares, strongest first, after its BOM: each step's candidate or None."""
    yield _forced_override(response)
    yield _http_header(response)
    yield _meta_prescan(response)
    yield _late_meta(response, note)
    yield _xml_declaration(response)
    yield _json(response)


def undeclared(response: Response, declaration: Candidate | None, note: Note) -> Iterator[Candidate | None]:
    """The candidates after the declarations failed (*declaration*: the strongest) or there were none,
    before the damaged-UTF-8 check and detection."""
    yield _iso_2022_jp_escapes(response, declaration)
    yield _valid_utf8(response)
    yield _fallback_override(response, declaration, note)


# -- the steps, in precedence order: each gives a candidate or None ------------------------


def _decided_by_bom(response: Response, lazy_text: bool) -> Decoded:
    """The BOM's encoding, final: the Encoding Standard's decode never looks past a BOM.

    Malformed bytes after it become U+FFFD, counted in ``replacements`` (so
    ``lossy``); a header, ``<meta>`` or detector that would decode the bytes
    cleanly another way is not consulted (the bytes after a UTF-8 BOM read
    as windows-1252 start with "ï»¿").
    """
    bom, payload, declared, conflicts = response.bom, response.payload, response.declared, response.conflicts
    assert bom is not None  # resolve() comes here only with a BOM
    decoded = strictly(bom, payload, Provenance("bom", declared, conflicts), lazy_text)
    if decoded is not None:
        return decoded
    failed = f"bom {bom}: the bytes after it do not decode without errors"
    return with_replacements(bom, payload, Provenance("bom", declared, (*conflicts, failed)))


def _forced_override(response: Response) -> Candidate | None:
    override = response.override
    if override is None or override.mode is not OverrideMode.FORCE:
        return None
    return Candidate("override", override.encoding)


def _http_header(response: Response) -> Candidate | None:
    # JSON is UTF-8 (RFC 8259; browsers' response.json()): its charset is not consulted (_json).
    if response.header is None or response.is_json:
        return None
    return Candidate("http-header", response.header)


def _meta_prescan(response: Response) -> Candidate | None:
    meta = response.declared["meta"]
    if meta is None or response.is_json or response.is_xml:
        return None
    return Candidate("meta-prescan", meta)


def _late_meta(response: Response, note: Note) -> Candidate | None:
    """A ``<meta>`` past the prescan's window, as Chromium reads one (late_meta.py), when the window has none."""
    if response.declared["meta"] is not None or response.is_json or response.is_xml:
        return None
    encoding, unknown_label = late_meta_labels(response.payload)
    if unknown_label is not None:
        note(f"meta-late charset {unknown_label!r} is not a known encoding: ignored")
    return None if encoding is None else Candidate("meta-late", encoding)


def _xml_declaration(response: Response) -> Candidate | None:
    xml = response.declared["xml"]
    if xml is None or not response.is_xml:
        return None
    return Candidate("xml-declaration", xml)


def _json(response: Response) -> Candidate | None:
    return _JSON if response.is_json else None


def _iso_2022_jp_escapes(response: Response, declaration: Candidate | None) -> Candidate | None:
    """The detector's guess for an undeclared 7-bit body with ISO-2022-JP's escapes, before UTF-8.

    ISO-2022-JP is 7-bit, hence valid UTF-8: its escapes must be looked at
    first.  A body with any byte >= 0x80 cannot be ISO-2022-JP and is left to
    the UTF-8 step (a stray ESC $ B in a UTF-8 page must not hand it to the
    detector).  XML with nothing declared is UTF-8 by XML's own rule (XML 1.0,
    4.3.3): the UTF-8 step first.
    """
    if declaration is not None or response.is_xml:
        return None
    payload = response.payload
    # ISO-2022-JP is 7-bit and every escape starts with ESC: isascii stops at a body's first
    # non-ASCII byte, usually early, and the memchr-speed search spares the pattern most ASCII bodies.
    if payload.isascii() and b"\x1b" in payload and SWITCHING_ESCAPE.search(payload):
        guess = detect(payload, tld_of(host_of(response.url)))
        return Candidate("detector", guess.encoding, guess.confidence)
    return None


def _valid_utf8(response: Response) -> Candidate:
    return _VALID_UTF8


def _fallback_override(response: Response, declaration: Candidate | None, note: Note) -> Candidate | None:
    """A fallback override: only where nothing is declared, instead of detection."""
    override = response.override
    if override is None or override.mode is not OverrideMode.FALLBACK:
        return None
    if declaration is not None:
        note(f"fallback override for {override.host} not used: the page declares its encoding")
        return None
    return Candidate("override", override.encoding)


def damaged_utf8(payload: bytes) -> bool:
    """Whether *payload*, not valid UTF-8, is mostly well-formed multi-byte UTF-8 with a few errors."""
    return utf8_codec.more_sequences_than_errors(payload)


def _detection(response: Response, declaration: Candidate | None, note: Note) -> Candidate | None:
    """The detector's guess, with the URL's TLD as a hint; after a failed declaration only when confident.

    A late ``<meta>`` is the weakest declaration (read past the prescan's
    window, Chromium's rule): once it failed strictly, a guess that decodes
    cleanly beats it at any confidence.
    """
    guess = detect(response.payload, tld_of(host_of(response.url)))
    declared_firmly = declaration is not None and declaration.source != "meta-late"
    if declared_firmly and guess.confidence < CONFIDENT_DETECTION:
        note(f"detector guessed {guess.encoding} with low confidence {guess.confidence:.2f}: not used")
        return None
    evidence = non_ascii_bytes(response.payload) if declared_firmly else OVERRULING_EVIDENCE
    if evidence < OVERRULING_EVIDENCE:
        note(f"detector guessed {guess.encoding} from {evidence} non-ASCII bytes, too few to overrule "
             f"the declaration: not used")  # fmt: skip
        return None
    return Candidate("detector", guess.encoding, guess.confidence)


def _default(declaration: Candidate | None) -> Candidate | None:
    return Candidate("default", DEFAULT_ENCODING) if declaration is None else None


# -- a clean declaration the body contradicts (contradiction.py) ---------------------------

#: The sources of a declaration the body may contradict: not an override (its operators decided), nor JSON
#: (UTF-8 by its own rule).
_DECLARING = frozenset({"http-header", "meta-prescan", "meta-late", "xml-declaration"})
_UTF8_OVER_DECLARATION = Candidate("utf-8-over-declaration", "UTF-8")
_ISO_2022_JP_ESCAPES = Candidate("detector", "ISO-2022-JP", 0.99)


def _unless_contradicted(decoded: Decoded, trial: _Trial) -> Decoded:
    """*decoded*, a clean decode by the first candidate of ``declarations``, unless the body contradicts it.

    UTF-8 under a legacy label that turns it into mojibake is read as UTF-8 (with a few malformed bytes, those
    replaced: lossy), and ISO-2022-JP under an ASCII-compatible label as ISO-2022-JP: structure the label's
    mojibake cannot tell apart from text.  A legacy reading the detection model finds far less likely than
    another's stays, but ``doubted`` (the processor quarantines it).  docs/decoding.md, "Declarations the body
    contradicts".
    """
    source, declared, payload = decoded.source, decoded.encoding, trial.response.payload
    if source not in _DECLARING:
        return decoded
    if contradiction.utf8_under_legacy_label(payload, declared):
        trial.note(f"{source} {declared} would read this valid UTF-8 as mojibake: read as UTF-8")
        return trial.attempt(_UTF8_OVER_DECLARATION) or decoded
    if contradiction.damaged_utf8_under_legacy_label(payload, declared):
        trial.note(f"{source} {declared} would read this UTF-8, but for a few malformed bytes, as mojibake: "
                   f"read as UTF-8, those bytes replaced")  # fmt: skip
        return trial.with_replacements(_UTF8_OVER_DECLARATION)
    if contradiction.iso_2022_jp_under_label(payload, declared):
        trial.note(f"{source} {declared} would show ISO-2022-JP's escape sequences as text: read as ISO-2022-JP")
        return trial.attempt(_ISO_2022_JP_ESCAPES) or decoded
    meta = decoded.declared["meta"]
    witnessed = source == "http-header" and meta not in (None, declared)
    evidence = contradiction.WITNESSED_EVIDENCE if witnessed else contradiction.DOUBT_EVIDENCE
    doubt = contradiction.doubted(payload, declared, tld_of(host_of(trial.response.url)), evidence)
    if doubt is None:
        return decoded
    if doubt.non_ascii < contradiction.DOUBT_EVIDENCE:
        # Too little text to doubt a declaration on its own, and the browser's reading would be published: enough to
        # choose between two, when the page's own <meta> names what its text reads as, against a server's default.
        # On more text the doubt quarantines, whatever the <meta> says: a true header the model doubts must not be
        # published as a false <meta> that names the model's favourite.
        if doubt.favoured != meta:
            return decoded
        trial.note(f"{doubt.sentence(source, declared)}, as the <meta> declares: read as the <meta>'s")
        return trial.attempt(Candidate("meta-prescan", doubt.favoured)) or decoded
    return decoded._replace(doubted=doubt.favoured, conflicts=(*decoded.conflicts, doubt.sentence(source, declared)))


# -- trying them -------------------------------------------------------------------------


class _Trial:
    """The attempts of one resolution: the encodings tried, what failed (``conflicts``) and the
    browser's choice (``first``: the first candidate proposed, decoded with replacements when
    none decodes strictly)."""

    __slots__ = ("response", "lazy_text", "conflicts", "tried", "first")

    def __init__(self, response: Response, lazy_text: bool) -> None:
        self.response = response
        self.lazy_text = lazy_text
        self.conflicts = list(response.conflicts)
        self.tried: set[str] = set()
        self.first: Candidate | None = None

    def note(self, conflict: str) -> None:
        self.conflicts.append(conflict)

    def attempt(self, candidate: Candidate | None) -> Decoded | None:
        """The body decoded strictly by *candidate*; None when there is no candidate, when its encoding
        was tried already, or when it does not decode without errors (said in ``conflicts``)."""
        if candidate is None:
            return None
        if self.first is None:
            self.first = candidate
        if candidate.encoding in self.tried:
            return None
        self.tried.add(candidate.encoding)
        decoded = strictly(candidate.encoding, self.response.payload, self._provenance(candidate), self.lazy_text)
        if decoded is None:
            self.note(f"{candidate.source} {candidate.encoding} does not decode without errors")
        return decoded

    def final(self, candidate: Candidate) -> Decoded:
        """The body decoded by *candidate*, the answer: strictly when it can be, else with U+FFFD counted
        (``attempt``, then ``with_replacements``, from one decode).  Its encoding was not tried yet."""
        if self.first is None:
            self.first = candidate
        self.tried.add(candidate.encoding)
        failed = f"{candidate.source} {candidate.encoding} does not decode without errors"
        return as_final(candidate.encoding, self.response.payload, self._provenance(candidate), failed, self.lazy_text)

    def first_strict(self, candidates: Iterator[Candidate | None]) -> Decoded | None:
        """The body decoded by the first of *candidates* that decodes it strictly, or None."""
        for candidate in candidates:
            decoded = self.attempt(candidate)
            if decoded is not None:
                return decoded
        return None

    def with_replacements(self, choice: Candidate | None = None) -> Decoded:
        """Nothing decodes cleanly: the browser's choice (*choice*, else the first candidate), with U+FFFD counted."""
        candidate = choice or self.first or Candidate("default", DEFAULT_ENCODING)
        return with_replacements(candidate.encoding, self.response.payload, self._provenance(candidate))

    def _provenance(self, candidate: Candidate) -> Provenance:
        """*candidate*'s ``Provenance``: the conflicts noted so far, the override when it proposed it."""
        source, _, confidence = candidate
        override = self.response.override if source == "override" else None
        return Provenance(source, self.response.declared, tuple(self.conflicts), confidence, override)


# -- the fast path ---------------------------------------------------------------------------


def reference_undisputed_utf8(
    body: bytes, content_type: ContentTypeFacts, lazy_text: bool = False
) -> Decoded | None:
    """``resolve``'s answer for the commonest response, when nothing can dispute UTF-8; else None.

    For a body without BOM or XML declaration, served without override as neither JSON nor XML,
    whose Content-Type charset and first-1024-bytes ``<meta>`` each say UTF-8 or nothing and name
    no unknown label: the ``Response`` is then known without reading it whole (no disagreement, no
    label to report), and the first candidate of the same steps (``declarations``, then
    ``undeclared``) decides when it is UTF-8 and the body is valid UTF-8, with nothing in
    ``conflicts``.  Anything else (a step that notes something, another encoding, invalid bytes) is
    left to ``resolve``.  tests/decoding/test_undisputed.py requires every answer to be ``resolve``'s.
    The reference of ``undisputed_utf8``, which is these steps made one C call where the extension was built.
    """
    _, header, unknown_charset, is_json, is_xml = content_type
    if is_json or is_xml or unknown_charset is not None or header not in _UTF8_OR_NOTHING:
        return None  # a label to report, another encoding declared, or a type with its own rule
    if body.startswith(BOMS_AND_XML_STARTS):
        return None
    # Without "<meta" in the prescan's window (one compiled search) no <meta> there declares anything, known or
    # not: the prescan and its filter, each a Python call that would search the window again, are not asked.
    meta = None
    if find_meta(body, 0, PRESCAN_BYTES) >= 0:
        meta = prescan_meta(body)  # neither "<?xml" nor a UTF-16 "<?x" starts the body: the prescan's answer
        if meta is None and may_declare_a_charset(body):
            return None  # perhaps a <meta> naming an unknown charset, which read_response reports
        if meta not in _UTF8_OR_NOTHING:
            return None  # a declaration of another encoding
    why = _UNDISPUTED_WHY.get((header, meta))
    if why is None:  # nothing declared: the steps that read the body decide
        return _undeclared_utf8(body, lazy_text)
    # A declaration of UTF-8 over a 7-bit body with an ESC byte may be over ISO-2022-JP: resolve weighs it.
    return utf8(body, why, lazy_text, refuse_escapes=True)


def _undeclared_utf8(body: bytes, lazy_text: bool) -> Decoded | None:
    """``undisputed_utf8`` for a *body* whose first 1024 bytes declare nothing: the answer of the steps that read
    the body, when it is valid UTF-8 and nothing is noted; else None.

    Those steps are a late ``<meta>`` (``_late_meta``), ISO-2022-JP's escapes, then valid UTF-8.  Here the UTF-8
    decode comes first: it is the one pass over the whole body that must be made anyway, it stops at a legacy
    page's first malformed byte, and the late ``<meta>`` scan after it reads the body from the cache.  It refuses
    a 7-bit body with an ESC byte, the only kind whose escapes the second step reads (resolve weighs it), and the
    decode is the answer unless a late ``<meta>`` names a label, known or not.
    """
    decoded = utf8(body, _VALID_UTF8_WHY, lazy_text, refuse_escapes=True)
    if decoded is None:
        return None
    late, unknown_label = late_meta_labels(body)  # _late_meta's scan: an unknown label is noted, left to resolve
    if unknown_label is not None or late not in _UTF8_OR_NOTHING:
        return None
    return decoded if late is None else decoded._replace(source="meta-late")


def _undisputed(source: Source, header: str | None, meta: str | None) -> Provenance:
    """The ``Provenance`` of an undisputed UTF-8 decode: nothing in conflicts, nothing guessed."""
    declared, _ = declared_by(None, header, meta, None)
    return Provenance(source, declared, (), None)


_UTF8_OR_NOTHING = (None, "UTF-8")

#: The fast path's table: for a response without BOM or override, neither JSON nor XML, whose
#: Content-Type charset (*header*) and prescan (*meta*) each say UTF-8 or nothing, (header, meta) ->
#: the step of ``declarations`` that decides, read off its steps: the header's charset beats the
#: prescan's, and the prescan's beats a late ``<meta>``.  None: nothing declared, so the late
#: ``<meta>`` step and those after it read the body.  tests/decoding/test_undisputed.py holds each
#: entry equal to what ``declarations`` gives.
UNDISPUTED_SOURCE: dict[tuple[str | None, str | None], Source | None] = {
    ("UTF-8", "UTF-8"): "http-header",
    ("UTF-8", None): "http-header",
    (None, "UTF-8"): "meta-prescan",
    (None, None): None,
}
#: Each entry's ``Provenance``, made once, as every page of a crawl asks it.
_UNDISPUTED_WHY = {key: _undisputed(source, *key) for key, source in UNDISPUTED_SOURCE.items() if source is not None}
#: ... and that of a body that declares nothing, read as valid UTF-8 (``_undeclared_utf8``).
_VALID_UTF8_WHY = _undisputed("utf-8-valid", None, None)


# undisputed_utf8(body, content_type, lazy_text=False) -> Decoded | None: ``reference_undisputed_utf8``, its
# steps one C call (_native/undisputed.c): in Python they cost ~2 us a page whatever its size, a tenth of a
# 30 KB page's decode.  The searches of the other concepts (the prescan, the late <meta>, the mojibake check,
# UTF-8's validity) are the functions below, called from the C: each decision stays written once.
if _native.extension("undisputed") is not None:
    from ._native import undisputed as _compiled_fast_path

    _compiled_fast_path.configure(
        decoded=Decoded,
        why_header_and_meta=_UNDISPUTED_WHY["UTF-8", "UTF-8"],
        why_header=_UNDISPUTED_WHY["UTF-8", None],
        why_meta=_UNDISPUTED_WHY[None, "UTF-8"],
        why_valid=_VALID_UTF8_WHY,
        meta_late="meta-late",
        bom_and_xml_starts=BOMS_AND_XML_STARTS,
        find_meta=find_meta,
        prescan_meta=prescan_meta,
        may_declare_a_charset=may_declare_a_charset,
        late_meta_labels=late_meta_labels,
        looks_double_encoded=utf8_looks_double_encoded,
        utf8_validity=utf8_codec.validity,
        prescan_bytes=PRESCAN_BYTES,
        late_meta_limit=LATE_META_LIMIT,
    )
    undisputed_utf8 = _compiled_fast_path.undisputed_utf8
else:  # installed without a C compiler
    undisputed_utf8 = reference_undisputed_utf8


# -- helpers -------------------------------------------------------------------------------


def _override_for(url: str | None, overrides: OverrideTable) -> Override | None:
    table = as_table(overrides)
    # An empty table has no override for any host: the URL is parsed only when needed.
    return table.lookup(host_of(url)) if table else None

