"""BOM sniff: https://encoding.spec.whatwg.org/#bom-sniff"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from consumer.decoding.bom import sniff_bom


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"\xef\xbb\xbf<html>", ("UTF-8", 3)),
        (b"\xef\xbb\xbf", ("UTF-8", 3)),
        (b"\xfe\xff\x00<", ("UTF-16BE", 2)),
        (b"\xff\xfe<\x00", ("UTF-16LE", 2)),
        # No UTF-32 in the Encoding Standard: FF FE 00 00 is UTF-16LE's BOM and a U+0000.
        (b"\xff\xfe\x00\x00", ("UTF-16LE", 2)),
        (b"\x00\x00\xfe\xff", (None, 0)),
        # Incomplete BOMs are not BOMs.
        (b"\xef\xbb", (None, 0)),
        (b"\xef", (None, 0)),
        (b"\xfe", (None, 0)),
        (b"", (None, 0)),
        (b"<html>", (None, 0)),
        # Only at the very start.
        (b" \xef\xbb\xbf", (None, 0)),
        (b"<p>\xff\xfe", (None, 0)),
    ],
)
def test_sniff_bom(body, expected):
    assert sniff_bom(body) == expected


@given(st.binary(max_size=64))
def test_never_raises_and_length_matches_a_prefix(body):
    encoding, length = sniff_bom(body)
    assert (encoding is None) == (length == 0)
    assert body[:length] in (b"", b"\xef\xbb\xbf", b"\xfe\xff", b"\xff\xfe")
