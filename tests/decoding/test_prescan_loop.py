"""The prescan's compiled tier (prescan/compiled.py and the loop _native/prescan.c) against the standard's steps.

``compiled`` gives the product's answers where the extension was built; ``standard`` is the HTML
Standard's algorithm as it reads, one byte at a time, and what runs elsewhere.  The property tests
generate markup heads (comments, tags with attributes in every quoting, ``<meta`` in odd cases with
known and unknown labels, constructs cut by the 1024-byte window, random bytes) and require the same
``prescan``, ``prescan_meta`` and ``prescan_unknown_label`` from both.  Then the compiled
functions on their own terms (where a tag ends, against the standard's "get an attribute"; where
"<meta" is), and the decision cache, whose answers must be the standard's too.
"""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding import prescan as package
from consumer.decoding.labels import get_encoding
from consumer.decoding.prescan import PRESCAN_BYTES, standard

try:
    from consumer.decoding._native import prescan as loop
    from consumer.decoding.prescan import compiled
except ImportError:
    loop = compiled = None  # type: ignore[assignment]
# Every test here needs them; test_prescan.py fails if a compiler was there to build them and they were not.
needs_compiled = pytest.mark.skipif(compiled is None, reason="built without a C compiler: standard.py runs")
pytestmark = needs_compiled

# -- markup heads ------------------------------------------------------------------------------------

# Every byte each branch looks at: tag and attribute syntax, quotes, the five whitespace bytes,
# comment and bogus-markup starts, the words the loop stops at in any case, and runs of "<".
_FRAGMENTS = [
    b"<", b"<<", b">", b"/", b"=", b'"', b"'", b" ", b"\t", b"\n", b"\x0c", b"\r", b"-", b"--", b"!", b"?",
    b"<!--", b"-->", b"<!-->", b"<!", b"</", b"<?", b"<meta", b"<meta ", b"<META/", b"<mEtA\t", b"<metax",
    b"</meta ", b"<p", b"</p", b"<a ", b"<A", b"charset", b"=x", b"x=", b"a", b"x", b"1", b"\x00", b"\xff",
    b"<body", b"<BODY>", b"<body/", b"<bodyx", b"</head>", b"</HEAD ", b"</headx", b"<head>", b"</body>",
    # Near misses of the rules whose mistakes are easy: a comment's "-->" and an empty value before ">".
    b"->", b"x->", b"- ->", b"=>", b"x=>", b"x= >", b"x=''", b'x="',
    # What the loop stops at, often, so that a misread construct changes the answer.
    b"<meta ", b"<meta/", b"<meta charset=x>",
    # The words of a declaration, and whole and partial ones, so that many heads have an answer.
    b"CHARSET", b"charset=", b"http-equiv", b"content-type", b"content", b"=gbk", b"utf-8", b"UTF-16",
    b"x-user-defined", b"bogus", b"text/html;", b"<?xml", b"encoding=", b"<meta charset=gbk>",
    b"<meta charset='big5'>", b'<meta http-equiv="Content-Type" content="text/html; charset=sjis">',
    b"<meta content='charset=koi8-r' ", b"http-equiv=content-type>", b" charset=euc-kr", b"<meta charset=bogus>",
]  # fmt: skip
_NOISE = st.lists(st.sampled_from(_FRAGMENTS), max_size=4).map(b"".join)
# Whole constructs too, each with the ways it can end or fail to: random fragments rarely line up
# into "<!-- ... -> ... -->" or "<a x=> ..." followed by a <meta that shows the difference.
_SPACE = st.sampled_from([b"", b" ", b"\t", b"\n", b"\x0c", b"\r"])
_VALUE = st.one_of(_NOISE, st.builds(lambda quote, inner: quote + inner + quote, st.sampled_from([b'"', b"'"]), _NOISE))
_ATTRIBUTE = st.builds(
    lambda before, name, space, equals, space2, value: before + name + space + equals + space2 + value,
    st.sampled_from([b" ", b"\t", b"/", b" /"]), st.sampled_from([b"x", b"=x", b"charset", b"a-b"]),
    _SPACE, st.sampled_from([b"=", b""]), _SPACE, _VALUE,
)  # fmt: skip
_TAG = st.builds(
    lambda start, name, attributes, end: start + name + b"".join(attributes) + end,
    st.sampled_from([b"<", b"</"]), st.sampled_from([b"p", b"a", b"meta", b"META", b"body", b"head", b"bodyx"]),
    st.lists(_ATTRIBUTE, max_size=3), st.sampled_from([b">", b"/>", b" />", b" >", b""]),
)  # fmt: skip
_COMMENT = st.builds(
    lambda inner, end: b"<!--" + inner + end, _NOISE, st.sampled_from([b"-->", b"->", b"- ->", b"--!>", b">", b""])
)
_BOGUS = st.builds(
    lambda start, inner, end: start + inner + end,
    st.sampled_from([b"<!", b"</", b"<?", b"</ "]), _NOISE, st.sampled_from([b">", b""]),
)  # fmt: skip

