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
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from confluent_kafka import KafkaException
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
    admin = make_admin(connection, extra={"log_level": 0, "error_cb": _ignore})
    said: tuple[str, float] | None = None  # the last problem logged, and when
    attempts = 0
    started = time.monotonic()
    while not stop.is_set():
        attempts += 1
        problem, detail = _problem(admin, connection, topics)
        report(problem)
        if problem is None:
            if said is not None:
                log.info("kafka ready", attempts=attempts, waited_s=round(time.monotonic() - started, 1))
            return True
        now = time.monotonic()
        if said is None or said[0] != problem or now - said[1] >= log_every_s:
            waited_s = round(now - started, 1)
            log.error("waiting for kafka", problem=problem, tried=detail, attempts=attempts, waited_s=waited_s)
            said = (problem, now)
        stop.wait(interval_s)
    return False


def _problem(admin: AdminClient, connection: KafkaConnection, topics: Sequence[str]) -> tuple[str | None, str]:
    """What keeps the processor from starting (None: nothing), and what was tried."""
    tried = f"a metadata request to {connection.bootstrap_servers} (timeout {REQUEST_TIMEOUT_S:g} s)"
    try:
        missing = missing_topics(admin, topics)
    except KafkaException as exc:
        return f"kafka at {connection.bootstrap_servers} does not answer: {exc.args[0].str()}", tried
    if missing:
        names = ", ".join(missing)
        return f"topic(s) {names} do not exist on kafka at {connection.bootstrap_servers}", tried
    return None, tried


def _ignore(_error: object) -> None:
    pass
