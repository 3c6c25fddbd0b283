"""Getting crawled responses onto the landing topic: the crawler-side writer and the WARC backfill.

- ``LandingWriter`` (``landing_writer``): the public API for crawlers written in Python; one
  ``write(url, status, headers, body, fetched_at)`` per response, delivery reports, flush on close.
  ``raw_response`` makes the record it writes and is the one place that checks a crawler's values.
- ``crawl-decoder ingest`` (``ingester``): WARC and ARC files to the landing topic exactly once
  across reruns; ``warc`` reads records with warcio, ``http_response`` and ``transfer_coding``
  parse the stored HTTP block, ``digest`` checks a record's WARC digests, ``library_output`` turns
  what warcio prints into log lines, ``from_warc`` maps a record to a RawResponse, ``checkpoint``
  keeps where each input stands, ``source`` opens a file or standard input.

The Scrapy integration is ``consumer.integrations.scrapy``.
"""

from __future__ import annotations

from .exceptions import CheckpointError, DeliveryError, IngestAborted, IngestError, InvalidResponseError, SourceError
from .ingester import Ingester, IngestOptions
from .landing_writer import Delivery, LandingWriter
from .raw_response import raw_response, record_key
from .tally import Tally, format_tally

__all__ = [
    "CheckpointError",
    "Delivery",
    "DeliveryError",
    "IngestAborted",
    "IngestError",
    "IngestOptions",
    "Ingester",
    "InvalidResponseError",
    "LandingWriter",
    "SourceError",
    "Tally",
    "format_tally",
    "raw_response",
    "record_key",
]
