"""``overrides recheck``'s pure parts: which records a HOST names, and rebuilding a clean record's bytes."""

from __future__ import annotations

import hashlib

import pytest

from consumer.decoding import decode
from consumer.overrides.recheck import body_of_clean, host_matcher


@pytest.mark.parametrize(
    ("pattern", "url", "expected"),
    [
        ("static.cdn.example.com", "https://static.cdn.example.com/a.css", True),
        ("*.example.com", "https://static.cdn.example.com:8443/", True),
        ("*.example.com", "https://example.com/", False),
        # Written as in the overrides file, in any spelling: an IDN or a trailing dot used to match nothing.
        ("Bücher.example", "https://xn--bcher-kva.example/", True),
        ("bücher.example", "https://BÜCHER.example/", True),
        ("example.jp.", "http://example.jp/", True),
        ("example.jp", "not a url", False),
    ],
)
def test_host_matcher_matches_as_overrides_do(pattern, url, expected):
    assert host_matcher(pattern)(url) is expected


@pytest.mark.parametrize(("pattern", "message"), [("*.jp", "top-level domain"), ("example.jp:8080", "port")])
def test_host_matcher_refuses_what_the_overrides_file_refuses(pattern, message):
    with pytest.raises(ValueError, match=message):
        host_matcher(pattern)


def clean_record(body: bytes, content_type: str) -> dict:
    decoded = decode(body, content_type)
    return {"encoding": decoded.encoding, "source": decoded.source, "text": decoded.text,
            "body_sha256": hashlib.sha256(body).hexdigest()}  # fmt: skip


def test_a_clean_record_is_rebuilt_when_its_hash_confirms_it():
    body = "<p>日本語のページ、ﾊﾝｶｸ</p>".encode("iso2022_jp_ext")  # half-width katakana: ESC ( I
    record = clean_record(body, "text/html; charset=iso-2022-jp")
    assert record["encoding"] == "ISO-2022-JP"
    assert body_of_clean(record) == body  # was None: Python's iso2022_jp cannot encode half-width katakana


def test_a_clean_record_python_cannot_rebuild_is_said_so():
    # The standard's GBK reads 0x80 as U+20AC; Python's gbk encoder refuses U+20AC (codecs/cpython.py).
    record = clean_record(b"<p>\x80 5</p>", "text/html; charset=gbk")
    assert (record["encoding"], record["text"]) == ("GBK", "<p>€ 5</p>")
    assert body_of_clean(record) is None
