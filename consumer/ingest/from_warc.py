"""A WARC ``response`` record as the RawResponse the crawler would have written.

| RawResponse | from |
| --- | --- |
| url | WARC-Target-URI |
| fetched_at | WARC-Date (WARC 1.1 allows fractions of a second; kept to the millisecond) |
| status, headers | the HTTP block's status line and field lines, in order, ISO-8859-1 (``http_response``) |
| body | the block after the head, transfer codings undone, Content-Encoding kept (``transfer_coding``) |
| truncated | WARC-Truncated present (length, time, disconnect...), chunks ending early, a body cut at the limit |
| ip | WARC-IP-Address |
| crawl_id | given (the ``--crawl-id`` flag, else the warcinfo record's ``isPartOf``) |

Pure: an ``Entry`` in, a record or the reason it is malformed out.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from .exceptions import InvalidResponseError
from .http_response import NotHttp, parse_head
from .raw_response import raw_response
from .transfer_coding import remove_transfer_codings, transfer_codings
from .warc import Entry, target_uri

#: WARC-Date: W3C-ISO8601 to the second (WARC 1.0), optionally with a fraction (WARC 1.1), in UTC.
_WARC_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z")


@dataclass(frozen=True, slots=True)
class Converted:
    record: dict[str, Any]
    #: The body was longer than the limit and was cut (``truncated`` is set).
    cut: bool
    #: A transfer coding left in place (see ``transfer_coding.Unwrapped.note``).
    note: str | None


@dataclass(frozen=True, slots=True)
class Malformed:
    reason: str


def convert(entry: Entry, *, crawl_id: str | None, body_limit: int) -> Converted | Malformed:
    """The RawResponse of the HTTP ``response`` record *entry*, its body at most *body_limit* bytes."""
    url = target_uri(entry.fields)
    if not url:
        return Malformed("no WARC-Target-URI")
    fetched_at = warc_date_ms(entry.fields.get("WARC-Date", ""))
    if fetched_at is None:
        return Malformed(f"WARC-Date {entry.fields.get('WARC-Date')!r} is not a W3C-ISO8601 UTC time")
    head = parse_head(entry.block)
    if isinstance(head, NotHttp):
        return Malformed(head.reason)
    unwrapped = remove_transfer_codings(
        entry.block[head.body_start :], transfer_codings(head.values("Transfer-Encoding")), body_limit
    )
    body = unwrapped.body
    cut = entry.block_cut or len(body) > body_limit
    try:
        record = raw_response(
            url,
            head.status,
            head.headers,
            body[:body_limit],
            fetched_at,
            truncated="WARC-Truncated" in entry.fields or cut or not unwrapped.complete,
            crawl_id=crawl_id,
            ip=entry.fields.get("WARC-IP-Address") or None,
        )
    except InvalidResponseError as exc:  # a status below 100
        return Malformed(str(exc))
    return Converted(record, cut, unwrapped.note)


def warc_date_ms(value: str) -> int | None:
    """Milliseconds since the epoch of a WARC-Date, or None when it is not one."""
    match = _WARC_DATE.fullmatch(value.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction = match.groups()
    try:
        moment = dt.datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second), tzinfo=dt.UTC
        )
    except ValueError:
        return None
    millis = int((fraction or "0").ljust(3, "0")[:3])
    return int(moment.timestamp()) * 1000 + millis
