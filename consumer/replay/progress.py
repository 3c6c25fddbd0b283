"""Progress of a replay: one rewritten line on a terminal, a structured log line per batch otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from ..observability.logging import get_logger
from .tally import Summary

#: A terminal line is rewritten at most this often; logs come once per this many seconds.
_EVERY_S = 0.2
_LOG_EVERY_S = 10.0


class Progress:
    def __init__(self, total: int, *, stream: TextIO | None = None, clock=time.monotonic) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.clock = clock
        self.log = get_logger(component="replay")
        self._last = float("-inf")

    def update(self, summary: Summary, *, force: bool = False) -> None:
        now = self.clock()
        if not force and now - self._last < (_EVERY_S if self.tty else _LOG_EVERY_S):
            return
        self._last = now
        if self.tty:
            self.stream.write("\r" + self.line(summary))
            self.stream.flush()
        else:
            self.log.info("replay progress", total=self.total, **summary.counts())

    def line(self, summary: Summary) -> str:
        width = 30
        share = min(summary.read / self.total, 1.0) if self.total else 1.0
        bar = "#" * int(share * width)
        return (
            f"[{bar:<{width}}] {summary.read}/{self.total} read, {summary.released} released, "
            f"{summary.still_lossy + summary.still_unreadable} still quarantined, "
            f"{summary.skipped_by_filter + summary.skipped_by_max_replays} skipped"
        )

    def close(self, summary: Summary) -> None:
        self.update(summary, force=True)
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
