"""The HTTP head of a stored response: status, field lines in order, bytes kept as ISO-8859-1."""

from __future__ import annotations

import pytest

from consumer.ingest.http_response import NotHttp, ResponseHead, parse_head


def head(block: bytes) -> ResponseHead:
    parsed = parse_head(block)
    assert isinstance(parsed, ResponseHead), parsed
    return parsed


def test_status_fields_in_order_with_repeats_and_the_body_start():
    block = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\n\r\n<p>gone"
    parsed = head(block)
    assert parsed.status == 404
    assert parsed.headers == (("Content-Type", "text/html"), ("Set-Cookie", "a=1"), ("set-cookie", "b=2"))
    assert block[parsed.body_start :] == b"<p>gone"
    assert parsed.values("SET-COOKIE") == ["a=1", "b=2"]


def test_bytes_outside_ascii_are_iso_8859_1_so_no_byte_is_lost():
    # A UTF-8 "é" (C3 A9) in a value stays two characters, a lone 0xE9 one: the schema's rule, not a guess.
    parsed = head(b'HTTP/1.1 200 OK\r\nContent-Disposition: inline; filename="caf\xc3\xa9\xe9"\r\n\r\n')
    value = parsed.headers[0][1]
    assert value == 'inline; filename="caf\u00c3\u00a9\u00e9"'
    assert value.encode("iso-8859-1") == b'inline; filename="caf\xc3\xa9\xe9"'


@pytest.mark.parametrize(
    "block, status, headers, body",
    [
        pytest.param(
            b"HTTP/1.1 200 OK\nContent-Type: text/plain\n\nbody",
            200,
            (("Content-Type", "text/plain"),),
            b"body",
            id="bare LF lines",
        ),
        pytest.param(b"HTTP/1.1 200\r\nA: 1\r\n\r\n", 200, (("A", "1"),), b"", id="no reason phrase"),
        pytest.param(
            b"HTTP/2 301 Moved\r\nLocation: /x\r\n\r\n",
            301,
            (("Location", "/x"),),
            b"",
            id="HTTP/2 as archivers record it",
        ),
        pytest.param(
            b"HTTP/1.0 200 OK\r\nX-Long: one\r\n  two\r\n\tthree\r\n\r\n",
            200,
            (("X-Long", "one two three"),),
            b"",
            id="obs-fold joined by one space",
        ),
        pytest.param(
            b"HTTP/1.1 200 OK\r\nno colon here\r\nA:  spaced  \r\n\r\n",
            200,
            (("A", "spaced"),),
            b"",
            id="a line without a colon dropped, OWS trimmed",
        ),
        pytest.param(
            b"HTTP/1.1 200 OK\r\nContent-Type : text/html\r\n\r\n",
            200,
            (("Content-Type", "text/html"),),
            b"",
            id="space before the colon",
        ),
        pytest.param(b"HTTP/1.1 200 OK\r\nA: 1\r\n", 200, (("A", "1"),), b"", id="head cut before its empty line"),
        pytest.param(
            b"HTTP/1.1 200 OK\r\n\r\n\r\n\r\nbody", 200, (), b"\r\n\r\nbody", id="body starting with blank lines kept"
        ),
    ],
)
def test_lenient_parsing_of_what_servers_send(block, status, headers, body):
    parsed = head(block)
    assert (parsed.status, parsed.headers, block[parsed.body_start :]) == (status, headers, body)


@pytest.mark.parametrize(
    "block",
    [b"", b"<html>no head</html>", b"HTTX/1.1 200 OK\r\n\r\n", b"HTTP/1.1 2000 OK\r\n\r\n", b"HTTP/1.1 OK\r\n\r\n"],
)
def test_a_block_that_is_no_http_response_says_why(block):
    parsed = parse_head(block)
    assert isinstance(parsed, NotHttp)
    assert "status line" in parsed.reason
