"""Reading a declared digest's value: base32 read by one int parse gives ``base64.b32decode``'s bytes."""

from __future__ import annotations

import base64
import hashlib

from hypothesis import given
from hypothesis import strategies as st

from consumer.ingest import digest


def test_each_algorithm_s_size_is_hashlib_s():
    assert {name: hashlib.new(name).digest_size for name in digest._ALGORITHMS.values()} == digest._SIZES


@given(st.sampled_from([16, 20, 32, 64]).flatmap(lambda size: st.binary(min_size=size, max_size=size)), st.data())
def test_base32_reads_what_b32decode_reads(value, data):
    written = base64.b32encode(value).decode().rstrip("=")
    # The bits past the last byte: zero as written, any as some writers leave them; either case.
    spare = 5 * len(written) - 8 * len(value)
    if spare:
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
        bits = data.draw(st.integers(0, 2**spare - 1))
        written = written[:-1] + alphabet[(alphabet.index(written[-1]) & ~(2**spare - 1)) | bits]
    if data.draw(st.booleans()):
        written = written.lower()
    padded = written.upper() + "=" * (-len(written) % 8)
    assert digest.base32(written, len(value)) == base64.b32decode(padded)


def test_a_digest_in_base32_is_read_in_either_case():
    value = hashlib.sha1(b"block").digest()
    written = base64.b32encode(value).decode()
    for form in (f"sha1:{written}", f"SHA-1:{written.lower()}", written):
        parsed = digest.parse("WARC-Block-Digest", form)
        assert parsed is not None and parsed.expected == value and parsed.algorithm == "sha1"
