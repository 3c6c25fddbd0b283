"""Which bodies are not text: the MIME Sniffing Standard's groups, signatures and binary data byte rule.

The byte patterns here are written from the standard's tables
(https://mimesniff.spec.whatwg.org/#matching-an-image-type-pattern and the sections after it), not
from consumer/decoding/mime_sniff.py.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding import Decoded, decode
from consumer.decoding.content_type import extract_mime_type, is_javascript_mime, parse_mime_type
from consumer.decoding.mime_sniff import (
    MEDIA_FAMILIES,
    RESOURCE_HEADER_BYTES,
    declared_non_text,
    match_archive_type,
    match_audio_or_video_type,
    match_font_type,
    match_image_type,
    media_family,
    non_text_type,
    sniff_unknown_type,
)

#: The standard's binary data bytes, from its definition (#binary-data-byte).
BINARY_DATA_BYTES = {*range(0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20)}

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
# A PDF's first bytes: its header and binary comment hold no binary data byte.
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
ZIP = b"PK\x03\x04\x14\x00\x00\x00\x08\x00"
GZIP = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"


def verdict(content_type: str | None, body: bytes) -> str | None:
    return non_text_type(body, extract_mime_type(content_type))


# -- declared types ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [
        "text/html", "text/html; charset=utf-8", "TEXT/HTML", "text/css", "text/csv", "text/javascript",
        "text/xml", "text/markdown", "text/vnd.wap.wml",
        "application/xhtml+xml", "application/xml", "application/rss+xml", "application/atom+xml",
        "image/svg+xml", "model/vnd.collada+xml",
        "application/json", "application/ld+json", "application/manifest+json", "model/gltf+json",
        "application/javascript", "application/x-javascript", "application/ecmascript",
        "application/x-www-form-urlencoded", "application/x-httpd-php", "application/yaml", "application/x-ndjson",
        "model/obj", "model/vrml",
    ],
)  # fmt: skip
def test_declared_text_is_text_even_when_the_bytes_look_binary(content_type):
    # A browser renders text/html with NULs as text; a PNG labelled text/html is decoded too.
    assert verdict(content_type, PNG) is None
    assert verdict(content_type, b"caf\xc3\xa9 \x00\x01\x02") is None


@pytest.mark.parametrize("content_type", ["text/html", "application/json", "image/svg+xml", "image/png", "font/woff2"])
def test_a_declared_type_other_than_text_plain_reads_no_byte_of_the_body(content_type):
    # object() has no bytes interface: reading it would raise.
    non_text_type(object(), extract_mime_type(content_type))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("content_type", "expected"),
    [
        ("image/png", "image/png"),
        ("image/jpeg; charset=utf-8", "image/jpeg"),  # a charset does not make an image text
        ("image/x-icon", "image/x-icon"),
        ("audio/mpeg", "audio/mpeg"),
        ("video/mp4", "video/mp4"),
        ("font/woff2", "font/woff2"),
        ("model/gltf-binary", "model/gltf-binary"),
        ("application/ogg", "application/ogg"),
        ("application/pdf", "application/pdf"),
        ("application/postscript", "application/postscript"),
        ("application/zip", "application/zip"),
        ("application/x-gzip", "application/x-gzip"),
        ("application/gzip", "application/gzip"),
        ("application/x-rar-compressed", "application/x-rar-compressed"),
        ("application/epub+zip", "application/epub+zip"),  # a ZIP-based MIME type
        ("application/vnd.ms-fontobject", "application/vnd.ms-fontobject"),
        ("application/font-woff", "application/font-woff"),
        ("application/wasm", "application/wasm"),
        ("application/msword", "application/msword"),
    ],
)
def test_declared_binary_is_binary_without_reading_the_body(content_type, expected):
    assert verdict(content_type, b"<!DOCTYPE html><p>looks like text</p>") == expected
    assert verdict(content_type, b"") == expected
    assert declared_non_text(extract_mime_type(content_type)) == expected


@pytest.mark.parametrize(
    "content_type",
    [None, "text/html", "text/plain", "application/json", "image/svg+xml", "application/octet-stream",
     "application/x-unheard-of", "unknown/unknown"],
)  # fmt: skip
def test_only_the_type_alone_decides_declared_non_text(content_type):
    """Text, generic and unfamiliar types need the body: the declared type alone says nothing."""
    assert declared_non_text(extract_mime_type(content_type)) is None


# -- text/plain: the rules for distinguishing if a resource is text or binary ---------------------


@pytest.mark.parametrize(
    ("content_type", "body", "expected"),
    [
        ("text/plain", b"User-agent: *\nDisallow: /private\n", None),
        ("text/plain; charset=iso-8859-1", "Grüße\tà\r\n".encode("latin-1"), None),
        ("text/plain; charset=ISO-2022-JP", "日本語".encode("iso2022_jp"), None),  # ESC is no binary data byte
        ("text/plain", PNG, "image/png"),
        ("text/plain", JPEG, "image/jpeg"),
        ("text/plain", ZIP, "application/zip"),
        ("text/plain", b"\x00\x01\x00\x00\x00\x10\x01\x00", "font/ttf"),
        ("text/plain", PDF + b"\x00", "application/pdf"),
        ("text/plain", b"log line\x00with a NUL", "application/octet-stream"),
        ("text/plain; charset=utf-8", b"\x01\x02", "application/octet-stream"),
        # A BOM is text, NULs or not.
        ("text/plain", b"\xff\xfeh\x00i\x00", None),
        ("text/plain", b"\xfe\xff\x00h\x00i", None),
        ("text/plain", b"\xef\xbb\xbfh\x00i", None),
        # A charset naming UTF-16 declares its NULs (WHATWG: utf-16 is UTF-16LE).
        ("text/plain; charset=utf-16le", "hi".encode("utf-16-le"), None),
        ("text/plain; charset=utf-16", "hi".encode("utf-16-le"), None),
        ("text/plain; charset=UTF-16BE", "hi".encode("utf-16-be"), None),
        ("text/plain; charset=utf-8", "hi".encode("utf-16-le"), "application/octet-stream"),
        # Only text/plain: the standard's PDF signature does not make a text/plain PDF without
        # binary data bytes binary (a browser shows it as text).
        ("text/plain", PDF, None),
    ],
)
def test_text_plain_is_text_unless_its_header_holds_binary_data(content_type, body, expected):
    assert verdict(content_type, body) == expected


# -- missing, generic and unknown types: the rules for identifying an unknown MIME type -----------


GENERIC_OR_UNKNOWN = [
    None, "", "nonsense", "*/*", "application/octet-stream", "binary/octet-stream", "unknown/unknown",
    "application/unknown", "application/x-unheard-of", "message/rfc822", "multipart/x-mixed-replace; boundary=frame",
]  # fmt: skip


@pytest.mark.parametrize("content_type", GENERIC_OR_UNKNOWN)
@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"Just some words.\r\n", None),
        (b"", None),
        (PNG, "image/png"),
        (JPEG, "image/jpeg"),
        (PDF, "application/pdf"),  # no binary data byte: the signature decides
        (b"%!PS-Adobe-3.0\n%%Title: x\n", "application/postscript"),
        (ZIP, "application/zip"),
        (GZIP, "application/x-gzip"),
        (b"\x00\x01\x02\x03 opaque", "application/octet-stream"),
        # The scriptable table (sniff-scriptable set): HTML and XML are text even with a control byte.
        (b"\n\t <!doctype HTML>\x00<p>x", None),
        (b"<html>\x01", None),
        (b"  <?xml version='1.0'?>\x02<a/>", None),
        (b"<!-- x -->\x00", None),
        # A BOM row: a BOM followed by any byte is text/plain.
        (b"\xef\xbb\xbf\x00\x01", None),
        (b"\xff\xfe\x00\x01", None),
        (b"\xfe\xff\x00\x01", None),
        # ... but the rows are four bytes long: a UTF-16BE BOM and one NUL is binary.
        (b"\xfe\xff\x00", "application/octet-stream"),
    ],
)
def test_other_types_are_sniffed(content_type, body, expected):
    assert verdict(content_type, body) == expected


@pytest.mark.parametrize("byte", range(256))
def test_the_binary_data_byte_rule_reads_exactly_the_resource_header(byte):
    inside = b"a" * (RESOURCE_HEADER_BYTES - 1) + bytes([byte])
    outside = b"a" * RESOURCE_HEADER_BYTES + bytes([byte])
    expected = "application/octet-stream" if byte in BINARY_DATA_BYTES else None
    assert verdict(None, inside) == expected
    assert verdict("text/plain", inside) == expected
    assert verdict(None, outside) is None
    assert verdict("text/plain", outside) is None


# -- the tables: patterns, masks, leading bytes ------------------------------------------------


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (b"\x00\x00\x01\x00\x01\x00", "image/x-icon"),
        (b"\x00\x00\x02\x00\x01\x00", "image/x-icon"),
        (b"BM\x8a\x00", "image/bmp"),
        (b"GIF87a\x01\x00", "image/gif"),
        (b"GIF89a\x01\x00", "image/gif"),
        (b"RIFF\xff\xff\xff\xffWEBPVP8 ", "image/webp"),  # the size bytes are masked out
        (b"RIFF\x00\x00\x00\x00WEBPVP8L", "image/webp"),
        (PNG, "image/png"),
        (JPEG, "image/jpeg"),
        # Near misses.
        (b"RIFF\x00\x00\x00\x00WEBPVX", None),
        (b"RIFF\x00\x00\x00\x00webpvp", None),  # mask FF: case matters
        (b"gif89a", None),
        (b"\x89PNG\r\n\x1a", None),  # shorter than the pattern
        (b" \x89PNG\r\n\x1a\n", None),  # no leading bytes are ignored
    ],
)
def test_image_type_pattern_matching(header, expected):
    assert match_image_type(header) == expected


MP3_FRAME_HEADER = b"\xff\xfb\x90\x00"  # sync, MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, no padding
MP3_FRAME = MP3_FRAME_HEADER + b"\x00" * (128000 * 144 // 44100 - 4)  # 417 bytes


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (b"FORM\x00\x01\x02\x03AIFFCOMM", "audio/aiff"),
        (b"ID3\x04\x00\x00", "audio/mpeg"),
        (b"OggS\x00\x02", "application/ogg"),
        (b"MThd\x00\x00\x00\x06\x00\x01", "audio/midi"),
        (b"RIFF\x10\x20\x30\x40AVI LIST", "video/avi"),
        (b"RIFF\x10\x20\x30\x40WAVEfmt ", "audio/wave"),
        (b"OggS", None),  # the NUL is part of the pattern
        (b"MThd\x00\x00\x00\x07", None),
        # MP4: an ftyp box whose major or a compatible brand starts with "mp4".
        (b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom", "video/mp4"),
        (b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isommp41", "video/mp4"),
        (b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomavc1", None),  # no mp4 brand
        (b"\x00\x00\x00\x1aftypmp42\x00\x00\x00\x00mp42isom\x00\x00", None),  # box size not a multiple of 4
        (b"\x00\x00\x01\x00ftypmp42\x00\x00\x00\x00", None),  # box larger than the header
        # WebM: an EBML header whose DocType (0x42 0x82, a size, the name) is "webm".
        ((b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08"
          b"\x42\x82\x84webm\x42\x87"), "video/webm"),
        (b"\x1a\x45\xdf\xa3\x42\x82\x88\x00\x00\x00\x00webm\x00\x00", "video/webm"),  # padded with NULs
        (b"\x1a\x45\xdf\xa3\x9f\x42\x82\x88matroska\x42\x87\x81\x04", None),
        # MP3 without ID3: two Layer III frame headers one frame apart.
        (MP3_FRAME + MP3_FRAME, "audio/mpeg"),
        (MP3_FRAME + b"\x00" * 8, None),  # no second header where the first frame ends
        (b"\xff\xfd\x90\x00" + b"\x00" * 413 + b"\xff\xfd\x90\x00", None),  # Layer II is not MP3
    ],
)  # fmt: skip
def test_audio_or_video_type_pattern_matching(header, expected):
    assert match_audio_or_video_type(header) == expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (b"\x01" * 34 + b"LP\x00", "application/vnd.ms-fontobject"),  # any 34 bytes, then "LP"
        (b"\x00\x01\x00\x00\x00\x10", "font/ttf"),
        (b"OTTO\x00\x0a", "font/otf"),
        (b"ttcf\x00\x01", "font/collection"),
        (b"wOFF\x00\x01", "font/woff"),
        (b"wOF2\x00\x01", "font/woff2"),
        (b"\x01" * 34 + b"lp", None),
        (b"WOFF", None),
    ],
)
def test_font_type_pattern_matching(header, expected):
    assert match_font_type(header) == expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (GZIP, "application/x-gzip"),
        (b"\x1f\x8b\x07", None),  # 0x08 is deflate, the only method
        (ZIP, "application/zip"),
        (b"Rar!\x1a\x07\x00\xcf", "application/x-rar-compressed"),
        (b"Rar \x1a\x07\x00", None),  # the standard once had a space here; RAR has "!"
    ],
)
def test_archive_type_pattern_matching(header, expected):
    assert match_archive_type(header) == expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        # Tag-terminated rows: a space or ">" must follow, case folded by the 0xDF mask.
        (b"<HTML ", "text/html"),
        (b"<hTmL>", "text/html"),
        (b"<html", "text/plain"),  # the input ends where the tag-terminating byte should be
        (b"<htmlx>", "text/plain"),
        (b"<b>bold</b>", "text/html"),
        (b"<br>", "text/html"),
        (b"<bx>", "text/plain"),
        (b"<h1>", "text/html"),
        (b"<H1 >", "text/html"),
        (b"<!-->", "text/html"),
        # 0xDF clears bit 5 only: "h" and "H" match, 0xC8 (0x48 with bit 7 set) does not.
        (b"<\xc8TML>", "text/plain"),
        # Whitespace bytes are skipped before the scriptable rows; VT is not one of them.
        (b"\t\n\x0c\r <div>", "text/html"),
        (b"\x0b<div>", "application/octet-stream"),
        (b"\r\n<?xml", "text/xml"),
        # The PDF row skips nothing.
        (b" %PDF-1.4", "text/plain"),
        (b"%PDF-1.4", "application/pdf"),
        # Fonts name a binary body only: 34 bytes of text then "LP" is text.
        (b"a" * 34 + b"LP and more text", "text/plain"),
        (b"\x00" * 34 + b"LP", "application/vnd.ms-fontobject"),
        (b"wOF2\x00\x01", "font/woff2"),
    ],
)
def test_rules_for_identifying_an_unknown_mime_type(header, expected):
    assert sniff_unknown_type(header) == expected


# -- through decode() --------------------------------------------------------------------------


def test_decode_reports_a_binary_body_instead_of_decoding_it():
    decoded = decode(PNG, "image/png", "https://img.example.com/a.png")
    assert decoded.binary == "image/png"
    assert (decoded.text, decoded.encoding, decoded.source, decoded.replacements, decoded.lossy) == (
        "", "", "binary", 0, False,
    )  # fmt: skip
    assert decoded.as_dict()["binary"] == "image/png"
    assert decode(PNG).binary == "image/png"
    assert decode(PDF, "application/octet-stream").binary == "application/pdf"


def test_the_binary_verdict_is_part_of_a_decoded_value():
    png, gif = Decoded("", "", "binary", binary="image/png"), Decoded("", "", "binary", binary="image/gif")
    assert png != gif and png == decode(PNG, "image/png")
    assert "binary='image/png'" in repr(png)
    # Callers that predate the field still build a text result.
    assert Decoded("x", "UTF-8", "utf-8-valid").binary is None
    with pytest.raises(AttributeError):
        png.binary = None  # type: ignore[misc]


def test_decode_of_text_has_no_binary_verdict():
    decoded = decode("<p>Grüße</p>".encode("cp1252"), "text/html; charset=windows-1252")
    assert decoded.binary is None and decoded.text == "<p>Grüße</p>"
    assert decoded.as_dict()["binary"] is None
    assert decode(b"<p>\x00NUL</p>", "text/html").binary is None


# -- labels and groups -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("media_type", "family"),
    [
        ("image/png", "image"), ("audio/mpeg", "audio"), ("video/webm", "video"), ("font/woff2", "font"),
        ("model/gltf-binary", "model"), ("application/octet-stream", "application"),
        ("multipart/x-mixed-replace", "multipart"), ("text/plain", "text"), ("message/rfc822", "message"),
        ("x-world/x-vrml", "other"), ("chemical/x-pdb", "other"), ("nonsense", "other"), ("", "other"),
    ],
)  # fmt: skip
def test_media_family_is_bounded(media_type, family):
    assert media_family(media_type) == family
    assert family in MEDIA_FAMILIES


@pytest.mark.parametrize(
    ("essence", "expected"),
    [("text/javascript", True), ("application/x-ecmascript", True), ("text/livescript", True),
     ("text/javascript1.5", True), ("application/json", False), ("text/jsx", False)],
)  # fmt: skip
def test_javascript_mime_types_are_the_standards_list(essence, expected):
    assert is_javascript_mime(parse_mime_type(essence)) is expected
    assert not is_javascript_mime(None)


# -- properties -------------------------------------------------------------------------------

content_types = st.one_of(
    st.none(),
    st.text(max_size=40),
    st.builds(lambda t, s: f"{t}/{s}", st.sampled_from(["text", "image", "application", "font", "model", "x"]),
              st.sampled_from(["plain", "html", "png", "octet-stream", "svg+xml", "x+json", "epub+zip", "unknown"])),
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=3000), content_types)
def test_never_raises_and_names_a_bounded_family(body, content_type):
    found = verdict(content_type, body)
    assert found is None or ("/" in found and media_family(found) in MEDIA_FAMILIES)


# Every signature without a binary data byte starts with one of these bytes: "BM", "GIF8",
# JPEG's and MP3's 0xFF, "ID3", "RIFF", "FORM", "%PDF-", "%!PS-Adobe-".  The others (PNG's SUB,
# ICO's, MP4's box size and the fonts' NULs, WebM's SUB, ZIP's ETX...) hold one.
SIGNATURE_STARTS = set(b"BGIRF%\xff")
no_binary_data_bytes = st.lists(
    st.integers(0, 255).filter(lambda b: b not in BINARY_DATA_BYTES), max_size=2000
).map(bytes)


@settings(max_examples=500, deadline=None)
@given(no_binary_data_bytes)
def test_without_a_type_a_body_with_no_binary_data_byte_is_text(body):
    if body[:1] and body[0] in SIGNATURE_STARTS:
        body = b" " + body
    assert non_text_type(body, None) is None
    assert verdict("application/octet-stream", body) is None
