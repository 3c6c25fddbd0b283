"""Undoing Content-Encoding: bounded, and every failure is a named quarantine reason."""

import gzip
import zlib

import brotli
import pytest

from consumer.processor.content_encoding import Refusal, codings, undo

LIMIT = 64 * 1024
PAGE = "<html><body>Grüße, 東京</body></html>".encode() * 100
BOMB = b"\0" * (50 * 1024 * 1024)  # 50 MiB of zeros: compresses to a few dozen KB


@pytest.mark.parametrize(
    "header, encode",
    [
        ("gzip", gzip.compress),
        ("x-gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda b: zlib.compress(b)[2:-4]),  # raw deflate, as some servers send
        ("br", brotli.compress),
        ("GZIP", gzip.compress),
        ("identity", lambda b: b),
        (None, lambda b: b),
        ("gzip, br", lambda b: brotli.compress(gzip.compress(b))),  # applied in order, undone in reverse
    ],
)
def test_each_supported_coding_is_undone(header, encode):
    assert undo(encode(PAGE), header, LIMIT) == PAGE


@pytest.mark.parametrize("header, encode", [("gzip", gzip.compress), ("deflate", zlib.compress), ("br", brotli.compress)])
def test_a_bomb_is_refused_without_expanding_it(header, encode):
    refusal = undo(encode(BOMB), header, LIMIT)
    assert refusal == Refusal("compression-bomb", f"{header} body expands past the limit of {LIMIT} bytes")


def test_exactly_the_limit_is_accepted_and_one_more_byte_is_not():
    assert undo(gzip.compress(b"a" * LIMIT), "gzip", LIMIT) == b"a" * LIMIT
    assert undo(gzip.compress(b"a" * (LIMIT + 1)), "gzip", LIMIT).reason == "compression-bomb"


def test_a_body_over_the_limit_is_too_large_before_anything_else():
    assert undo(b"x" * (LIMIT + 1), None, LIMIT).reason == "too-large"


@pytest.mark.parametrize(
    "body, header",
    [
        (b"not gzip at all", "gzip"),
        (gzip.compress(PAGE, mtime=0)[:-20], "gzip"),  # mtime=0: the same test id in every xdist worker
        (brotli.compress(PAGE)[:-5], "br"),
        (b"\x00\x01garbage", "deflate"),
    ],
)
def test_corrupt_or_truncated_streams_are_named(body, header):
    assert undo(body, header, LIMIT).reason == "corrupt-content-encoding"


def test_an_unknown_coding_is_unsupported_not_guessed():
    refusal = undo(PAGE, "zstd", LIMIT)
    assert refusal.reason == "unsupported-content-encoding"
    assert "zstd" in refusal.detail


def test_codings_parses_the_header_list():
    assert codings(" gzip , identity,BR ") == ["gzip", "br"]
    assert codings("") == []
    assert codings(None) == []
