"""The late ``<meta>``: a charset declared past the first 1024 bytes, read the way Chromium reads it.

Hand-picked cases for each context both ways (a ``<meta>`` inside it is not taken, the same one
after it is), the head rule around byte 1024, Chromium's attribute rules and labels; then a
differential test against ``_ReferenceTokenizer``: Blink's tokenizer states one character at a
time, slow and obviously faithful, driven as ``HTMLMetaCharsetParser::CheckForMetaCharset`` drives
it; then properties over random fillers, wrappers and bytes.  The cases of the parametrized
tables, and those marked "Chromium", were also served to Chromium 156 headless: it read each one
as the test says.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from consumer.decoding.labels import get_encoding
from consumer.decoding.late_meta import LATE_META_LIMIT, late_meta, late_meta_labels
from consumer.decoding.prescan import PRESCAN_BYTES, prescan

HEAD = b"<!DOCTYPE html><html><head>"
# 1,100 bytes of comment: whatever follows starts past the prescan's window.
LONG = b"<!--" + b"x" * 1100 + b"-->"
TAIL = b"</head><body><p>text</p></body></html>"


def late(*parts: bytes) -> bytes:
    """A page whose *parts* come after a head start and a 1,100-byte comment."""
    return HEAD + LONG + b"".join(parts) + TAIL


# -- contexts whose content is not markup: not taken inside, taken after ----------------------------


@pytest.mark.parametrize(
    ("inside", "after"),
    [
        # The brief's examples: a JavaScript string and a JavaScript comment.
        (b"<script>var s='<meta charset=\"koi8-r\">';</script>", b"<script>var s='';</script><meta charset=koi8-r>"),
        (b'<script>/* <meta charset="koi8-r"> */</script>', b"<script>/* */</script><meta charset=koi8-r>"),
        (b"<style>/* <meta charset=koi8-r> */</style>", b"<style></style><meta charset=koi8-r>"),
        (b"<title><meta charset=koi8-r></title>", b"<title>x</title><meta charset=koi8-r>"),
        (b"<!-- <meta charset=koi8-r> -->", b"<!-- x --><meta charset=koi8-r>"),
        # Script data escaped ("<!--" in a script) and double-escaped ("<script>" in that).
        (b"<script><!-- <meta charset=koi8-r> --></script>", b"<script><!-- x --></script><meta charset=koi8-r>"),
        (
            b'<script><!-- document.write("<script></script>") <meta charset=koi8-r> --></script>',
            b'<script><!-- document.write("<script></script>") --></script><meta charset=koi8-r>',
        ),
    ],
)
def test_a_meta_in_text_content_is_not_taken_and_after_it_is(inside, after):
    assert late_meta(late(inside)) is None
    assert late_meta(late(after)) == "KOI8-R"


def test_a_meta_in_a_textarea_is_not_taken_and_the_textarea_ends_the_head():
    assert late_meta(late(b"<textarea><meta charset=koi8-r></textarea>")) is None
    assert late_meta(late(b"<textarea></textarea><meta charset=koi8-r>")) is None  # Chromium


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        # The escaped states end at "-->" (dashes, then ">") and at "</script"; the double-escaped
        # ones go back to them at "</script", so a "</script>" there does not end the script.
        (b"<script><!--<script></script><meta charset=gbk>--></script><meta charset=koi8-r>", "KOI8-R"),
        (b"<script><!-- x --> <meta charset=gbk></script><meta charset=koi8-r>", "KOI8-R"),
        (b"<script><!-- x </script><meta charset=koi8-r>", "KOI8-R"),
        (b"<script><!--></script><meta charset=koi8-r>", "KOI8-R"),
        (b"<script><!---></script><meta charset=koi8-r>", "KOI8-R"),
        (b"<script><!-- -> </script><meta charset=koi8-r>", "KOI8-R"),
        (b"<script><!--<script>--></script><meta charset=koi8-r>", "KOI8-R"),
        (b"<script><!--<script> --!> </script><meta charset=gbk> --></script><meta charset=koi8-r>", "KOI8-R"),
        (b"<script><!--<scripts></script><meta charset=koi8-r>", "KOI8-R"),
        (b"<script>--> <meta charset=gbk></script><meta charset=koi8-r>", "KOI8-R"),  # no escape: nothing to close
        (b"<script><!-x</script><meta charset=koi8-r>", "KOI8-R"),
        (b"<script><!--<script></script></script><meta charset=koi8-r>", "KOI8-R"),
        (b"<script><!--<script></script x><meta charset=gbk>--></script>", None),
        # The end tag: "</script" then whitespace, "/" or ">", any case; its attributes are read.
        (b"<script>x='<meta charset=gbk>'</script ><meta charset=koi8-r>", "KOI8-R"),
        (b"<SCRIPT>x='<meta charset=gbk>'</SCRIPT/><meta charset=koi8-r>", "KOI8-R"),
        (b"<script></scripts><meta charset=gbk></script><meta charset=koi8-r>", "KOI8-R"),
        (b"<script></script x='>'><meta charset=koi8-r>", "KOI8-R"),
        (b"<script></script x='><meta charset=gbk>'><meta charset=koi8-r>", "KOI8-R"),
        # RAWTEXT and RCDATA end at their own appropriate end tag only.
        (b"<style></styles><meta charset=gbk></style><meta charset=koi8-r>", "KOI8-R"),
        (b"<style></script><meta charset=gbk></style><meta charset=koi8-r>", "KOI8-R"),
        (b"<title>a</title x='</title>'><meta charset=koi8-r>", "KOI8-R"),
        (b"<TITLE><!--</title>--><meta charset=koi8-r>", "KOI8-R"),  # no comments in RCDATA
        # xmp, iframe, noembed, noframes are RAWTEXT too, but they are not head elements.
        (b"<xmp><meta charset=gbk></xmp><meta charset=koi8-r>", None),
        (b"<iframe><meta charset=gbk></iframe>", None),
        # noscript is markup: the tokenizer runs with scripting off.
        (b"<noscript><meta charset=koi8-r></noscript>", "KOI8-R"),
        # Comments: "<!-->", "<!--->" and "--!>" end one; "-- >" does not.
        (b"<!--><meta charset=koi8-r>", "KOI8-R"),
        (b"<!---><meta charset=koi8-r>", "KOI8-R"),
        (b"<!-- a --!><meta charset=koi8-r>", "KOI8-R"),
        (b"<!-- -- ><meta charset=gbk> --><meta charset=koi8-r>", "KOI8-R"),
        (b"<!-- --!-><meta charset=gbk> ---><meta charset=koi8-r>", "KOI8-R"),
        # Bogus comments and DOCTYPEs end at the first ">"; a quoted value hides one in a tag.
        (b"<?x <meta charset=gbk>?><meta charset=koi8-r>", "KOI8-R"),
        (b"<!x <meta charset=gbk><meta charset=koi8-r>", "KOI8-R"),
        (b"</3 <meta charset=gbk><meta charset=koi8-r>", "KOI8-R"),
        (b"<!DOCTYPE html PUBLIC 'a>' <meta charset=gbk><meta charset=koi8-r>", "GBK"),  # quotes or not
        (b"<link title='<meta charset=gbk>'><meta charset=koi8-r>", "KOI8-R"),
        (b"<link/x='>' <meta charset=gbk>><meta charset=koi8-r>", "KOI8-R"),
        (b"</meta charset=gbk><meta charset=koi8-r>", "KOI8-R"),  # an end tag declares nothing
        (b"hello world<meta charset=koi8-r>", "KOI8-R"),  # text does not end the head
        (b"< meta charset=gbk><meta charset=koi8-r>", "KOI8-R"),
    ],
)
def test_the_tokenizer_states(parts, expected):
    assert late_meta(late(parts)) == expected


# -- the head, and the first 1024 bytes --------------------------------------------------------------


@pytest.mark.parametrize(
    "parts",
    [
        b"<div></div><meta charset=koi8-r>",
        b"<p>x</p><meta charset=koi8-r>",
        b"<body><meta charset=koi8-r>",
        b"</head><meta charset=koi8-r>",
        b"</html><meta charset=koi8-r>",
        b"<template></template><meta charset=koi8-r>",
        b"<my-element></my-element><meta charset=koi8-r>",
        b"<meta\x00 charset=gbk><meta charset=koi8-r>",  # "meta\ufffd" is no head element
        b"<metax charset=gbk><meta charset=koi8-r>",
    ],
)
def test_a_tag_that_leaves_the_head_past_1024_bytes_ends_the_search(parts):
    assert late_meta(late(parts)) is None  # Chromium


@pytest.mark.parametrize(
    "parts",
    [
        b"<link rel=stylesheet href=a.css><base href=/><object></object><noscript></noscript>",
        b"<title>x</title><style></style><script></script>",
        b"</script></noscript></style></link></meta></object></title></base>",
        b"<html><head><meta name=viewport content=width=device-width>",
    ],
)
def test_head_elements_before_the_meta_do_not_stop_it(parts):
    assert late_meta(late(parts, b"<meta charset=koi8-r>")) == "KOI8-R"  # Chromium


def test_the_search_goes_on_until_1024_bytes_were_read_after_leaving_the_head():
    """Chromium stops after a token once it left the head *and* read 1024 characters: a <meta>
    that starts within the first 1024 bytes still counts, after <p> or <body>."""
    before = HEAD + b"<p>"
    meta = b'<meta name="a" charset="koi8-r" content="' + b"y" * 40 + b'">'
    starts_at = PRESCAN_BYTES - 1 - len(before)
    assert late_meta(before + b"x" * starts_at + meta + TAIL) == "KOI8-R"  # starts at 1023
    assert late_meta(before + b"x" * (starts_at + 1) + meta + TAIL) is None  # starts at 1024
    assert late_meta(HEAD + b"<body>" + b"x" * 950 + meta + TAIL) == "KOI8-R"
    assert late_meta(HEAD + b"<p>" + LONG + b"<meta charset=koi8-r>" + TAIL) is None  # Chromium


def test_plaintext_never_ends():
    meta = b'<meta charset="koi8-r" content="' + b"y" * 60 + b'">'  # starts before byte 1024, ends past it
    assert late_meta(HEAD + b"<p>" + b"x" * 950 + meta) == "KOI8-R"
    assert late_meta(HEAD + b"<plaintext>" + b"x" * 942 + meta) is None  # Chromium
    assert late_meta(HEAD + b"<plaintext></plaintext>" + b"x" * 930 + meta) is None


def test_a_meta_that_ends_within_the_first_1024_bytes_is_not_a_late_one():
    meta = b"<meta charset=gbk>"
    body = b"x" * (PRESCAN_BYTES - len(meta)) + meta + b"y" * 2000
    assert prescan(body) == "GBK"
    assert late_meta(body) is None
    assert late_meta(b"x" * (PRESCAN_BYTES - len(meta) + 1) + meta) == "GBK"


def test_the_first_meta_decides_even_when_the_prescan_reads_it_differently():
    """Chromium stops at its first valid <meta>: one in the window ends the search with no late answer."""
    body = HEAD + b"<meta charset=gbk>" + LONG + b"<meta charset=koi8-r>" + TAIL
    assert late_meta(body) is None


def test_short_bodies_and_bodies_without_meta():
    assert late_meta(b"") is None
    assert late_meta(HEAD + b"<meta charset=gbk>") is None
    assert late_meta(HEAD + LONG + b"<link charset=gbk>" + TAIL) is None


def test_the_limit_is_honoured():
    body = late(b"<!--", b"x" * 3000, b"-->", b"<meta charset=koi8-r>")
    meta_end = body.index(b"<meta charset=koi8-r>") + len(b"<meta charset=koi8-r>")
    assert late_meta(body, limit=meta_end) == "KOI8-R"
    assert late_meta(body, limit=meta_end - 1) is None
    assert late_meta(body, limit=2000) is None
    far = HEAD + b"<!--" + b"x" * LATE_META_LIMIT + b"-->" + b"<meta charset=koi8-r>" + TAIL
    assert late_meta(far) is None  # Chromium takes it: the limit is a deliberate difference
    assert late_meta(far, limit=len(far)) == "KOI8-R"


@pytest.mark.parametrize(
    "unfinished",
    [
        b"<meta charset=koi8-r",
        b'<meta charset="koi8-r>',
        b"<script><meta charset=koi8-r>",
        b"<script><!-- --></script",
        b"<!-- <meta charset=koi8-r>",
        b"<title><meta charset=koi8-r>",
        b"<a href='<meta charset=koi8-r>",
    ],
)
def test_a_construct_that_runs_out_of_bytes_gives_nothing(unfinished):
    """The tokenizer waits for more bytes: nothing after the construct's start is a token."""
    assert late_meta(HEAD + LONG + unfinished) is None


