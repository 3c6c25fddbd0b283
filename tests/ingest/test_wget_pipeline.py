"""The whole path with a real crawler's archive: Debian's wget crawls a loopback site into a WARC, the ingest
writes it to the landing topic, the processor decodes it, and each page's text on the clean topic is right."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from ingest_helpers import assert_decoded_right
from site_server import PAGES

pytestmark = pytest.mark.skipif(shutil.which("wget") is None, reason="wget is not installed (apt-get install wget)")


@pytest.fixture(scope="module")
def wget_warc(site, tmp_path_factory):
    """A gzip-per-record WARC of the site, as `wget --warc-file` writes it (requests, responses, its log)."""
    workdir = tmp_path_factory.mktemp("wget")
    done = subprocess.run(
        ["wget", "--recursive", "--level=2", "--no-verbose", "--delete-after", "--no-directories",
         "--warc-file=crawl", "--warc-header=isPartOf: wget-crawl", f"{site}/"],
        cwd=workdir, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode in (0, 8), done.stderr  # 8: a 404 (robots.txt) on the way
    return workdir / "crawl.warc.gz"


def test_wget_archive_through_the_processor(wget_warc, site, ingest, landing, processor, decoded):
    ingester = ingest([str(wget_warc)])

    landed = landing()
    by_path = {record["url"].removeprefix(site): record for record in landed}
    assert set(PAGES) <= set(by_path), f"missing: {set(PAGES) - set(by_path)}"
    assert by_path["/redirect"]["status"] == 301, "the redirect itself is a response of the crawl"
    assert by_path["/gzip.html"]["body"] == PAGES["/gzip.html"].body, "gzip kept as sent, for the processor"
    assert by_path["/chunked.html"]["body"] == PAGES["/chunked.html"].body, "chunked transfer coding undone"
    assert {record["crawl_id"] for record in landed} == {"wget-crawl"}
    assert {record["ip"] for record in landed} == {"127.0.0.1"}
    assert ingester.tally.skipped()["request"] == len(landed), "one request record per response"

    processor()
    assert_decoded_right(decoded, site, crawl_id="wget-crawl")
