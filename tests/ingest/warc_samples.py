"""WARC and ARC files made in the tests: warcio writes the WARC records, ARC is written by hand (its format
is one header line per record), malformed records are spliced in as bytes.

``WarcBuilder`` remembers each record's offset so tests can assert what the reader reports.
"""

from __future__ import annotations

import gzip as gzip_module
import io
import zlib
from dataclasses import dataclass, field

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

HTTP = "application/http; msgtype=response"


def http_block(
    status: int, headers: list[tuple[str, str]] | list[tuple[bytes, bytes]], body: bytes, reason: str = "OK"
) -> bytes:
    """An HTTP/1.1 response exactly as a server sends it (names and values as given, bytes kept)."""
    lines = [f"HTTP/1.1 {status} {reason}".encode()]
    for name, value in headers:
        name = name if isinstance(name, bytes) else name.encode("latin-1")
        value = value if isinstance(value, bytes) else value.encode("latin-1")
        lines.append(name + b": " + value)
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def chunked(body: bytes, size: int = 7, *, last: bool = True, extension: str = "") -> bytes:
    """*body* in chunks of *size* bytes (optional chunk extension), with the last chunk unless *last* is False."""
    out = b""
    for start in range(0, len(body), size):
        piece = body[start : start + size]
        out += f"{len(piece):x}{extension}\r\n".encode() + piece + b"\r\n"
    return out + (b"0\r\n\r\n" if last else b"")


