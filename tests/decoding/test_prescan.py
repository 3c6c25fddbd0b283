"""The meta prescan: the HTML Standard's "prescan a byte stream to determine its encoding".

Hand-picked cases for every branch of the algorithm, each run on both tiers
of the package: ``standard`` (the standard's steps, one byte at a time: the
reference, and what runs without a C compiler) and ``compiled`` (the compiled
loop, where it was built).  tests/decoding/test_prescan_loop.py checks on
generated markup that the two always agree.
"""

import shutil
import sysconfig

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding import prescan as package
from consumer.decoding.prescan import PRESCAN_BYTES, extract_meta_charset, standard

try:
    from consumer.decoding.prescan import compiled
except ImportError:  # built without a C compiler
    compiled = None

TIERS = [pytest.param(compiled, id="compiled", marks=pytest.mark.skipif(compiled is None, reason="not built"))]


@pytest.fixture(scope="module", params=[*TIERS, pytest.param(standard, id="standard")])
def implementation(request):
    """A module with ``prescan``, ``prescan_meta`` and ``prescan_unknown_label``."""
    return request.param


def test_the_product_runs_the_compiled_tier_where_it_was_built():
    chosen = standard if compiled is None else compiled
    assert package.COMPILED is (compiled is not None)
    assert (package.prescan, package.prescan_meta, package.prescan_unknown_label) == (
        chosen.prescan,
        chosen.prescan_meta,
        chosen.prescan_unknown_label,
    )


def test_built_wherever_a_compiler_is():
    """The extension is optional (an install without a compiler still works), so a build that fails
    where a compiler exists would go unnoticed but for this test."""
    compiler = (sysconfig.get_config_var("CC") or "").split()
    if not compiler or shutil.which(compiler[0]) is None:
        pytest.skip("no C compiler here: standard.py runs")
    assert package.COMPILED


def pad(n: int) -> bytes:
    """*n* bytes of harmless text."""
    return b"x" * n


# -- <meta charset> ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"<meta charset=utf-8>", "UTF-8"),
        (b'<meta charset="utf-8">', "UTF-8"),
        (b"<meta charset='utf-8'>", "UTF-8"),
        (b"<META CHARSET='Shift_JIS'>", "Shift_JIS"),
        (b"<MeTa ChArSeT=EUC-KR>", "EUC-KR"),
        (b'<meta charset="utf-8"/>', "UTF-8"),
        (b"<meta charset=utf-8 />", "UTF-8"),
        # An unquoted value runs to whitespace or ">": "utf-8/" is no label, as in browsers.
        (b"<meta charset=utf-8/>", None),
        (b"<meta/charset=gbk>", "GBK"),
        (b"<meta\tcharset=gbk>", "GBK"),
        (b"<meta\ncharset=gbk>", "GBK"),
        (b"<meta\x0ccharset=gbk>", "GBK"),
        (b"<meta\rcharset=gbk>", "GBK"),
        (b"<meta charset = gbk>", "GBK"),
        (b"<meta charset\n=\n'gbk'>", "GBK"),
        (b'<meta charset=" gbk ">', "GBK"),  # get an encoding strips whitespace
        (b"<meta charset=latin1>", "windows-1252"),
        (b"<meta charset=iso-8859-1>", "windows-1252"),
        (b"<meta charset=sjis>", "Shift_JIS"),
        (b'<head><title>t</title><meta name="viewport" content="width=device-width"><meta charset="koi8-r">', "KOI8-R"),
        # "<meta" must be followed by whitespace or "/".
        (b"<meta>", None),
        (b"<metacharset=gbk>", None),
        (b"<meta-charset=gbk>", None),
        (b"<meta2 charset=gbk>", None),
        (b"<meta name=x>", None),
        (b"<meta charset>", None),
        (b"<meta charset=>", None),
        (b'<meta charset="">', None),
        (b"", None),
        (b"<", None),
        (b"<meta", None),
    ],
)
def test_meta_charset(implementation, body, expected):
    assert implementation.prescan(body) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # A UTF-16 label means UTF-8 (the bytes were legible as ASCII), x-user-defined windows-1252.
        (b"<meta charset=utf-16>", "UTF-8"),
        (b"<meta charset=utf-16le>", "UTF-8"),
        (b"<meta charset=utf-16be>", "UTF-8"),
        (b"<meta charset=unicodefffe>", "UTF-8"),
        (b"<meta charset=x-user-defined>", "windows-1252"),
        (b'<meta http-equiv=content-type content="text/html; charset=utf-16">', "UTF-8"),
        (b'<meta http-equiv=content-type content="text/html; charset=x-user-defined">', "windows-1252"),
    ],
)
def test_utf_16_and_x_user_defined_are_remapped(implementation, body, expected):
    assert implementation.prescan(body) == expected


