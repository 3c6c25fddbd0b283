"""Transfer codings undone, Content-Encoding left for the processor."""

from __future__ import annotations

import gzip
import zlib

import pytest

from consumer.ingest.transfer_coding import dechunk, remove_transfer_codings, transfer_codings

from warc_samples import chunked

BODY = "<p>Grüße, 世界</p>".encode() * 20
LIMIT = 1 << 20


@pytest.mark.parametrize(
    "data, content, complete",
    [
        pytest.param(chunked(BODY), BODY, True, id="chunks of 7"),
        pytest.param(chunked(BODY, 1), BODY, True, id="one byte a chunk"),
        pytest.param(chunked(BODY, extension=";name=value"), BODY, True, id="chunk extensions ignored"),
        pytest.param(chunked(BODY).replace(b"\r\n", b"\n"), BODY.replace(b"\r\n", b"\n"), True, id="bare LF"),
        pytest.param(b"5\r\nhello\r\n0\r\nExpires: never\r\n\r\n", b"hello", True, id="trailer fields dropped"),
        pytest.param(b"0\r\n\r\n", b"", True, id="empty"),
        pytest.param(b"A\r\n0123456789\r\n", b"0123456789", False, id="no last chunk: the crawler stopped reading"),
        pytest.param(b"A\r\n01234", b"01234", False, id="cut inside a chunk"),
    ],
)
def test_dechunk(data, content, complete):
    assert dechunk(data) == (content, complete)


def test_a_body_already_dechunked_by_the_warc_writer_is_kept_as_stored():
    unwrapped = remove_transfer_codings(b"<html>plain</html>", ["chunked"], LIMIT)
    assert unwrapped.body == b"<html>plain</html>" and unwrapped.complete
    assert "not chunked" in unwrapped.note


def test_gzip_content_coding_inside_chunks_stays_gzip():
    # Content-Encoding: gzip, Transfer-Encoding: chunked: the chunks go, the gzip stays for the processor.
    compressed = gzip.compress(BODY)
    unwrapped = remove_transfer_codings(chunked(compressed, 100), ["chunked"], LIMIT)
    assert unwrapped.body == compressed and unwrapped.note is None


@pytest.mark.parametrize(
    "codings, data",
    [
        # mtime=0: the bytes are in the test id, which every xdist worker must collect alike.
        (["gzip", "chunked"], chunked(gzip.compress(BODY, mtime=0))),
        (["deflate"], zlib.compress(BODY)),
        (["deflate"], zlib.compress(BODY)[2:-4]),  # raw deflate, as some servers send it
    ],
)
def test_transfer_codings_undone_last_applied_first(codings, data):
    unwrapped = remove_transfer_codings(data, codings, LIMIT)
    assert (unwrapped.body, unwrapped.complete, unwrapped.note) == (BODY, True, None)


def test_decompression_stops_past_the_limit():
    unwrapped = remove_transfer_codings(gzip.compress(b"\0" * 100_000), ["gzip"], 1000)
    assert len(unwrapped.body) == 1001  # one byte past the limit: enough to know it must be cut


def test_unknown_or_broken_codings_are_kept_and_said():
    assert "not supported" in remove_transfer_codings(b"x", ["compress"], LIMIT).note
    assert "does not decompress" in remove_transfer_codings(b"not gzip", ["gzip"], LIMIT).note


def test_codings_from_field_values():
    assert transfer_codings(["gzip, Chunked", " identity "]) == ["gzip", "chunked"]
