"""Whether a response body is text at all: the parts of the MIME Sniffing Standard a text pipeline needs.

A crawl's landing topic holds images, PDFs, fonts and archives besides pages;
decoding those as text gives garbage that looks clean.  ``non_text_type(body,
mime)`` says which bodies are not text, from the declared MIME type first and
the bytes only where the type leaves it open.  It implements, from
https://mimesniff.spec.whatwg.org/ :

* the MIME type groups (#mime-type-groups): image, audio or video, font,
  archive, ZIP-based, XML, JSON, JavaScript;
* the pattern matching algorithm (#pattern-matching-algorithm), its tables
  with their masks and leading whitespace, and the MP4, WebM and
  MP3-without-ID3 signatures (#matching-an-image-type-pattern and the sections
  after it);
* the rules for identifying an unknown MIME type
  (#rules-for-identifying-an-unknown-mime-type), over the resource header
  (#reading-the-resource-header: the first 1445 bytes);
* the rules for distinguishing if a resource is text or binary
  (#rules-for-text-or-binary), the binary data byte rule.

The decision, in order:

1. **Declared text is text**, whatever the bytes: every ``text/*`` but
   text/plain, the XML, JSON and JavaScript MIME types of the standard, and
   ``_OTHER_TEXT_TYPES``.  A browser renders text/html with NUL bytes as
   text (the MIME type sniffing algorithm keeps a supplied HTML or XML type
   as it is), so a page with stray control bytes is decoded, not dropped;
   a binary body mislabelled text/html is decoded too.
2. **text/plain** gets the rules for distinguishing text or binary: a BOM, or
   no binary data byte in the resource header, is text.  Browsers apply them
   only to the four exact values an old Apache bug sent; here they apply to
   every text/plain, since servers label downloads of any kind text/plain
   and nothing else would catch them.  One exception: a charset naming
   UTF-16 declares the NUL bytes (the high bytes of ASCII characters).
3. **Declared binary is binary**, without reading the body: image, audio,
   video, font and model types (but the +xml and +json ones, image/svg+xml
   among them), the archive and ZIP-based types, application/ogg and
   application/pdf of the standard, and ``_OTHER_BINARY_TYPES``.
4. **Anything else is sniffed**: no Content-Type, one that does not parse,
   the generic ones (application/octet-stream, binary/octet-stream,
   unknown/unknown, application/unknown; a bare ``*/*`` is dropped by
   "extract a MIME type"), and any type known neither way.  The rules for
   identifying an unknown MIME type decide: text/plain, text/html and
   text/xml are text, any other result is the body's media type.

Where this differs from the standard, and why:

* The rules for an unknown type run with the sniff-scriptable flag *set*,
  as a browser's navigation does for a response without
  ``X-Content-Type-Options: nosniff`` (the MIME type sniffing algorithm,
  step 2).  The flag guards browsers against running sniffed HTML; nothing
  runs here, and without it a page sent without a type that starts with
  ``<!DOCTYPE html>`` and holds one stray control byte would be dropped as
  binary, and a PDF whose first 1445 bytes hold no binary data byte would be
  decoded as text.
* A generic type is sniffed: a browser downloads application/octet-stream,
  but a crawl keeps whatever text servers send under it.
* Fonts only *name* a body already found binary: the standard leaves font
  sniffing out of browsing contexts, and the Embedded OpenType signature
  ("LP" at offset 34) would claim text bodies.
* A text/plain body found binary is named by its signature (image/png...)
  where the standard says application/octet-stream: the name only labels a
  metric, the verdict is the same.
* The standard's MP3-without-ID3 steps are followed as in Firefox's
  mp3sniff, where they come from; see ``_matches_mp3_without_id3``.
"""

from __future__ import annotations

from collections.abc import Callable

from .bom import BYTE_ORDER_MARKS
from .content_type import MimeType, is_javascript_mime, is_json_mime, is_xml_mime
from .labels import get_encoding

#: The resource header: the bytes the standard's rules look at (#reading-the-resource-header).
RESOURCE_HEADER_BYTES = 1445
OCTET_STREAM = "application/octet-stream"

#: ``media_family`` values: the bounded label of a metric.
MEDIA_FAMILIES = ("image", "audio", "video", "font", "model", "application", "multipart", "text", "message", "other")