# -- http-equiv + content -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'<meta http-equiv="Content-Type" content="text/html; charset=euc-jp">', "EUC-JP"),
        (b'<meta content="text/html; charset=euc-jp" http-equiv="Content-Type">', "EUC-JP"),
        (b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset='euc-jp'\">", "EUC-JP"),
        (b"<meta http-equiv='content-type' content='text/html; charset=\"euc-jp\"'>", "EUC-JP"),
        (b'<meta http-equiv="CONTENT-TYPE" content="TEXT/HTML; CHARSET=EUC-JP">', "EUC-JP"),
        (b'<meta http-equiv=content-type content="charset=gbk">', "GBK"),
        (b'<meta http-equiv=content-type content="text/html;charset=gbk;foo">', "GBK"),
        (b'<meta http-equiv=content-type content="text/html; charset = gbk">', "GBK"),
        (b'<meta http-equiv=content-type content="text/html; charset=gbk more">', "GBK"),
        (b'<meta http-equiv=content-type content="charsetcharset=gbk">', "GBK"),
        (b'<meta http-equiv=content-type content="charset; charset=gbk">', "GBK"),
        # content without http-equiv="content-type" is ignored (need pragma, no pragma).
        (b'<meta content="text/html; charset=euc-jp">', None),
        (b'<meta http-equiv="refresh" content="text/html; charset=euc-jp">', None),
        (b'<meta http-equiv=" content-type" content="charset=gbk">', None),
        # An unmatched quote gives nothing, and so does an unknown label.
        (b'<meta http-equiv="Content-Type" content="charset=&quot;x">', None),
        (b"<meta http-equiv=\"Content-Type\" content='charset=\"x'>", None),
        (b"<meta http-equiv=\"Content-Type\" content='charset=\"gbk'>", None),
        (b'<meta http-equiv=content-type content="charset=bogus">', None),
        (b'<meta http-equiv=content-type content="text/html">', None),
        (b'<meta http-equiv=content-type content="charset=">', None),
        # charset beats content, whichever comes first; a failed charset still decides need pragma.
        (b'<meta http-equiv=content-type content="charset=gbk" charset=big5>', "Big5"),
        (b'<meta charset=big5 http-equiv=content-type content="charset=gbk">', "Big5"),
        (b'<meta charset=bogus http-equiv=content-type content="charset=gbk">', None),
        (b'<meta http-equiv=content-type content="charset=gbk" charset=bogus>', None),
        # A content whose charset is unknown leaves charset null for a later content... which is a duplicate.
        (b'<meta http-equiv=content-type content="charset=bogus" content="charset=gbk">', None),
    ],
)
def test_http_equiv_content(implementation, body, expected):
    assert implementation.prescan(body) == expected


# -- duplicates, unknown labels, the scan going on ------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"<meta charset=gbk charset=big5>", "GBK"),  # the first of duplicated attributes wins
        (b"<meta CHARSET=gbk charset=big5>", "GBK"),
        (b'<meta http-equiv=refresh http-equiv=content-type content="charset=gbk">', None),
        (b'<meta content="x" content="charset=gbk" http-equiv=content-type>', None),
        # An unknown label is skipped and the scan goes on to the next <meta>.
        (b"<meta charset=bogus><meta charset=gbk>", "GBK"),
        (b"<meta charset=utf-8/><meta charset=gbk>", "GBK"),
        (b'<meta content="charset=gbk"><meta charset=big5>', "Big5"),
        (b"<meta name=description><meta charset=gbk>", "GBK"),
    ],
)
def test_duplicates_and_unknown_labels(implementation, body, expected):
    assert implementation.prescan(body) == expected


