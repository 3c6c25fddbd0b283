"""What a library prints while ingest reads a record, caught so that it becomes a log line of ingest's own.

warcio writes its warnings as plain text to ``sys.stderr`` ("WARNING: Record not followed by
newline, perhaps Content-Length is invalid", a gzip member that stops inflating), and Python's
``warnings`` are shown there too: beside ingest's JSON log lines, they would break "one JSON
object per line".  ``captured()`` puts a proxy in ``sys.stderr`` and ``sys.stdout`` for the
duration of one read: what the calling thread writes is kept, every other thread's writes pass
through to the stream that was there.  ingest's own log lines are not caught: ``configure_logging``
binds the stream it writes to, it does not look ``sys.stderr`` up again.

``notes(kept)`` splits what was kept into one sentence per message, whitespace collapsed.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO, cast

_local = threading.local()
_lock = threading.Lock()
_users = 0
_saved: tuple[TextIO, TextIO] | None = None
#: A message starts at a line that is not indented, or that says what it is (warcio indents its whole block);
#: an indented line continues the message (a warning's source line, warcio's "Offset:" and "Remainder:").
_MESSAGE_START = re.compile(r"\n(?=[^ \t\n]|[ \t]*(?:WARNING|ERROR)\b)")


class _Proxy:
    """A text stream that keeps the capturing thread's writes and passes the others' through to *target*."""

    def __init__(self, target: TextIO) -> None:
        self.target = target

    def write(self, text: str) -> int:
        kept: list[str] | None = getattr(_local, "kept", None)
        if kept is None:
            return self.target.write(text)
        kept.append(text)
        return len(text)

    def flush(self) -> None:
        if getattr(_local, "kept", None) is None:
            self.target.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.target, name)


@contextmanager
def captured() -> Iterator[list[str]]:
    """What this thread writes to ``sys.stderr`` or ``sys.stdout`` inside the block, kept in the list given."""
    kept: list[str] = []
    outer = getattr(_local, "kept", None)
    _install()
    _local.kept = kept
    try:
        yield kept
    finally:
        _local.kept = outer
        _uninstall()


def notes(kept: list[str]) -> list[str]:
    """The messages in *kept*, one line each (warcio's "WARNING:" blocks, a warning's two lines)."""
    text = "".join(kept).strip()
    if not text:
        return []
    return [" ".join(message.split()) for message in _MESSAGE_START.split(text) if message.strip()]


def _install() -> None:
    global _users, _saved
    with _lock:
        if _users == 0:
            _saved = (sys.stderr, sys.stdout)
            sys.stderr = cast(TextIO, _Proxy(sys.stderr))
            sys.stdout = cast(TextIO, _Proxy(sys.stdout))
        _users += 1


def _uninstall() -> None:
    global _users, _saved
    with _lock:
        _users -= 1
        if _users == 0 and _saved is not None:
            # Whoever replaced a proxy meanwhile (a test's capture) keeps their stream.
            if isinstance(sys.stderr, _Proxy):
                sys.stderr = _saved[0]
            if isinstance(sys.stdout, _Proxy):
                sys.stdout = _saved[1]
            _saved = None
