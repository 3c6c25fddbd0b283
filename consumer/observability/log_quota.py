"""At most N log lines a minute per key (a host), and one line a minute that counts the rest.

A quarantine spike on one host wrote one line per record: 4,744 of a run's
4,793 lines, which buries everything else and costs the log pipeline more than
the decode.  ``LogQuota.admit(host)`` says whether this one may be written; the
lines it refuses are counted per host, and ``LogQuota.summary()`` hands them
over once the minute is over, for one summary line.

Windows are fixed minutes shared by every key (not sliding, not per key): one
summary line a minute whatever the number of hosts, and state that is dropped
at each window's end.  The hosts counted in one window are bounded too: past
``max_keys``, the lines of further hosts are refused and counted under
``OTHER_HOSTS``.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable

WINDOW_S = 60.0
#: Where the refused lines of hosts past ``max_keys`` are counted.
OTHER_HOSTS = "(other hosts)"
#: Hosts a summary names; the rest are only in its totals.
SUMMARY_HOSTS = 20


class LogQuota:
    def __init__(
        self, per_window: int, *, max_keys: int = 10_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.per_window = per_window
        self._max_keys = max_keys
        self._clock = clock
        self._lock = threading.Lock()
        self._window_end = clock() + WINDOW_S
        self._written: Counter[str] = Counter()
        self._refused: Counter[str] = Counter()
        self._closed: Counter[str] | None = None

    def admit(self, key: str) -> bool:
        """Whether a line for *key* may be written now; a refused one is counted for the summary."""
        with self._lock:
            self._roll()
            if key not in self._written and len(self._written) >= self._max_keys:
                self._refused[OTHER_HOSTS] += 1
                return False
            if self._written[key] < self.per_window:
                self._written[key] += 1
                return True
            self._refused[key] += 1
            return False

    def summary(self, *, final: bool = False) -> dict[str, object] | None:
        """The refused lines of the last finished window, once (None: nothing refused, or not finished).

        *final* ends the current window now (the process is stopping: its refused lines still get counted).
        """
        with self._lock:
            self._roll(end=final)
            closed, self._closed = self._closed, None
        if not closed:
            return None
        return {
            "suppressed": sum(closed.values()),
            "hosts": len(closed),
            "by_host": dict(closed.most_common(SUMMARY_HOSTS)),
            "window_s": WINDOW_S,
            "per_host_per_window": self.per_window,
        }

    def _roll(self, *, end: bool = False) -> None:
        now = self._clock()
        if now < self._window_end and not end:
            return
        if self._refused:
            # An unread summary of an earlier window is kept, added to (no line is ever lost from the counts).
            self._closed = (self._closed or Counter()) + self._refused
        self._written, self._refused = Counter(), Counter()
        # The next fixed window containing now: idle minutes pass without a window each.
        self._window_end = now + WINDOW_S - max(now - self._window_end, 0) % WINDOW_S