# The standard's binary data bytes: the C0 controls but TAB, LF, FF, CR and ESC
# (ESC starts ISO-2022-JP's escapes).
_BINARY_DATA_BYTES = bytes([*range(0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20)])
_WHITESPACE_BYTES = b"\t\n\x0c\r "
_TAG_TERMINATING_BYTES = b" >"
# What the rules for an unknown MIME type return for a text body.
_SNIFFED_TEXT = frozenset({"text/plain", "text/html", "text/xml"})

#: Textual types outside text/* and the standard's XML, JSON and JavaScript groups.
_OTHER_TEXT_TYPES = frozenset({
    "application/x-www-form-urlencoded",  # the URL Standard's serialization: ASCII text
    "application/x-httpd-php",  # Apache's PHP handler name, sent with the script's source or output
    "application/x-php",
    "application/yaml",  # RFC 9512
    "application/x-yaml",
    "application/sql",  # RFC 6922
    "application/x-ndjson",  # newline-delimited JSON, not a +json type
    "model/obj",  # the IANA registrations of these model types say they are text
    "model/mtl",
    "model/vrml",
    "model/x3d-vrml",
})  # fmt: skip

#: Types whose whole family is binary (their +xml and +json types aside).
_BINARY_FAMILIES = frozenset({"image", "audio", "video", "font", "model"})
#: Binary types outside those families.
_OTHER_BINARY_TYPES = frozenset({
    # The standard's groups: audio or video, font, archive, and the scriptable application/pdf.
    "application/ogg",
    "application/font-cff", "application/font-otf", "application/font-sfnt", "application/font-ttf",
    "application/font-woff", "application/vnd.ms-fontobject", "application/vnd.ms-opentype",
    "application/x-rar-compressed", "application/zip", "application/x-gzip",
    "application/pdf",
    # What the rules for an unknown MIME type can name besides those.
    "application/postscript",
    # Common binary formats of a crawl (their IANA registrations), named to skip reading them.
    "application/gzip", "application/x-bzip2", "application/x-xz", "application/zstd", "application/x-7z-compressed",
    "application/x-tar", "application/vnd.rar", "application/java-archive", "application/wasm",
    "application/x-shockwave-flash", "application/msword", "application/vnd.ms-excel",
    "application/vnd.ms-powerpoint", "application/vnd.android.package-archive", "application/x-msdownload",
})  # fmt: skip


def non_text_type(body: bytes, mime: MimeType | None) -> str | None:
    """None when *body* is to be decoded as text, else the media type it is.

    *mime* is the response's MIME type (``content_type.extract_mime_type``),
    None when there was none or it did not parse.  The media type is the
    declared essence ("image/png"), a sniffed one, or application/octet-stream.
    The decision is in the module docstring; a declared text/html type costs
    two string comparisons and reads no byte of the body.
    """
    if mime is None:
        return _sniffed_non_text(body)
    if mime.type == "text":
        return _plain_non_text(body, mime) if mime.subtype == "plain" else None
    if _is_declared_text(mime):
        return None
    return declared_non_text(mime) or _sniffed_non_text(body)  # generic, or known neither way


def declared_non_text(mime: MimeType | None) -> str | None:
    """The essence of *mime* when the type alone says the body is not text (image/png, application/pdf).

    None for a text type, a generic one, and one known neither way: those need
    ``non_text_type`` and the body.  Lets a caller set aside an image or a video
    before it reads, decompresses or size-checks the body.
    """
    if mime is None or mime.type == "text" or _is_declared_text(mime):
        return None
    if mime.type in _BINARY_FAMILIES or mime.subtype.endswith("+zip"):
        return mime.essence
    return mime.essence if mime.essence in _OTHER_BINARY_TYPES else None


def media_family(media_type: str) -> str:
    """A bounded label for *media_type*: its type when one of ``MEDIA_FAMILIES``, else "other"."""
    family = media_type.partition("/")[0]
    return family if family in MEDIA_FAMILIES else "other"


def _is_declared_text(mime: MimeType) -> bool:
    return (
        is_xml_mime(mime) or is_json_mime(mime) or is_javascript_mime(mime) or mime.essence in _OTHER_TEXT_TYPES
    )


