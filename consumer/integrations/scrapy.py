"""A Scrapy extension that writes every response Scrapy downloads to the landing topic.

Enable it in the project's ``settings.py`` (Scrapy is an optional extra:
``pip install 'crawl-decoder[scrapy]'``)::

    EXTENSIONS = {"consumer.integrations.scrapy.LandingExtension": 500}
    CRAWL_DECODER_LANDING_TOPIC = "crawl.raw"
    CRAWL_DECODER_CRAWL_ID = "news-2025-06"            # optional
    # The Kafka connection: the KAFKA_* environment variables, or
    CRAWL_DECODER_KAFKA_BOOTSTRAP_SERVERS = "kafka-0:9092"
    # Optional: the Confluent wire format through a Schema Registry, with basic auth and a private CA
    CRAWL_DECODER_SCHEMA_REGISTRY_URL = "https://registry:8081"
    CRAWL_DECODER_SCHEMA_REGISTRY_USERNAME = "crawler"
    CRAWL_DECODER_SCHEMA_REGISTRY_PASSWORD = os.environ["REGISTRY_PASSWORD"]
    CRAWL_DECODER_SCHEMA_REGISTRY_CA_LOCATION = "/etc/registry/ca.crt"

It listens to the ``response_downloaded`` signal, which the downloader sends as soon as the download
handler returns, before any downloader middleware runs: the body is as received (still gzip, br or
deflate: ``HttpCompressionMiddleware`` has not run yet; the transfer coding was removed by Twisted),
and redirects, errors and responses a middleware later drops are written too, as a crawler's archive
would keep them.  Responses served from Scrapy's HTTP cache were not downloaded and are not written.

What Scrapy keeps of the headers: names in its canonical case (``Content-Type``), repeats grouped
under the first occurrence, and ``Content-Length`` first when Twisted knew the length.  The values
are the bytes received.

Each response is one ``LandingWriter.write``; counts go to Scrapy's stats under ``crawl_decoder/``;
the writer is flushed when the spider closes, and records that could not be delivered are logged and
counted (``crawl_decoder/failed``) rather than stopping the crawl.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy import signals
from scrapy.exceptions import NotConfigured

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.statscollectors import StatsCollector

from ..exceptions import CrawlDecoderError
from ..ingest import Delivery, DeliveryError, LandingWriter
from ..kafka import MAX_BODY_BYTES, KafkaConnection
from ..serialization.registry import client_config

logger = logging.getLogger(__name__)

PREFIX = "CRAWL_DECODER_"


class LandingExtension:
    def __init__(self, writer: LandingWriter, stats: StatsCollector, *, body_limit: int = MAX_BODY_BYTES) -> None:
        self.writer = writer
        self.stats = stats
        self.body_limit = body_limit

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> LandingExtension:
        settings = crawler.settings
        if not settings.getbool(PREFIX + "ENABLED", True):
            raise NotConfigured("CRAWL_DECODER_ENABLED is false")
        bootstrap = settings.get(PREFIX + "KAFKA_BOOTSTRAP_SERVERS")
        connection = KafkaConnection(bootstrap) if bootstrap else KafkaConnection.from_env()
        stats = crawler.stats
        writer = LandingWriter(
            settings.get(PREFIX + "LANDING_TOPIC", "crawl.raw"),
            connection,
            crawl_id=settings.get(PREFIX + "CRAWL_ID") or None,
            schema_registry_url=settings.get(PREFIX + "SCHEMA_REGISTRY_URL", ""),
            schema_registry_config=client_config(
                username=settings.get(PREFIX + "SCHEMA_REGISTRY_USERNAME", ""),
                password=settings.get(PREFIX + "SCHEMA_REGISTRY_PASSWORD", ""),
                ca_location=settings.get(PREFIX + "SCHEMA_REGISTRY_CA_LOCATION", ""),
            ),
            producer_config=settings.getdict(PREFIX + "PRODUCER_CONFIG"),
            on_delivery=lambda report: _count(stats, report),
        )
        extension = cls(writer, stats, body_limit=settings.getint(PREFIX + "MAX_BODY_BYTES", MAX_BODY_BYTES))
        crawler.signals.connect(extension.response_downloaded, signal=signals.response_downloaded)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def response_downloaded(self, response: Response, request: Request, spider: Spider) -> None:
        if not response.url.startswith(("http://", "https://")):
            return
        body = response.body
        # A body Scrapy stopped reading (DOWNLOAD_FAIL_ON_DATALOSS off) or one past our limit is marked truncated.
        truncated = "dataloss" in response.flags or len(body) > self.body_limit
        try:
            self.writer.write(
                response.url,
                response.status,
                [(name, value) for name, values in response.headers.items() for value in values],
                body[: self.body_limit],
                truncated=truncated,
                ip=str(response.ip_address) if response.ip_address is not None else None,
            )
        except CrawlDecoderError as exc:
            self.stats.inc_value("crawl_decoder/refused")
            logger.error("response not written to the landing topic: %s", exc, extra={"url": response.url})
            return
        self.stats.inc_value("crawl_decoder/written")

    def spider_closed(self, spider: Spider, reason: str) -> None:
        try:
            self.writer.close()
        except DeliveryError as exc:
            logger.error("landing writer closed with records not delivered: %s", exc)
        logger.info("landing writer closed: %d delivered, %d failed", self.writer.delivered, self.writer.failed)


def _count(stats: StatsCollector, report: Delivery) -> None:
    if report.ok:
        stats.inc_value("crawl_decoder/delivered")
    else:
        stats.inc_value("crawl_decoder/failed")
        logger.error("landing record not delivered: %s (%s)", report.url, report.error)
