"""Before the processor joins its group: the cluster answers, and the topics it reads and writes exist.

The start-up policy (README, "When Kafka is away"): the processor waits as long
as it takes, not ready, saying why.  ``wait_for_cluster`` asks for the cluster's
metadata every *interval_s*; while the answer does not come, or names no
landing, clean or quarantine topic, it reports the problem (``/readyz``'s body)
and logs it as a JSON error naming the bootstrap servers and what was tried, at
once and then at most every *log_every_s* while the problem stays the same.
``stop`` (SIGTERM) ends the wait at the next attempt.

Why not join the group and let the clients retry: an unreachable broker ended
the exactly-once processor after one ``init_transactions`` timeout with a
message that named no broker and said "retry" while exiting, and left the
at-least-once one waiting for ever with nothing logged; a missing landing topic
gave a member that is ready but reads nothing.  Metadata is the one request that
needs no group, coordinator or topic, and says which of them is missing.

The metadata request itself fails with only "Broker transport failure"; the
cause comes to the client's ``error_cb``: a SASL handshake refused (SASL
against a plaintext listener, bad credentials), a TLS handshake that failed
(TLS against a plaintext listener, a certificate not trusted), an OIDC token
endpoint that does not answer.  ``ClientErrors`` keeps the most telling of an
attempt's errors, and the problem names it ("authentication failed: ...",
"TLS failed: ...", "OIDC token not acquired: ..."), in the log and on
``/readyz``.  The client's own log lines stay off: every refused connection
would repeat the same error a hundred times a minute.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient

from ..observability.logging import get_logger
from .clients import make_admin
from .config import KafkaConnection

#: Seconds between metadata requests while the cluster is not there.
RETRY_INTERVAL_S = 2.0

#: The same problem is logged at most this often (a new problem at once).
LOG_EVERY_S = 30.0

#: One metadata request's bound.
REQUEST_TIMEOUT_S = 5.0


def missing_topics(admin: AdminClient, topics: Sequence[str], timeout: float = REQUEST_TIMEOUT_S) -> list[str]:
    """The *topics* the cluster's metadata does not list (``KafkaException`` if it does not answer)."""
    listed = admin.list_topics(timeout=timeout).topics
    return [name for name in topics if name not in listed or listed[name].error is not None]


def wait_for_cluster(
    connection: KafkaConnection,
    topics: Sequence[str],
    *,
    stop: threading.Event,
    report: Callable[[str | None], None],
    interval_s: float = RETRY_INTERVAL_S,
    log_every_s: float = LOG_EVERY_S,
) -> bool:
    """Wait until the cluster answers and lists every one of *topics*; False if *stop* came first.

    *report* receives each attempt's problem (``None`` once there is none): the readiness
    probe shows it, and the caller's liveness heartbeat can beat there (waiting is not hanging).
    """
    log = get_logger(component="startup", bootstrap_servers=connection.bootstrap_servers)
    # The clients' own lines would repeat ours for every refused connection: this loop says it once.
    errors = ClientErrors()
    admin = make_admin(connection, extra={"log_level": 0, "error_cb": errors.heard})
    said: tuple[str, float] | None = None  # what the last line was about (the cause, else the problem), and when
    heard: str | None = None  # the client's last error explaining the silence
    attempts = 0
    started = time.monotonic()
    while not stop.is_set():
        attempts += 1
        errors.clear()
        problem, detail, cause = _problem(admin, connection, topics, errors)
        if problem is not None and cause is None and not topics_are_missing(problem):
            cause = heard  # the client's error came late this time: the last one heard still explains the silence
        heard = cause
        report(f"{problem}: {cause}" if problem is not None and cause else problem)
        if problem is None:
            if said is not None:
                log.info("kafka ready", attempts=attempts, waited_s=round(time.monotonic() - started, 1))
            return True
        now = time.monotonic()
        about = cause or problem
        if said is None or said[0] != about or now - said[1] >= log_every_s:
            waited_s = round(now - started, 1)
            shown = f"{problem}: {cause}" if cause else problem
            log.error("waiting for kafka", problem=shown, tried=detail, attempts=attempts, waited_s=waited_s)
            said = (about, now)
        stop.wait(interval_s)
    return False


def _problem(
    admin: AdminClient, connection: KafkaConnection, topics: Sequence[str], errors: ClientErrors
) -> tuple[str | None, str, str | None]:
    """What keeps the processor from starting (None: nothing), what was tried, and the client's error
    that says why the cluster does not answer (None: none heard)."""
    tried = f"a metadata request to {connection.bootstrap_servers} (timeout {REQUEST_TIMEOUT_S:g} s)"
    try:
        missing = missing_topics(admin, topics)
    except KafkaException as exc:
        admin.poll(0)  # serves the error callbacks still queued
        return f"kafka at {connection.bootstrap_servers} does not answer: {exc.args[0].str()}", tried, errors.cause()
    if missing:
        names = ", ".join(missing)
        return f"{_MISSING_TOPICS}{names} do not exist on kafka at {connection.bootstrap_servers}", tried, None
    return None, tried, None


_MISSING_TOPICS = "topic(s) "


def topics_are_missing(problem: str) -> bool:
    """Whether *problem*, as ``wait_for_cluster`` reports it, is topics missing from a cluster that answers."""
    return problem.startswith(_MISSING_TOPICS)


# librdkafka appends how long the connection had been in its state: a new number on every attempt.
_STATE_SUFFIX = re.compile(r"\s*\(after \d+ms in state [A-Z_]+[^)]*\)")
_OIDC = re.compile(r"OAUTHBEARER token|OIDC", re.IGNORECASE)


class ClientErrors:
    """The errors a client's ``error_cb`` reported since ``clear()``, reduced to the most telling one.

    Called from the client's threads (``heard``) and read by the waiting loop, hence the lock.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._best: tuple[int, str] | None = None  # rank, text

    def heard(self, error: KafkaError) -> None:
        """The ``error_cb``: keep *error* if it tells more than the one kept."""
        found = _named(error)
        if found is None:
            return
        with self._lock:
            if self._best is None or found[0] > self._best[0]:
                self._best = found

    def clear(self) -> None:
        with self._lock:
            self._best = None

    def cause(self) -> str | None:
        """The kept error, named ("authentication failed: ..."), or None."""
        with self._lock:
            return None if self._best is None else self._best[1]


def _named(error: KafkaError) -> tuple[int, str] | None:
    """(rank, text) of an error that says why the cluster does not answer; None for one that does not
    ("1/1 brokers are down" is what every cause ends in).  A higher rank tells more."""
    text = _STATE_SUFFIX.sub("", error.str())
    code = error.code()
    if code == KafkaError._AUTHENTICATION:
        if _OIDC.search(text):
            return 5, f"OIDC token not acquired: {text}"
        return 4, f"authentication failed: {text}"
    if code == KafkaError._SSL or "SSL" in text:
        return 3, f"TLS failed: {text}"
    if code in (KafkaError._TRANSPORT, KafkaError._RESOLVE):
        return 2, text
    return None