def _sniffed_non_text(body: bytes) -> str | None:
    sniffed = sniff_unknown_type(body[:RESOURCE_HEADER_BYTES])
    return None if sniffed in _SNIFFED_TEXT else sniffed


def _plain_non_text(body: bytes, mime: MimeType) -> str | None:
    """The rules for distinguishing if a resource is text or binary, for a text/plain *body*."""
    if get_encoding(mime.parameters.get("charset")) in ("UTF-16LE", "UTF-16BE"):
        return None
    header = body[:RESOURCE_HEADER_BYTES]
    if header.startswith(BYTE_ORDER_MARKS) or not has_binary_data_byte(header):
        return None
    return _signature_type(header) or OCTET_STREAM


def has_binary_data_byte(header: bytes) -> bool:
    """Whether *header* holds one of the standard's binary data bytes (#binary-data-byte)."""
    # Deleting them and comparing lengths reads the bytes once, in C, without a regex's per-call setup.
    return len(header.translate(None, _BINARY_DATA_BYTES)) != len(header)


def sniff_unknown_type(header: bytes) -> str:
    """Implements the rules for identifying an unknown MIME type, the sniff-scriptable flag set.

    https://mimesniff.spec.whatwg.org/#rules-for-identifying-an-unknown-mime-type
    *header* is the resource header.  After the standard's steps, a body they
    call application/octet-stream is named by a font signature if it has one.
    """
    for rows in (_SCRIPTABLE_ROWS, _UNKNOWN_ROWS):
        found = _first_match(rows, header)
        if found is not None:
            return found
    for algorithm in (match_image_type, match_audio_or_video_type, match_archive_type):
        found = algorithm(header)
        if found is not None:
            return found
    if not has_binary_data_byte(header):
        return "text/plain"
    return match_font_type(header) or OCTET_STREAM


def _signature_type(header: bytes) -> str | None:
    """The type of the first non-text signature *header* matches: documents, images, media, archives, fonts."""
    found = _first_match(_DOCUMENT_ROWS, header)
    if found is not None:
        return found
    for algorithm in (match_image_type, match_audio_or_video_type, match_archive_type, match_font_type):
        found = algorithm(header)
        if found is not None:
            return found
    return None


# -- the pattern matching algorithm -----------------------------------------------------------


class _Row:
    """One row of a table: byte pattern, pattern mask, leading bytes to be ignored, MIME type.

    The mask is applied as one integer: 0xFF keeps a byte, 0xDF folds an ASCII
    letter's case, 0x00 ignores the byte.  A pattern ending in the standard's
    TT (a tag-terminating byte, space or ">") is given without it and
    *tag_terminated* set.
    """

    __slots__ = ("pattern", "length", "mask", "value", "first", "skip_whitespace", "tag_terminated", "mime_type")

    def __init__(
        self,
        pattern: str,
        mask: str | None,
        mime_type: str,
        *,
        skip_whitespace: bool = False,
        tag_terminated: bool = False,
    ) -> None:
        self.pattern = bytes.fromhex(pattern)
        self.length = len(self.pattern)
        mask_bytes = bytes.fromhex(mask) if mask is not None else b"\xff" * self.length
        assert len(mask_bytes) == self.length, mime_type  # the standard's step 1
        self.mask = int.from_bytes(mask_bytes)
        self.value = int.from_bytes(self.pattern)
        # The byte a match starts with, when the mask keeps it whole: one comparison rules most rows out.
        self.first = self.pattern[0] if mask_bytes[0] == 0xFF else None
        self.skip_whitespace = skip_whitespace
        self.tag_terminated = tag_terminated
        self.mime_type = mime_type

    def matches(self, header: bytes, after_whitespace: int = 0) -> bool:
        """Implements the pattern matching algorithm (https://mimesniff.spec.whatwg.org/#pattern-matching-algorithm).

        *after_whitespace* is where *header*'s leading whitespace bytes end (the caller finds
        it once for a whole table).
        """
        start = after_whitespace if self.skip_whitespace else 0
        end = start + self.length
        # The standard compares its length first, then reads past the ignored bytes: a header that
        # ends before the pattern does cannot match (its byte is "undefined").
        if end + self.tag_terminated > len(header):
            return False
        if self.first is not None and header[start] != self.first:
            return False
        if self.tag_terminated and header[end] not in _TAG_TERMINATING_BYTES:
            return False
        return int.from_bytes(header[start:end]) & self.mask == self.value


