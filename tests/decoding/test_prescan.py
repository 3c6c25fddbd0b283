"""The meta prescan: the HTML Standard's "prescan a byte stream to determine its encoding".

Hand-picked cases for every branch of the algorithm, then a differential test
against ``_reference_prescan``: a literal, byte-at-a-time transcription of the
standard's steps, slow and obviously faithful, that the fast implementation
must agree with on generated HTML-like input.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding.labels import get_encoding
from consumer.decoding.prescan import (
    _DECISIONS,
    PRESCAN_BYTES,
    DecisionCache,
    _scan,
    extract_meta_charset,
    prescan,
    prescan_meta,
)
from consumer.decoding.xml_declaration import get_xml_encoding


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
def test_meta_charset(body, expected):
    assert prescan(body) == expected


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
def test_utf_16_and_x_user_defined_are_remapped(body, expected):
    assert prescan(body) == expected


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
def test_http_equiv_content(body, expected):
    assert prescan(body) == expected


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
def test_duplicates_and_unknown_labels(body, expected):
    assert prescan(body) == expected


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
def test_comments_tags_and_bogus_markup(body, expected):
    assert prescan(body) == expected


# -- the 1024-byte window and running out of bytes --------------------------------------------


def test_meta_after_1024_bytes_is_not_found():
    """Past the window, a <meta> is late_meta's (tests/decoding/test_late_meta.py)."""
    body = b"<html><head>" + b"<!--" + pad(1100) + b"-->" + b"<meta charset=gbk></head><body>x</body>"
    assert prescan(body) is None


def test_meta_ending_exactly_at_1024_is_found():
    meta = b"<meta charset=gbk>"
    body = pad(PRESCAN_BYTES - len(meta)) + meta + pad(10)
    assert prescan(body) == "GBK"


@pytest.mark.parametrize("cut", [1, 5, 10, 17])
def test_meta_cut_by_the_window_does_not_count(cut):
    """Running out of bytes anywhere aborts the prescan, even with a complete value read."""
    meta = b'<meta charset="gbk" >'
    body = pad(PRESCAN_BYTES - len(meta) + cut) + meta
    assert prescan(body) is None


def test_truncated_meta_at_the_end_of_a_short_body_does_not_count():
    assert prescan(b'<meta charset="gbk"') is None
    assert prescan(b'<meta charset="gbk" ') is None
    assert prescan(b"<meta charset=gbk") is None


def test_an_unterminated_tag_before_the_meta_hides_it():
    assert prescan(b'<a href="x><meta charset=gbk>') is None


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
def test_xml_declarations(body, expected, from_meta):
    assert prescan(body) == expected
    assert prescan_meta(body) == from_meta


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


# -- a literal transcription of the standard, as the oracle --------------------------------------


class _RunOut(Exception):
    """The user agent ran out of bytes."""


_SPACE = b"\t\n\x0c\r "


def _reference_prescan(stream: bytes) -> str | None:
    """The standard's steps one byte at a time, over exactly *stream*."""
    try:
        if stream.startswith(b"<\x00?\x00x\x00"):
            return "UTF-16LE"
        if stream.startswith(b"\x00<\x00?\x00x"):
            return "UTF-16BE"
        return _reference_loop(stream)[0]
    except _RunOut:
        return get_xml_encoding(stream)


def _at(stream: bytes, position: int) -> int:
    if position >= len(stream):
        raise _RunOut
    return stream[position]


