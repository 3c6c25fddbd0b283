"""Pages and Content-Types for the resolution's tests (test_resolve.py, test_undisputed.py)."""

from __future__ import annotations

from hypothesis import strategies as st

HTML = "text/html"


def page(body: str, head: str = "") -> str:
    return f"<!DOCTYPE html><html><head>{head}<title>t</title></head><body><p>{body}</p></body></html>"


def meta(label: str) -> str:
    return f'<meta charset="{label}">'


# Past the prescan's 1024 bytes: a <meta> after this is a late one.
LONG_COMMENT = "<!--" + "x" * 1100 + "-->"
HEADS = [
    "",
    meta("utf-8"),
    meta("UTF-16LE"),  # the prescan says UTF-8 for it
    meta("gbk"),
    meta("no-such-label"),
    '<meta http-equiv="Content-Type" content="text/html; charset=utf-8">',
    '<meta name="viewport" content="width=device-width">',
    LONG_COMMENT + meta("utf-8"),
    LONG_COMMENT + meta("windows-1251"),
    LONG_COMMENT + meta("no-such-label"),
    LONG_COMMENT,
]
PREFIXES = [
    b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"<?xml version='1.0' encoding='utf-8'?>", b"\x1b$B",
    b"<?xml version='1.0' encoding='gbk'?>", b"<\x00?\x00x\x00", b"\x00<\x00?\x00x",
]  # fmt: skip
CONTENT_TYPES = [
    None,
    HTML,
    "text/html; charset=utf-8",
    'text/html;charset="UTF-8"',
    "text/html; charset=unicode-1-1-utf-8",
    "text/html; charset=shift_jis",
    "text/html; charset=no-such-label",
    "text/plain; charset=utf-8",
    "application/json",
    "application/xhtml+xml; charset=utf-8",
    "application/xhtml+xml",
    "text/xml",
]

#: Pages behind a BOM or not, declaring this or that, in UTF-8 with random text and trailing bytes.
UTF8_PAGES = st.builds(
    lambda prefix, head, text, tail: prefix + page(text, head).encode("utf-8", "surrogatepass") + tail,
    st.sampled_from(PREFIXES),
    st.sampled_from(HEADS),
    st.text(max_size=60),
    st.binary(max_size=8),
)

# Any response: random bytes, or pages in legacy encodings and UTF-8 with an ESC, a damaged byte,
# late <meta>s; Content-Types of every family, with known, unknown and empty charsets.
_CODECS = ["utf-8", "cp1252", "cp1251", "shift_jis", "gbk", "big5", "iso2022_jp", "koi8_r"]
_TEXTS = [
    "Grüße aus Köln", "Привет, как дела?", "日本語のページです", "臺灣", "plain ascii", "CafÃ© â€™", "a \x1b$B b",
]  # fmt: skip
_LEGACY_PAGES = st.builds(
    lambda prefix, head, text, codec, tail: prefix + page(text, head).encode(codec, "replace") + tail,
    st.sampled_from(PREFIXES),
    st.sampled_from(HEADS + [meta("windows-1251"), meta("shift_jis"), LONG_COMMENT + meta("koi8-r")]),
    st.sampled_from(_TEXTS) | st.text(max_size=40),
    st.sampled_from(_CODECS),
    st.sampled_from([b"", b"\xff", b"\xe6\x97"]),
)
ANY_BODIES = st.one_of(st.binary(max_size=2000), UTF8_PAGES, _LEGACY_PAGES)
_LABELS = ["utf-8", "latin1", "shift_jis", "gb2312", "iso-2022-kr", "utf-16", "x-user-defined", "koi8-r", "utf8x", ""]
ANY_CONTENT_TYPES = st.one_of(
    st.sampled_from(CONTENT_TYPES),
    st.text(max_size=40),
    st.builds(
        lambda essence, label: essence if label is None else f"{essence}; charset={label}",
        st.sampled_from(["text/html", "application/xhtml+xml", "application/json", "text/plain", "text/xml", "*/*"]),
        st.none() | st.sampled_from(_LABELS),
    ),
)
