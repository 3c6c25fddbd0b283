"""``crawl_decoder_skipped_total{reason, media_family}``: records written nowhere, with bounded labels."""

from __future__ import annotations

import pytest

from consumer.decoding import MEDIA_FAMILIES, media_family
from consumer.observability.exceptions import InvalidLabelError

from .scrape import series, value


def test_skips_are_counted_by_reason_and_media_family(metrics):
    for media_type in ("image/png", "image/gif", "application/pdf", "font/woff2"):
        metrics.record_skip("not-text", media_family(media_type))
    assert value(metrics, "crawl_decoder_skipped_total", reason="not-text", media_family="image") == 2
    assert value(metrics, "crawl_decoder_skipped_total", reason="not-text", media_family="application") == 1
    assert value(metrics, "crawl_decoder_skipped_total", reason="not-text", media_family="font") == 1
    # A skip is not a written record: the destination counters do not move.
    assert not series(metrics, "crawl_decoder_records_total")
    assert not series(metrics, "crawl_decoder_quarantined_total")


def test_labels_are_closed_sets(metrics):
    with pytest.raises(InvalidLabelError):
        metrics.record_skip("too-big", "image")
    with pytest.raises(InvalidLabelError):
        metrics.record_skip("not-text", "image/png")  # a media type, not its family: unbounded
    for family in MEDIA_FAMILIES:
        metrics.record_skip("not-text", family)
    assert len(series(metrics, "crawl_decoder_skipped_total")) == len(MEDIA_FAMILIES)