def _reference_loop(stream: bytes) -> tuple[str, int]:
    position = 0
    while True:
        rest = stream[position:]
        if not rest:
            raise _RunOut
        if rest.startswith(b"<!--"):
            position += 2
            while not (_at(stream, position) == 0x3E and stream[position - 2 : position] == b"--"):
                position += 1
        elif len(rest) >= 6 and rest[:5].lower() == b"<meta" and rest[5] in _SPACE + b"/":
            position += 5
            names, got_pragma, need_pragma, charset = [], False, None, None
            while True:
                attribute, position = _reference_get_an_attribute(stream, position)
                if attribute is None:
                    break
                name, value = attribute
                if name in names:
                    continue
                names.append(name)
                if name == "http-equiv" and value == "content-type":
                    got_pragma = True
                elif name == "content":
                    encoding = extract_meta_charset(value.encode("latin-1"))
                    if encoding is not None and charset is None:
                        charset, need_pragma = encoding, True
                elif name == "charset":
                    charset, need_pragma = get_encoding(value) or "failure", False
            if need_pragma is not None and not (need_pragma and not got_pragma) and charset != "failure":
                remapped = {"UTF-16BE": "UTF-8", "UTF-16LE": "UTF-8", "x-user-defined": "windows-1252"}
                return remapped.get(charset, charset), position + 1
        elif rest[:1] == b"<" and (_is_letter(rest[1:2]) or (rest[1:2] == b"/" and _is_letter(rest[2:3]))):
            while _at(stream, position) not in _SPACE + b">":
                position += 1
            while True:
                attribute, position = _reference_get_an_attribute(stream, position)
                if attribute is None:
                    break
        elif rest[:2] in (b"<!", b"</", b"<?"):
            while _at(stream, position) != 0x3E:
                position += 1
        position += 1


def _is_letter(one: bytes) -> bool:
    return one.isalpha() and one.isascii()


def _lower(byte: int) -> str:
    return chr(byte + 0x20 if 0x41 <= byte <= 0x5A else byte)


def _reference_get_an_attribute(stream: bytes, position: int):
    while _at(stream, position) in _SPACE + b"/":
        position += 1
    if _at(stream, position) == 0x3E:
        return None, position
    name = value = ""
    while True:
        byte = _at(stream, position)
        if byte == 0x3D and name:
            position += 1
            break
        if byte in _SPACE:
            while _at(stream, position) in _SPACE:
                position += 1
            if _at(stream, position) != 0x3D:
                return (name, ""), position
            position += 1
            break
        if byte in b"/>":
            return (name, ""), position
        name += _lower(byte)
        position += 1
    while _at(stream, position) in _SPACE:
        position += 1
    byte = _at(stream, position)
    if byte in b"\"'":
        quote = byte
        while True:
            position += 1
            byte = _at(stream, position)
            if byte == quote:
                return (name, value), position + 1
            value += _lower(byte)
    if byte == 0x3E:
        return (name, ""), position
    value += _lower(byte)
    position += 1
    while True:
        byte = _at(stream, position)
        if byte in _SPACE + b">":
            return (name, value), position
        value += _lower(byte)
        position += 1


# Fragments that exercise every branch: tags, attributes, quotes, comments, bogus markup.
_FRAGMENTS = [
    b"<", b">", b"/", b"=", b'"', b"'", b" ", b"\t", b"\n", b"-", b"!", b"?", b"<!--", b"-->", b"<!", b"</",
    b"<?", b"<meta ", b"<META/", b"<meta", b"<p", b"</p", b"<a ", b"charset", b"charset=", b"CHARSET",
    b"http-equiv", b"content-type", b"content", b"=gbk", b"utf-8", b"UTF-16", b"x-user-defined",
    b"bogus", b"text/html;", b"x", b"\xff", b"\x00", b"<?xml", b"encoding=", b"<body", b"</head>",
    # Whole and partial declarations, so that generated input often has an answer to agree on.
    b"<meta charset=gbk>", b"<meta charset='big5'>", b'<meta http-equiv="Content-Type" content="text/html; charset=sjis">',
    b"<meta content='charset=koi8-r' ", b"http-equiv=content-type>", b" charset=euc-kr", b'<?xml version="1.0" encoding="iso-8859-2"?>',
]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=40))
def test_agrees_with_the_literal_transcription(fragments):
    body = b"".join(fragments)
    assert prescan(body) == _reference_prescan(body[:PRESCAN_BYTES])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=30), st.integers(min_value=0, max_value=40))
def test_agrees_with_the_literal_transcription_across_the_window_edge(fragments, shift):
    body = pad(PRESCAN_BYTES - 40 + shift) + b"".join(fragments)
    assert prescan(body) == _reference_prescan(body[:PRESCAN_BYTES])


@given(st.binary(max_size=2048))
def test_never_raises_on_random_bytes(body):
    prescan(body)
    prescan_meta(body)


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
def test_hostile_input_gives_no_answer_and_terminates(body):
    assert prescan(body) is None


