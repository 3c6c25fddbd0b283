"""Ties the shells together: settings, Kafka clients, Avro, overrides, observability, the loop.

``App(settings, connection)`` is made without touching the network;
``App.run()`` serves /metrics, /healthz and /readyz, runs the processor until
``stop()`` (SIGTERM, SIGINT) and returns once everything is closed.
"""

from __future__ import annotations

import datetime as dt
import gc
import math
import signal
import threading
import time
from collections.abc import Callable

from confluent_kafka import Consumer, KafkaError, Message, TopicPartition

from .build_info import compiled
from .decoding import OverrideTable, media_family
from .engine import (
    REWIND_PATIENCE_S,
    AtLeastOnce,
    BatchEngine,
    ConsumerPositions,
    Decided,
    ExactlyOnce,
    Hooks,
    Policy,
    Wait,
)
from .kafka.clients import MESSAGE_LIMIT_BYTES, make_consumer, make_producer
from .kafka.config import KafkaConnection
from .kafka.exceptions import KafkaLayerError
from .kafka.permissions import GROUP, TOPIC, TRANSACTIONAL_ID, MissingPermissions, Permission, check_permissions
from .kafka.startup import REQUEST_TIMEOUT_S, topics_are_missing, wait_for_cluster
from .observability.client_logs import client_logs
from .observability.client_stats import ClientStats
from .observability.health import HealthServer, Heartbeat, RouteServer
from .observability.host_alarms import Alarm, HostAlarms, MojibakeAlarm, MojibakeAlarms, alarms_route
from .observability.lag import LagMonitor
from .observability.log_quota import LogQuota
from .observability.logging import get_logger
from .observability.metrics import Metrics
from .observability.readiness import Readiness
from .overrides.config import OverrideConfig
from .overrides.exceptions import OverridesError
from .overrides.reload import OverridesWatcher
from .overrides.review import active_table, overdue
from .overrides.shadow import ShadowStats
from .processor.decide import Decider, Outcome
from .processor.route import CLEAN, NOT_TEXT, QUARANTINE, SKIP, Router
from .serialization.serde import build_serde
from .settings import Alarms, ProcessingMode, Settings

#: Seconds between the log lines that say what the processor waits for on Kafka (an outage).
WAITING_LOG_EVERY_S = 30.0
#: Seconds Kafka must have failed to answer before the loop, between batches, reports waiting on it.
WAIT_REPORT_AFTER_S = 5.0

#: Seconds between reads of an overrides file refused at start.
OVERRIDES_RETRY_S = 1.0

#: librdkafka's errors that mean the cluster cannot be reached (readiness), not a bad record or request.
UNREACHABLE = frozenset(
    {KafkaError._ALL_BROKERS_DOWN, KafkaError._TRANSPORT, KafkaError._RESOLVE, KafkaError._AUTHENTICATION}
)