# A <meta> as pages write it and as they garble it: the three names that matter in any case, each
# value in every quoting (and unterminated), labels known, remapped and unknown, duplicates.
_LABEL = st.sampled_from([
    b"utf-8", b"UTF-8", b"gbk", b"Shift_JIS", b"latin1", b"koi8-r", b"utf-16le", b"UTF-16", b"x-user-defined",
    b" gbk ", b"utf-8/", b"bogus", b"BoGuS", b"utf8x", b"", b"\xe9",
])  # fmt: skip
_CONTENT = st.builds(
    lambda before, word, equals, quote, label, after: before + word + equals + quote + label + after,
    st.sampled_from([b"", b"text/html; ", b"text/html;", b"x"]),
    st.sampled_from([b"charset", b"CHARSET", b"charsetcharset", b"charset x; charset", b"charse"]),
    st.sampled_from([b"=", b" = ", b"\t=", b""]), st.sampled_from([b"", b"'", b'"']), _LABEL,
    st.sampled_from([b"", b"'", b'"', b";x", b" more"]),
)  # fmt: skip
_QUOTINGS = {
    "double": lambda value: b'"' + value + b'"',
    "single": lambda value: b"'" + value + b"'",
    "unquoted": lambda value: value,
    "unterminated": lambda value: b'"' + value,
}


