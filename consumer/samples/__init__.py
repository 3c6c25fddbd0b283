"""Sample crawled responses for the demo and the tests: the traps of the seed study, and binary bodies.

Each sample is a response as a crawler stores it (URL, status, headers, body
bytes) plus what a browser shows, so the demo and the tests can check the
decoder against it.  Bodies are built from text with Python's codecs where
those agree with the WHATWG standard for the characters used, and written
byte by byte where they do not (noted per sample).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Sample:
    name: str
    url: str
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()
    #: The WHATWG encoding a correct decode uses, and the source that decides it.
    expected_encoding: str = ""
    expected_source: str = ""
    #: A fragment of the text a browser shows; None for records meant to be quarantined.
    expected_text: str | None = None
    notes: str = field(default="", compare=False)
    status: int = 200

    @property
    def content_type(self) -> str | None:
        for name, value in self.headers:
            if name.lower() == "content-type":
                return value
        return None


def _html(body: str, head: str = "") -> str:
    return f"<!DOCTYPE html><html><head>{head}<title>sample</title></head><body><p>{body}</p></body></html>\n"


def _meta(charset: str) -> str:
    return f'<meta charset="{charset}">'


CT_HTML = ("Content-Type", "text/html")


def samples() -> list[Sample]:
    """Pages in more than ten encodings, the seed study's traps included."""
    return [
        Sample(
            "utf8-meta-only",
            "https://cafe.example.fr/menu",
            _html("Café crème, 3 €", _meta("utf-8")).encode("utf-8"),
            (CT_HTML,),
            "UTF-8", "meta-prescan", "Café crème, 3 €",
            "requests would decode this as ISO-8859-1: the header names no charset",
        ),
        Sample(
            "utf8-header-cjk",
            "https://shop.example.jp/price",
            _html("価格は1,200円です").encode("utf-8"),
            (("Content-Type", "text/html; charset=UTF-8"),),
            "UTF-8", "http-header", "価格は1,200円です",
        ),
        Sample(
            "shift-jis-fullwidth-tilde",
            "https://www.example.jp/wave",
            # 0x81 0x60 is U+FF5E in WHATWG Shift_JIS; Python's shift_jis makes it U+301C.
            _html("10", _meta("Shift_JIS")).encode("cp932").replace(b"10", b"10\x81\x6020"),
            (CT_HTML,),
            "Shift_JIS", "meta-prescan", "10～20",
        ),
        Sample(
            "gb2312-label-gbk-character",
            "https://news.example.cn/article",
            _html("陶喆的新歌", _meta("gb2312")).encode("gbk"),
            (CT_HTML,),
            "GBK", "meta-prescan", "陶喆的新歌",
            "喆 is outside GB2312; browsers decode the gb2312 label as GBK",
        ),
        Sample(
            "euc-kr-extended-hangul",
            "https://blog.example.kr/post",
            _html("똠방각하", _meta("euc-kr")).encode("cp949"),
            (CT_HTML,),
            "EUC-KR", "meta-prescan", "똠방각하",
            "똠 is a UHC extension syllable, not in KS X 1001",
        ),
        Sample(
            "iso-8859-1-euro",
            "https://boutique.example.fr/prix",
            _html("Prix : 20 € TTC").encode("cp1252"),
            (("Content-Type", "text/html; charset=ISO-8859-1"),),
            "windows-1252", "http-header", "Prix : 20 € TTC",
            "ISO-8859-1 means windows-1252: byte 0x80 is the euro sign",
        ),
        Sample(
            "undeclared-shift-jis",
            "https://www.example.co.jp/",
            _html("日本語のページです。東京都の天気予報、今日は晴れのち曇りでしょう。").encode("cp932"),
            (CT_HTML,),
            "Shift_JIS", "detector", "東京都の天気予報",
        ),
        Sample(
            "header-utf8-meta-big5",
            "https://www.example.tw/",
            _html("臺灣的網頁", _meta("big5")).encode("utf-8"),
            (("Content-Type", "text/html; charset=utf-8"),),
            "UTF-8", "http-header", "臺灣的網頁",
            "the header beats the meta prescan",
        ),
        Sample(
            "utf8-bom-latin1-header",
            "https://www.example.de/",
            b"\xef\xbb\xbf" + _html("Grüße aus Köln").encode("utf-8"),
            (("Content-Type", "text/html; charset=iso-8859-1"),),
            "UTF-8", "bom", "Grüße aus Köln",
            "the BOM beats the header",
        ),
        Sample(
            "windows-1251-russian",
            "https://www.example.ru/",
            _html("Привет, мир! Это русская страница.", _meta("windows-1251")).encode("cp1251"),
            (CT_HTML,),
            "windows-1251", "meta-prescan", "Привет, мир!",
        ),
        Sample(
            "koi8-r-header",
            "https://old.example.ru/",
            _html("Старый сайт в кодировке КОИ-8").encode("koi8_r"),
            (("Content-Type", "text/html; charset=koi8-r"),),
            "KOI8-R", "http-header", "Старый сайт",
        ),
        Sample(
            "iso-8859-7-greek",
            "https://www.example.gr/",
            _html("Καλημέρα κόσμε", _meta("iso-8859-7")).encode("iso8859_7"),
            (CT_HTML,),
            "ISO-8859-7", "meta-prescan", "Καλημέρα κόσμε",
        ),
        Sample(
            "euc-jp-http-equiv",
            "https://www.example.ne.jp/",
            _html(
                "東京タワー",
                '<meta http-equiv="Content-Type" content="text/html; charset=EUC-JP">',
            ).encode("euc_jp"),
            (CT_HTML,),
            "EUC-JP", "meta-prescan", "東京タワー",
        ),
        Sample(
            "big5-header",
            "https://www.example.com.tw/",
            _html("繁體中文網頁").encode("big5"),
            (("Content-Type", "text/html; charset=big5"),),
            "Big5", "http-header", "繁體中文網頁",
        ),
        Sample(
            "utf-16le-bom",
            "https://intranet.example.com/report",
            b"\xff\xfe" + _html("UTF-16 report: naïve résumé").encode("utf-16-le"),
            (CT_HTML,),
            "UTF-16LE", "bom", "naïve résumé",
        ),
        Sample(
            "windows-1256-arabic",
            "https://www.example.sa/",
            _html("مرحبا بالعالم", _meta("windows-1256")).encode("cp1256"),
            (CT_HTML,),
            "windows-1256", "meta-prescan", "مرحبا بالعالم",
        ),
        Sample(
            "json-utf8",
            "https://api.example.com/items",
            '{"name": "Zoë", "price": "12 €"}'.encode(),
            (("Content-Type", "application/json; charset=iso-8859-1"),),
            "UTF-8", "json", "Zoë",
        ),
        Sample(
            "xml-declaration",
            "https://feeds.example.pl/rss",
            '<?xml version="1.0" encoding="windows-1250"?><rss><title>Zażółć gęślą jaźń</title></rss>'.encode("cp1250"),
            (("Content-Type", "application/rss+xml"),),
            "windows-1250", "xml-declaration", "Zażółć gęślą jaźń",
        ),
        Sample(
            "cdn-stale-latin1-header",
            "https://static.cdn.example.com/app/help.html",
            _html("Über uns – Grüße aus Zürich").encode("utf-8"),
            (("Content-Type", "text/html; charset=iso-8859-1"),),
            "UTF-8", "override", "Über uns – Grüße aus Zürich",
            "the header lies; config/overrides.yaml forces UTF-8 for this host (without it: still UTF-8, "
            "source utf-8-over-declaration)",
        ),
        Sample(
            "lossy-utf8",
            "https://broken.example.com/",
            _html("Crème brûlée à la française, déjà vu", _meta("utf-8"))
            .encode("utf-8")
            .replace(b"vu", b"vu \xff\xe2\x82"),
            (CT_HTML,),
            "UTF-8", "meta-prescan", None,
            "declared and mostly UTF-8, with invalid bytes: quarantined, never guessed into mojibake",
        ),
    ]


def _png(width: int = 1, height: int = 1) -> bytes:
    """A valid PNG of *width* x *height* white RGB pixels: signature, IHDR, IDAT and IEND, CRCs and all."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    rows = b"".join(b"\x00" + b"\xff\xff\xff" * width for _ in range(height))  # filter 0, white
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def binary_samples() -> list[Sample]:
    """Responses that are not text: never published as text (skipped, or quarantined as not-text).

    Kept out of ``samples()``, whose every record ends in clean or quarantine.
    ``expected_encoding`` is empty and ``expected_source`` is "binary"; ``notes``
    says what a browser would make of each.
    """
    return [
        Sample(
            "png-image",
            "https://img.example.com/logo.png",
            _png(4, 4),
            (("Content-Type", "image/png"),),
            "", "binary", None,
            "decoding it as text once gave windows-1250 'text', lossy false",
        ),
        Sample(
            "pdf-as-octet-stream",
            "https://docs.example.com/download?id=17",
            b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n",
            (("Content-Type", "application/octet-stream"),),
            "", "binary", None,
            "a generic type is sniffed: the PDF signature, though no binary data byte comes first",
        ),
    ]
