"""Inputs of ``crawl-decoder ingest`` read over the network: ``http(s)://`` URLs and ``s3://bucket/key``.

Nothing is staged on disk: ``RangeReader`` is a seekable stream over one remote object whose every
(re)connection is a GET with ``Range: bytes=N-`` (RFC 9110, section 14.2), so

- a rerun resumes at its checkpoint with one request for the rest of the object, not from the start;
- a connection dropped mid-object is opened again at the byte where it stopped (bounded retries,
  counted again only when no byte came between two drops);
- the rare backward seek (stepping over a malformed record) is one more request.

Every request after the first carries ``If-Match`` with the first response's strong ETag: an object
replaced while it is read is an error, not a file spliced from two versions.  A server that ignores
``Range`` (200 instead of 206) still works: the bytes before the position are read and dropped.

S3 requests are signed with AWS Signature Version 4 (``sign_v4``), stdlib only: one GET per
connection needs no SDK, and boto3 with botocore weighs some 100 MB installed, far more than the
rest of the ingest, for a call we must wrap in our own Range and retry logic anyway.  Credentials
come from the variables every AWS tool reads (``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``,
``AWS_SESSION_TOKEN``, ``AWS_REGION`` or ``AWS_DEFAULT_REGION``; ``AWS_ENDPOINT_URL_S3`` or
``AWS_ENDPOINT_URL`` for an S3-compatible store, addressed path-style); none set: unsigned requests,
as a public bucket takes them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import http.client
import io
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing_extensions import Buffer

from .exceptions import SourceError

SCHEMES = ("http://", "https://", "s3://")
#: Connections opened again in a row without a byte read between them before the input fails.
RETRIES = 5
TIMEOUT_S = 60.0
#: A forward seek shorter than this reads on through the open connection instead of opening another.
SKIP_IN_PLACE = 1024 * 1024
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")
_RETRIED_STATUS = frozenset({429, 500, 502, 503, 504})
#: What a dropped or stalled connection raises while its body is read.
_DROPPED = (http.client.HTTPException, ConnectionError, TimeoutError, OSError)


def is_remote(path: str) -> bool:
    return path.startswith(SCHEMES)


@dataclass(frozen=True)
class S3Credentials:
    access_key: str
    secret_key: str = field(repr=False)
    session_token: str | None = field(default=None, repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> S3Credentials | None:
        env = os.environ if env is None else env
        access, secret = env.get("AWS_ACCESS_KEY_ID", ""), env.get("AWS_SECRET_ACCESS_KEY", "")
        if not access or not secret:
            return None
        return cls(access, secret, env.get("AWS_SESSION_TOKEN") or None)


@dataclass(frozen=True)
class S3Location:
    """Where ``s3://bucket/key`` is fetched from, and how requests to it are signed."""

    url: str
    region: str
    credentials: S3Credentials | None