class _Table(tuple[_Row, ...]):
    """The rows of one of the standard's tables, tried in order."""

    skips_whitespace: bool

    def __new__(cls, *rows: _Row) -> _Table:
        table = super().__new__(cls, rows)
        table.skips_whitespace = any(row.skip_whitespace for row in rows)
        return table


def _first_match(table: _Table, header: bytes) -> str | None:
    """The MIME type of the first row of *table* that *header* matches, or None."""
    after_whitespace = len(header) - len(header.lstrip(_WHITESPACE_BYTES)) if table.skips_whitespace else 0
    for row in table:
        if row.matches(header, after_whitespace):
            return row.mime_type
    return None


def _html(pattern: str, mask: str) -> _Row:
    return _Row(pattern, mask, "text/html", skip_whitespace=True, tag_terminated=True)


# The first table of the rules for identifying an unknown MIME type (sniff-scriptable set).
# Each pattern below omits the TT its table row ends with, and its mask the final FF.
_PDF = _Row("25 50 44 46 2D", None, "application/pdf")  # "%PDF-"
_SCRIPTABLE_ROWS = _Table(
    _html("3C 21 44 4F 43 54 59 50 45 20 48 54 4D 4C", "FF FF DF DF DF DF DF DF DF FF DF DF DF DF"),  # <!DOCTYPE HTML
    _html("3C 48 54 4D 4C", "FF DF DF DF DF"),  # <HTML
    _html("3C 48 45 41 44", "FF DF DF DF DF"),  # <HEAD
    _html("3C 53 43 52 49 50 54", "FF DF DF DF DF DF DF"),  # <SCRIPT
    _html("3C 49 46 52 41 4D 45", "FF DF DF DF DF DF DF"),  # <IFRAME
    _html("3C 48 31", "FF DF FF"),  # <H1
    _html("3C 44 49 56", "FF DF DF DF"),  # <DIV
    _html("3C 46 4F 4E 54", "FF DF DF DF DF"),  # <FONT
    _html("3C 54 41 42 4C 45", "FF DF DF DF DF DF"),  # <TABLE
    _html("3C 41", "FF DF"),  # <A
    _html("3C 53 54 59 4C 45", "FF DF DF DF DF DF"),  # <STYLE
    _html("3C 54 49 54 4C 45", "FF DF DF DF DF DF"),  # <TITLE
    _html("3C 42", "FF DF"),  # <B
    _html("3C 42 4F 44 59", "FF DF DF DF DF"),  # <BODY
    _html("3C 42 52", "FF DF DF"),  # <BR
    _html("3C 50", "FF DF"),  # <P
    _html("3C 21 2D 2D", "FF FF FF FF"),  # <!--
    _Row("3C 3F 78 6D 6C", None, "text/xml", skip_whitespace=True),  # <?xml
    _PDF,
)
_POSTSCRIPT = _Row("25 21 50 53 2D 41 64 6F 62 65 2D", None, "application/postscript")  # "%!PS-Adobe-"
# The second table: PostScript, then the BOMs (a BOM followed by any byte).
_UNKNOWN_ROWS = _Table(
    _POSTSCRIPT,
    _Row("FE FF 00 00", "FF FF 00 00", "text/plain"),
    _Row("FF FE 00 00", "FF FF 00 00", "text/plain"),
    _Row("EF BB BF 00", "FF FF FF 00", "text/plain"),
)
_DOCUMENT_ROWS = _Table(_PDF, _POSTSCRIPT)

# https://mimesniff.spec.whatwg.org/#matching-an-image-type-pattern
_IMAGE_ROWS = _Table(
    _Row("00 00 01 00", None, "image/x-icon"),  # Windows Icon
    _Row("00 00 02 00", None, "image/x-icon"),  # Windows Cursor
    _Row("42 4D", None, "image/bmp"),  # "BM"
    _Row("47 49 46 38 37 61", None, "image/gif"),  # "GIF87a"
    _Row("47 49 46 38 39 61", None, "image/gif"),  # "GIF89a"
    _Row("52 49 46 46 00 00 00 00 57 45 42 50 56 50", "FF FF FF FF 00 00 00 00 FF FF FF FF FF FF", "image/webp"),
    _Row("89 50 4E 47 0D 0A 1A 0A", None, "image/png"),
    _Row("FF D8 FF", None, "image/jpeg"),
)

