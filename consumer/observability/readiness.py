"""Whether a running processor is doing its job now: Kafka answers and the group gives it partitions.

Readiness at start says "joined and assigned"; this keeps it true afterwards.
Two conditions clear it, each only once it has lasted *after_s* (a broker
restart of a few seconds, or a rebalance, must not flap every pod's readiness
and stall a rollout):

- **Kafka unreachable**: the consumer or the producer reported all brokers
  down or a transport error, a transactional call was retried, a batch failed
  to commit, or a lag reading failed, and nothing has answered since.  What
  counts as an answer: a committed batch, a lag reading (the group coordinator
  and the partition leaders answered), an assignment.  The lag monitor reads
  every 15 s, so an idle processor notices an outage and its end without
  records flowing.  The clock starts at the first failure seen, which can come
  late: a commit in flight holds the loop (and the consumer's callbacks) until
  its call gives up, up to its timeout plus grace (tests measured ~20 s).
- **No partitions held**, after the member had some: the group took them all
  (a lost assignment that never came back, a member stuck outside the group).
  Before the first assignment the processor is not ready anyway.  A member of
  a group larger than the landing topic's partition count legitimately holds
  none, and stays not ready, as it is before its first assignment: such a pod
  processes nothing (docs/observability.md, "Readiness").

``problem()`` is the reason, or None; it is read by the probe's thread while
the loop, the lag monitor and librdkafka's callbacks report, hence the lock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Readiness:
    """Kafka's health and the partitions held, as seen by one processor, with how long each problem lasted."""

    def __init__(self, after_s: float, *, what: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.after_s = after_s
        self._what = what  # "partitions of crawl.raw (group crawl-decoder)"
        self._clock = clock
        self._lock = threading.Lock()
        self._failing: tuple[float, str] | None = None  # since when, and the latest failure
        self._held: set[tuple[str, int]] = set()
        self._empty_since: float | None = None  # None also before the first assignment
        self._unanswered_since: float | None = None  # a batch handed to the writer and none committed since

    def kafka_failed(self, reason: str) -> None:
        """Kafka did not answer (the first failure since the last answer starts the clock)."""
        with self._lock:
            since = self._failing[0] if self._failing else self._clock()
            self._failing = (since, reason)

    def kafka_answered(self) -> None:
        with self._lock:
            self._failing = None

    def batch_handed(self) -> None:
        """A batch went to the writer: if none commits for *after_s*, the broker is not answering.

        The writer waits in the transactional calls until they give up (their timeout and a grace), and
        the client's own error reports come after that: without this clock an outage showed ~25 s late."""
        with self._lock:
            if self._unanswered_since is None:
                self._unanswered_since = self._clock()

    def batch_settled(self) -> None:
        """A batch committed, or was aborted to be read again: the writer is not waiting on the broker."""
        with self._lock:
            self._unanswered_since = None

    def assigned(self, partitions: list[tuple[str, int]]) -> None:
        with self._lock:
            self._held.update(partitions)
            self._empty_since = None
            self._failing = None  # the group coordinator answered

    def released(self, partitions: list[tuple[str, int]]) -> None:
        """Revoked or lost."""
        with self._lock:
            self._held.difference_update(partitions)
            if not self._held and self._empty_since is None:
                self._empty_since = self._clock()

    def unreachable(self) -> tuple[float, str] | None:
        """Seconds since Kafka stopped answering and the latest failure, at once (no *after_s*); None if it answers."""
        with self._lock:
            if self._failing is None:
                return None
            return self._clock() - self._failing[0], self._failing[1]

    def held(self) -> frozenset[tuple[str, int]]:
        """The (topic, partition) pairs held now."""
        with self._lock:
            return frozenset(self._held)

    def problem(self) -> str | None:
        """Why the processor is not ready now, once a problem has lasted *after_s*; None when it is."""
        with self._lock:
            now = self._clock()
            if self._failing is not None and now - self._failing[0] >= self.after_s:
                return f"kafka unreachable for {now - self._failing[0]:.0f} s: {self._failing[1]}"
            if self._unanswered_since is not None and now - self._unanswered_since >= self.after_s:
                waited = now - self._unanswered_since
                return f"kafka unreachable for {waited:.0f} s: a batch written {waited:.0f} s ago is not committed yet"
            if self._empty_since is not None and now - self._empty_since >= self.after_s:
                return f"no {self._what} held for {now - self._empty_since:.0f} s"
            return None
