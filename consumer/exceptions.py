"""The root of every exception crawl-decoder raises on purpose.

Bad content is never an exception (see ``consumer.decoding``); these are for
faults of configuration, I/O and schemas.  Each layer has its own small
``exceptions.py`` whose classes derive from ``CrawlDecoderError``.
"""


class CrawlDecoderError(Exception):
    """Base class of crawl-decoder's own errors."""


class ConfigError(CrawlDecoderError):
    """A setting is missing, malformed or inconsistent; raised at start-up."""