def _meta_attribute(names: list[bytes], values: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    return st.builds(
        lambda before, name, equals, quoting, value: before + name + equals + _QUOTINGS[quoting](value),
        st.sampled_from([b" ", b"\t", b"\n", b"\x0c", b"\r", b"/", b" /", b""]), st.sampled_from(names),
        st.sampled_from([b"=", b" = ", b"\t=\n", b"", b"= "]), st.sampled_from(sorted(_QUOTINGS)), values,
    )  # fmt: skip


_META_ATTRIBUTE = st.one_of(
    _meta_attribute([b"charset", b"CHARSET", b"ChArSeT"], _LABEL),
    _meta_attribute(
        [b"http-equiv", b"HTTP-EQUIV"],
        st.sampled_from([b"content-type", b"Content-Type", b" content-type", b"refresh"]),
    ),
    _meta_attribute([b"content", b"Content"], _CONTENT),
    _meta_attribute([b"name", b"x", b"=charset", b"charset2"], _NOISE),
)
_META = st.builds(
    lambda start, after, attributes, end: start + after + b"".join(attributes) + end,
    st.sampled_from([b"<meta", b"<META", b"<mEtA", b"</meta", b"<metax", b"<meta-"]),
    st.sampled_from([b" ", b"\t", b"\n", b"\x0c", b"\r", b"/", b""]), st.lists(_META_ATTRIBUTE, max_size=4),
    st.sampled_from([b">", b"/>", b" />", b" >", b"", b" "]),
)  # fmt: skip
# And as they write it well: every kind of declaration, known or not, in each quoting.
_WELL_QUOTED = st.sampled_from([b'"%s"', b"'%s'", b"%s"])
_DECLARATION = st.builds(
    lambda start, attributes: start + b"".join(attributes) + b">",
    st.sampled_from([b"<meta", b"<META", b"<Meta"]),
    st.lists(
        st.one_of(
            st.builds(lambda quoting, label: b" charset=" + quoting % label, _WELL_QUOTED, _LABEL),
            st.builds(lambda quoting, value: b" http-equiv=" + quoting % value, _WELL_QUOTED,
                      st.sampled_from([b"content-type", b"Content-Type", b"refresh"])),
            st.builds(lambda label: b' content="text/html; charset=' + label + b'"', _LABEL),
            st.just(b' name="viewport" content="width=device-width"'),
        ),
        min_size=1, max_size=3,
    ),
)  # fmt: skip
_START = st.sampled_from([
    b"", b"", b"", b"", b"", b"", b'<?xml version="1.0" encoding="windows-1251"?>', b"<?xml encoding='bogus'?>",
    b"<?xml", b"<\x00?\x00x\x00", b"\x00<\x00?\x00x", b"<!DOCTYPE html>",
])  # fmt: skip
_HEAD = st.builds(
    lambda start, constructs: start + b"".join(constructs),
    _START,
    st.lists(
        st.one_of(_DECLARATION, _DECLARATION, _META, _META, _TAG, _COMMENT, _BOGUS, _NOISE, st.binary(max_size=8)),
        max_size=10,
    ),
)  # fmt: skip
# A page's head as most are written, whose declarations the loop reaches.
_PAGE_HEAD = st.lists(
    st.one_of(
        _DECLARATION,
        st.sampled_from([
            b"<!DOCTYPE html>", b'<html lang="en">', b"<head>", b"<title>a < b</title>", b"<!-- <meta charset=gbk> -->",
            b"<link rel=stylesheet href='/a.css'>", b'<script src="/a.js"></script>', b"\n  ", b"<?php echo 1 ?>",
        ]),
    ),
    max_size=8,
).map(b"".join)  # fmt: skip


@st.composite
def _at_the_window_edge(draw: st.DrawFn) -> bytes:
    """A head, text, a construct that ends a few bytes before or after byte 1024 (often right at
    it: a ">" at byte 1023 is in the window, at 1024 it is not), then more markup."""
    before, after = draw(st.one_of(_HEAD, _PAGE_HEAD)), draw(st.one_of(_HEAD, _PAGE_HEAD))
    across = draw(st.one_of(_DECLARATION, _META, _TAG, _COMMENT, _BOGUS))
    edge = st.one_of(st.integers(min_value=-2, max_value=2), st.integers(min_value=-60, max_value=10))
    end = PRESCAN_BYTES + draw(edge)
    return before + b"x" * max(0, end - len(before) - len(across)) + across + after


_FLAT = st.lists(st.sampled_from(_FRAGMENTS), max_size=40).map(b"".join)
_BODIES = st.one_of(_HEAD, _PAGE_HEAD, _at_the_window_edge(), _FLAT, st.binary(max_size=1100))
_MARKUP = st.one_of(_FLAT, st.lists(st.one_of(_TAG, _COMMENT, _BOGUS, _NOISE, _META), max_size=12).map(b"".join))

def _decided(body: bytes) -> tuple[str | None, int]:
    """The compiled prescan's answer for *body* and the position after its deciding ">" (-1 without one)."""
    for charset, _, end in compiled._metas(body, min(len(body), PRESCAN_BYTES)):
        if charset is not None:
            return charset, end
    return None, -1


# -- the compiled tier answers as the standard's steps ------------------------------------------------


def _assert_compiled_answers_as_the_standard(body: bytes) -> None:
    expected = (standard.prescan(body), standard.prescan_meta(body), standard.prescan_unknown_label(body))
    answers = (compiled.prescan(body), compiled.prescan_meta(body), compiled.prescan_unknown_label(body))
    assert answers == expected
    if not package.may_declare_a_charset(body):
        assert expected[1:] == (None, None)


@settings(max_examples=1500, deadline=None)
@given(_BODIES)
def test_compiled_answers_as_the_standard(body):
    _assert_compiled_answers_as_the_standard(body)


@settings(max_examples=400, deadline=None)
@given(_at_the_window_edge())
def test_compiled_answers_as_the_standard_at_the_window_edge(body):
    _assert_compiled_answers_as_the_standard(body)


@pytest.mark.parametrize(
    "body",
    [
        b"<meta charset=gbk>",
        b'<meta http-equiv=content-type content="charset=\'bogus">',  # an unmatched quote: nothing
        b'<meta http-equiv=content-type content="charset=x"y">',
        b"<meta charset='Bogus' http-equiv=content-type content=charset=gbk>",
        b"<meta charset=gbk><meta charset=bogus>",
        b"<!--><meta charset=bogus>",
        b"<meta/charset=bogus/>",
        b"x" * (PRESCAN_BYTES - 20) + b"<meta charset=bogus>",
    ],
)
def test_labels_where_compiled_and_standard_could_part(body):
    assert compiled.prescan_unknown_label(body) == standard.prescan_unknown_label(body)


# -- the decision cache: bodies sharing the bytes that decided an answer --------------------------


# What may follow the bytes a cached answer was stored under: nothing, or bytes that change how
# the last attribute reads when the prefix stops short of the ">" (a longer unquoted label, a quote).
_CONTINUATION = st.sampled_from([b"", b"", b">", b"x", b"-2>", b" charset=big5>", b"'", b'"', b"/"])


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(_HEAD, _PAGE_HEAD),
    st.lists(st.tuples(_CONTINUATION, st.one_of(_HEAD, _PAGE_HEAD)).map(b"".join), min_size=1, max_size=4),
    st.integers(min_value=0, max_value=3),
    st.one_of(st.integers(min_value=0, max_value=64), st.integers(min_value=0, max_value=PRESCAN_BYTES + 40)),
)
def test_cached_answers_are_the_standards(head, suffixes, back, pad_to):
    """A body, then bodies that share its bytes up to its deciding ">" (or up to a few bytes
    before it), through the module's cache, which keeps what earlier examples stored too:
    every answer is the standard's for that body."""
    # Padding makes most heads long enough to be cached (32 bytes), and some reach the window's edge.
    first = b"x" * pad_to + head
    assert compiled.prescan(first) == standard.prescan(first)
    found, end = _decided(first)
    shared = first[: end - back] if found is not None else first
    for suffix in suffixes:
        body = shared + suffix
        assert compiled.prescan(body) == standard.prescan(body)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_FRAGMENTS), max_size=12), min_size=2, max_size=6))
