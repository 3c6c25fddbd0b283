"""Errors of the development broker."""

from __future__ import annotations

from ..exceptions import CrawlDecoderError


class DevBrokerError(CrawlDecoderError):
    """The local broker could not be resolved, started or stopped."""