# -- Chromium's EncodingFromMetaAttributes and labels ----------------------------------------------


@pytest.mark.parametrize(
    ("meta", "expected"),
    [
        (b'<meta http-equiv="Content-Type" content="text/html; charset=euc-jp">', "EUC-JP"),
        (b'<meta content="text/html; charset=euc-jp" http-equiv=content-type>', "EUC-JP"),
        (b'<meta content="text/html; charset=koi8-r">', None),  # no http-equiv: no declaration
        (b'<meta http-equiv=" content-type" content="charset=koi8-r">', None),
        # Every attribute is seen: the last charset wins, a content counts only before any charset.
        (b"<meta charset=gbk charset=koi8-r>", "KOI8-R"),
        (b'<meta http-equiv=content-type content="charset=gbk" charset=koi8-r>', "KOI8-R"),
        (b'<meta charset=koi8-r http-equiv=content-type content="charset=gbk">', "KOI8-R"),
        (b'<meta http-equiv=content-type content="charset=gbk" content="x">', None),
        (b'<meta http-equiv=content-type content="x" content="charset=koi8-r">', "KOI8-R"),
        (b'<meta http-equiv=refresh http-equiv=content-type content="charset=koi8-r">', "KOI8-R"),
        # ExtractCharset: control characters are space, an unquoted value ends at a quote.
        (b'<meta http-equiv=content-type content="charset=\x01koi8-r">', "KOI8-R"),
        (b'<meta http-equiv=content-type content="charset\x01=koi8-r">', "KOI8-R"),
        (b"<meta http-equiv=content-type content='charset=koi8-r\"x'>", "KOI8-R"),
        (b'<meta http-equiv=content-type content="charset=\'koi8-r">', None),  # no closing quote
        (b'<meta http-equiv=content-type content="charset=\x00koi8-r">', None),  # NUL is U+FFFD
        (b'<meta http-equiv=content-type content="charset;charset=koi8-r">', "KOI8-R"),
        # Character references are decoded, whitespace around the label stripped.
        (b'<meta charset="&#107;oi8-r">', "KOI8-R"),
        (b'<meta http-equiv="content&#45;type" content="charset=koi8-r">', "KOI8-R"),
        (b'<meta charset="  koi8-r\n">', "KOI8-R"),
        # A UTF-16 label means UTF-8, x-user-defined windows-1252; a replacement label is taken.
        (b"<meta charset=utf-16>", "UTF-8"),
        (b"<meta charset=utf-16be>", "UTF-8"),
        (b"<meta charset=x-user-defined>", "windows-1252"),
        (b"<meta charset=iso-2022-kr>", "replacement"),
        (b"<meta charset=tis-620>", "windows-874"),
        (b"<meta charset=ks_c_5601-1987>", "EUC-KR"),
        # Labels outside the Encoding Standard are unknown to Chromium too.
        (b"<meta charset=cp932>", None),
        (b"<meta charset=utf-32>", None),
        (b"<meta charset=utf_8>", None),
        (b"<meta charset=''>", None),
    ],
)
def test_encoding_from_meta_attributes(meta, expected):
    assert late_meta(late(meta)) == expected  # Chromium


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        (b"<meta charset=foo><meta charset=koi8-r>", ("KOI8-R", "foo")),
        (b"<meta charset=' Foo '><meta charset=bar>", (None, "Foo")),
        (b'<meta http-equiv=content-type content="charset=&quot;x&quot;">', (None, "x")),  # quotes decoded, then read
        (b'<meta content="charset=foo"><meta charset="">', (None, None)),  # no pragma; empty label
        (b"<script><meta charset=foo></script><meta charset=koi8-r>", ("KOI8-R", None)),
        (b"<meta charset=koi8-r><meta charset=foo>", ("KOI8-R", None)),
        (b"<div><meta charset=foo>", (None, None)),
    ],
)
def test_late_meta_labels_reports_the_first_unknown_label(parts, expected):
    assert late_meta_labels(late(parts)) == expected