# https://mimesniff.spec.whatwg.org/#matching-an-audio-or-video-type-pattern
_RIFF_MASK = "FF FF FF FF 00 00 00 00 FF FF FF FF"
_AUDIO_VIDEO_ROWS = _Table(
    _Row("46 4F 52 4D 00 00 00 00 41 49 46 46", _RIFF_MASK, "audio/aiff"),  # "FORM" .... "AIFF"
    _Row("49 44 33", None, "audio/mpeg"),  # "ID3"
    _Row("4F 67 67 53 00", None, "application/ogg"),  # "OggS" NUL
    _Row("4D 54 68 64 00 00 00 06", None, "audio/midi"),  # "MThd", 6 as 32 bits
    _Row("52 49 46 46 00 00 00 00 41 56 49 20", _RIFF_MASK, "video/avi"),  # "RIFF" .... "AVI "
    _Row("52 49 46 46 00 00 00 00 57 41 56 45", _RIFF_MASK, "audio/wave"),  # "RIFF" .... "WAVE"
)

# https://mimesniff.spec.whatwg.org/#matching-a-font-type-pattern
_FONT_ROWS = _Table(
    _Row("00" * 34 + "4C 50", "00" * 34 + "FF FF", "application/vnd.ms-fontobject"),  # 34 bytes, "LP"
    _Row("00 01 00 00", None, "font/ttf"),
    _Row("4F 54 54 4F", None, "font/otf"),  # "OTTO"
    _Row("74 74 63 66", None, "font/collection"),  # "ttcf"
    _Row("77 4F 46 46", None, "font/woff"),  # "wOFF"
    _Row("77 4F 46 32", None, "font/woff2"),  # "wOF2"
)

# https://mimesniff.spec.whatwg.org/#matching-an-archive-type-pattern
_ARCHIVE_ROWS = _Table(
    _Row("1F 8B 08", None, "application/x-gzip"),
    _Row("50 4B 03 04", None, "application/zip"),  # "PK" ETX EOT
    _Row("52 61 72 21 1A 07 00", None, "application/x-rar-compressed"),  # "Rar!" SUB BEL NUL
)


def match_image_type(header: bytes) -> str | None:
    """Implements the image type pattern matching algorithm; None is its "undefined"."""
    return _first_match(_IMAGE_ROWS, header)


def match_audio_or_video_type(header: bytes) -> str | None:
    """Implements the audio or video type pattern matching algorithm; None is its "undefined"."""
    found = _first_match(_AUDIO_VIDEO_ROWS, header)
    if found is not None:
        return found
    signatures: tuple[tuple[Callable[[bytes], bool], str], ...] = (
        (_matches_mp4, "video/mp4"), (_matches_webm, "video/webm"), (_matches_mp3_without_id3, "audio/mpeg"),
    )  # fmt: skip
    for matches, mime_type in signatures:
        if matches(header):
            return mime_type
    return None


def match_font_type(header: bytes) -> str | None:
    """Implements the font type pattern matching algorithm; None is its "undefined"."""
    return _first_match(_FONT_ROWS, header)


def match_archive_type(header: bytes) -> str | None:
    """Implements the archive type pattern matching algorithm; None is its "undefined"."""
    return _first_match(_ARCHIVE_ROWS, header)


# -- the signatures that are algorithms ---------------------------------------------------------


def _matches_mp4(sequence: bytes) -> bool:
    """Implements "matches the signature for MP4" (#signature-for-mp4): an ftyp box naming an mp4 brand."""
    length = len(sequence)
    if length < 12:
        return False
    box_size = int.from_bytes(sequence[:4])
    if length < box_size or box_size % 4 != 0:
        return False
    if sequence[4:8] != b"ftyp":
        return False
    if sequence[8:11] == b"mp4":  # the major brand
        return True
    # The compatible brands, past the major brand's version (bytes 12 to 15).
    return any(sequence[read : read + 3] == b"mp4" for read in range(16, box_size, 4))