def s3_location(uri: str, env: Mapping[str, str] | None = None) -> S3Location:
    """The HTTPS (or configured endpoint's) URL of ``s3://bucket/key``."""
    env = os.environ if env is None else env
    bucket, _, key = uri[len("s3://") :].partition("/")
    if not bucket or not key:
        raise SourceError(f"{uri}: an S3 input is s3://BUCKET/KEY")
    region = env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1"
    quoted = urllib.parse.quote(key, safe="/-_.~")
    endpoint = (env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL") or "").rstrip("/")
    # Path-style on a configured endpoint (S3-compatible stores need it); virtual-hosted on AWS.
    url = f"{endpoint}/{bucket}/{quoted}" if endpoint else f"https://{bucket}.s3.{region}.amazonaws.com/{quoted}"
    return S3Location(url, region, S3Credentials.from_env(env))


def sign_v4(
    url: str,
    headers: Mapping[str, str],
    credentials: S3Credentials,
    region: str,
    *,
    now: dt.datetime | None = None,
    service: str = "s3",
) -> dict[str, str]:
    """*headers* plus the ``Authorization`` of AWS Signature Version 4 for a GET of *url* with no body.

    Implements the AWS documentation's "Create a signed AWS API request" (canonical request, string
    to sign, signing key derived date -> region -> service -> aws4_request); every header given is signed.
    """
    moment = now or dt.datetime.now(dt.UTC)
    amz_date = moment.strftime("%Y%m%dT%H%M%SZ")
    parts = urllib.parse.urlsplit(url)
    signed = {name.lower(): value.strip() for name, value in headers.items()}
    signed.update({"host": parts.netloc, "x-amz-date": amz_date, "x-amz-content-sha256": EMPTY_SHA256})
    if credentials.session_token:
        signed["x-amz-security-token"] = credentials.session_token
    names = sorted(signed)
    query = "&".join(
        f"{urllib.parse.quote(k, safe='-_.~')}={urllib.parse.quote(v, safe='-_.~')}"
        for k, v in sorted(urllib.parse.parse_qsl(parts.query, keep_blank_values=True))
    )
    canonical = "\n".join([
        "GET", parts.path or "/", query, "".join(f"{name}:{signed[name]}\n" for name in names), ";".join(names),
        EMPTY_SHA256,
    ])  # fmt: skip
    scope = f"{amz_date[:8]}/{region}/{service}/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + credentials.secret_key).encode()
    for part in (amz_date[:8], region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    signed["authorization"] = (
        f"AWS4-HMAC-SHA256 Credential={credentials.access_key}/{scope}, "
        f"SignedHeaders={';'.join(names)}, Signature={signature}"
    )
    del signed["host"]  # urllib sends it from the URL, as signed
    return signed


class RangeReader(io.RawIOBase):
    """One remote object as a seekable, read-only raw stream (see the module docstring)."""

    def __init__(
        self,
        name: str,
        url: str,
        *,
        sign: Callable[[str, dict[str, str]], dict[str, str]] | None = None,
        timeout: float = TIMEOUT_S,
        retries: int = RETRIES,
    ) -> None:
        super().__init__()
        self.name = name
        self.url = url
        self._sign = sign
        self._timeout = timeout
        self._retries = retries
        self._response: http.client.HTTPResponse | None = None
        #: Where the open response's next byte is; where the reader is.
        self._at = 0
        self._position = 0
        #: Bytes in the object, once a response said.
        self.size: int | None = None
        self._etag: str | None = None
        #: Connections opened, with the offset each started at (for logs and tests).
        self.requests: list[int] = []

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_CUR:
            offset += self._position
        elif whence == io.SEEK_END:
            if self.size is None:
                self._connect()
            assert self.size is not None  # a response said it, or _connect raised
            offset += self.size
        if offset < 0:
            raise OSError(f"negative position {offset}")
        self._position = offset
        return offset

    def readinto(self, buffer: Buffer) -> int:
        view = memoryview(buffer).cast("B")
        if not len(view) or (self.size is not None and self._position >= self.size):
            return 0
        failures = 0
        while True:
            error: Exception | None = None
            try:
                self._reach_position()
                assert self._response is not None  # _reach_position opened it
                count = self._response.readinto(view)
            except _DROPPED as exc:
                count, error = 0, exc
            if count:
                self._at += count
                self._position = self._at
                return count
            if self.size is not None and self._position >= self.size:
                return 0
            # The connection ended before the object did: open it again where it stopped.
            self._drop()
            failures += 1
            if failures > self._retries:
                raise SourceError(
                    f"{self.name}: connection lost at offset {self._position} {failures} times in a row"
                    + (f" ({error})" if error else "")
                )
            time.sleep(min(0.1 * 2**failures, 5.0))  # backing off before asking the server again

    def head(self, count: int) -> bytes:
        """The first *count* bytes (fewer in a shorter object) in a request of their own, ``Range: bytes=0-N``:
        an input's identity costs no more than that, and the next read asks for where it resumes."""
        self._drop()
        self._position = 0
        self._connect(last=count - 1)
        parts, got = [], 0
        while got < count and (chunk := self.read(count - got)):
            parts.append(chunk)
            got += len(chunk)
        self._drop()
        self._position = 0
        return b"".join(parts)

    def close(self) -> None:
        self._drop()
        super().close()

    def _reach_position(self) -> None:
        """Have an open response whose next byte is the reader's position."""
        if self._response is not None and self._at != self._position:
            ahead = self._position - self._at
            if 0 < ahead <= SKIP_IN_PLACE:
                self._discard(ahead)
            else:
                self._drop()
        if self._response is None:
            self._connect()

    def _discard(self, count: int) -> None:
        assert self._response is not None  # only an open response is read on
        while count:
            chunk = self._response.read(min(count, 64 * 1024))
            if not chunk:
                raise http.client.IncompleteRead(b"", count)
            count -= len(chunk)
            self._at += len(chunk)

    def _connect(self, last: int | None = None) -> None:
        start = self._position
        headers = {"Range": f"bytes={start}-{'' if last is None else last}"}
        if self._etag is not None:
            headers["If-Match"] = self._etag
        if self._sign is not None:
            headers = self._sign(self.url, headers)
        request = urllib.request.Request(self.url, headers=headers, method="GET")
        self.requests.append(start)
        failures = 0
        while True:
            try:
                response = urllib.request.urlopen(request, timeout=self._timeout)
                break
            except urllib.error.HTTPError as exc:
                if exc.code == 416:  # asked from the end: nothing there
                    where = "is empty" if start == 0 else f"has nothing at offset {start}"
                    raise SourceError(f"{self.name} {where}") from exc
                if exc.code not in _RETRIED_STATUS or failures >= self._retries:
                    raise SourceError(f"{self.name}: {_describe(exc)}") from exc
            except (urllib.error.URLError, *_DROPPED) as exc:
                if failures >= self._retries:
                    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
                    raise SourceError(f"{self.name}: cannot connect: {reason}") from exc
            failures += 1
            time.sleep(min(0.1 * 2**failures, 5.0))  # backing off before asking the server again
        self._accept(response, start)

    def _accept(self, response: http.client.HTTPResponse, start: int) -> None:
        etag = response.headers.get("ETag")
        if self._etag is None and etag and not etag.startswith("W/"):
            self._etag = etag
        if response.status == 206:
            match = _CONTENT_RANGE.fullmatch(response.headers.get("Content-Range", "").strip())
            if match is None or int(match.group(1)) != start:
                response.close()
                raise SourceError(f"{self.name}: the server answered a range other than bytes={start}-")
            if match.group(3) != "*":
                self.size = int(match.group(3))
            self._response, self._at = response, start
            return
        # 200: the whole object (a server without Range support); its length is the object's size.
        length = response.headers.get("Content-Length")
        if length is not None and length.isascii() and length.isdigit():
            self.size = int(length)
        self._response, self._at = response, 0
        if start:
            self._discard(start)

    def _drop(self) -> None:
        if self._response is not None:
            try:
                self._response.close()
            except _DROPPED:
                pass  # a connection already broken closes as it is
            self._response = None


def _describe(exc: urllib.error.HTTPError) -> str:
    """``HTTP 403 Forbidden``, with S3's error code and message when the body has them."""
    text = f"HTTP {exc.code} {exc.reason}"
    try:
        body = exc.read(4096).decode("utf-8", "replace")
    except _DROPPED:
        body = ""
    code = re.search(r"<Code>([^<]*)</Code>", body)
    message = re.search(r"<Message>([^<]*)</Message>", body)
    if code:
        text += f": {code.group(1)}" + (f" ({message.group(1)})" if message else "")
    if exc.code == 412:
        text += ": the object changed while it was read"
    return text


def open_remote(path: str) -> RangeReader:
    """A ``RangeReader`` for an ``http(s)://`` or ``s3://`` input (no request is made yet)."""
    if path.startswith("s3://"):
        location = s3_location(path)
        credentials = location.credentials
        if credentials is None:
            return RangeReader(path, location.url)
        region = location.region
        return RangeReader(path, location.url, sign=lambda url, headers: sign_v4(url, headers, credentials, region))
    return RangeReader(path, path)