@dataclass
class WarcBuilder:
    gzip: bool = False
    buffer: io.BytesIO = field(default_factory=io.BytesIO)
    #: (kind, offset) of every record in the order written.
    records: list[tuple[str, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.writer = WARCWriter(self.buffer, gzip=self.gzip, warc_version="WARC/1.1")

    def _write(self, kind: str, record) -> int:
        offset = self.buffer.tell()
        self.writer.write_record(record)
        self.records.append((kind, offset))
        return offset

    def warcinfo(self, **fields: str) -> int:
        return self._write("warcinfo", self.writer.create_warcinfo_record("test.warc", fields))

    def response(self, url: str, block: bytes, *, date: str | None = None, ip: str | None = None, **extra: str) -> int:
        headers = {"WARC-Date": date} if date else {}
        if ip:
            headers["WARC-IP-Address"] = ip
        headers.update({name.replace("_", "-"): value for name, value in extra.items()})
        record = self.writer.create_warc_record(
            url, "response", payload=io.BytesIO(block), length=len(block), warc_content_type=HTTP,
            warc_headers_dict=headers,
        )  # fmt: skip
        return self._write("response", record)

    def page(self, url: str, body: bytes, content_type: str = "text/html; charset=utf-8", **kwargs) -> int:
        return self.response(
            url, http_block(200, [("Content-Type", content_type), ("Content-Length", str(len(body)))], body), **kwargs
        )

    def request(self, url: str) -> int:
        block = f"GET {url} HTTP/1.1\r\nHost: example.com\r\n\r\n".encode()
        record = self.writer.create_warc_record(
            url,
            "request",
            payload=io.BytesIO(block),
            length=len(block),
            warc_content_type="application/http; msgtype=request",
        )
        return self._write("request", record)

    def revisit(self, url: str) -> int:
        http = StatusAndHeaders("304 Not Modified", [("ETag", '"abc"')], protocol="HTTP/1.1")
        record = self.writer.create_revisit_record(
            url, "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", url, "2024-01-01T00:00:00Z", http_headers=http
        )
        return self._write("revisit", record)

    def metadata(self, url: str) -> int:
        block = b"outlinks: https://example.com/a\r\n"
        record = self.writer.create_warc_record(
            url, "metadata", payload=io.BytesIO(block), length=len(block), warc_content_type="application/warc-fields"
        )
        return self._write("metadata", record)

    def dns(self, host: str) -> int:
        """A DNS lookup as Heritrix records it: a response record of type text/dns."""
        block = f"20240102030405\n{host}.\t300\tIN\tA\t93.184.216.34\n".encode()
        record = self.writer.create_warc_record(
            f"dns:{host}", "response", payload=io.BytesIO(block), length=len(block), warc_content_type="text/dns"
        )
        return self._write("dns", record)

    def resource(self, url: str) -> int:
        block = b"wget log"
        record = self.writer.create_warc_record(
            url, "resource", payload=io.BytesIO(block), length=len(block), warc_content_type="text/plain"
        )
        return self._write("resource", record)

    def raw(self, kind: str, data: bytes) -> int:
        """Bytes written as they are (a malformed record)."""
        offset = self.buffer.tell()
        self.buffer.write(data)
        self.records.append((kind, offset))
        return offset

    def getvalue(self) -> bytes:
        return self.buffer.getvalue()


def broken_warc_header(gzip: bool) -> bytes:
    """A record whose WARC version line is not one: warcio cannot read it."""
    data = b"WORC/9.9\r\nWARC-Type: response\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n"
    return gzip_module.compress(data) if gzip else data


def corrupt_gzip_member() -> bytes:
    """A gzip member whose deflate data is damaged: its record cannot be inflated."""
    builder = WarcBuilder(gzip=True)
    builder.page("https://example.com/corrupt", b"<p>" + b"lost " * 200 + b"</p>")
    member = bytearray(builder.getvalue())
    member[40:80] = bytes(range(40))
    return bytes(member)


def arc_file(records: list[tuple[str, str, str, bytes]], *, gzip: bool = False) -> bytes:
    """An ARC v1 file: a filedesc record, then (url, ip, 14-digit date, HTTP block) records."""
    desc_body = b"1 0 crawl-decoder-tests\nURL IP-address Archive-date Content-type Archive-length\n"
    parts = [b"filedesc://test.arc 0.0.0.0 20240102030405 text/plain %d\n" % len(desc_body) + desc_body + b"\n"]
    for url, ip, date, block in records:
        header = f"{url} {ip} {date} text/html {len(block)}\n".encode()
        parts.append(header + block + b"\n")
    if gzip:
        return b"".join(gzip_module.compress(part) for part in parts)
    return b"".join(parts)


def hand_written_response(url: str, block: bytes, *, gzip: bool = False) -> bytes:
    """A well-formed WARC response record around any *block* (warcio's writer insists on parsing HTTP)."""
    head = (
        f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>\r\n"
        f"WARC-Target-URI: {url}\r\nWARC-Date: 2024-05-06T07:08:09Z\r\nContent-Type: {HTTP}\r\n"
        f"Content-Length: {len(block)}\r\n\r\n"
    ).encode()
    record = head + block + b"\r\n\r\n"
    return gzip_module.compress(record) if gzip else record


def many_pages(path, count: int, body_bytes: int = 2000) -> list[str]:
    """A gzip-per-record WARC of *count* pages at *path* (distinct URLs and bodies); returns the URLs."""
    filler = ("Grüße aus der Ingest-Prüfung. " * (body_bytes // 30 + 1)).encode()[:body_bytes]
    urls = []
    with open(path, "wb") as out:
        writer = WARCWriter(out, gzip=True)
        writer.write_record(writer.create_warcinfo_record(str(path), {"isPartOf": "many-pages"}))
        for n in range(count):
            url = f"https://example.com/page/{n}"
            body = f"<p>{n}</p>".encode() + filler
            block = http_block(200, [("Content-Type", "text/html; charset=utf-8")], body)
            writer.write_record(writer.create_warc_record(
                url, "response", payload=io.BytesIO(block), length=len(block), warc_content_type=HTTP
            ))  # fmt: skip
            urls.append(url)
    return urls


def warc_record(lines: list[str], block: bytes, *, version: str = "WARC/1.1", length: int | None = None) -> bytes:
    """A WARC record written by hand: the header *lines* exactly as given (any case, folded, any date), then
    Content-Length (of *block* unless *length* says otherwise) and *block*."""
    size = len(block) if length is None else length
    head = "\r\n".join([version, *lines, f"Content-Length: {size}"]) + "\r\n\r\n"
    return head.encode("latin-1") + block + b"\r\n\r\n"


def gzip_stream_at_records(records: list[bytes]) -> tuple[bytes, list[int]]:
    """*records* gzip-compressed as ONE stream (one member), flushed after each record; with the compressed
    offset at which each record's bytes are all out (a damage past it leaves that record whole)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    out, flushed = b"", []
    for record in records:
        out += compressor.compress(record) + compressor.flush(zlib.Z_FULL_FLUSH)
        flushed.append(len(out))
    return out + compressor.flush(), flushed
