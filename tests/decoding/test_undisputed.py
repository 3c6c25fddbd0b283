"""The one fast path, ``resolve.undisputed_utf8``: wherever it answers, its answer is the resolution's.

Every test runs against both tiers: ``reference_undisputed_utf8`` (Python, what runs without the extension) and,
where it was built, the compiled ``_native/undisputed.c`` that ``decode`` calls.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding import Decoded, _native
from consumer.decoding.resolve import (
    UNDISPUTED_SOURCE,
    declarations,
    reference_undisputed_utf8,
    resolve,
    undisputed_utf8,
)
from consumer.decoding.response import content_type_facts, read_response

from resolve_samples import ANY_BODIES, ANY_CONTENT_TYPES, CONTENT_TYPES, HTML, LONG_COMMENT, UTF8_PAGES, meta, page

_COMPILED = _native.extension("undisputed")
#: The two tiers, each a parameter of every test below.
TIERS = [
    pytest.param(reference_undisputed_utf8, id="reference"),
    pytest.param(
        None if _COMPILED is None else _COMPILED.undisputed_utf8,
        id="compiled",
        marks=pytest.mark.skipif(_COMPILED is None, reason="built without a C compiler"),
    ),
]
tiers = pytest.mark.parametrize("shortcut", TIERS)


def test_decode_asks_the_compiled_tier_where_it_was_built():
    assert undisputed_utf8 is (reference_undisputed_utf8 if _COMPILED is None else _COMPILED.undisputed_utf8)


def _agrees_with_the_resolution(shortcut, body: bytes, content_type: str | None) -> Decoded | None:
    facts = content_type_facts(content_type)
    decoded = shortcut(body, facts)
    lazy = shortcut(body, facts, lazy_text=True)
    assert lazy == shortcut(body, facts, True)  # by position too
    assert (decoded is None) is (lazy is None)
    if decoded is not None:
        assert type(decoded) is type(lazy) is Decoded
        assert decoded == lazy == resolve(read_response(body, facts, None, None))
        assert lazy == resolve(read_response(body, facts, None, None), lazy_text=True)
        # Equal as Decoded compares (the text), and field by field; the lazy one carries the body as its UTF-8.
        assert tuple(decoded) == tuple(resolve(read_response(body, facts, None, None)))
        assert lazy.built_text is None and lazy.utf8 is body
    return decoded


@tiers
@settings(max_examples=1000, deadline=None)
@given(body=UTF8_PAGES, content_type=st.sampled_from(CONTENT_TYPES))
def test_the_undisputed_utf8_shortcut_agrees_with_the_resolution(shortcut, body, content_type):
    _agrees_with_the_resolution(shortcut, body, content_type)


@tiers
@settings(max_examples=1000, deadline=None)
@given(body=ANY_BODIES, content_type=ANY_CONTENT_TYPES)
def test_the_shortcut_agrees_with_the_resolution_on_any_response(shortcut, body, content_type):
    _agrees_with_the_resolution(shortcut, body, content_type)


@pytest.mark.parametrize(
    ("body", "content_type", "source"),
    [
        (page("café"), "text/html; charset=utf-8", "http-header"),
        (page("café", meta("utf-8")), "text/html; charset=utf-8", "http-header"),
        (page("café", meta("utf-8")), HTML, "meta-prescan"),
        (page("café"), HTML, "utf-8-valid"),
        (page("café"), None, "utf-8-valid"),
    ],
)
@tiers
def test_the_shortcut_takes_the_common_responses(shortcut, body, content_type, source):
    decoded = _agrees_with_the_resolution(shortcut, body.encode("utf-8"), content_type)
    assert decoded is not None and decoded.source == source


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"\xef\xbb\xbf" + page("café").encode(), HTML),  # the BOM decides
        (page("café").encode(), "application/json"),  # JSON is UTF-8 by another rule
        (page("café", meta("utf-8")).encode(), "application/xhtml+xml"),  # XML reads no <meta>
        (page("café", meta("gbk")).encode(), HTML),  # the meta names another encoding...
        (page("café", meta("utf-8")).encode(), "text/html; charset=gbk"),  # ...or the header does
        (page("café", LONG_COMMENT + meta("windows-1251")).encode(), HTML),  # a late <meta>
        (page("café", LONG_COMMENT + meta("no-such-label")).encode(), HTML),  # ...or an unknown label in one
        (page("café", meta("no-such-label")).encode(), "text/html; charset=utf-8"),  # an unknown label to report
        (page("日本語").encode("iso2022_jp"), HTML),  # ISO-2022-JP's escapes
        (page("café").encode("cp1252"), HTML),  # not UTF-8
    ],
)
@tiers
def test_the_shortcut_leaves_everything_else_to_the_resolution(shortcut, body, content_type):
    assert shortcut(body, content_type_facts(content_type)) is None
    assert shortcut(body, content_type_facts(content_type), lazy_text=True) is None


@tiers
@pytest.mark.parametrize("offset", range(-4, 5))
def test_a_character_across_a_kib_end_is_still_utf8(shortcut, offset):
    # The compiled check answers a malformed body once a KiB (lazy_text): a character cut there is no error.
    head = b"<!doctype html><p>" + b"a" * (4096 - 18 + offset)
    body = head + "😀€ü and more".encode() * 3
    decoded = _agrees_with_the_resolution(shortcut, body, HTML)
    assert decoded is not None and decoded.source == "utf-8-valid"


@tiers
def test_a_legacy_page_invalid_only_past_its_first_kib_is_left_to_the_resolution(shortcut):
    body = b"<!doctype html><p>" + b"a" * 5000 + "Привет".encode("cp1251")
    assert shortcut(body, content_type_facts(HTML)) is None
    assert resolve(read_response(body, content_type_facts(HTML), None, None)).encoding != "UTF-8"


def _first_declaration(body: bytes, content_type: str) -> tuple[str, str] | None:
    """The (source, encoding) of the first candidate ``declarations`` proposes for the response, or None."""
    notes: list[str] = []
    response = read_response(body, content_type_facts(content_type), None, None)
    first = next((candidate for candidate in declarations(response, notes.append) if candidate is not None), None)
    return None if first is None else (first.source, first.encoding)


#: Bodies whose prescan says *meta*, each with what could follow: nothing, a late <meta> of another
#: encoding, text in another encoding's bytes, an unknown late label.
_BODIES_BY_META = {
    label: [
        page("café", head).encode() + tail
        for head in (meta("utf-8") if label else "", (meta("utf-8") if label else "") + LONG_COMMENT + meta("windows-1251"))
        for tail in (b"", "Привет".encode("cp1251"), (LONG_COMMENT + meta("no-such-label")).encode())
    ]
    for label in ("UTF-8", None)
}


def test_the_fast_path_table_covers_every_header_and_meta_it_is_asked_for():
    assert set(UNDISPUTED_SOURCE) == {(header, meta) for header in ("UTF-8", None) for meta in ("UTF-8", None)}


@pytest.mark.parametrize(("header", "meta_label"), list(UNDISPUTED_SOURCE))
def test_each_entry_of_the_fast_path_table_is_what_the_steps_decide(header, meta_label):
    """An entry names the step of ``declarations`` that decides, whatever the body holds past the
    prescan; None where nothing is declared, and the body's own steps (a late <meta>) decide."""
    content_type = HTML if header is None else f"{HTML}; charset=utf-8"
    source = UNDISPUTED_SOURCE[header, meta_label]
    firsts = {_first_declaration(body, content_type) for body in _BODIES_BY_META[meta_label]}
    if source is not None:
        assert firsts == {(source, "UTF-8")}
    else:
        assert firsts == {None, ("meta-late", "windows-1251")}  # the body decides