def test_a_tiny_keyed_cache_gives_the_standards_answers(bodies):
    """A 2-byte key makes nearly every body share a key with the others: only the whole stored
    prefix may decide, never the key."""
    cache = compiled.DecisionCache(key_bytes=2, max_keys=4, per_key=2)
    for fragments in bodies:
        body = b"".join(fragments)
        expected = standard.prescan_meta(body)
        cached = cache.get(body)
        assert cached is None or cached == expected
        if cached is None:
            found, end = _decided(body)
            if found is not None:
                cache.put(body[:end], found)


def test_a_stored_answer_is_given_to_a_body_with_the_same_head_and_not_to_another():
    head = b'<!DOCTYPE html><html lang="en"><head><meta charset="windows-1251">'
    cache = compiled.DecisionCache()
    cache.put(head, "windows-1251")
    assert cache.get(head + b"<title>a</title>") == "windows-1251"
    assert cache.get(head.replace(b"1251", b"1252")) is None  # differs before the ">"
    assert cache.get(head[:-1]) is None  # a body that ends before the ">"
    assert cache.get(b"<!DOCTYPE html><html") is None


def test_the_cache_stays_bounded():
    cache = compiled.DecisionCache(key_bytes=32, max_keys=8, per_key=2)
    for i in range(100):
        for variant in range(3):
            cache.put(b"%032d<meta charset=%d>" % (i, variant), "UTF-8")
    assert len(cache._by_key) == 8
    assert all(len(entries) == 2 for entries in cache._by_key.values())
    assert cache.get(b"%032d<meta charset=2>" % 99) == "UTF-8"
    assert cache.get(b"%032d<meta charset=0>" % 99) is None  # pushed out of its key's two
    assert cache.get(b"%032d<meta charset=2>" % 0) is None  # its key was dropped


