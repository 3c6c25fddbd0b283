"""Errors of quarantine replay."""

from __future__ import annotations

from ..exceptions import CrawlDecoderError


class ReplayError(CrawlDecoderError):
    """Replay cannot start or go on (the quarantine topic is missing, a fatal Kafka error)."""
