"""A real Scrapy crawl of the loopback site through ``consumer.integrations.scrapy``: the raw responses on the
landing topic (bodies before Scrapy decompresses them), then the processor's text of each page."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ingest_helpers import REPO, assert_decoded_right
from site_server import PAGES

pytest.importorskip("scrapy", reason="Scrapy is an optional extra: pip install -e '.[scrapy]'")


@pytest.fixture
def scrapy_crawl(site, kafka_bootstrap, topics):
    """Run the spider to its end; returns Scrapy's log."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CRAWL_DECODER_", "KAFKA_"))}
    env.update(SITE=site, LANDING_TOPIC=topics["landing"], KAFKA_BOOTSTRAP_SERVERS=kafka_bootstrap)
    spider = REPO / "tests" / "ingest" / "site_spider.py"
    done = subprocess.run([sys.executable, "-m", "scrapy", "runspider", str(spider)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stderr


def test_a_scrapy_crawl_lands_raw_responses_and_decodes_right(scrapy_crawl, site, landing, processor, decoded):
    assert "'crawl_decoder/delivered'" in scrapy_crawl and "crawl_decoder/failed" not in scrapy_crawl

    landed = landing()
    by_path = {record["url"].removeprefix(site): record for record in landed}
    assert set(PAGES) <= set(by_path), f"missing: {set(PAGES) - set(by_path)}"
    gz = by_path["/gzip.html"]
    assert gz["body"] == PAGES["/gzip.html"].body, "the body before HttpCompressionMiddleware, still gzip"
    assert {"name": "Content-Encoding", "value": "gzip"} in gz["headers"]
    assert by_path["/chunked.html"]["body"] == PAGES["/chunked.html"].body
    assert by_path["/redirect"]["status"] == 301, "the redirect itself, before RedirectMiddleware follows it"
    assert {"name": "Location", "value": "/utf8.html"} in by_path["/redirect"]["headers"]
    assert {(record["crawl_id"], record["ip"]) for record in landed} == {("scrapy-crawl", "127.0.0.1")}
    assert by_path["/image.png"]["body"] == PAGES["/image.png"].body

    processor()
    assert_decoded_right(decoded, site, crawl_id="scrapy-crawl")
