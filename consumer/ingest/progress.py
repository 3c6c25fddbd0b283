"""Progress of an ingest: one rewritten line on a terminal, a structured log line every few seconds otherwise."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from ..observability.logging import get_logger

_EVERY_S = 0.25
_LOG_EVERY_S = 10.0
_WIDTH = 24


class Progress:
    def __init__(self, *, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.clock = clock
        self.log = get_logger(component="ingest")
        self._started = clock()
        self._last = float("-inf")
        self._shown = False

    def due(self) -> bool:
        """Whether the next ``update`` would show something (callers skip gathering counts otherwise)."""
        return self.clock() - self._last >= (_EVERY_S if self.tty else _LOG_EVERY_S)

    def update(
        self, name: str, position: int, size: int | None, *, records: int, written: int, malformed: int, bytes_read: int
    ) -> None:
        """*position* bytes of input *name* (of *size*, when known) are read; the counts are the run's."""
        now = self._last = self.clock()
        if not self.tty:
            self.log.info("ingest progress", file=name, offset=position, size=size, records=records, written=written,
                          malformed=malformed, bytes_read=bytes_read)  # fmt: skip
            return
        rate = bytes_read / max(now - self._started, 1e-9) / 1e6
        if size:
            share = min(position / size, 1.0)
            where = f"[{'#' * int(share * _WIDTH):<{_WIDTH}}] {share:4.0%} {position / 1e6:.1f}/{size / 1e6:.1f} MB"
        else:
            where = f"{position / 1e6:.1f} MB"
        line = f"{name} {where} | {records} records, {written} written, {malformed} malformed | {rate:.1f} MB/s"
        self.stream.write("\r" + line + "\033[K")
        self.stream.flush()
        self._shown = True

    def close(self) -> None:
        if self._shown:
            self.stream.write("\n")
            self.stream.flush()