def test_late_meta_labels_leaves_the_first_1024_bytes_to_the_prescan():
    """prescan.prescan_unknown_label reports the window's labels: the resolver says each once."""
    body = HEAD + b"<meta charset=foo>" + LONG + b"<meta charset=koi8-r>" + TAIL
    assert late_meta_labels(body) == ("KOI8-R", None)
    body = HEAD + LONG + b"<meta charset=bar>" + TAIL
    assert late_meta_labels(body[:PRESCAN_BYTES]) == (None, None)
    assert late_meta_labels(body) == (None, "bar")


# -- a literal transcription of Blink's tokenizer, as the oracle -----------------------------------

_SPACE = "\t\n\x0c\r "
_ENDERS = _SPACE + "/>"
_HEAD_START = {"script", "noscript", "style", "link", "meta", "object", "title", "base", "html", "head"}
_HEAD_END = {"script", "noscript", "style", "link", "meta", "object", "title", "base"}
# HTMLTokenizer::SpeculativeStateForTag, scripting off.
_STATE_FOR = {
    "textarea": "rcdata", "title": "rcdata", "plaintext": "plaintext", "script": "script",
    "style": "rawtext", "iframe": "rawtext", "xmp": "rawtext", "noembed": "rawtext", "noframes": "rawtext",
}  # fmt: skip


