"""librdkafka's own log lines as structlog events, levels mapped, repeats rate-limited.

Left alone, librdkafka prints raw lines to stderr (``%3|1712345678.123|FAIL|
rdkafka#consumer-1| [thrd:...]: ... Connection refused``): dozens a second
against an unreachable broker, and a few on every normal start.  They break a
pipeline that parses one JSON object per line.  confluent-kafka's ``logger``
setting takes any object with a ``log(level, msg, *args)`` method and calls it
instead, with librdkafka's syslog level already mapped to the standard
library's (3 -> ERROR, 4 -> WARNING, 5 and 6 -> INFO, 7 -> DEBUG), *msg*
``"%s [%s] %s"`` and *args* (facility, client name, message).  With it set,
librdkafka queues its lines and the client hands them over inside ``poll()``,
``consume()`` or ``flush()``, in the thread that calls them; nothing is written
to stderr any more.  ``consumer/kafka/clients.py`` gives every client
``client_logs()``.

Errors librdkafka reports to the application (``error_cb``: all brokers down,
an authentication failure, a fatal error) are logged the same way by
``ClientLogs.error``, with the error's name, whether it is fatal and whether a
retry can help; most are informational, the client recovers by itself.

A line repeated within *every_s* (the same client, facility and message once
digits are set aside: timings, ports, counts) is counted, not written; the next
one written after the window says how many were held back in ``repeated``.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from .logging import get_logger

#: A repeated line is written at most once per this many seconds.
DEFAULT_EVERY_S = 60.0
#: Distinct lines remembered for the rate limit; the oldest are forgotten first.
MAX_KEYS = 1024

# "[thrd:127.0.0.1:9092/bootstrap]: 127.0.0.1:9092/bootstrap: Connect to ..." -> thread, message
_THREAD = re.compile(r"^\[thrd:(?P<thread>[^\]]*)\]:\s*(?P<message>.*)$", re.DOTALL)
_DIGITS = re.compile(r"\d+")


def _method(level: int) -> str:
    if level >= logging.CRITICAL:
        return "critical"
    if level >= logging.ERROR:
        return "error"
    if level >= logging.WARNING:
        return "warning"
    if level >= logging.INFO:
        return "info"
    return "debug"


class ClientLogs:
    """The ``logger`` of a confluent-kafka client; safe to share between clients and threads."""

    def __init__(self, *, every_s: float = DEFAULT_EVERY_S, clock: Callable[[], float] = time.monotonic) -> None:
        self._every_s = every_s
        self._clock = clock
        self._lock = threading.Lock()
        # key -> [time last written, repeats held back since]
        self._seen: OrderedDict[tuple[str, str, str], list[float]] = OrderedDict()
        self._log = get_logger(component="librdkafka")
        #: Lines held back by the rate limit since construction.
        self.held_back = 0

    def log(self, level: int, msg: str, *args: Any) -> None:
        """Called by confluent-kafka; never raises (it runs inside the client's poll)."""
        try:
            facility, client, text = _fields(msg, args)
            match = _THREAD.match(text)
            thread, text = (match["thread"], match["message"]) if match else (None, text)
            repeated = self._admit((client, facility, _DIGITS.sub("#", text)))
            if repeated is None:
                return
            fields: dict[str, Any] = {"facility": facility, "client": client, "message": text}
            if thread is not None:
                fields["thread"] = thread
            if repeated:
                fields["repeated"] = repeated
            getattr(self._log, _method(level))("kafka client log", **fields)
        except Exception:  # noqa: BLE001 - a log line must never break the client's poll
            pass

    def error(self, error: Any) -> None:
        """The ``error_cb`` of a client: *error* is a ``KafkaError``; never raises."""
        try:
            repeated = self._admit(("error", error.name(), _DIGITS.sub("#", error.str())))
            if repeated is None:
                return
            fields: dict[str, Any] = {
                "error": error.name(),
                "message": error.str(),
                "fatal": error.fatal(),
                "retriable": error.retriable(),
            }
            if repeated:
                fields["repeated"] = repeated
            method = self._log.error if error.fatal() else self._log.warning
            method("kafka client error", **fields)
        except Exception:  # noqa: BLE001 - as in log()
            pass

    def _admit(self, key: tuple[str, str, str]) -> int | None:
        """None to hold the line back; else how many were held back before it."""
        now = self._clock()
        with self._lock:
            entry = self._seen.get(key)
            if entry is not None and now - entry[0] < self._every_s:
                entry[1] += 1
                self.held_back += 1
                return None
            repeated = int(entry[1]) if entry is not None else 0
            self._seen[key] = [now, 0]
            self._seen.move_to_end(key)
            while len(self._seen) > MAX_KEYS:
                self._seen.popitem(last=False)
            return repeated


def _fields(msg: str, args: tuple[Any, ...]) -> tuple[str, str, str]:
    """(facility, client name, message) from confluent-kafka's ``log`` call."""
    if len(args) == 3:
        return str(args[0]), str(args[1]), str(args[2])
    return "", "", (msg % args) if args else str(msg)


_shared: ClientLogs | None = None
_shared_lock = threading.Lock()


def client_logs() -> ClientLogs:
    """The process's ``ClientLogs``: one rate limit over every client."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = ClientLogs()
        return _shared
