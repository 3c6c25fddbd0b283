"""crawl-decoder: decode crawled HTTP response bodies the way browsers do."""

__version__ = "0.1.0"
