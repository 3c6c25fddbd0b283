"""Properties of every supported encoding on random bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding.codecs import SUPPORTED, decode_bytes, decode_strict

BYTES = st.one_of(
    st.binary(max_size=48),
    st.lists(st.sampled_from(b"\x00\x0e\x1b$(@BIJ!~\\\x30\x7f\x80\x81\x8e\x8f\xa1\xd8\xdc\xed\xef\xf4\xfe\xff"), max_size=48).map(bytes),
)


@pytest.mark.parametrize("encoding", sorted(SUPPORTED))
@settings(max_examples=150, deadline=None)
@given(data=BYTES)
def test_never_raises_and_strict_agrees(encoding: str, data: bytes) -> None:
    text, errors = decode_bytes(encoding, data)
    assert isinstance(text, str) and errors >= 0
    assert text.count("\ufffd") >= errors
    strict = decode_strict(encoding, data)
    if errors:
        assert strict is None
    else:
        assert strict == text
