"""A loopback HTTP server of in-memory files with Range support (RFC 9110 section 14), that can drop a
connection mid-body, logging every request: what the remote-input tests read from."""

from __future__ import annotations

import http.server
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

_RANGE = re.compile(r"bytes=(\d+)-(\d*)")


@dataclass
class Served:
    path: str
    #: The Range header asked for, None without one.
    range: str | None
    status: int
    #: The first byte sent and how many were sent before the response ended (or was dropped).
    start: int
    sent: int = 0
    dropped: bool = False


@dataclass
class RangeServer:
    files: dict[str, bytes] = field(default_factory=dict)
    #: path -> drop the connection after this many body bytes, once (the first response of that path to go past it).
    drop_after: dict[str, int] = field(default_factory=dict)
    #: Answer every GET with 200 and the whole file, as a server without Range support does.
    ignore_range: bool = False
    log: list[Served] = field(default_factory=list)
    url: str = ""

    def requests(self, path: str) -> list[Served]:
        return [served for served in self.log if served.path == path]


def _handler(server: RangeServer) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            pass

        def do_GET(self) -> None:
            data = server.files.get(self.path)
            asked = self.headers.get("Range")
            if data is None:
                self.send_error(404)
                return
            etag = f'"{len(data)}-{hash(data) & 0xFFFFFFFF:x}"'
            if self.headers.get("If-Match") not in (None, etag):
                self.send_error(412)
                return
            match = _RANGE.fullmatch(asked or "")
            start = int(match.group(1)) if match and not server.ignore_range else 0
            if start >= len(data) and match and not server.ignore_range:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            ranged = match is not None and not server.ignore_range
            last = int(match.group(2)) if ranged and match and match.group(2) else len(data) - 1
            last = min(last, len(data) - 1)
            served = Served(self.path, asked, 206 if ranged else 200, start)
            server.log.append(served)
            self.send_response(served.status)
            self.send_header("Content-Length", str(last + 1 - start))
            self.send_header("ETag", etag)
            self.send_header("Accept-Ranges", "none" if server.ignore_range else "bytes")
            if served.status == 206:
                self.send_header("Content-Range", f"bytes {start}-{last}/{len(data)}")
            self.end_headers()
            drop = server.drop_after.get(self.path)
            end = full = last + 1
            if drop is not None and start < drop < end:
                end = drop
            try:
                for at in range(start, end, 64 * 1024):
                    chunk = data[at : min(at + 64 * 1024, end)]
                    self.wfile.write(chunk)
                    served.sent += len(chunk)
            except (BrokenPipeError, ConnectionResetError):
                return  # the reader closed: it has what it wanted
            if end < full:
                del server.drop_after[self.path]
                served.dropped = True
                self.close_connection = True
                self.wfile.flush()
                self.connection.shutdown(2)  # mid-body: the reader sees the connection end early

    return Handler


@contextmanager
def serve_files(files: dict[str, bytes], **options) -> Iterator[RangeServer]:
    """A ``RangeServer`` of *files* (path -> bytes) on a free loopback port, for the ``with`` block."""
    server = RangeServer(dict(files), **options)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(server))
    httpd.daemon_threads = True
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, name="range-server", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(10)
