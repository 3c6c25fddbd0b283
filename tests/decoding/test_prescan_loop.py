"""The compiled prescan loop (consumer/decoding/_prescan_loop.c) against the patterns it replaces.

prescan.py keeps its patterns as the reference and as the fallback where no C
compiler built the module; these tests require both to give the same answer.
test_prescan.py checks whichever one runs against a literal transcription of
the standard.
"""

from __future__ import annotations

import shutil
import sysconfig
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding import prescan

try:
    from consumer.decoding import _prescan_loop as compiled
except ImportError:
    compiled = None
# Each test but the last needs the module; the last fails if a compiler was there to build it.
needs_compiled = pytest.mark.skipif(compiled is None, reason="built without a C compiler: prescan.py runs its patterns")

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
]
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
_CONSTRUCTS = st.lists(st.one_of(_TAG, _COMMENT, _BOGUS, _NOISE, st.just(b"<meta ")), max_size=12).map(b"".join)
_MARKUP = st.one_of(st.lists(st.sampled_from(_FRAGMENTS), max_size=40).map(b"".join), _CONSTRUCTS)


def _stops(next_meta, buf: bytes, position: int, length: int) -> list[int]:
    """Every <meta the loop stops at, resuming after each as ``_scan`` may: a <meta early in the
    bytes would otherwise hide how the rest is read."""
    stops = []
    while (position := next_meta(buf, position, length, False)) >= 0:
        stops.append(position)
        position += 5
    return stops


def _bounds(draw_from: st.DataObject, buf: bytes) -> tuple[int, int]:
    position = draw_from.draw(st.integers(min_value=0, max_value=len(buf)))
    length = draw_from.draw(st.integers(min_value=position, max_value=len(buf) + 2))
    return position, length


@needs_compiled
@settings(max_examples=3500, deadline=None)
@given(st.one_of(_MARKUP, st.binary(max_size=200)), st.data())
def test_next_meta_agrees_with_the_patterns(buf, data):
    position, length = _bounds(data, buf)
    assert _stops(compiled.next_meta, buf, position, length) == _stops(prescan._next_meta_by_pattern, buf, position, length)


@needs_compiled
@settings(max_examples=1000, deadline=None)
@given(_MARKUP, st.data())
def test_find_meta_agrees_with_the_pattern(buf, data):
    start, end = _bounds(data, buf)
    assert compiled.find_meta(buf, start, end) == prescan._find_meta_by_pattern(buf, start, end)


@needs_compiled
@settings(max_examples=300, deadline=None)
@given(_MARKUP, _MARKUP, st.integers(min_value=0, max_value=40))
def test_the_scans_agree_across_the_window_edge(before, after, shift):
    """The prescan's whole loop (``_scan``), compiled and by pattern, around byte 1024."""
    body = before + b"x" * max(0, prescan.PRESCAN_BYTES - 20 + shift - len(before)) + after
    for length in (min(len(body), prescan.PRESCAN_BYTES), len(body)):
        compiled_answer = prescan._scan(body, length)
        with mock.patch.multiple(
            prescan, _next_meta=prescan._next_meta_by_pattern, _find_meta=prescan._find_meta_by_pattern
        ):
            assert prescan._scan(body, length) == compiled_answer


@needs_compiled
@pytest.mark.parametrize(
    ("buf", "position", "length", "expected"),
    [
        (b"<html><meta charset=x>", 0, 99, 6),
        (b"<html><meta charset=x>", -5, 99, 6),  # clamped like a slice
        (b"<html><meta charset=x>", 7, 99, -1),
        (b"<html><meta", 0, 99, -1),  # nothing after "meta": not yet a <meta
        (b"<!-- <meta charset=x> --><meta ", 0, 99, 25),
        (b"<head></head><meta charset=x>", 0, 99, 13),
        (b"<a title='>'><meta ", 0, 99, 13),
        (b"", 0, 0, -1),
        (b"<!-- x -> <meta charset=x> --><meta ", 0, 99, 30),  # "->" does not end a comment
        (b"<a x=><meta ", 0, 99, 6),  # an empty value before ">"
        (b"<a /><meta ", 0, 99, 5),
        (b"<a x='>' y><meta ", 0, 99, 11),
    ],
)
def test_next_meta_cases(buf, position, length, expected):
    assert compiled.next_meta(buf, position, length, False) == expected  # False: see prescan._next_meta_by_pattern
    assert prescan._next_meta_by_pattern(buf, position, length) == expected


@needs_compiled
def test_any_bytes_like_object_is_read_and_text_is_refused():
    buf = b"<p><META charset=x>"
    assert compiled.find_meta(bytearray(buf), 0, 99) == compiled.find_meta(memoryview(buf), 0, 99) == 3
    assert compiled.next_meta(bytearray(buf), 0, 99, False) == 3
    with pytest.raises(TypeError):
        compiled.find_meta(buf.decode(), 0, 99)
    with pytest.raises(TypeError):
        compiled.next_meta(buf, 0, 99)


@needs_compiled
def test_the_compiled_loop_runs():
    assert prescan.COMPILED
    assert prescan._next_meta is compiled.next_meta


def test_built_wherever_a_compiler_is():
    """The extension is optional (an install without a compiler still works), so a build that fails
    where a compiler exists would go unnoticed but for this test."""
    compiler = (sysconfig.get_config_var("CC") or "").split()
    if not compiler or shutil.which(compiler[0]) is None:
        pytest.skip("no C compiler here: prescan.py runs its patterns")
    assert prescan.COMPILED