@pytest.mark.parametrize(
    ("body", "source"),
    [
        (b"", "utf-8-valid"),
        (page("caf\u00e9").encode(), "utf-8-valid"),
        (page("caf\u00e9", LONG_COMMENT + meta("utf-8")).encode(), "meta-late"),
        (page("caf\u00e9", LONG_COMMENT + meta("windows-1251")).encode(), None),  # a late <meta> decides
        (page("caf\u00e9", LONG_COMMENT + meta("no-such-label")).encode(), None),  # noted: left to resolve
        (page("caf\u00e9", LONG_COMMENT + meta("no-such-label") + meta("koi8-r")).encode(), None),
        (page("\u65e5\u672c\u8a9e").encode("iso2022_jp"), None),  # ISO-2022-JP's escapes: the detector's guess
        (page("\u65e5\u672c\u8a9e").encode("iso2022_jp") + b"\xc3\xa9", "utf-8-valid"),  # not 7-bit: valid UTF-8
        (page("a \x1b$B b").encode(), None),  # 7-bit with an ESC byte: the escapes' step is resolve's to ask
        (page("caf\u00e9").encode("cp1252"), None),  # not UTF-8
    ],
)
@tiers
def test_an_undeclared_body_is_answered_by_the_steps_that_read_it(shortcut, body, source):
    """The shortcut decodes before it scans for a late <meta>, but a late <meta>, known or not, and escapes decide."""
    for content_type in (None, HTML):
        decoded = _agrees_with_the_resolution(shortcut, body, content_type)
        assert (decoded and decoded.source) == source


