"""Progress of an ingest: one rewritten line on a terminal, a structured log line every few seconds otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from ..observability.logging import get_logger
from .tally import Tally

_EVERY_S = 0.25
_LOG_EVERY_S = 10.0
_WIDTH = 24


class Progress:
    def __init__(self, *, stream: TextIO | None = None, clock=time.monotonic) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.clock = clock
        self.log = get_logger(component="ingest")
        self._started = clock()
        self._last = float("-inf")
        self._shown = False

    def update(self, name: str, position: int, size: int | None, tally: Tally, *, force: bool = False) -> None:
        """*position* bytes of *name* (of *size*, when known) are read; *tally* counts the whole run."""
        now = self.clock()
        if not force and now - self._last < (_EVERY_S if self.tty else _LOG_EVERY_S):
            return
        self._last = now
        if self.tty:
            self.stream.write("\r" + self.line(name, position, size, tally, now) + "\033[K")
            self.stream.flush()
            self._shown = True
        else:
            self.log.info(
                "ingest progress", file=name, offset=position, size=size, records=tally.records,
                written=tally.written, malformed=tally.kinds["malformed"], bytes_read=tally.bytes_read,
            )  # fmt: skip

    def line(self, name: str, position: int, size: int | None, tally: Tally, now: float) -> str:
        elapsed = max(now - self._started, 1e-9)
        if size:
            share = min(position / size, 1.0)
            where = f"[{'#' * int(share * _WIDTH):<{_WIDTH}}] {share:4.0%} {position / 1e6:.1f}/{size / 1e6:.1f} MB"
        else:
            where = f"{position / 1e6:.1f} MB"
        return (
            f"{name} {where} | {tally.records} records, {tally.written} written, "
            f"{tally.kinds['malformed']} malformed | {tally.bytes_read / elapsed / 1e6:.1f} MB/s"
        )

    def close(self) -> None:
        if self._shown:
            self.stream.write("\n")
            self.stream.flush()