# -- comments, other tags, bogus markup ----------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"<!-- <meta charset=gbk> --><meta charset=big5>", "Big5"),
        (b"<!--<meta charset=gbk>--><meta charset=big5>", "Big5"),
        (b"<!-- -- ><meta charset=gbk> -->", None),  # "--" then ">" is not "-->"
        (b"<!-- <meta charset=gbk>", None),  # a comment that never ends runs out of bytes
        # The "-->" may reuse the dashes of "<!--".
        (b"<!--><meta charset=gbk>", "GBK"),
        (b"<!---><meta charset=gbk>", "GBK"),
        (b"<!----><meta charset=gbk>", "GBK"),
        (b"<!-x-><meta charset=gbk>", "GBK"),  # "<!" bogus: up to the first ">"
        (b"<!DOCTYPE html><meta charset=gbk>", "GBK"),
        (b"<!DOCTYPE html <meta charset=gbk>><meta charset=big5>", "Big5"),
        (b"<?php <meta charset=gbk> ?><meta charset=euc-kr>", "EUC-KR"),
        # Bogus markup ends at the first ">", quotes or not; a tag's quoted value hides a ">".
        (b"<?x a='>' <meta charset=gbk>", "GBK"),
        (b"<!x a='>' <meta charset=gbk>", "GBK"),
        (b"<x a='>' <meta charset=gbk>", None),
        (b"</ <meta charset=gbk>><meta charset=big5>", "Big5"),
        (b"</3 x><meta charset=gbk>", "GBK"),
        # <meta inside another tag's attribute value is not a tag.
        (b'<a title="<meta charset=gbk>"><meta charset=koi8-r>', "KOI8-R"),
        (b"<a title='<meta charset=gbk>'><meta charset=koi8-r>", "KOI8-R"),
        (b"<a title=<meta charset=gbk>", None),  # unquoted: "<meta" is the value, then "charset=gbk>"
        (b"<img alt='>' <meta charset=gbk>", None),
        # End tags are skipped attribute by attribute too.
        (b'</p foo="<meta charset=gbk>"><meta charset=sjis>', "Shift_JIS"),
        (b"</META charset=gbk><meta charset=big5>", "Big5"),
        (b"</meta><meta charset=gbk>", "GBK"),
        # Not a tag: "<" followed by something else is one byte of text.
        (b"< meta charset=gbk><meta charset=big5>", "Big5"),
        (b"<<meta charset=gbk>", "GBK"),
        (b"<3<meta charset=gbk>", "GBK"),
        (b"<p<meta charset=gbk>", None),  # tag name "p<meta", then attribute "charset=gbk"
        (b"<p><meta charset=gbk>", "GBK"),
        (b"<title><meta charset=gbk></title>", "GBK"),  # the prescan knows no raw text
        (b"<script>if (a < b) x = '<meta charset=gbk>'</script>", "GBK"),
        (b"<script>if (a<b) x='<meta charset=gbk>'</script>", None),  # "<b)" is a tag, then a quoted value
        (b"<a =x <meta charset=gbk>", None),  # "=" starts a name
        (b"<a b= <meta charset=gbk>", None),
    ],
)
def test_comments_tags_and_bogus_markup(implementation, body, expected):
    assert implementation.prescan(body) == expected


# -- the 1024-byte window and running out of bytes --------------------------------------------


def test_meta_after_1024_bytes_is_not_found(implementation):
    """Past the window, a <meta> is late_meta's (tests/decoding/test_late_meta.py)."""
    body = b"<html><head>" + b"<!--" + pad(1100) + b"-->" + b"<meta charset=gbk></head><body>x</body>"
    assert implementation.prescan(body) is None


def test_meta_ending_exactly_at_1024_is_found(implementation):
    meta = b"<meta charset=gbk>"
    body = pad(PRESCAN_BYTES - len(meta)) + meta + pad(10)
    assert implementation.prescan(body) == "GBK"


@pytest.mark.parametrize("cut", [1, 5, 10, 17])
def test_meta_cut_by_the_window_does_not_count(implementation, cut):
    """Running out of bytes anywhere aborts the prescan, even with a complete value read."""
    meta = b'<meta charset="gbk" >'
    body = pad(PRESCAN_BYTES - len(meta) + cut) + meta
    assert implementation.prescan(body) is None


def test_truncated_meta_at_the_end_of_a_short_body_does_not_count(implementation):
    assert implementation.prescan(b'<meta charset="gbk"') is None
    assert implementation.prescan(b'<meta charset="gbk" ') is None
    assert implementation.prescan(b"<meta charset=gbk") is None


def test_an_unterminated_tag_before_the_meta_hides_it(implementation):
    assert implementation.prescan(b'<a href="x><meta charset=gbk>') is None


# -- the XML declaration fallback and the UTF-16 XML declaration sniff -----------------------


