"""A WARC ``response`` record as the RawResponse the crawler would have written.

| RawResponse | from |
| --- | --- |
| url | WARC-Target-URI |
| fetched_at | WARC-Date, read leniently (``warc_date_ms``); one that cannot be read: ``UNKNOWN_FETCHED_AT`` |
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

#: fetched_at of a response whose WARC-Date cannot be read: the Unix epoch, 1970-01-01T00:00:00Z, an
#: unmistakable "unknown" (the response lands all the same, and the run counts and logs it).
UNKNOWN_FETCHED_AT = 0

#: WARC-Date as written: W3C-ISO8601 (WARC 1.0: to the second in UTC; 1.1: a fraction allowed), and what writers
#: made of it: any case, a space for the T, no seconds, a comma, no zone, a zone offset, a day of the year.
_WARC_DATE = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,3})"
    r"(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?"
    r"\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?",
    re.IGNORECASE,
)
#: 8 to 14 digits, YYYYMMDD[hh[mm[ss]]]: ARC's Archive-date, and some WARC writers'.
_COMPACT_DATE = re.compile(r"(\d{4})(\d{2})(\d{2})(\d{2})?(\d{2})?(\d{2})?")


@dataclass(frozen=True, slots=True)
class Converted:
    record: dict[str, Any]
    #: The body was longer than the limit and was cut (``truncated`` is set).
    cut: bool
    #: A transfer coding left in place (see ``transfer_coding.Unwrapped.note``).
    note: str | None
    #: The WARC-Date that could not be read (fetched_at is ``UNKNOWN_FETCHED_AT``); None when it was read.
    unread_date: str | None = None


@dataclass(frozen=True, slots=True)
class Malformed:
    reason: str


def convert(entry: Entry, *, crawl_id: str | None, body_limit: int) -> Converted | Malformed:
    """The RawResponse of the HTTP ``response`` record *entry*, its body at most *body_limit* bytes."""
    url = target_uri(entry.fields)
    if not url:
        return Malformed("no WARC-Target-URI")
    date = entry.fields.get("WARC-Date", "")
    fetched_at = warc_date_ms(date)
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
            UNKNOWN_FETCHED_AT if fetched_at is None else fetched_at,
            truncated="WARC-Truncated" in entry.fields or cut or not unwrapped.complete,
            crawl_id=crawl_id,
            ip=entry.fields.get("WARC-IP-Address") or None,
        )
    except InvalidResponseError as exc:  # a status below 100
        return Malformed(str(exc))
    return Converted(record, cut, unwrapped.note, date if fetched_at is None else None)


def warc_date_ms(value: str) -> int | None:
    """Milliseconds since the epoch of a WARC-Date, or None when it is not one.

    Read as warcio and jwarc read them, past the standard's ``YYYY-MM-DDThh:mm:ssZ``:

    - no zone is UTC (the standard's only zone); an offset (``-0700``, ``+02:00``) is applied;
    - a day past the end of its month is the day of the year, taken when it falls in the month written:
      ClueWeb09's writer formatted its dates with the day of the year (``2008-10-294`` is 20 October);
    - no time is midnight, no seconds are :00, a 60th second (a leap second) is the 59th;
    - 8 to 14 digits (``YYYYMMDDhhmmss``, ARC's form) are UTC.
    """
    text = value.strip()
    match = _WARC_DATE.fullmatch(text)
    if match is not None:
        year, month, day, hour, minute, second, fraction, zone = match.groups()
    else:
        compact = _COMPACT_DATE.fullmatch(text)
        if compact is None:
            return None
        year, month, day, hour, minute, second = compact.groups()
        fraction = zone = None
    try:
        date = _day(int(year), int(month), int(day))
        moment = dt.datetime(
            date.year, date.month, date.day, int(hour or 0), int(minute or 0), min(int(second or 0), 59),
            tzinfo=_zone(zone),
        )  # fmt: skip
    except ValueError:
        return None
    millis = int((fraction or "0").ljust(3, "0")[:3])
    return int(moment.timestamp()) * 1000 + millis


def _day(year: int, month: int, day: int) -> dt.date:
    """The date of *day* in *month*, or of the *day*-th day of the year when the month has no such day."""
    try:
        return dt.date(year, month, day)
    except ValueError:
        if not 1 <= month <= 12 or day < 1:
            raise
    of_year = dt.date(year, 1, 1) + dt.timedelta(days=day - 1)
    if of_year.year != year or of_year.month != month:
        raise ValueError(f"day {day} of {year} is not in month {month}")
    return of_year


def _zone(zone: str | None) -> dt.tzinfo:
    if zone is None or zone.upper() in ("Z", "UTC", "GMT"):
        return dt.UTC
    digits = zone[1:].replace(":", "")
    minutes = int(digits[:2]) * 60 + int(digits[2:] or 0)
    if minutes >= 24 * 60:
        raise ValueError(f"zone offset {zone} is not under 24 hours")
    return dt.timezone(dt.timedelta(minutes=-minutes if zone[0] == "-" else minutes))
