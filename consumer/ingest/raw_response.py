"""A RawResponse record (``schemas/raw_response.avsc``) from what a crawler has at hand.

One place checks and normalises the values every producer of the landing topic passes, so the
landing writer, the WARC backfill and the Scrapy integration write the same shape:

- headers: pairs in the order received (a mapping is taken in its iteration order); names and
  values as ``str`` or ``bytes``, bytes decoded as ISO-8859-1 (0xNN to U+00NN, the schema's rule),
  surrounding whitespace removed;
- fetched_at: an aware ``datetime`` or integer milliseconds since the epoch (a naive datetime
  depends on the machine's zone and a float could be seconds or milliseconds: both refused);
- the key is the URL's UTF-8 bytes, as the demo and the processor's tests key records.

Pure: no Kafka, no clock unless ``fetched_at`` is left out.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterable, Mapping
from typing import Any

from .exceptions import InvalidResponseError

HeaderText = str | bytes
Headers = Mapping[HeaderText, HeaderText] | Iterable[tuple[HeaderText, HeaderText]]
FetchedAt = dt.datetime | int | None

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_OWS = " \t\r\n"


def raw_response(
    url: str,
    status: int,
    headers: Headers,
    body: bytes | bytearray | memoryview,
    fetched_at: FetchedAt = None,
    *,
    truncated: bool = False,
    content_encoding_removed: bool = False,
    crawl_id: str | None = None,
    ip: str | None = None,
) -> dict[str, Any]:
    """The RawResponse record for one response; raises ``InvalidResponseError`` naming a bad value."""
    if not isinstance(url, str) or not url.strip():
        raise InvalidResponseError(f"url must be a non-empty str, not {url!r}")
    if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 999:
        raise InvalidResponseError(f"status must be an int from 100 to 999, not {status!r}")
    if not isinstance(body, (bytes, bytearray, memoryview)):
        raise InvalidResponseError(f"body must be bytes, not {type(body).__name__}")
    for name, value in (("crawl_id", crawl_id), ("ip", ip)):
        if value is not None and not isinstance(value, str):
            raise InvalidResponseError(f"{name} must be a str or None, not {value!r}")
    return {
        "url": url.strip(),
        "fetched_at": fetched_at_ms(fetched_at),
        "status": status,
        "headers": header_list(headers),
        "body": bytes(body),
        "truncated": bool(truncated),
        "content_encoding_removed": bool(content_encoding_removed),
        "crawl_id": crawl_id,
        "ip": ip,
    }


def record_key(record: Mapping[str, Any]) -> bytes:
    """The landing topic's key: the URL, so that every fetch of a page lands in one partition, in order."""
    url: str = record["url"]
    return url.encode("utf-8")


def fetched_at_ms(value: FetchedAt) -> int:
    """Milliseconds since the epoch; now when *value* is None."""
    if value is None:
        return time.time_ns() // 1_000_000
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            raise InvalidResponseError("fetched_at is a naive datetime: give it a time zone (datetime.timezone.utc)")
        delta = value - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise InvalidResponseError(
        f"fetched_at must be an aware datetime or integer milliseconds since the epoch, not {value!r}"
    )


def header_list(headers: Headers) -> list[dict[str, str]]:
    """``[{"name", "value"}, ...]`` in order, repeats kept."""
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    out = []
    try:
        for name, value in pairs:
            out.append({"name": _text(name, "name").strip(_OWS), "value": _text(value, "value").strip(_OWS)})
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InvalidResponseError):
            raise
        raise InvalidResponseError(f"headers must be (name, value) pairs or a mapping: {exc}") from exc
    if any(not header["name"] for header in out):
        raise InvalidResponseError("a header has an empty name")
    return out


def _text(value: HeaderText, what: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("iso-8859-1")
    raise InvalidResponseError(f"a header {what} must be str or bytes, not {type(value).__name__}")
