"""Decoding a body never holds more than 6 bytes a body byte at once (issue 30), whatever the input:
above all a body whose last character is beyond the BMP, which makes the whole text UCS-4 after
it was built as UCS-2 (Big5, gb18030, UTF-16, UTF-8), and bodies of errors. Measured as
tracemalloc's peak over ``decode`` and reading ``.text``, divided by the body's size: a bound on
memory a processor with many large pages in flight relies on, not a timing."""

from __future__ import annotations

import tracemalloc

import pytest

from consumer.decoding import decode

BOUND = 6.0
SIZE = 1 << 20  # large enough that fixed costs vanish, small enough to run fast

ASCII = b"<p>plain ascii text of a page</p>\n"
HAN = "<p>中文字體測試內容，繁體頁面</p>\n"


def body_of(prefix: bytes, tail: bytes) -> bytes:
    """*prefix* repeated to SIZE bytes (cut at a whole prefix), then *tail*."""
    return prefix * (SIZE // len(prefix)) + tail


# (declared charset, repeated prefix, tail): each last character beyond the BMP, after a prefix of
# ASCII (one byte a character: the most characters a byte, the worst case for the widening) or of
# the script; and bodies of errors. bench/memory.py prints the same at 16 MiB.
SHAPES = {
    "Big5 ASCII, astral last": ("big5", ASCII, b"\x87\x45"),
    "Big5 Han, astral last": ("big5", HAN.encode("big5"), b"\x87\x45"),
    "gb18030 ASCII, astral last": ("gb18030", ASCII, "\U00020000".encode("gb18030")),
    "gb18030 Han, astral last": ("gb18030", HAN.encode("gb18030"), "\U00020000".encode("gb18030")),
    "UTF-8 ASCII, astral last": ("utf-8", ASCII, "\U0001f600".encode()),
    "UTF-16LE ASCII, astral last": ("utf-16le", ASCII.decode().encode("utf-16-le"), "😀".encode("utf-16-le")),
    "UTF-16LE lone surrogates": ("utf-16le", b"\x00\xd8A\x00", b""),
    "windows-1253 unmapped bytes": ("windows-1253", b"\xaaa", b""),
    "Shift_JIS errors every byte": ("shift_jis", b"\xff", b""),
    "ISO-2022-JP escapes": ("iso-2022-jp", b"\x1b$B", b""),
}


def peak_ratio(body: bytes, charset: str) -> float:
    tracemalloc.start()
    try:
        decoded = decode(body, f"text/html; charset={charset}", "http://example.test/")
        text = decoded.text
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert text  # read, kept alive until measured
    return peak / len(body)


@pytest.mark.parametrize("name", list(SHAPES))
def test_decoding_peaks_below_six_bytes_a_body_byte(name: str) -> None:
    charset, prefix, tail = SHAPES[name]
    assert peak_ratio(body_of(prefix, tail), charset) <= BOUND


@pytest.mark.parametrize("charset", ["big5", "gb18030"])
def test_a_supplementary_character_anywhere_decodes_as_before_widening(charset: str) -> None:
    """The decoder begins again in UCS-4 at the first supplementary character: the text is the same."""
    astral = "\U00027267" if charset == "big5" else "\U00020000"
    text = HAN * 3000 + astral
    for at in (0, 1, len(HAN), len(text) // 2, len(text) - 1):
        expected = text[:at] + astral + text[at:]
        body = expected.encode("big5hkscs" if charset == "big5" else charset)
        assert decode(body, f"text/html; charset={charset}").text == expected
