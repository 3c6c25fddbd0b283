"""Errors of the observability layer (logging, metrics, health, host alarms).

Every error raised on purpose here derives from ``ObservabilityError``.  Metrics
never raise because of content: an unexpected label value from data is folded
into ``"other"``; only a value outside a set the calling code owns (a
transaction result, a routing destination) is a programming error.
"""

from __future__ import annotations

from ..exceptions import ConfigError, CrawlDecoderError


class ObservabilityError(CrawlDecoderError):
    """Base class of the observability layer's errors."""


class ObservabilityConfigError(ObservabilityError, ConfigError):
    """A log level, a port or a host-alarm parameter is invalid; raised at start-up."""


class InvalidLabelError(ObservabilityError, ValueError):
    """A label value outside a closed set the caller's code owns (e.g. ``destination``)."""


class HealthServerError(ObservabilityError):
    """The health/metrics HTTP server could not bind its port."""