# -- the compiled tier's own edges -------------------------------------------------------------------------------

#: Bodies around the steps' thresholds: the prescan's 1024 bytes, the late <meta> scan's 64 KiB, the mojibake
#: check's window, a strong sequence once (weighed by its share) and twice, ESC in ASCII and beside UTF-8.
_EDGES = [
    b"",
    b"\x1b",
    b"\x1b\xc3\xa9",
    "Caf\u00c3\u00a9".encode(),  # one strong sequence, a quarter or more of the non-ASCII: mojibake
    ("Caf\u00c3\u00a9 " + "\u00e9" * 10).encode(),  # one, a small share: not
    ("Caf\u00c3\u00a9 cr\u00c3\u00a8me " * 2).encode(),  # two: mojibake
    *(b"a" * (1024 + delta) + meta("utf-8").encode() for delta in (-30, -20, -1, 0, 1)),
    *(b"a" * (65536 + delta) + meta("utf-8").encode() for delta in (-30, -20, 0, 1)),
    *(b"a" * (65536 + delta) + meta("koi8-r").encode() for delta in (-30, -20, 0, 1)),
    *(("\u00e9" * (8192 + delta) + "Caf\u00c3\u00a9" * 2).encode() for delta in (-3, -2, 0, 1)),
]


@tiers
@pytest.mark.parametrize("body", _EDGES, ids=range(len(_EDGES)))
@pytest.mark.parametrize("content_type", [None, HTML, f"{HTML}; charset=utf-8", f"{HTML}; charset=koi8-r"])
def test_both_tiers_agree_at_the_steps_edges(shortcut, body, content_type):
    decoded = _agrees_with_the_resolution(shortcut, body, content_type)
    reference = reference_undisputed_utf8(body, content_type_facts(content_type))
    assert (decoded is None) is (reference is None)
    if decoded is not None:
        assert tuple(decoded) == tuple(reference)


@pytest.mark.skipif(_COMPILED is None, reason="built without a C compiler")
@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((b"",), {}),
        ((b"", content_type_facts(None), False, False), {}),
        ((b"", content_type_facts(None)), {"lazy": True}),
        ((b"", content_type_facts(None), False), {"lazy_text": True}),
        ((bytearray(b""), content_type_facts(None)), {}),
        ((b"", ("text/html", None)), {}),
    ],
)
def test_the_compiled_tier_refuses_what_the_reference_could_not_be_given(args, kwargs):
    with pytest.raises(TypeError):
        _COMPILED.undisputed_utf8(*args, **kwargs)