def test_a_prefix_shorter_than_the_key_is_not_stored():
    cache = compiled.DecisionCache(key_bytes=32)
    cache.put(b"<meta charset=gbk>", "GBK")
    assert cache.get(b"<meta charset=gbk>" + b"x" * 40) is None


def test_prescan_answers_a_shared_head_again_after_the_first_page():
    head = b'<!doctype html><html lang="ru"><head><meta name="viewport" content="width=device-width"><meta charset="koi8-r">'
    first, second = head + b"<title>one</title>", head + b"<title>two</title></head><body>" + b"x" * 2000
    assert compiled.prescan(first) == compiled.prescan(second) == "KOI8-R"
    assert compiled._DECISIONS.get(second) == "KOI8-R"


def test_threads_sharing_the_cache_get_the_standards_answers():
    """decode may run in several threads: eviction races must neither raise nor give a wrong answer."""
    cache = compiled.DecisionCache(key_bytes=32, max_keys=4, per_key=1)
    failures: list[object] = []

    def work(seed: int) -> None:
        try:
            for i in range(3000):
                label = (b"gbk", b"big5", b"koi8-r")[(i + seed) % 3]
                head = b"%032d<meta charset=%s>" % ((i * 7 + seed) % 50, label)
                cache.put(head, get_encoding(label))
                answer = cache.get(head + b"<title>x</title>")
                if answer not in (None, get_encoding(label)):
                    failures.append((head, answer))
        except Exception as exc:  # noqa: BLE001 - any exception is the failure this test looks for
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


# -- the compiled functions on their own terms ------------------------------------------------------


def _bounds(draw_from: st.DataObject, buf: bytes) -> tuple[int, int]:
    position = draw_from.draw(st.integers(min_value=0, max_value=len(buf)))
    length = draw_from.draw(st.integers(min_value=position, max_value=len(buf) + 2))
    return position, length


def _standard_tag_end(buf: bytes, position: int, length: int) -> int:
    """The standard's tag branch, step 2, over ``buf[:length]`` from *position*: "get an attribute"
    until there is none, then past the ">"; -1 when the bytes run out."""
    stream = buf[: max(0, length)]
    try:
        attribute, position = standard.get_an_attribute(stream, position)
        while attribute is not None:
            attribute, position = standard.get_an_attribute(stream, position)
    except standard._RanOutOfBytes:
        return -1
    return position + 1


@settings(max_examples=3000, deadline=None)
@given(st.one_of(_MARKUP, st.binary(max_size=200)), st.data())
def test_tag_end_is_where_the_standards_attributes_end(buf, data):
    position, length = _bounds(data, buf)
    assert loop.tag_end(buf, position, length) == _standard_tag_end(buf, position, length)


@settings(max_examples=1000, deadline=None)
@given(_MARKUP, st.data())
def test_find_meta_agrees_with_the_readable_search(buf, data):
    start, end = _bounds(data, buf)
    assert loop.find_meta(buf, start, end) == standard.find_meta(buf, start, end)


