"""Content-Type: MIME Sniffing's "parse a MIME type" and Fetch's "extract a MIME type"."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from consumer.decoding.content_type import (
    MimeType,
    extract_mime_type,
    get_decode_split,
    is_json_mime,
    is_xml_mime,
    parse_mime_type,
)
from consumer.decoding.response import content_type_facts


def serialize(mime: MimeType | None) -> str | None:
    """MIME Sniffing's "serialize a MIME type", enough for these tests."""
    if mime is None:
        return None
    out = mime.essence
    for name, value in mime.parameters.items():
        if not value or any(not (c.isascii() and (c.isalnum() or c in "!#$%&'*+-.^_`|~")) for c in value):
            value = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        out += f";{name}={value}"
    return out


# -- parse a MIME type -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("text/html", "text/html"),
        ("TEXT/HTML;CHARSET=GBK", "text/html;charset=GBK"),  # names lowercase, values kept
        (" text/html ", "text/html"),
        ("\r\n\ttext/html\r\n\t", "text/html"),
        ("text/html ;charset=gbk", "text/html;charset=gbk"),
        ("text/html; charset=gbk", "text/html;charset=gbk"),
        ("text/html;charset= gbk", 'text/html;charset=" gbk"'),
        ("text/html;charset =gbk", "text/html"),  # "charset " is not a token
        ('text/html;charset="gbk"', "text/html;charset=gbk"),
        ('text/html;charset="gbk', "text/html;charset=gbk"),  # the quoted string runs to the end
        ('text/html;charset=gbk"', 'text/html;charset="gbk\\""'),
        ('text/html;charset="gbk"x', "text/html;charset=gbk"),  # after the quoted string, up to ";" is dropped
        ('text/html;charset="\\g\\b\\k"', "text/html;charset=gbk"),
        ('text/html;charset="\\ gbk"', 'text/html;charset=" gbk"'),
        ('text/html;charset="";charset=GBK', 'text/html;charset=""'),  # an empty quoted value counts
        ("text/html;charset=;charset=GBK", "text/html;charset=GBK"),  # an empty unquoted one does not
        ("text/html;charset=gbk;charset=windows-1255", "text/html;charset=gbk"),  # the first wins
        ("text/html;CHARSET=gbk;charset=windows-1255", "text/html;charset=gbk"),
        ("text/html;charset=();charset=GBK", 'text/html;charset="()"'),
        ("text/html;x=(;charset=gbk", 'text/html;x="(";charset=gbk'),
        ("text/html;;;;charset=gbk", "text/html;charset=gbk"),
        ("text/html;';charset=gbk", "text/html;charset=gbk"),
        ('text/html;"";charset=gbk', "text/html;charset=gbk"),
        ("text/html;charset", "text/html"),
        ("text/html;charset=", "text/html"),
        ("text/html;test=\u00ff;charset=gbk", 'text/html;test="\u00ff";charset=gbk'),
        ("text/html;test=\u0100;charset=gbk", "text/html;charset=gbk"),  # not a quoted-string token code point
        ("text/html;a=b;c=d;charset=utf-8", "text/html;a=b;c=d;charset=utf-8"),
        ("x/x;test", "x/x"),
        ('x/x;test="\\', 'x/x;test="\\\\"'),  # a backslash at the end is kept
        ("*/*", "*/*"),
        ("application/xhtml+xml", "application/xhtml+xml"),
        ("/html", None),
        ("text/", None),
        ("text", None),
        ("", None),
        ("te xt/html", None),
        ("text/ht ml", None),
        ("text/html(", None),
        ("(/html", None),
        ("\x0btext/html", None),  # vertical tab is not HTTP whitespace
        ("text/html\u212a", None),  # KELVIN SIGN is no token code point
    ],
)
def test_parse_mime_type(value, expected):
    assert serialize(parse_mime_type(value)) == expected


def test_parameters_are_read_only_and_essence_is_type_slash_subtype():
    mime = parse_mime_type("Text/HTML;Charset=UTF-8")
    assert mime.essence == "text/html"
    with pytest.raises(TypeError):
        mime.parameters["charset"] = "gbk"  # type: ignore[index]


# -- get, decode, and split ----------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("text/html", ["text/html"]),
        ("a, b", ["a", "b"]),
        ('text/html;a="x,y", text/plain', ['text/html;a="x,y"', "text/plain"]),
        ('a;b="c\\",d", e', ['a;b="c\\",d"', "e"]),
        ("a,", ["a", ""]),
        (",a", ["", "a"]),
        ("", [""]),
        (' "unterminated, x', ['"unterminated, x']),
        ("\ta ,\t b \t", ["a", "b"]),
    ],
)
def test_get_decode_split(value, expected):
    assert get_decode_split(value) == expected


