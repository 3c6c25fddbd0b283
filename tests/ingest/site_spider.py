"""The Scrapy spider of tests/ingest/test_scrapy_pipeline.py: it follows every link of the loopback site.

Run as a real crawl in a child process (``scrapy runspider``); the integration is enabled with the
settings an operator adds to a project, here in ``custom_settings``.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

import scrapy
from scrapy.http import TextResponse


class SiteSpider(scrapy.Spider):
    name = "site"
    custom_settings: ClassVar[dict[str, Any]] = {
        "EXTENSIONS": {"consumer.integrations.scrapy.LandingExtension": 500},
        "CRAWL_DECODER_LANDING_TOPIC": os.environ.get("LANDING_TOPIC", "crawl.raw"),
        "CRAWL_DECODER_CRAWL_ID": "scrapy-crawl",
        "ROBOTSTXT_OBEY": False,
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "INFO",
    }

    start_urls: ClassVar[list[str]] = [os.environ.get("SITE", "http://127.0.0.1") + "/"]

    def parse(self, response):
        if isinstance(response, TextResponse):
            yield from response.follow_all(css="a")
