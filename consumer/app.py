"""Ties the shells together: settings, Kafka clients, Avro, overrides, observability, the loop.

``build(settings, connection)`` makes an ``App`` without touching the network;
``App.run()`` serves /metrics, /healthz and /readyz, runs the processor until
``stop()`` (SIGTERM, SIGINT) and returns once everything is closed.
"""

from __future__ import annotations

import datetime as dt
import gc
import signal
import threading
import time

from confluent_kafka import Message

from .decoding import OverrideTable, media_family, prescan
from .decoding import prepare as prepare_decoders
from .decoding.codecs import multibyte as multibyte_codecs
from .decoding.codecs import utf8 as utf8_codec
from .decoding.codecs import utf16 as utf16_codec
from .engine import AtLeastOnce, BatchEngine, ConsumerPositions, Decided, ExactlyOnce, Hooks, Policy
from .kafka.clients import MESSAGE_LIMIT_BYTES, make_consumer, make_producer
from .kafka.config import KafkaConnection
from .kafka.startup import wait_for_cluster
from .observability.client_stats import ClientStats
from .observability.health import HealthServer, Heartbeat
from .observability.host_alarms import HostAlarms, alarms_route
from .observability.lag import LagMonitor
from .observability.log_quota import LogQuota
from .observability.logging import get_logger
from .observability.metrics import Metrics
from .overrides.reload import OverridesWatcher
from .overrides.review import active_table, overdue
from .overrides.shadow import ShadowStats
from .processor.decide import Decider
from .processor.route import NOT_TEXT, QUARANTINE, SKIP, Routed, Router
from .serialization.serde import build_serde
from .settings import ProcessingMode, Settings

#: /healthz fails when the loop has not come round for this long (a stuck broker call, a deadlock).
LIVENESS_WINDOW_S = 60.0


