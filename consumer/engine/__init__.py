"""The transactional batch engine: the one loop the stream processor and quarantine replay run through.

``BatchEngine`` consumes batches, asks a *decide* function where each message
goes (``Decision``: zero or more ``Output`` records), and hands each made batch
to the one thread that owns the producer, which commits it with its offsets
(``ExactlyOnce``, ``AtLeastOnce``, ``DryRun``).  Where the offsets come from is
an ``Offsets`` source: the consumer's positions for the processor
(``ConsumerPositions``), the replay cursor for replay.  Design:
docs/batch-engine.md.
"""

from __future__ import annotations

from .batch import Batch, Decision, Output, Wait
from .exceptions import BatchAborted, EngineError, EngineFatalError, Interrupted, NotStarted
from .loop import BatchEngine, Decided, Hooks
from .offsets import ConsumerPositions, Offsets, Rebalance
from .pipeline import Pipeline
from .policies import WEDGE_GRACE_S, AtLeastOnce, DryRun, ExactlyOnce, Policy
from .rewind import REWIND_PATIENCE_S, rewind

__all__ = [
    "REWIND_PATIENCE_S",
    "WEDGE_GRACE_S",
    "AtLeastOnce",
    "Batch",
    "BatchAborted",
    "BatchEngine",
    "ConsumerPositions",
    "Decided",
    "Decision",
    "DryRun",
    "EngineError",
    "EngineFatalError",
    "ExactlyOnce",
    "Hooks",
    "Interrupted",
    "NotStarted",
    "Offsets",
    "Output",
    "Pipeline",
    "Policy",
    "Rebalance",
    "Wait",
    "rewind",
]