# Long runs of "<", "m" and near-misses, so the compiled search's 16- and 32-byte blocks meet "<meta"
# at every offset, across block edges and at the end of the bounds.
_META_NEAR_MISSES = st.lists(
    st.one_of(
        st.sampled_from([b"<", b"m", b"M", b"<m", b"<M", b"<meta", b"<mEtA", b"<met", b"eta", b"\xc3<"]),
        st.integers(min_value=1, max_value=40).map(lambda n: b"<p>x" * n),  # blocks without one
    ),
    max_size=60,
).map(b"".join)


@settings(max_examples=2000, deadline=None)
@given(_META_NEAR_MISSES, st.data())
def test_find_meta_agrees_with_the_readable_search_on_long_runs(buf, data):
    start, end = _bounds(data, buf)
    expected = standard.find_meta(buf, start, end)
    assert loop.find_meta(buf, start, end) == expected
    # Where the processor has AVX2 find_meta runs 32-byte blocks first: its SSE2 loop alone must agree too.
    assert loop.find_meta_sse2(buf, start, end) == expected


@pytest.mark.parametrize("where", range(140))
def test_find_meta_finds_a_meta_at_every_offset_of_the_blocks_and_near_the_end(where):
    """One "<meta" (or a near miss, then one) at each offset across the 16-, 32- and 64-byte blocks, the bounds
    ending at it, inside it and after it: both loops, as the readable search."""
    for filler in (b"<p>x", b"mmmm", b"<<<<", b"\xc3\xa9ab"):
        for tag in (b"<meta", b"<MeTa", b"<met<meta", b"<mta<meta"):
            buf = (filler * 40)[:where] + tag + filler * 3
            for end in (where + 4, where + 5, where + len(tag), where + len(tag) + 1, len(buf)):
                for start in (0, 1, max(0, where - 1)):
                    expected = standard.find_meta(buf, start, end)
                    assert loop.find_meta(buf, start, end) == expected, (filler, tag, where, start, end)
                    assert loop.find_meta_sse2(buf, start, end) == expected, (filler, tag, where, start, end)


@pytest.mark.parametrize(
    ("buf", "position", "length", "expected"),
    [
        (b"<html><meta charset=x>", 0, 99, 6),
        (b"<html><meta charset=x>", -5, 99, 6),  # clamped like a slice
        (b"<html><meta charset=x>", 7, 99, -1),
        (b"<html><meta", 0, 99, -1),  # nothing after "meta": not yet a <meta
        (b"<!-- <meta charset=x> --><meta ", 0, 99, 25),
        (b"<head></head><meta charset=x>", 0, 99, 13),
        (b"<body><meta charset=x>", 0, 99, 6),  # the prescan does not stop at the body
        (b"<a title='>'><meta ", 0, 99, 13),
        (b"", 0, 0, -1),
        (b"<!-- x -> <meta charset=x> --><meta ", 0, 99, 30),  # "->" does not end a comment
        (b"<a x=><meta ", 0, 99, 6),  # an empty value before ">"
        (b"<a /><meta ", 0, 99, 5),
        (b"<a x='>' y><meta ", 0, 99, 11),
    ],
)
def test_next_meta_cases(buf, position, length, expected):
    assert loop.next_meta(buf, position, length) == expected


def test_any_bytes_like_object_is_read_and_text_is_refused():
    buf = b"<p><META charset=x>"
    assert loop.find_meta(bytearray(buf), 0, 99) == loop.find_meta(memoryview(buf), 0, 99) == 3
    assert loop.next_meta(bytearray(buf), 0, 99) == 3
    assert loop.tag_end(memoryview(buf), 8, 99) == len(buf)
    with pytest.raises(TypeError):
        loop.find_meta(buf.decode(), 0, 99)
    with pytest.raises(TypeError):
        loop.next_meta(buf, 0, 99, False)  # no fourth argument


def test_the_compiled_tier_runs():
    assert package.COMPILED
    assert (package.prescan, package.prescan_meta, package.prescan_unknown_label, package.find_meta) == (
        compiled.prescan, compiled.prescan_meta, compiled.prescan_unknown_label, loop.find_meta,
    )  # fmt: skip