class App:
    def __init__(self, settings: Settings, connection: KafkaConnection, *, today=dt.date.today) -> None:
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
        self._stopped = threading.Event()
        self.alarms = HostAlarms()
        self.shadow = ShadowStats()
        self.serde = build_serde(settings)
        self.overrides = OverridesWatcher(
            settings.overrides_path,
            on_reload=self._overrides_reloaded,
            on_rejected=self._overrides_rejected,
            on_restored=self._overrides_restored,
            allow_missing=True,
        )
        self.metrics.overrides_loaded(len(self.overrides.current))
        self._table_day = today()
        self._table = self._active_table()
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
            on_result=self.metrics.transaction,
            hooks=Hooks(
                committed=self._committed,
                between_batches=self._between_batches,
                consumer_error=lambda error: self.log.warning("consumer error", error=error.str()),
                batch_aborted=lambda reason: self.log.warning("batch aborted, re-reading it", reason=reason),
                assigned=lambda parts: self._rebalanced("assigned", parts),
                revoked=lambda parts: self._rebalanced("revoked", parts),
                lost=lambda parts: self._rebalanced("lost", parts),
            ),
        )
        self.http = HealthServer(
            settings.http_port,
            self.metrics,
            is_alive=lambda: self.heartbeat.alive(LIVENESS_WINDOW_S),
            is_ready=lambda: self.processor.assigned.is_set() and not self.processor.stopping,
            why_not_ready=self._why_not_ready,
            # Which hosts are behind a quarantine spike: metrics never carry host labels.
            extra_routes={"/alarms": alarms_route(self.alarms)},
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
        )

    # -- lifecycle -----------------------------------------------------------

    def run(self) -> None:
        self.http.start()
        # Before joining the group (so not ready yet): the first legacy page of the first
        # batch would otherwise wait for its codec's tables.
        started = time.monotonic()
        prepare_decoders()
        # The tables live as long as the process: frozen, the collector's full collections no
        # longer walk them (~50 ms each, ~5 us a record at 30 KB pages). Garbage first, so none
        # of it is frozen with them.
        gc.collect()
        gc.freeze()
        self.log.info(
            "decoder tables ready",
            seconds=round(time.monotonic() - started, 2),
            prescan_compiled=prescan.COMPILED,
            utf8_check_compiled=utf8_codec.COMPILED,
            cjk_decoders_compiled=multibyte_codecs.COMPILED,
            utf16_compiled=utf16_codec.COMPILED,
        )
        self.log.info(
            "processor starting",
            mode=self.settings.processing_mode.value,
            http_port=self.http.port,
            overrides=len(self.overrides.current),
            kafka=repr(self.connection),
        )
        try:
            if self._wait_for_kafka():
                self.lag.start()
                self.processor.run()
        finally:
            self._log_suppressed(final=True)
            self.lag.stop()
            self.http.stop()
            self.log.info("processor stopped")

    def stop(self, *_signal_args) -> None:
        self._stopped.set()
        self.processor.stop()

    def _wait_for_kafka(self) -> bool:
        """Until the cluster answers and the three topics exist (README, "When Kafka is away")."""
        settings = self.settings
        topics = [settings.landing_topic, settings.clean_topic, settings.quarantine_topic]

        def report(problem: str | None) -> None:
            self.heartbeat.beat()  # waiting for the broker is not a hung loop: liveness holds
            self._waiting = problem or ""

        return wait_for_cluster(self.connection, topics, stop=self._stopped, report=report)

    def _why_not_ready(self) -> str:
        if self.processor.stopping:
            return "stopping"
        if self._waiting:
            return self._waiting
        return f"no partitions of {self.settings.landing_topic} assigned yet (group {self.settings.group_id})"

    def install_signal_handlers(self) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self.stop)
            signal.signal(signal.SIGINT, self.stop)

    # -- factories (called by the loop when it starts: constructors stay offline) ----------

    def _consumer(self):
        extra: dict = {"stats_cb": self.client_stats.callback("consumer")}
        if self.settings.group_instance_id:
            extra["group.instance.id"] = self.settings.group_instance_id
        return make_consumer(self.connection, self.settings.group_id, extra=extra)

    def _policy(self) -> Policy:
        """How batches become durable, with a new producer (called again to replace a failed one)."""
        timeout = self.settings.shutdown_timeout_s
        stats = {"stats_cb": self.client_stats.callback("producer")}
        if self.settings.processing_mode is ProcessingMode.EXACTLY_ONCE:
            producer = make_producer(self.connection, transactional_id=self.settings.transactional_id, extra=stats)
            return ExactlyOnce(
                producer, timeout=timeout, on_result=self.metrics.transaction, stopping=lambda: self.processor.stopping
            )
        producer = make_producer(self.connection, extra=stats)
        return AtLeastOnce(producer, timeout=timeout, on_result=self.metrics.transaction)

    # -- hooks -------------------------------------------------------------------

    def _committed(self, decided: Decided, seconds: float) -> None:
        for message, decision in decided:
            self._routed(message, decision.note)
        self._batch_done([message for message, _ in decided], seconds)

    def _routed(self, message: Message, routed: Routed) -> None:
        decoded = routed.decoded
        if routed.destination == SKIP:
            # Committed with its batch, written nowhere: counted, never a decode for the host alarms.
            self.metrics.record_skip(routed.reason, media_family(decoded.binary))
            return
        if routed.destination == QUARANTINE:
            self.metrics.record_quarantine(routed.reason)
            self._log_quarantined(message, routed)
        self.metrics.record_routed(
            routed.destination, decoded.source if decoded else "none", decoded.encoding if decoded else "none"
        )
        if decoded is not None and decoded.replacements:
            self.metrics.record_replacements(decoded.replacements)
        if routed.host is not None and routed.reason != NOT_TEXT:  # an image is not a lossy page
            self._observe_host(routed)
        if decoded is not None and decoded.override is not None:
            agrees = routed.shadow.agrees if routed.shadow else None
            self.metrics.override_hit(decoded.override.host, agrees)
            if routed.shadow is not None:
                self.shadow.record(
                    decoded.override, same_text=routed.shadow.same_text, shadow_lossless=routed.shadow.lossless
                )

    def _log_quarantined(self, message: Message, routed: Routed) -> None:
        if not self.quarantine_log.admit(routed.host or ""):
            self.metrics.log_lines_suppressed()
            return
        self.log.info(
            "quarantined",
            reason=routed.reason,
            topic=message.topic(),
            partition=message.partition(),
            offset=message.offset(),
            host=routed.host,
            error=routed.record.get("error"),
        )

    def _log_suppressed(self, *, final: bool = False) -> None:
        summary = self.quarantine_log.summary(final=final)
        if summary is not None:
            self.log.info("quarantined lines suppressed", **summary)

    def _rebalanced(self, event: str, partitions) -> None:
        self.metrics.rebalance(event)
        log = self.log.warning if event == "lost" else self.log.info
        log(f"partitions {event}", partitions=_names(partitions))

    def _observe_host(self, routed: Routed) -> None:
        lossy = routed.destination == QUARANTINE
        replacements = routed.decoded.replacements if routed.decoded else 0
        alarm = self.alarms.observe(routed.host, lossy, replacements)
        if alarm is not None:
            self.metrics.host_alarm()
            self.log.warning("host quarantine rate high", **_alarm_fields(alarm))

    def _batch_done(self, messages: list[Message], seconds: float) -> None:
        self.metrics.observe_batch(seconds, len(messages), sum(len(message.value() or b"") for message in messages))
        now_ms = time.time() * 1000
        for message in messages:
            kind, timestamp = message.timestamp()
            if kind != 0 and timestamp > 0:
                self.metrics.observe_end_to_end(max(now_ms - timestamp, 0) / 1000)

    def _between_batches(self) -> None:
        self.heartbeat.beat()
        self._log_suppressed()
        self.overrides.check()
        if self.today() != self._table_day:  # review dates pass at midnight, not only on reload
            self._table_day = self.today()
            self._table = self._active_table()

    # -- overrides -------------------------------------------------------------------

    def _active_table(self) -> OverrideTable:
        config = self.overrides.current
        today = self.today()
        late = overdue(config, today)
        self.metrics.set_overrides_overdue(len(late))
        for override in late:
            self.log.warning("override overdue for review", host=override.host, review_by=str(override.review_by))
        return active_table(config, today)

    def _overrides_reloaded(self, new, old) -> None:
        self._table = self._active_table()
        self.shadow.retain(new.overrides)  # counters of overrides that are gone would never be read again
        self.metrics.overrides_reloaded(True, loaded=len(new))
        self.log.info("overrides reloaded", overrides=len(new), digest=new.digest[:12], previous=old.digest[:12])

    def _overrides_restored(self, config) -> None:
        self.metrics.overrides_restored()
        self.log.info("overrides file back to the overrides in force", digest=config.digest[:12])

    def _overrides_rejected(self, error) -> None:
        self.metrics.overrides_reloaded(False)
        self.log.error("overrides file refused; keeping the last good one", error=str(error))


def _names(partitions) -> list[str]:
    return [f"{p.topic}[{p.partition}]" for p in partitions]


def _alarm_fields(alarm) -> dict:
    return {name: getattr(alarm, name) for name in ("host", "records", "lossy", "replacements", "ratio")}