class App:
    def __init__(
        self, settings: Settings, connection: KafkaConnection, *, today: Callable[[], dt.date] = dt.date.today
    ) -> None:
        self.settings = settings
        self.connection = connection
        self.today = today
        self.log = get_logger(component="processor", landing_topic=settings.landing_topic)
        self.metrics = Metrics()
        self.client_stats = ClientStats(self.metrics)
        #: One "quarantined" line per record buried every other line in a spike: N per host a minute.
        self.quarantine_log = LogQuota(settings.quarantine_log_per_host_per_minute)
        self.heartbeat = Heartbeat()
        #: Why the processor is not ready before it joins its group (``/readyz``'s body).
        self._waiting = "starting"
        #: When the last "waiting for Kafka" line was logged (monotonic; -inf: none yet).
        self._wait_logged = -math.inf
        self._stopped = threading.Event()
        self.alarms = HostAlarms()
        #: Hosts whose clean records turn to mojibake: published, so the lossy alarms never see them.
        self.mojibake = MojibakeAlarms()
        self.metrics.track_mojibake_hosts(self.mojibake.alarmed)
        self.shadow = ShadowStats()
        self.serde = build_serde(settings)
        self.readiness = Readiness(
            settings.not_ready_after_s,
            what=f"partitions of {settings.landing_topic} (group {settings.group_id})",
        )
        #: The overrides file as refused at start: nothing is consumed until it is valid (never decode without it).
        self._refused: OverridesError | None = None
        self._table_day = today()
        self._open_overrides()
        #: The stream processor: the batch engine over the landing topic, with the processor's decision.
        self.processor = BatchEngine(
            consumer=self._consumer,
            offsets=ConsumerPositions([settings.landing_topic]),
            decide=Decider(
                deserialize=self.serde.deserialize_raw,
                serialize_clean=self.serde.serialize_clean,
                serialize_quarantine=self.serde.serialize_quarantine,
                router=Router(
                    max_body_bytes=settings.max_body_bytes,
                    replacement_threshold=settings.replacement_threshold,
                    non_text=settings.non_text.value,
                ),
                overrides=lambda: self._table,
                clean_topic=settings.clean_topic,
                quarantine_topic=settings.quarantine_topic,
                message_limit=MESSAGE_LIMIT_BYTES,
            ),
            policy=self._policy,
            batch_size=settings.batch_size,
            batch_timeout_s=settings.batch_timeout_ms / 1000,
            timeout_s=settings.shutdown_timeout_s,
            batch_bytes=settings.batch_max_bytes,
            record_limit=MESSAGE_LIMIT_BYTES,
            # A Kafka outage is waited out, however long (docs/delivery.md, "Kafka outages"): SIGTERM ends the wait.
            patience_s=math.inf,
            on_result=self.metrics.transaction,
            hooks=Hooks(
                committed=self._committed,
                handed=self.readiness.batch_handed,
                between_batches=self._between_batches,
                consumer_error=self._consumer_error,
                batch_aborted=self._batch_aborted,
                assigned=self._assigned,
                revoked=self._revoked,
                lost=self._lost,
                start_waiting=self._transactions_waiting,
                waiting=self._waiting_on_kafka,
            ),
        )
        # Which hosts are behind a quarantine spike (metrics never carry host labels): crawled host names,
        # with the scrapes, on a port of their own, or nowhere (the alarms setting).
        alarms = {"/alarms": alarms_route(self.alarms, mojibake=self.mojibake)}
        self.http = HealthServer(
            settings.http_port,
            self.metrics,
            is_alive=lambda: self.heartbeat.alive(settings.liveness_window_s),
            is_ready=lambda: not self._why_not_ready(),
            why_not_ready=self._why_not_ready,
            host=settings.http_host,
            extra_routes=alarms if settings.alarms is Alarms.SHARED else None,
        )
        self.alarms_http = (
            RouteServer(settings.alarms_host, settings.alarms_port, alarms, name="alarms-server")
            if settings.alarms is Alarms.SEPARATE
            else None
        )
        # The group's lag from the broker's offsets: the consumer's own statistic misses offsets
        # committed through the producer's transaction (consumer/observability/lag.py).
        self.lag = LagMonitor(
            lambda isolation_level: make_consumer(
                connection, settings.group_id, isolation_level=isolation_level, role="lag"
            ),
            settings.group_id,
            settings.landing_topic,
            self.metrics,
            on_reading=self._lag_read,
            # Each pod's own partitions: the stall alert names the pod holding a stalled one.
            held=lambda: {partition for topic, partition in self.readiness.held() if topic == settings.landing_topic},
        )

    # -- lifecycle -----------------------------------------------------------

    def run(self) -> None:
        self.http.start()
        if self.alarms_http is not None:
            try:
                self.alarms_http.start()
            except Exception:
                self.http.stop()
                raise
        started = time.monotonic()
        # The decoders' tables, built at import, live as long as the process: frozen, the
        # collector's full collections no longer walk them. Garbage first, so none of it is
        # frozen with them.
        gc.collect()
        gc.freeze()
        self.log.info(
            "decoder tables ready",
            seconds=round(time.monotonic() - started, 2),
            # Which decoders run compiled ("none" where pip built without a compiler): --version's list.
            compiled=compiled(),
        )
        self.log.info(
            "processor starting",
            mode=self.settings.processing_mode.value,
            http_host=self.http.host,
            http_port=self.http.port,
            alarms=self.settings.alarms.value,
            alarms_port=self.alarms_http.port if self.alarms_http is not None else None,
            overrides=len(self.overrides.current) if self._refused is None else None,
            kafka=repr(self.connection),
        )
        try:
            if self._wait_for_overrides() and self._wait_for_kafka():
                self._check_permissions()
                if self.settings.processing_mode is ProcessingMode.EXACTLY_ONCE:
                    # Until init_transactions returns (the hook clears it): a coordinator can take minutes.
                    self._waiting = f"initialising transactions (transactional.id {self.settings.transactional_id})"
                self.lag.start()
                self.processor.run()
        finally:
            self._log_suppressed(final=True)
            self.lag.stop()
            if self.alarms_http is not None:
                self.alarms_http.stop()
            self.http.stop()
            self.log.info("processor stopped")

    def stop(self, *_signal_args: object) -> None:
        self._stopped.set()
        self.processor.stop()

    def _wait_for_kafka(self) -> bool:
        """Until the cluster answers and the three topics exist (README, "When Kafka is away")."""
        settings = self.settings
        topics = [settings.landing_topic, settings.clean_topic, settings.quarantine_topic]

        def report(problem: str | None) -> None:
            self.heartbeat.beat()  # waiting for the broker is not a hung loop: liveness holds
            self._waiting = problem or ""
            if problem is not None and topics_are_missing(problem):
                # A topic this user may not describe is missing from the metadata as if it did not exist:
                # waiting would never end.  Once the cluster answers, a missing ACL ends the start instead.
                # Only then: describing groups of a cluster that does not answer times the requests out, and
                # librdkafka aborts the process on such a timeout (librdkafka issue 4605, "eonce->refcnt > 0").
                try:
                    self._check_permissions(timeout_s=REQUEST_TIMEOUT_S)
                except MissingPermissions:
                    raise
                except KafkaLayerError:
                    pass  # the cluster does not answer: the wait says so

        return wait_for_cluster(self.connection, topics, stop=self._stopped, report=report)

    def _check_permissions(self, timeout_s: float | None = None) -> None:
        """``MissingPermissions`` naming every ACL missing, before the group is joined: ``run`` exits 2 with it
        (a "cannot start" line), where a missing ACL used to show as a consumer reading nothing or a batch aborted."""
        settings = self.settings
        needed = [
            Permission(TOPIC, settings.landing_topic, "Read", "the landing topic"),
            Permission(TOPIC, settings.clean_topic, "Write", "the clean topic"),
            Permission(TOPIC, settings.quarantine_topic, "Write", "the quarantine topic"),
            Permission(GROUP, settings.group_id, "Read", "the processor's group: its offsets, and the lag read"),
        ]
        transactional_id = None
        if settings.processing_mode is ProcessingMode.EXACTLY_ONCE:
            transactional_id = Permission(TRANSACTIONAL_ID, settings.transactional_id, "Write", "the transactions")
        timeout_s = timeout_s or settings.shutdown_timeout_s
        check_permissions(self.connection, needed, transactional_id=transactional_id, timeout_s=timeout_s)

    def _why_not_ready(self) -> str:
        """Empty when ready (``/readyz`` 200); else the reason, the most fundamental first."""
        if self.processor.stopping:
            return "stopping"
        if self._refused is not None:
            return f"overrides file refused: {self._refused}".replace("\n", "; ")
        if self._waiting:
            return self._waiting
        if not self.processor.assigned.is_set():
            return f"no partitions of {self.settings.landing_topic} assigned yet (group {self.settings.group_id})"
        return self.readiness.problem() or ""

    def install_signal_handlers(self) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self.stop)
            signal.signal(signal.SIGINT, self.stop)

    # -- factories (called by the loop when it starts: constructors stay offline) ----------

    def _consumer(self) -> Consumer:
        extra = {**self._watched_client(), "stats_cb": self.client_stats.callback("consumer")}
        if self.settings.group_instance_id:
            extra["group.instance.id"] = self.settings.group_instance_id
        return make_consumer(
            self.connection, self.settings.group_id, extra=extra, batch_bytes=self.settings.batch_max_bytes
        )

    def _watched_client(self) -> dict[str, object]:
        """A client's log and error callbacks, errors meaning Kafka is unreachable told to readiness too
        (the consumer's in the loop's thread, the producer's in the writer's: whichever waits on the broker)."""
        logs = client_logs()

        def error_cb(error: KafkaError) -> None:
            if error.code() in UNREACHABLE:
                self.readiness.kafka_failed(error.str())
            logs.error(error)

        return {"logger": logs, "error_cb": error_cb}

    def _policy(self) -> Policy:
        """How batches become durable, with a new producer (called again to replace a failed one)."""
        timeout = self.settings.shutdown_timeout_s
        watched = {**self._watched_client(), "stats_cb": self.client_stats.callback("producer")}
        if self.settings.processing_mode is ProcessingMode.EXACTLY_ONCE:
            producer = make_producer(
                self.connection,
                transactional_id=self.settings.transactional_id,
                extra=watched,
                transaction_timeout_ms=self.settings.transaction_timeout_ms,
            )
            return ExactlyOnce(
                producer,
                timeout=timeout,
                on_result=self._transaction,
                stopping=lambda: self.processor.stopping,
                # Mid-stream, an outage is waited out however long it lasts; the first producer's
                # init_transactions gives up after the rewind's patience and is tried again with
                # back-off, saying so (_transactions_waiting), as before.
                patience=math.inf,
                start_patience=math.inf if self.processor.started.is_set() else REWIND_PATIENCE_S,
            )
        producer = make_producer(self.connection, extra=watched)
        return AtLeastOnce(producer, timeout=timeout, on_result=self._transaction)

    def _transaction(self, result: str) -> None:
        """A transaction's result (writer thread); a retried call is a broker that did not answer as it should."""
        self.metrics.transaction(result)
        if result == "retried":
            self.readiness.kafka_failed("a transactional call failed (retriable) and is retried")

    # -- hooks -------------------------------------------------------------------

    def _consumer_error(self, error: KafkaError) -> None:
        if error.code() in UNREACHABLE:
            self.readiness.kafka_failed(error.str())
        self.log.warning("consumer error", error=error.str())

    def _batch_aborted(self, reason: str) -> None:
        self.readiness.batch_settled()
        self.readiness.kafka_failed(f"batch not committed: {reason}")
        self.log.warning("batch aborted, re-reading it", reason=reason)

    def _assigned(self, parts: list[TopicPartition]) -> None:
        self.readiness.assigned(_keys(parts))
        self.metrics.partitions_assigned(_keys(parts))
        self._rebalanced("assigned", parts)

    def _revoked(self, parts: list[TopicPartition]) -> None:
        self.readiness.released(_keys(parts))
        self.metrics.partitions_released(_keys(parts))
        self._rebalanced("revoked", parts)

    def _lost(self, parts: list[TopicPartition]) -> None:
        self.readiness.released(_keys(parts))
        self.metrics.partitions_released(_keys(parts))
        self._rebalanced("lost", parts)

    def _lag_read(self, failure: str | None) -> None:
        if failure is None:
            self.readiness.kafka_answered()
        else:
            self.readiness.kafka_failed(failure)

    def _transactions_waiting(self, problem: str | None) -> None:
        """Transactions cannot start yet (a coordinator that does not answer): not ready, waiting, alive."""
        self.heartbeat.beat()
        waited, self._waiting = self._waiting, f"waiting for transactions: {problem}" if problem else ""
        if problem:
            self.log.error("waiting for transactions", problem=problem, transactional_id=self.settings.transactional_id)
        elif waited.startswith("waiting for transactions"):
            self.log.info("transactions ready", transactional_id=self.settings.transactional_id)

    def _waiting_on_kafka(self, wait: Wait) -> None:
        """The loop waits on Kafka (loop's thread, every few seconds of the wait): alive, and said every 30 s.

        Liveness counts it as progress: waiting for the broker is what the processor should do during
        an outage, and every such call is bounded by the writer's watch (docs/delivery.md, "Kafka outages").
        """
        self.heartbeat.beat()
        now = time.monotonic()
        if now - self._wait_logged < WAITING_LOG_EVERY_S:
            return
        self._wait_logged = now
        self.log.warning(
            "waiting for Kafka",
            call=wait.call,
            waited_s=wait.seconds,
            partitions=list(wait.partitions),
            bootstrap_servers=self.connection.bootstrap_servers,
            transactional_id=self.settings.transactional_id
            if self.settings.processing_mode is ProcessingMode.EXACTLY_ONCE
            else None,
            problem=self.readiness.problem() or None,
        )

    def _waiting_between_batches(self) -> None:
        """Kafka has not answered for a while and the loop is between batches: it waits to read, say so.

        During an outage the writer's calls can fail at once (connection refused) instead of blocking, and
        an idle processor has no call in flight: no writer wait reports, yet the processor still waits on
        Kafka, and the on-call engineer is owed the same line (a blip shorter than ``WAIT_REPORT_AFTER_S``,
        such as an idle connection the broker closed, is not an outage)."""
        outage = self.readiness.unreachable()
        if outage is not None and outage[0] >= WAIT_REPORT_AFTER_S:
            held = sorted(self.readiness.held())
            self._waiting_on_kafka(Wait("consume", round(outage[0], 1), tuple(f"{t}[{p}]" for t, p in held)))

    def _committed(self, decided: Decided, seconds: float) -> None:
        self.readiness.kafka_answered()
        self.readiness.batch_settled()
        for message, decision in decided:
            self._routed(message, decision.note)
        self._batch_done([message for message, _ in decided], seconds)

    def _routed(self, message: Message, outcome: Outcome) -> None:
        if outcome.destination == SKIP:
            # Committed with its batch, written nowhere: counted, never a decode for the host alarms.
            assert outcome.reason is not None and outcome.binary is not None  # _not_text's
            self.metrics.record_skip(outcome.reason, media_family(outcome.binary))
            return
        if outcome.destination == QUARANTINE:
            assert outcome.reason is not None  # every quarantine route has one
            self.metrics.record_quarantine(outcome.reason)
            self._log_quarantined(message, outcome)
        self.metrics.record_routed(outcome.destination, outcome.source, outcome.encoding)
        if outcome.replacements:
            self.metrics.record_replacements(outcome.replacements)
        if outcome.host is not None and outcome.reason != NOT_TEXT:  # an image is not a lossy page
            self._observe_host(outcome)
        if outcome.destination == CLEAN:
            self._observe_mojibake(outcome)
        if outcome.override is not None:
            shadow = outcome.shadow
            self.metrics.override_hit(outcome.override.host, shadow.agrees if shadow else None)
            if shadow is not None:
                self.shadow.record(outcome.override, same_text=shadow.same_text, shadow_lossless=shadow.lossless)

    def _log_quarantined(self, message: Message, outcome: Outcome) -> None:
        if not self.quarantine_log.admit(outcome.host or ""):
            self.metrics.log_lines_suppressed()
            return
        self.log.info(
            "quarantined",
            reason=outcome.reason,
            topic=message.topic(),
            partition=message.partition(),
            offset=message.offset(),
            host=outcome.host,
            error=outcome.error,
        )

    def _log_suppressed(self, *, final: bool = False) -> None:
        summary = self.quarantine_log.summary(final=final)
        if summary is not None:
            self.log.info("quarantined lines suppressed", **summary)

    def _rebalanced(self, event: str, partitions: list[TopicPartition]) -> None:
        self.metrics.rebalance(event)
        log = self.log.warning if event == "lost" else self.log.info
        log(f"partitions {event}", partitions=_names(partitions))

    def _observe_host(self, outcome: Outcome) -> None:
        assert outcome.host is not None  # _routed observes only records with a host
        alarm = self.alarms.observe(outcome.host, outcome.destination == QUARANTINE, outcome.replacements)
        if alarm is not None:
            self.metrics.host_alarm()
            self.log.warning("host quarantine rate high", **_alarm_fields(alarm))

    def _observe_mojibake(self, outcome: Outcome) -> None:
        if outcome.mojibake_suspected:
            self.metrics.record_mojibake(outcome.source, outcome.encoding)
        if outcome.host is None:
            return
        alarm = self.mojibake.observe(outcome.host, outcome.mojibake_suspected)
        if alarm is not None:
            self.metrics.mojibake_host_alarm()
            self.log.warning("host mojibake rate high", **_mojibake_fields(alarm))

    def _batch_done(self, messages: list[Message], seconds: float) -> None:
        self.metrics.observe_batch(seconds, len(messages), sum(len(message.value() or b"") for message in messages))
        now_ms = time.time() * 1000
        for message in messages:
            kind, timestamp = message.timestamp()
            if kind != 0 and timestamp > 0:
                self.metrics.observe_end_to_end(max(now_ms - timestamp, 0) / 1000)

    def _between_batches(self) -> None:
        self.heartbeat.beat()
        self._waiting_between_batches()
        self._log_suppressed()
        self.overrides.check()
        if self.today() != self._table_day:  # review dates pass at midnight, not only on reload
            self._table_day = self.today()
            self._table = self._active_table()

    # -- overrides -------------------------------------------------------------------

    def _open_overrides(self) -> bool:
        """Read the overrides file; refused (invalid), the processor waits for a valid one (not ready,
        ``overrides_config_valid`` 0) instead of exiting: a crash loop would stall every restart and rollout."""
        try:
            self._watcher = OverridesWatcher(
                self.settings.overrides_path,
                on_reload=self._overrides_reloaded,
                on_rejected=self._overrides_rejected,
                on_restored=self._overrides_restored,
                allow_missing=True,
            )
        except OverridesError as exc:
            if self._refused is None or str(exc) != str(self._refused):
                self.metrics.overrides_reloaded(False)
                self.log.error("overrides file refused at start; waiting for a valid one", error=str(exc))
            self._refused = exc
            return False
        if self._refused is not None:
            self.log.info("overrides file valid", overrides=len(self._watcher.current))
        self._refused = None
        self.metrics.overrides_loaded(len(self._watcher.current))
        self._table = self._active_table()
        return True

    @property
    def overrides(self) -> OverridesWatcher:
        """The live overrides (only once the file was read and valid: ``_wait_for_overrides``)."""
        if self._refused is not None:
            raise RuntimeError(f"overrides refused: {self._refused}")
        return self._watcher

    def _wait_for_overrides(self) -> bool:
        """Until the overrides file is valid; False if stopped first.  Alive, not ready, nothing consumed."""
        while self._refused is not None:
            self.heartbeat.beat()
            if self._stopped.wait(OVERRIDES_RETRY_S):
                return False
            self._open_overrides()
        return True

    def _active_table(self) -> OverrideTable:
        config = self.overrides.current
        today = self.today()
        late = overdue(config, today)
        self.metrics.set_overrides_overdue(len(late))
        for override in late:
            self.log.warning("override overdue for review", host=override.host, review_by=str(override.review_by))
        return active_table(config, today)

    def _overrides_reloaded(self, new: OverrideConfig, old: OverrideConfig) -> None:
        self._table = self._active_table()
        self.shadow.retain(new.overrides)  # counters of overrides that are gone would never be read again
        self.metrics.overrides_reloaded(True, loaded=len(new))
        self.log.info("overrides reloaded", overrides=len(new), digest=new.digest[:12], previous=old.digest[:12])

    def _overrides_restored(self, config: OverrideConfig) -> None:
        self.metrics.overrides_restored()
        self.log.info("overrides file back to the overrides in force", digest=config.digest[:12])

    def _overrides_rejected(self, error: OverridesError) -> None:
        self.metrics.overrides_reloaded(False)
        self.log.error("overrides file refused; keeping the last good one", error=str(error))


def _names(partitions: list[TopicPartition]) -> list[str]:
    return [f"{p.topic}[{p.partition}]" for p in partitions]


def _keys(partitions: list[TopicPartition]) -> list[tuple[str, int]]:
    return [(p.topic, p.partition) for p in partitions]


def _alarm_fields(alarm: Alarm) -> dict[str, object]:
    return {name: getattr(alarm, name) for name in ("host", "records", "lossy", "replacements", "ratio")}


def _mojibake_fields(alarm: MojibakeAlarm) -> dict[str, object]:
    return {name: getattr(alarm, name) for name in ("host", "records", "mojibake", "ratio")}