def _lower(c: str) -> str:
    return chr(ord(c) + 32) if "A" <= c <= "Z" else "\ufffd" if c == "\0" else c


class _ReferenceTokenizer:
    """Blink's HTMLTokenizer (html_tokenizer.cc) one character at a time, with no end of file:
    ``next_token`` returns (kind, name, attributes, characters consumed) or None when it needs more.

    Character references are left alone (the generated markup has no "&"); every DOCTYPE state
    ends the token at ">", so DOCTYPEs are read as one state.
    """

    def __init__(self, stream: bytes) -> None:
        self.s, self.i, self.state = stream.decode("latin-1"), 0, "data"
        self.chars = False  # a character token is being buffered
        self.token: list = []  # [kind, name, attributes]
        self.appropriate = ""  # the last start tag's name
        self.buffer = ""  # the end tag name or script word being read
        self.emit_next: tuple | None = None

    def _emit(self, advance: int = 1) -> tuple:
        self.i += advance
        kind, name, attributes = self.token
        if kind == "start":
            self.appropriate = name
        self.state = "data"
        return kind, name, attributes, self.i

    def _end_tag(self, c: str, back: str):
        """At an end tag name's ender in RCDATA, RAWTEXT or script data: the end tag, or text."""
        if c in _ENDERS and self.buffer == self.appropriate:
            self.i += 1
            self.token = ["end", self.buffer, []]
            self.state = {">": "data", "/": "self_closing"}.get(c, "before_attr_name")
            flushed = ("chars", "", [], self.i) if self.chars else None
            self.chars = False
            if c == ">":
                end_tag = ("end", self.buffer, [], self.i)
                if flushed:
                    self.emit_next = end_tag
                    return flushed
                return end_tag
            return flushed
        self.chars, self.state = True, back
        return None

    def next_token(self):  # one branch per state, as in the source
        if self.emit_next:
            token, self.emit_next = self.emit_next, None
            return token
        s = self.s
        while self.i < len(s):
            c, st = s[self.i], self.state
            if st == "data":
                if c == "<":
                    if self.chars:
                        self.chars = False
                        return "chars", "", [], self.i
                    self.state = "tag_open"
                else:
                    self.chars = True
            elif st == "tag_open":
                if c.isascii() and c.isalpha():
                    self.token, self.state = ["start", _lower(c), []], "tag_name"
                elif c == "!":
                    self.state = "markup_declaration"
                elif c == "/":
                    self.state = "end_tag_open"
                else:
                    self.state = "bogus" if c == "?" else "data"
                    self.chars = self.chars or c != "?"
                    continue
            elif st == "end_tag_open":
                if c.isascii() and c.isalpha():
                    self.token, self.state = ["end", _lower(c), []], "tag_name"
                elif c == ">":
                    self.state = "data"
                else:
                    self.state = "bogus"
                    continue
            elif st == "tag_name":
                if c in _SPACE:
                    self.state = "before_attr_name"
                elif c == "/":
                    self.state = "self_closing"
                elif c == ">":
                    return self._emit()
                else:
                    self.token[1] += _lower(c)
            elif st in ("before_attr_name", "after_attr_name"):
                if c in _SPACE:
                    pass
                elif c == "/":
                    self.state = "self_closing"
                elif c == ">":
                    return self._emit()
                elif c == "=" and st == "after_attr_name":
                    self.state = "before_attr_value"
                else:
                    self.token[2].append([_lower(c), ""])
                    self.state = "attr_name"
            elif st == "attr_name":
                if c in _SPACE:
                    self.state = "after_attr_name"
                elif c == "/":
                    self.state = "self_closing"
                elif c == "=":
                    self.state = "before_attr_value"
                elif c == ">":
                    return self._emit()
                else:
                    self.token[2][-1][0] += _lower(c)
            elif st == "before_attr_value":
                if c in _SPACE:
                    pass
                elif c in "\"'":
                    self.state = "value" + c
                elif c == ">":
                    return self._emit()
                else:
                    self.token[2][-1][1] += _lower(c) if c == "\0" else c
                    self.state = "unquoted"
            elif st in ('value"', "value'"):
                if c == st[-1]:
                    self.state = "after_value"
                else:
                    self.token[2][-1][1] += _lower(c) if c == "\0" else c
            elif st == "unquoted":
                if c in _SPACE:
                    self.state = "before_attr_name"
                elif c == ">":
                    return self._emit()
                else:
                    self.token[2][-1][1] += _lower(c) if c == "\0" else c
            elif st == "after_value":
                if c in _SPACE:
                    self.state = "before_attr_name"
                elif c == "/":
                    self.state = "self_closing"
                elif c == ">":
                    return self._emit()
                else:
                    self.state = "before_attr_name"
                    continue
            elif st == "self_closing":
                if c == ">":
                    return self._emit()
                self.state = "before_attr_name"
                continue
            elif st == "bogus":
                if c == ">":
                    self.token = ["comment", "", []]
                    return self._emit()
            elif st == "markup_declaration":
                rest = s[self.i : self.i + 7]
                if rest[:2] == "--":
                    self.token, self.state, self.i = ["comment", "", []], "comment_start", self.i + 2
                    continue
                if rest.lower() == "doctype":
                    self.token, self.state, self.i = ["doctype", "", []], "doctype", self.i + 7
                    continue
                if "--".startswith(rest[:2]) or "doctype".startswith(rest.lower()):
                    return None  # not enough characters to tell yet
                self.state = "bogus"
                continue
            elif st == "doctype":
                if c == ">":
                    return self._emit()
            elif st.startswith("comment"):  # comment start, start dash, comment, end dash, end, end bang
                if c == ">" and st in ("comment_start", "comment_start_dash", "comment_end", "comment_end_bang"):
                    return self._emit()
                if c == "-":
                    self.state = {"comment_start": "comment_start_dash", "comment": "comment_end_dash"}.get(st, "comment_end")
                    if st == "comment_end_bang":
                        self.state = "comment_end_dash"
                elif c == "!" and st == "comment_end":
                    self.state = "comment_end_bang"
                else:
                    self.state = "comment"
            elif st in ("rcdata", "rawtext", "script"):
                if c == "<":
                    self.state = st + "<"
                else:
                    self.chars = True
            elif st in ("rcdata<", "rawtext<", "script<"):
                if c == "/":
                    self.state, self.buffer = st[:-1] + "</", ""
                elif c == "!" and st == "script<":
                    self.chars, self.state = True, "script<!"
                else:
                    self.chars, self.state = True, st[:-1]
                    continue
            elif st in ("rcdata</", "rawtext</", "script</", "escaped</"):
                if c.isascii() and c.isalpha():
                    self.buffer, self.state = _lower(c), st[:-2] + "</name"
                else:
                    self.chars, self.state = True, st[:-2]
                    continue
            elif st in ("rcdata</name", "rawtext</name", "script</name", "escaped</name"):
                if c.isascii() and c.isalpha():
                    self.buffer += _lower(c)
                else:
                    token = self._end_tag(c, st[:-6])
                    if token:
                        return token
                    continue  # reading the end tag's attributes, or the ender again as text
            elif st == "script<!":
                self.state = "script<!-" if c == "-" else "script"
                if c != "-":
                    continue
            elif st == "script<!-":
                self.state = "escaped--" if c == "-" else "script"
                if c != "-":
                    continue
            elif st in ("escaped", "escaped-", "escaped--"):
                self.chars = True
                if c == "-":
                    self.state = {"escaped": "escaped-"}.get(st, "escaped--")
                elif c == "<":
                    self.state = "escaped<"
                elif c == ">" and st == "escaped--":
                    self.state = "script"
                else:
                    self.state = "escaped"
            elif st == "escaped<":
                if c == "/":
                    self.state, self.buffer = "escaped</", ""
                elif c.isascii() and c.isalpha():
                    self.buffer, self.state = _lower(c), "double_escape_start"
                else:
                    self.state = "escaped"
                    continue
            elif st in ("double_escape_start", "double_escape_end"):
                if c in _ENDERS:
                    is_script = self.buffer == "script"
                    self.state = "double" if is_script == (st == "double_escape_start") else "escaped"
                elif c.isascii() and c.isalpha():
                    self.buffer += _lower(c)
                else:
                    self.state = "escaped" if st == "double_escape_start" else "double"
                    continue
            elif st in ("double", "double-", "double--"):
                if c == "-":
                    self.state = {"double": "double-"}.get(st, "double--")
                elif c == "<":
                    self.state = "double<"
                elif c == ">" and st == "double--":
                    self.state = "script"
                else:
                    self.state = "double"
            elif st == "double<":
                if c == "/":
                    self.state, self.buffer = "double_escape_end", ""
                else:
                    self.state = "double"
                    continue
            elif st == "plaintext":
                self.chars = True
            self.i += 1
        if self.chars:  # out of input: the buffered characters are emitted
            self.chars = False
            return "chars", "", [], self.i
        return None


