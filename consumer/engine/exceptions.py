"""Errors of the batch engine.

Only two leave it: ``EngineFatalError`` from ``BatchEngine.run()`` (the process
should exit 1; a restarted one resumes from the committed offsets), and
``BatchAborted`` from the pipeline's ``write``/``settle``/``check`` (the engine
catches it in one place).  ``BatchFailed`` is what the writer thread reports;
the pipeline turns it into one of the two.
"""

from __future__ import annotations

from ..exceptions import CrawlDecoderError


class EngineError(CrawlDecoderError):
    """Root of the batch engine's errors."""


class EngineFatalError(EngineError):
    """The engine cannot go on: fenced by a newer instance, the producer failed twice before any batch
    committed, transactions cannot start, a fatal consumer error, committed offsets unreadable."""


class NotStarted(EngineFatalError):
    """Transactions could not start (the broker or its transaction coordinator did not answer, a producer
    that failed or hung in ``init_transactions``): fatal, unless the engine was told to wait (``Hooks.start_waiting``),
    in which case it tries again with back-off, nothing consumed meanwhile."""


class Interrupted(EngineError):
    """``stop()`` came while a transactional call waited for the broker: the engine ends without error."""


class BatchAborted(EngineError):
    """A batch was not written and the consumer was rewound: it will be read again."""


class BatchFailed(EngineError):
    """A batch could not be committed (reported by the writer thread)."""


class Abortable(BatchFailed):
    """The transaction was aborted (or, at least once, the deliveries failed): the producer goes on."""


class ProducerFailed(BatchFailed):
    """A fatal error of the producer other than fencing, or an abort that failed: the producer cannot go on."""


class Wedged(BatchFailed):
    """A call of the writer outlived its bound: the writer thread and its producer are given up."""