def _matches_webm(sequence: bytes) -> bool:
    """Implements "matches the signature for WebM" (#signature-for-webm): an EBML header whose DocType is webm."""
    length = len(sequence)
    if length < 4 or sequence[:4] != b"\x1a\x45\xdf\xa3":
        return False
    position = 4
    while position < length and position < 38:
        if sequence[position : position + 2] == b"\x42\x82":  # the DocType element's id
            position += 2
            if position >= length:
                return False
            # The standard's "parse a vint" reads from index 0; the DocType's size starts here.
            position += _vint_size(sequence, position)
            if position >= length - 4:
                return False
            if _matches_padded(sequence, position, b"webm"):
                return True
        position += 1
    return False


def _vint_size(sequence: bytes, index: int) -> int:
    """The number size of "parse a vint": 1 plus the leading zero bits of its first byte, at most 8."""
    mask, size = 0x80, 1
    while size < 8 and size < len(sequence) and not sequence[index] & mask:
        mask >>= 1
        size += 1
    return size


def _matches_padded(sequence: bytes, offset: int, pattern: bytes) -> bool:
    """"Matching a padded sequence": *pattern* at *offset*, after any number of 0x00 bytes."""
    while offset < len(sequence) and sequence[offset] == 0:
        offset += 1
    return sequence[offset : offset + len(pattern)] == pattern


# "mp3-rates" and "mp2.5-rates" of the standard, bits per second by bitrate index, and its
# "sample-rate" table by sample-rate index.
_MPEG1_BITRATES = tuple(kbits * 1000 for kbits in (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320))
_MPEG2_BITRATES = tuple(kbits * 1000 for kbits in (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160))
_SAMPLE_RATES = (44100, 48000, 32000)


def _matches_mp3_without_id3(sequence: bytes) -> bool:
    """Implements "matches the signature for MP3 without ID3" (#signature-for-mp3-without-id3).

    A Layer III frame header, then another one where the first frame's size says.
    Three slips of the standard's text are read as Firefox's mp3sniff, where the
    steps come from, and as MPEG audio defines them: the frame sync needs both of
    its bytes ("and" should be "or" in "return false"); a frame must fit in
    ``length - s`` (the text says ``s - length``, which nothing passes); and the
    32-320 kbit/s rates and the scale 144 are MPEG-1's (version bits 11), the
    8-160 kbit/s rates and the scale 72 those of MPEG-2 and 2.5 (the text swaps
    the tables and keys the scale on the reserved version 1).
    """
    if not _is_mp3_header(sequence, 0):
        return False
    size = _mp3_frame_size(sequence, 0)
    if size < 4 or size > len(sequence):
        return False
    return _is_mp3_header(sequence, size)


def _is_mp3_header(sequence: bytes, s: int) -> bool:
    """"Match an mp3 header": a frame sync and a valid MPEG Layer III header at *s*."""
    if len(sequence) < s + 4:
        return False
    if sequence[s] != 0xFF or sequence[s + 1] & 0xE0 != 0xE0:
        return False
    layer = (sequence[s + 1] & 0x06) >> 1
    bitrate_index = (sequence[s + 2] & 0xF0) >> 4
    sample_rate_index = (sequence[s + 2] & 0x0C) >> 2
    # Layer bits 01 are Layer III (the standard's "final-layer" 4 - 1 = 3); 00 is reserved.
    return layer == 1 and bitrate_index != 15 and sample_rate_index != 3


def _mp3_frame_size(sequence: bytes, s: int) -> int:
    """"Parse an mp3 frame" and "compute an mp3 frame size" for the header at *s*."""
    version = (sequence[s + 1] & 0x18) >> 3  # 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
    bitrates = _MPEG1_BITRATES if version == 3 else _MPEG2_BITRATES
    bitrate = bitrates[(sequence[s + 2] & 0xF0) >> 4]
    sample_rate = _SAMPLE_RATES[(sequence[s + 2] & 0x0C) >> 2] >> {3: 0, 2: 1}.get(version, 2)
    pad = (sequence[s + 2] & 0x02) >> 1
    scale = 144 if version == 3 else 72
    return bitrate * scale // sample_rate + pad