def _reference_extract_charset(value: str) -> str:
    """html_parser_idioms.cc's ExtractCharset, line by line."""
    pos, length = 0, len(value)
    while pos < length:
        pos = "".join(map(_lower, value)).find("charset", pos)  # FindIgnoringASCIICase
        if pos < 0:
            break
        pos += 7
        while pos < length and value[pos] <= " ":
            pos += 1
        if pos >= length or value[pos] != "=":
            continue
        pos += 1
        while pos < length and value[pos] <= " ":
            pos += 1
        quote = ""
        if pos < length and value[pos] in "\"'":
            quote, pos = value[pos], pos + 1
        if pos == length:
            break
        end = pos
        while end < length and (
            (quote and value[end] != quote) or (not quote and value[end] > " " and value[end] not in "\"';")
        ):
            end += 1
        if quote and end == length:
            break
        return value[pos:end]
    return ""


def _reference_encoding(attributes: list) -> tuple[str | None, str | None]:
    """html_parser_idioms.cc's EncodingFromMetaAttributes, then TextResourceDecoder::SetEncoding."""
    got_pragma = has_charset = False
    mode, charset = None, ""
    for name, value in attributes:
        if name == "http-equiv":
            if "".join(map(_lower, value)) == "content-type":
                got_pragma = True
        elif name == "charset":
            has_charset, charset, mode = True, value, "charset"
        elif not has_charset and name == "content":
            charset = _reference_extract_charset(value)
            if charset:
                mode = "pragma"
    if mode == "charset" or (mode == "pragma" and got_pragma):
        label = charset.strip(_SPACE)
        encoding = get_encoding(label)
        if encoding is None:
            return None, label or None
        return {"x-user-defined": "windows-1252", "UTF-16LE": "UTF-8", "UTF-16BE": "UTF-8"}.get(encoding, encoding), None
    return None, None