# -- the decision cache: bodies sharing the bytes that decided an answer -------------------------


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from(_FRAGMENTS), max_size=25),
    st.lists(st.lists(st.sampled_from(_FRAGMENTS), max_size=25), min_size=1, max_size=4),
    st.integers(min_value=0, max_value=3),
    st.integers(min_value=0, max_value=PRESCAN_BYTES + 40),
)
def test_cached_answers_agree_with_the_literal_transcription(fragments, suffixes, back, pad_to):
    """A body, then bodies that share its bytes up to its deciding ">" (or up to a few bytes
    before it), through the module's cache, which keeps what earlier examples stored too:
    every answer is the standard's for that body."""
    # Half the examples move the head toward the window's edge, where a <meta> may be cut.
    first = (pad(pad_to) if pad_to % 2 else b"") + b"".join(fragments)
    assert prescan(first) == _reference_prescan(first[:PRESCAN_BYTES])
    found, end = _scan(first, min(len(first), PRESCAN_BYTES))
    shared = first[: end - back] if found is not None else first
    for suffix in suffixes:
        body = shared + b"".join(suffix)
        assert prescan(body) == _reference_prescan(body[:PRESCAN_BYTES])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_FRAGMENTS), max_size=12), min_size=2, max_size=6))
def test_a_tiny_keyed_cache_gives_the_standards_answers(bodies):
    """A 2-byte key makes nearly every body share a key with the others: only the whole stored
    prefix may decide, never the key."""
    cache = DecisionCache(key_bytes=2, max_keys=4, per_key=2)
    for fragments in bodies:
        body = b"".join(fragments)
        expected = _reference_prescan(body[:PRESCAN_BYTES])
        cached = cache.get(body)
        assert cached is None or cached == expected
        if cached is None:
            window_end = min(len(body), PRESCAN_BYTES)
            found, end = _scan(body, window_end)
            if found is not None:
                cache.put(body[:end], found)


def test_a_stored_answer_is_given_to_a_body_with_the_same_head_and_not_to_another():
    head = b'<!DOCTYPE html><html lang="en"><head><meta charset="windows-1251">'
    cache = DecisionCache()
    cache.put(head, "windows-1251")
    assert cache.get(head + b"<title>a</title>") == "windows-1251"
    assert cache.get(head.replace(b"1251", b"1252")) is None  # differs before the ">"
    assert cache.get(head[:-1]) is None  # a body that ends before the ">"
    assert cache.get(b"<!DOCTYPE html><html") is None


def test_the_cache_stays_bounded():
    cache = DecisionCache(key_bytes=32, max_keys=8, per_key=2)
    for i in range(100):
        for variant in range(3):
            cache.put(b"%032d<meta charset=%d>" % (i, variant), "UTF-8")
    assert len(cache._by_key) == 8
    assert all(len(entries) == 2 for entries in cache._by_key.values())
    assert cache.get(b"%032d<meta charset=2>" % 99) == "UTF-8"
    assert cache.get(b"%032d<meta charset=0>" % 99) is None  # pushed out of its key's two
    assert cache.get(b"%032d<meta charset=2>" % 0) is None  # its key was dropped


def test_a_prefix_shorter_than_the_key_is_not_stored():
    cache = DecisionCache(key_bytes=32)
    cache.put(b"<meta charset=gbk>", "GBK")
    assert cache.get(b"<meta charset=gbk>" + b"x" * 40) is None


def test_prescan_answers_a_shared_head_again_after_the_first_page():
    head = b'<!doctype html><html lang="ru"><head><meta name="viewport" content="width=device-width"><meta charset="koi8-r">'
    first, second = head + b"<title>one</title>", head + b"<title>two</title></head><body>" + b"x" * 2000
    assert prescan(first) == prescan(second) == "KOI8-R"
    assert _DECISIONS.get(second) == "KOI8-R"


def test_threads_sharing_the_cache_get_the_standards_answers():
    """decode may run in several threads: eviction races must neither raise nor give a wrong answer."""
    import threading

    cache = DecisionCache(key_bytes=32, max_keys=4, per_key=1)
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
