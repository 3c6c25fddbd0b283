"""One candidate's decode (attempt.py): ``as_final`` is ``strictly``, else ``with_replacements``, in one decode."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding.attempt import Provenance, as_final, strictly, utf8, with_replacements
from consumer.decoding.codecs import SUPPORTED
from consumer.decoding.decoded import Decoded

ENCODINGS = sorted(SUPPORTED - {"UTF-8"})  # UTF-8 has its own attempt (attempt.utf8)
DECLARED = {"bom": None, "http-header": None, "meta": None, "xml": None}
FAILED = "detector X does not decode without errors"
WHY = Provenance("detector", DECLARED, ("before",), 0.75)


def _strictly_else_with_replacements(encoding: str, data: bytes, lazy_text: bool):
    decoded = strictly(encoding, data, WHY, lazy_text)
    if decoded is not None:
        return decoded
    return with_replacements(encoding, data, WHY._replace(conflicts=("before", FAILED)))


@settings(max_examples=600, deadline=None)
@given(encoding=st.sampled_from(ENCODINGS), data=st.binary(max_size=300), lazy_text=st.booleans())
def test_as_final_is_the_strict_decode_else_the_lossy_one(encoding, data, lazy_text):
    final = as_final(encoding, data, WHY, FAILED, lazy_text)
    expected = _strictly_else_with_replacements(encoding, data, lazy_text)
    assert final == expected
    assert final.utf8 == expected.utf8  # the lazy writer's bytes too (Decoded's == leaves them out)


@pytest.mark.parametrize(
    ("encoding", "data"),
    [
        ("GBK", "中文页面".encode("gbk")[:-1]),  # cut mid-character by a size limit
        ("Shift_JIS", "日本語".encode("shift_jis") + b"\xff"),
        ("windows-1251", "Привет".encode("cp1251")),
        ("windows-1252", "Ã©tÃ©".encode("cp1252")),  # double-encoded: flagged either way
    ],
)
@pytest.mark.parametrize("lazy_text", [False, True])
def test_as_final_on_pages_a_crawl_sends(encoding, data, lazy_text):
    final = as_final(encoding, data, WHY, FAILED, lazy_text)
    expected = _strictly_else_with_replacements(encoding, data, lazy_text)
    assert final == expected and final.utf8 == expected.utf8
    assert (FAILED in final.conflicts) is final.lossy


@pytest.mark.parametrize("lazy_text", [False, True])
@pytest.mark.parametrize("data", [b"<p>plain</p>", "<p>Caf\u00e9 cr\u00e8me</p>".encode(), "CafÃ© crÃ¨me".encode()])
def test_utf8_builds_the_decoded_its_constructor_would(data, lazy_text):
    """``utf8`` builds its ``Decoded`` with tuple's constructor (the named tuple's costs more than a small page's
    decode): every field, in order, is what ``Decoded(...)`` makes of them, the text and its bytes included."""
    decoded = utf8(data, WHY, lazy_text)
    assert type(decoded) is Decoded
    text = None if lazy_text else data.decode("utf-8")
    expected = Decoded(
        text, "UTF-8", "detector", 0, DECLARED, ("before",), 0.75, data.startswith("Caf\u00c3".encode()), None,
        utf8=data if lazy_text else None,
    )
    assert tuple(decoded) == tuple(expected)