def _reference_late_meta_labels(body: bytes, limit: int) -> tuple[str | None, str | None]:
    """HTMLMetaCharsetParser::CheckForMetaCharset over the reference tokenizer, then late_meta's contract."""
    tokenizer = _ReferenceTokenizer(body[:limit])
    in_head, unknown = True, None
    while (token := tokenizer.next_token()) is not None:
        kind, name, attributes, consumed = token
        if kind in ("start", "end"):
            if kind == "start":
                tokenizer.state = _STATE_FOR.get(name, tokenizer.state)
                if name == "meta":
                    encoding, label = _reference_encoding(attributes)
                    if encoding is not None:
                        return (encoding if consumed > PRESCAN_BYTES else None), unknown
                    if consumed > PRESCAN_BYTES:
                        unknown = unknown or label
            if name not in (_HEAD_START if kind == "start" else _HEAD_END):
                in_head = False
        if not in_head and consumed >= PRESCAN_BYTES:
            return None, unknown
    return None, unknown


# Every construct's pieces: tags that switch the tokenizer or leave the head, their end tags near
# and far, comment and escape pieces, attribute syntax, and <meta> tags that declare or do not.
_FRAGMENTS = [
    b"<", b">", b"/", b"=", b'"', b"'", b" ", b"\n", b"-", b"--", b"!", b"?", b"x", b"\x00", b"\xe9",
    b"<!--", b"-->", b"--!>", b"<!-->", b"<!", b"</", b"<?", b"<!DOCTYPE html>", b"<!doc",
    b"<script>", b"<SCRIPT ", b"</script>", b"</script ", b"</scripts>", b"<script", b"</script",
    b"<style>", b"</style>", b"<title>", b"</TITLE>", b"<textarea>", b"</textarea>", b"<xmp>", b"</xmp>",
    b"<plaintext>", b"<noscript>", b"</noscript>", b"<link rel=x>", b"<base>", b"<object>",
    b"<p>", b"</p>", b"<div>", b"</head>", b"<body>", b"<head>", b"<html>", b"</html>", b"<a title='",
    b"<meta ", b"<meta", b"<META/", b"charset", b"charset=", b"http-equiv=content-type ", b'content="charset=big5" ',
    b"<meta charset=gbk>", b"<meta charset=koi8-r>", b"<meta charset=bogus>", b"<meta charset=utf-16>",
    b'<meta http-equiv=content-type content="text/html; charset=sjis">', b"<meta charset=gbk charset=big5>",
]  # fmt: skip
_SOUP = st.lists(st.sampled_from(_FRAGMENTS), max_size=30).map(b"".join)
# Whole constructs too, each with the ways it can end or fail to: random fragments rarely line up
# into a script with "<!--<script>" inside, or a comment that "--!>" closes, before a <meta>.
_NOISE = st.lists(
    st.sampled_from([b"x", b" ", b"-", b"--", b"!", b">", b"<", b"/", b"'", b"=", b"<!--", b"-->", b"<script>",
                     b"</script>", b"<script", b"</title>", b"</style>", b"<meta charset=gbk>", b"\n"]),
    max_size=6,
).map(b"".join)  # fmt: skip
_CONSTRUCT = st.one_of(
    st.builds(
        lambda inner, end: b"<!--" + inner + end, _NOISE, st.sampled_from([b"-->", b"--!>", b"->", b">", b"--->", b"- ->", b""])
    ),
    st.builds(
        lambda start, inner, end: start + inner + end,
        st.sampled_from([b"<script>", b"<SCRIPT type=x>", b"<script/>", b"<style>", b"<title>", b"<textarea>", b"<xmp>"]),
        _NOISE,
        st.sampled_from([b"</script>", b"</script >", b"</SCRIPT/>", b"</scripts>", b"</style>", b"</title x='>'>",
                         b"</textarea>", b"</xmp>", b"-->", b""]),
    ),
    st.sampled_from([b"<link rel=x>", b"<noscript>", b"</noscript>", b"<base href='>'>", b"<!DOCTYPE html>", b"<?x?>",
                     b"</ x>", b"text", b"<meta name=x>", b"<meta charset=bogus>", b"<meta charset=big5>", b"<p>",
                     b"</head>", b"<body>"]),
)  # fmt: skip
_MARKUP = st.one_of(_SOUP, st.lists(_CONSTRUCT, max_size=8).map(b"".join))


