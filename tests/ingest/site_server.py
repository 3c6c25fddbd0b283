"""A small web site on 127.0.0.1 for the crawler tests: what real crawlers (wget, Scrapy) fetch and record.

Each page says how it is encoded in its own way (the Content-Type charset, a ``<meta>``, nothing but
gzip), one is sent with chunked transfer coding, one is a redirect and one an image.  ``PAGES``
holds what the processor must make of each: a phrase of its text, or that it is not text.
"""

from __future__ import annotations

import contextlib
import gzip
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + b"\x00" * 32


@dataclass(frozen=True)
class Page:
    path: str
    body: bytes
    headers: tuple[tuple[str, str], ...]
    #: A phrase of the decoded text, or None for a page the processor skips as not text.
    phrase: str | None
    status: int = 200
    chunked: bool = False


def _html(title: str, text: str, head: str = "") -> str:
    return f"<!DOCTYPE html><html><head>{head}<title>{title}</title></head><body><p>{text}</p></body></html>"


def _pages() -> list[Page]:
    pages = [
        Page("/utf8.html", _html("utf8", "Grüße aus Köln, 世界").encode("utf-8"),
             (("Content-Type", "text/html; charset=utf-8"),), "Grüße aus Köln, 世界"),
        Page("/shift_jis.html", _html("sjis", "日本語のページです").encode("shift_jis"),
             (("Content-Type", "text/html; charset=Shift_JIS"),), "日本語のページです"),
        Page("/windows-1251.html",
             _html("cp1251", "Привет, мир", '<meta charset="windows-1251">').encode("cp1251"),
             (("Content-Type", "text/html"),), "Привет, мир"),
        Page("/latin1.html", _html("latin1", "Café, crème brûlée").encode("cp1252"),
             (("Content-Type", "text/html; charset=iso-8859-1"),), "Café, crème brûlée"),
        Page("/gzip.html", gzip.compress(_html("gzip", "Komprimiert: äöü ß").encode("utf-8")),
             (("Content-Type", "text/html; charset=utf-8"), ("Content-Encoding", "gzip")), "Komprimiert: äöü ß"),
        Page("/chunked.html", _html("euc-kr", "청크로 보낸 페이지").encode("euc_kr"),
             (("Content-Type", "text/html; charset=EUC-KR"),), "청크로 보낸 페이지", chunked=True),
        Page("/redirect", _html("moved", 'Moved to <a href="/utf8.html">here</a>').encode(),
             (("Location", "/utf8.html"), ("Content-Type", "text/html; charset=utf-8")), "Moved to", status=301),
        Page("/image.png", PNG, (("Content-Type", "image/png"),), None),
    ]  # fmt: skip
    links = "".join(f'<a href="{page.path}">{page.path}</a> ' for page in pages)
    index = Page(
        "/", _html("index", f"Index: {links}").encode(), (("Content-Type", "text/html; charset=utf-8"),), "Index:"
    )
    return [index, *pages]


PAGES = {page.path: page for page in _pages()}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked transfer coding

    def do_GET(self) -> None:  # the http.server API
        page = PAGES.get(self.path.split("?")[0])
        if page is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(page.status)
        for name, value in page.headers:
            self.send_header(name, value)
        if page.chunked:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for start in range(0, len(page.body), 16):
                piece = page.body[start : start + 16]
                self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_header("Content-Length", str(len(page.body)))
            self.end_headers()
            self.wfile.write(page.body)

    def log_message(self, format, *args) -> None:  # noqa: A002 - quiet test output
        pass


@contextlib.contextmanager
def serve_site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