# -- extract a MIME type: Fetch's example table, one row each -------------------------


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        (["text/plain;charset=gbk, text/html"], "text/html"),
        (["text/html;charset=gbk;a=b, text/html;x=y"], "text/html;x=y;charset=gbk"),
        (["text/html;charset=gbk;a=b", "text/html;x=y"], "text/html;x=y;charset=gbk"),
        (["text/html;charset=gbk", "x/x", "text/html;x=y"], "text/html;x=y"),
        (["text/html", "cannot-parse"], "text/html"),
        (["text/html", "*/*"], "text/html"),
        (["text/html", ""], "text/html"),
    ],
)
def test_fetch_examples(headers, expected):
    # A header list "gets" a name as its values joined with ", ".
    assert serialize(extract_mime_type(", ".join(headers))) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("", None),
        ("cannot-parse, */*, ", None),
        ("*/*", None),
        ("text/html;charset=gbk, text/html", "text/html;charset=gbk"),  # same essence keeps gbk
        ("text/html;charset=gbk, TEXT/HTML", "text/html;charset=gbk"),
        ("text/html;charset=gbk, text/plain", "text/plain"),
        # The remembered charset is the first of the essence's run, not the latest one.
        ("text/html;charset=gbk, text/html;charset=utf-8, text/html", "text/html;charset=gbk"),
        ("text/html;charset=gbk, text/html;charset=utf-8", "text/html;charset=utf-8"),
        ("text/html, text/html;charset=utf-8, text/html", "text/html"),
        ("text/html;charset=gbk, text/plain, text/html", "text/html"),
        ("text/html;charset=gbk, invalid, */*;charset=utf-8, text/html", "text/html;charset=gbk"),
        ("text/html;charset=gbk, application/*, text/html", "text/html"),  # a subtype wildcard is an essence
        ('text/html;charset="", text/html', 'text/html;charset=""'),
        ('text/html;note="a,b"', 'text/html;note="a,b"'),
    ],
)
def test_extract_mime_type(value, expected):
    assert serialize(extract_mime_type(value)) == expected


# -- the charset a Content-Type names (response.content_type_facts) ------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("text/html", None),
        ("text/html; charset=utf-8", "UTF-8"),
        ('text/html; charset="utf-8"', "UTF-8"),
        ("text/html; charset='utf-8'", None),  # single quotes are not quotes in HTTP
        ("TEXT/HTML; CHARSET=UTF-8", "UTF-8"),
        ("text/html; charset=ISO-8859-1", "windows-1252"),
        ("text/html; charset=latin1", "windows-1252"),
        ("text/html; charset=Shift_JIS", "Shift_JIS"),
        ("text/html; charset= utf-8 ", "UTF-8"),  # get an encoding strips whitespace
        ("text/html; charset=bogus", None),
        ("text/html; charset=utf-8; charset=gbk", "UTF-8"),
        ("text/html; charset=gbk, text/html", "GBK"),
        ("text/plain; charset=gbk, text/html", None),
        ("text/html;charset=gbk;a=b, text/html;x=y", "GBK"),
        ("text/html; charset=x-user-defined", "x-user-defined"),  # as-is: only the prescan remaps it
        ("text/html; charset=utf-16", "UTF-16LE"),
        ("garbage", None),
    ],
)
def test_charset_encoding(value, expected):
    assert content_type_facts(value).charset == expected


# -- predicates --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "xml", "json"),
    [
        ("text/xml", True, False),
        ("application/xml", True, False),
        ("application/xhtml+xml", True, False),
        ("image/svg+xml", True, False),
        ("application/rss+xml; charset=utf-8", True, False),
        ("application/xml-dtd", False, False),
        ("application/json", False, True),
        ("text/json", False, True),
        ("application/ld+json", False, True),
        ("application/json-seq", False, False),
        ("text/html", False, False),
        ("TEXT/HTML; charset=utf-8", False, False),
        ("text/plain", False, False),
    ],
)
def test_predicates(value, xml, json):
    mime = parse_mime_type(value)
    assert (is_xml_mime(mime), is_json_mime(mime)) == (xml, json)


def test_predicates_of_no_mime_type_are_false():
    assert not is_xml_mime(None) and not is_json_mime(None)


# -- nothing raises ---------------------------------------------------------------------

_HEADERISH = st.text(alphabet=st.sampled_from(list('text/html;charset=utf-8 ,"\\\t\r\n*xX\u00ff\u0100')), max_size=80)


@given(st.one_of(st.text(max_size=80), _HEADERISH))
def test_never_raises(value):
    parse_mime_type(value)
    get_decode_split(value)
    mime = extract_mime_type(value)
    assert mime is None or mime.essence != "*/*"
    content_type_facts(value)
    is_xml_mime(mime), is_json_mime(mime)