# A declaration at the very end, so that most bodies have an answer to agree on.
_LAST = st.sampled_from([b"", b"<meta charset=koi8-r>", b'<meta http-equiv=content-type content="charset=euc-jp">'])


@settings(max_examples=1500, deadline=None)
@given(_MARKUP, _MARKUP, _LAST, st.integers(min_value=0, max_value=80), st.sampled_from([b"y", b"y<", b"-"]))
def test_agrees_with_the_literal_transcription(before, after, last, shift, filler):
    """Markup soup on both sides of byte 1024: the filler is text, or the content of whatever
    *before* left open, so every construct is seen cut, closed and left open at the window's edge."""
    body = before + filler * ((PRESCAN_BYTES - 40 + shift - len(before)) // len(filler)) + after + last
    for limit in (len(body), PRESCAN_BYTES + 30):
        assert late_meta_labels(body, limit) == _reference_late_meta_labels(body, limit)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (late(b"<script><!--<script></script><meta charset=gbk>--></script><meta charset=koi8-r>"), "KOI8-R"),
        (HEAD + b"<p>" + b"x" * 950 + b'<meta charset="koi8-r" content="' + b"y" * 60 + b'">', "KOI8-R"),
        (HEAD + b"<plaintext>" + b"x" * 942 + b'<meta charset="koi8-r" content="' + b"y" * 60 + b'">', None),
        (late(b"<title>a</title x='</title>'><meta charset=koi8-r>"), "KOI8-R"),
        (late(b'<meta http-equiv=content-type content="charset=gbk" content="x">'), None),
        (late(b"<meta charset=gbk charset=koi8-r>"), "KOI8-R"),
    ],
)
def test_the_transcription_gives_chromiums_answers(body, expected):
    """The oracle itself, on cases Chromium 156 answered."""
    assert _reference_late_meta_labels(body, LATE_META_LIMIT)[0] == expected


