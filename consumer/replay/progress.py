"""Progress of a replay: one rewritten line on a terminal, a structured log line per batch otherwise.

The share done is measured in quarantine offsets, not records: a run plans
[cursor, end) per partition, and with read_committed the transaction markers
in that span take offsets but are never delivered, so a count of records read
never reaches the planned span (``1733/1740`` at the end of a run).  The
cursor's offsets do: a partition read to its stop counts whole
(``ReplayCursor.progress``).  Records read are shown beside it, as a count.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from ..observability.logging import get_logger
from .tally import Summary

#: A terminal line is rewritten at most this often; logs come once per this many seconds.
_EVERY_S = 0.2
_LOG_EVERY_S = 10.0


class Progress:
    """*total*: the quarantine offsets the run planned to read; ``update(done=...)`` says how many are dealt with."""

    def __init__(
        self, total: int = 0, *, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.clock = clock
        self.log = get_logger(component="replay")
        self._last = float("-inf")

    def update(self, summary: Summary, *, done: int | None = None, force: bool = False) -> None:
        if done is not None:
            self.done = done
        now = self.clock()
        if not force and now - self._last < (_EVERY_S if self.tty else _LOG_EVERY_S):
            return
        self._last = now
        if self.tty:
            self.stream.write("\r" + self.line(summary))
            self.stream.flush()
        else:
            self.log.info("replay progress", offsets_done=self.done, offsets_total=self.total, **summary.counts())

    @property
    def share(self) -> float:
        return min(self.done / self.total, 1.0) if self.total else 1.0

    def line(self, summary: Summary) -> str:
        width = 30
        bar = "#" * int(self.share * width)
        return (
            f"[{bar:<{width}}] {int(self.share * 100):3d}% of {self.total} offsets: {summary.read} read, "
            f"{summary.released} released, {summary.still_lossy + summary.still_unreadable} still quarantined, "
            f"{summary.skipped_by_filter + summary.skipped_by_max_replays} skipped"
        )

    def close(self, summary: Summary, *, done: int | None = None) -> None:
        self.update(summary, done=done, force=True)
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