@pytest.mark.parametrize(
    ("body", "expected", "from_meta"),
    [
        (b"<\x00?\x00x\x00m\x00l\x00", "UTF-16LE", None),
        (b"\x00<\x00?\x00x\x00m\x00l", "UTF-16BE", None),
        (b"<\x00?\x00x\x00", "UTF-16LE", None),  # the encoding name is not checked
        (b'<?xml version="1.0" encoding="windows-1251"?><html>', "windows-1251", None),
        (b'<?xml version="1.0" encoding="utf-16"?><html>', "UTF-8", None),
        # A <meta> wins over the XML declaration: the fallback is for when the loop finds nothing.
        (b'<?xml version="1.0" encoding="windows-1251"?><meta charset=gbk>', "GBK", "GBK"),
        (b'<?xml version="1.0" encoding="windows-1251"?><meta charset=bogus>', "windows-1251", None),
        (b' <?xml version="1.0" encoding="windows-1251"?>', None, None),
    ],
)
def test_xml_declarations(implementation, body, expected, from_meta):
    assert implementation.prescan(body) == expected
    assert implementation.prescan_meta(body) == from_meta


# -- extracting a character encoding from a meta element ------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"text/html; charset=utf-8", "UTF-8"),
        (b"text/html; CHARSET=UTF-8", "UTF-8"),
        (b"charset=utf-8", "UTF-8"),
        (b"charset =\t utf-8", "UTF-8"),
        (b"charset='utf-8'", "UTF-8"),
        (b'charset="utf-8"', "UTF-8"),
        (b'charset="utf-8', None),
        (b"charset='utf-8", None),
        (b"charset=\"utf-8'", None),
        (b"charset=utf-8;x", "UTF-8"),
        (b"charset=utf-8 x", "UTF-8"),
        (b"charset=", None),
        (b"charset", None),
        (b"charset x=utf-8", None),
        (b"charset x; charset=gbk", "GBK"),
        (b"xcharset=gbk", "GBK"),  # "charset" anywhere, even inside another word
        (b"charset=bogus; charset=gbk", None),  # the first charset= decides
        (b"", None),
    ],
)
def test_extract_meta_charset(content, expected):
    assert extract_meta_charset(content) == expected


# -- labels the prescan passes over --------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"<meta charset=bogus>", "bogus"),
        (b"<meta charset='Utf8X'>", "utf8x"),  # lowercased, as "get an attribute" reads values
        (b'<meta charset="">', ""),  # "getting an encoding" from "" is failure too
        (b'<meta http-equiv="Content-Type" content="text/html; charset=Bogus">', "bogus"),
        (b"<meta http-equiv=content-type content='charset=\"bogus\"'>", "bogus"),
        # Without got pragma the content is not read as a declaration; an unmatched quote is "nothing".
        (b'<meta content="text/html; charset=bogus">', None),
        (b"<meta http-equiv=content-type content='charset=\"bogus'>", None),
        # The charset attribute decides, wherever it is; a known one is the prescan's answer.
        (b'<meta charset=bogus http-equiv=content-type content="charset=gbk">', "bogus"),
        (b'<meta http-equiv=content-type content="charset=bogus" charset=gbk>', None),
        (b"<meta charset=gbk charset=bogus>", None),  # the first of duplicates counts
        # The first passed over is said; none after the <meta> the prescan's answer comes from.
        (b"<meta charset=bogus><meta charset=gbk>", "bogus"),
        (b"<meta charset=gbk><meta charset=bogus>", None),
        (b"<meta charset=bogus1><meta charset=bogus2>", "bogus1"),
        # Only a <meta> the loop reads, in the window.
        (b"<!-- <meta charset=bogus> -->", None),
        (b"<a title='<meta charset=bogus>'>", None),
        (b"<meta charset=bogus", None),
        (pad(PRESCAN_BYTES - 10) + b"<meta charset=bogus>", None),
        (b"<meta charset=bogus><a href='x", "bogus"),  # passed over before the bytes ran out
        (b"<meta charset=utf-8>", None),
        (b"<meta name=viewport content='charset=bogus'>", None),
    ],
)
def test_prescan_unknown_label(implementation, body, expected):
    assert implementation.prescan_unknown_label(body) == expected


# -- any input -------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=2048))
def test_never_raises_on_random_bytes(implementation, body):
    implementation.prescan(body)
    implementation.prescan_meta(body)
    implementation.prescan_unknown_label(body)


@pytest.mark.parametrize(
    "body",
    [
        b"<" * 70000,
        b"<!--" * 20000,
        b'<meta content="' * 5000,
        b"<meta " + b"a=b " * 20000 + b">",
        b"<a " * 20000,
        b"<meta charset='" + b"x" * 70000,
        b"<!" * 40000,
    ],
)
def test_hostile_input_gives_no_answer_and_terminates(implementation, body):
    assert implementation.prescan(body) is None