# -- properties ----------------------------------------------------------------------------------

_ASCII = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=60).map(str.encode)
_FILLER = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E, blacklist_characters="<"), min_size=1100, max_size=1400
).map(str.encode)
_WRAPPERS = [(b"<script>", b"</script>"), (b"<style>", b"</style>"), (b"<title>", b"</title>"),
             (b"<textarea>", b"</textarea>"), (b"<!--", b"-->")]  # fmt: skip
_META = st.sampled_from([b"<meta charset=koi8-r>", b'<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">'])


def _closes(opener: bytes, content: bytes) -> bool:
    """Whether *content* (after *opener*) holds what ends that element or comment."""
    if opener == b"<!--":
        return re.search(rb"--!?>", (opener + content)[2:]) is not None  # "<!-->" and "<!--->" too
    return b"</" + opener[1:-1] in content.lower()


@settings(max_examples=400, deadline=None)
@given(_FILLER, st.sampled_from(_WRAPPERS), _ASCII, _META, _ASCII)
def test_a_meta_inside_text_content_is_never_taken(filler, wrapper, before, meta, after):
    opener, closer = wrapper
    assume(not _closes(opener, before + meta + after))
    body = HEAD + filler + opener + before + meta + after + closer + TAIL
    assert late_meta(body) is None
    assert late_meta_labels(body) == (None, None)


@settings(max_examples=200, deadline=None)
@given(_FILLER, st.sampled_from(_WRAPPERS), _ASCII.filter(lambda text: b"<" not in text and b"-" not in text), _META)
def test_the_same_meta_after_the_element_is_taken_in_the_head(filler, wrapper, content, meta):
    opener, closer = wrapper
    body = HEAD + filler + opener + content + closer + meta + TAIL
    assert late_meta(body) == (None if opener == b"<textarea>" else "KOI8-R")  # a textarea ends the head


@given(st.binary(max_size=3000), st.integers(min_value=0, max_value=4000))
def test_never_raises_on_random_bytes(body, limit):
    late_meta(body, limit)
    late_meta_labels(body)
    late_meta(late(body))


@pytest.mark.parametrize(
    "body",
    [
        b"<script>" + b"<!--<script>" * 20000,
        b"<script><!--" + b"<script></script>" * 10000,
        b"<" * 70000,
        b"<a" * 40000,
        b"<!--" * 20000,
        b"<link " * 20000,
        b"<meta charset=bogus>" * 5000,
        b"<title>" * 20000,
        b"<meta charset='" + b"x" * 70000,
    ],
)
def test_hostile_input_gives_no_answer_and_terminates(body):
    assert late_meta(body, limit=len(body)) is None
