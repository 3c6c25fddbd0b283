"""Errors of the processor shell."""

from ..exceptions import CrawlDecoderError


class ProcessorError(CrawlDecoderError):
    """Root of the processor's errors."""


class ProcessorFatalError(ProcessorError):
    """The processor cannot go on (fatal producer error, fenced by a newer instance)."""
