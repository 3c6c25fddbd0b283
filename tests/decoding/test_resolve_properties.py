"""decode() never raises, and its result is always self-consistent, on any input."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding import DECLARATION_PLACES, SOURCES, decode
from consumer.decoding.labels import ENCODINGS

LABELS = ["utf-8", "latin1", "shift_jis", "gb2312", "euc-kr", "big5", "iso-2022-kr", "utf-16", "x-user-defined", "koi8-r"]
content_types = st.one_of(
    st.none(),
    st.text(max_size=80),
    st.builds(
        lambda essence, label, junk: f"{essence}; charset={label}{junk}",
        st.sampled_from(["text/html", "application/xhtml+xml", "application/json", "text/plain", "text/xml", "*/*"]),
        st.sampled_from(LABELS) | st.text(max_size=12),
        st.text(max_size=10),
    ),
)
bodies = st.one_of(
    st.binary(max_size=3000),
    st.builds(
        lambda prefix, label, rest: prefix + f'<meta charset="{label}">'.encode() + rest,
        st.sampled_from([b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"<?xml version='1.0'?>", b"<!--"]),
        st.sampled_from(LABELS),
        st.binary(max_size=2000),
    ),
)
urls = st.one_of(st.none(), st.text(max_size=40), st.sampled_from(["https://a.jp/", "http://[::1]/", "http://[bad/", "x"]))


@settings(max_examples=400, deadline=None)
@given(bodies, content_types, urls)
def test_decode_never_raises_and_is_consistent(body, content_type, url):
    decoded = decode(body, content_type, url)
    if decoded.binary is not None:  # not text: nothing decoded (mime_sniff.py)
        assert (decoded.text, decoded.encoding, decoded.source, decoded.replacements) == ("", "", "binary", 0)
        assert decode(body, content_type, url, lazy_text=True) == decoded
        return
    assert decoded.source in SOURCES
    assert decoded.encoding in ENCODINGS
    assert set(decoded.declared) == set(DECLARATION_PLACES)
    assert decoded.lossy == (decoded.replacements > 0)
    assert all(v is None or v in ENCODINGS for v in decoded.declared.values())
    assert isinstance(decoded.text, str)
    # Lazily or not, the same decode: only when the text is built differs.
    lazy = decode(body, content_type, url, lazy_text=True)
    assert lazy == decoded
    # The UTF-8 a writer is handed in place of the text is exactly the text's.
    assert lazy.utf8 is None or lazy.utf8 == decoded.text.encode("utf-8")
    assert lazy.utf8 is not None or decoded.lossy  # only a lossy decode leaves the writer to encode its text


HOSTILE = [
    b"<" * 200_000,
    b"<!--" * 50_000,
    b'<meta content="' * 20_000,
    b"<meta " * 30_000,
    b"<a " * 60_000,
    b"\x1b$B" * 50_000,
    b"\xc3" * 200_000,
    "Ã©".encode() * 100_000,
    b"\x81" * 200_000,
]


def test_hostile_bodies_are_decoded_in_bounded_work():
    # pytest-timeout bounds the whole test; each body is ~200 KB of worst-case structure.
    for body in HOSTILE:
        decoded = decode(body, "text/html", "https://hostile.example.jp/")
        assert decoded.encoding in ENCODINGS


BOMS = {b"\xef\xbb\xbf": "UTF-8", b"\xff\xfe": "UTF-16LE", b"\xfe\xff": "UTF-16BE"}
_PYTHON_CODEC = {"UTF-8": "utf-8", "UTF-16LE": "utf-16-le", "UTF-16BE": "utf-16-be"}


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(BOMS)), st.binary(max_size=600), content_types, urls)
def test_a_bom_is_final_whatever_follows_it_and_whatever_is_declared(bom, rest, content_type, url):
    """The Encoding Standard's decode: the BOM's encoding, U+FFFD for malformed bytes after it, counted."""
    decoded = decode(bom + rest, content_type, url)
    if decoded.binary is not None:
        return  # a body with binary bytes under a generic type is not text at all (mime_sniff.py)
    encoding = BOMS[bom]
    assert (decoded.encoding, decoded.source) == (encoding, "bom")
    # Python's UTF-8 and UTF-16 decoders replace exactly as the standard's do (one U+FFFD per
    # maximal subpart; an odd trailing byte and each lone surrogate one each).
    expected = rest.decode(_PYTHON_CODEC[encoding], "replace")
    assert decoded.text == expected
    assert decoded.replacements == expected.count("\ufffd") - rest.decode(_PYTHON_CODEC[encoding], "ignore").count("\ufffd")
    assert decoded.lossy == (decoded.replacements > 0)
