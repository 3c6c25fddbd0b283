"""Prometheus metrics of the processor, in a registry of their own.

Every series is named ``crawl_decoder_*``.  Each ``Metrics`` owns a private
``CollectorRegistry`` (never the process-global one), so tests and several
processors in one process do not collide.

Cardinality is bounded by construction: no label ever takes one value per
crawled host.  Labels whose values come from our own code (destination,
transaction result, reload result, shadow verdict, skip reason, media type
family) are checked against their closed set and a wrong value raises
``InvalidLabelError``.  Labels whose values come from data or configuration
(source, encoding, quarantine reason, override pattern) admit at most a fixed
number of distinct values; later ones are counted as ``"other"`` and the fold
is itself counted in ``crawl_decoder_label_values_folded_total{label}`` so a
misuse is visible.

Counters render without their ``_created`` sample: Prometheus ignores it in the
text format, and every counter and histogram shown twice doubles what a scrape
stores for nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, ProcessCollector
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.metrics_core import Metric

from ..build_info import build_info
from ..decoding.mime_sniff import MEDIA_FAMILIES
from .exceptions import InvalidLabelError

NAMESPACE = "crawl_decoder"
OTHER = "other"

DESTINATIONS = ("clean", "quarantine")
TRANSACTION_RESULTS = ("committed", "aborted", "retried")
RELOAD_RESULTS = ("applied", "rejected")
SKIP_REASONS = ("not-text",)
#: The rebalance callbacks of the engine's consumer.
REBALANCE_EVENTS = ("assigned", "revoked", "lost")
#: The clients whose librdkafka statistics are exported (``client_stats.py``).
CLIENT_ROLES = ("consumer", "producer")

#: Distinct values admitted per open label before folding into "other".  The
#: decoding core has 10 sources and the Encoding Standard 40 encodings; overrides
#: are bounded by the operators' file, which is reviewed, so 1024 is generous.
LABEL_LIMITS = {"source": 16, "encoding": 64, "reason": 32, "override": 1024, "broker": 64}
# A label value longer than this is a bug (a URL, a message), never a category.
_MAX_LABEL_LENGTH = 100

# Buckets, in the unit of each histogram.  Crawl pipelines can lag by minutes to
# hours, so end-to-end latency goes up to an hour.
BATCH_SECONDS_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
BATCH_RECORDS_BUCKETS = (1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000)
END_TO_END_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)
REPLACEMENTS_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000, 10000, 100000)


class PartitionReadingLike(Protocol):
    """What ``set_lag_reading`` reads of one partition (``observability.lag.PartitionReading``)."""

    start: int
    lag: int
    lag_uncommitted: int
    age_s: float


class _BoundedValues:
    """Admits the first *limit* distinct values of one label; later ones read ``"other"``."""

    def __init__(self, label: str, limit: int, folded: Counter) -> None:
        self._label = label
        self._limit = limit
        self._folded = folded
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def admit(self, value: str) -> str:
        value = str(value)
        with self._lock:
            if value in self._seen:
                return value
            if len(self._seen) < self._limit and 0 < len(value) <= _MAX_LABEL_LENGTH:
                self._seen.add(value)
                return value
        self._folded.labels(label=self._label).inc()
        return OTHER


def _closed(label: str, value: str, allowed: Iterable[str]) -> str:
    if value not in allowed:
        raise InvalidLabelError(f"{label}={value!r} is not one of {', '.join(allowed)}")
    return value


class _WithoutCreated:
    """The registry as a scrape sees it: every family without its ``*_created`` samples."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self._registry = registry

    def collect(self) -> Iterator[Metric]:
        for family in self._registry.collect():
            family.samples = [sample for sample in family.samples if not sample.name.endswith("_created")]
            yield family


class Metrics:
    """The processor's metrics; every method is safe to call from any thread."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._define_process(clock)
        self._define_routing()
        self._define_timing()
        self._define_kafka()
        self._define_overrides()
        self._define_client_statistics()
        self._define_mojibake()
        self._routed: dict[tuple[str, str, str], Counter] = {}
        self._bounded = {
            label: _BoundedValues(label, limit, self._folded) for label, limit in LABEL_LIMITS.items()
        }
        # The (topic, partition) lag series set last, so the next reading can drop partitions
        # that are gone (a topic recreated with fewer partitions, a monitor stopped).
        self._lag_partitions: set[tuple[str, str]] = set()
        self._lag_lock = threading.Lock()

    def _counter(self, name: str, doc: str, labels: tuple[str, ...] = ()) -> Counter:
        return Counter(name, doc, labels, namespace=NAMESPACE, registry=self.registry)

    def _gauge(self, name: str, doc: str, labels: tuple[str, ...] = ()) -> Gauge:
        return Gauge(name, doc, labels, namespace=NAMESPACE, registry=self.registry)

    def _histogram(self, name: str, doc: str, buckets: tuple[float, ...]) -> Histogram:
        return Histogram(name, doc, namespace=NAMESPACE, registry=self.registry, buckets=buckets)

    def _define_process(self, clock: Callable[[], float]) -> None:
        info = build_info()
        build = self._gauge(
            "build_info",
            "Always 1; the labels say what runs: this package's version, Python's, confluent-kafka's, "
            "librdkafka's and which decoders are compiled (`crawl-decoder --version` prints the same).",
            tuple(info),
        )
        build.labels(**info).set(1)
        # A restart (the container's, in the same pod) shows as a change of this value: changes() over it
        # counts restarts from the processor's own metrics, with no kube-state-metrics needed.
        self._gauge("start_time_seconds", "Unix time this processor started.").set(clock())
        # process_* (resident memory, CPU seconds, open and maximum file descriptors, start time): the
        # standard names every dashboard knows, from /proc; on a system without /proc it exports nothing.
        ProcessCollector(registry=self.registry)
        self._ready = self._gauge(
            "ready",
            "1 while /readyz answers 200 (partitions held, Kafka answering, overrides valid, not stopping), else 0.",
        )

    def _define_routing(self) -> None:
        self._records = self._counter(
            "records", "Records written, by destination topic and how the encoding was decided.",
            ("destination", "source", "encoding"),
        )
        self._replacements = self._counter("replacements", "U+FFFD introduced by decoding, over all records.")
        self._replacements_per_record = self._histogram(
            "replacements_per_lossy_record", "U+FFFD introduced per lossy record.", REPLACEMENTS_BUCKETS
        )
        self._quarantined = self._counter("quarantined", "Records sent to quarantine, by reason.", ("reason",))
        self._skipped = self._counter(
            "skipped",
            "Records written nowhere, their offsets committed with their batch, by reason and media type family "
            "(not-text: an image, a PDF... under non_text=skip).",
            ("reason", "media_family"),
        )
        self._host_alarms = self._counter(
            "host_alarms", "Hosts that crossed the lossy-record ratio (see the logs and /alarms for which)."
        )
        self._folded = self._counter(
            "label_values_folded",
            "Label values counted as 'other' because the label already had its maximum of distinct values.",
            ("label",),
        )

    def _define_timing(self) -> None:
        self._batch_seconds = self._histogram(
            "batch_duration_seconds", "Time to process one batch, from poll to commit.", BATCH_SECONDS_BUCKETS
        )
        self._batch_records = self._histogram("batch_records", "Records per batch.", BATCH_RECORDS_BUCKETS)
        self._processed_bytes = self._counter(
            "processed_bytes",
            "Bytes of landing record values in committed batches (as read from Kafka, before any "
            "Content-Encoding is undone).",
        )
        self._end_to_end = self._histogram(
            "end_to_end_latency_seconds",
            "From the landing record's Kafka timestamp to the commit of its output.",
            END_TO_END_BUCKETS,
        )

    def _define_kafka(self) -> None:
        self._lag = self._gauge(
            "consumer_lag",
            "Records of the landing topic the consumer group has not committed yet: the partition's last "
            "stable offset (read_committed high watermark) minus the group's committed offset. Each "
            "instance reports the partitions it holds; sum over instances for the group.",
            ("topic", "partition"),
        )
        self._assigned = self._gauge(
            "partition_assigned",
            "1 for each partition of the landing topic this instance holds (assigned to its consumer and not "
            "revoked or lost since); the scrape's pod label says which pod holds it.",
            ("topic", "partition"),
        )
        self._assigned_lock = threading.Lock()
        self._lag_uncommitted = self._gauge(
            "consumer_lag_uncommitted",
            "Records of the landing topic past the group's committed offset up to the high watermark: the lag "
            "plus what upstream transactions still open hold (not readable yet). Aggregate like consumer_lag.",
            ("topic", "partition"),
        )
        self._committed_offset = self._gauge(
            "consumer_committed_offset",
            "The offset the group reads next in each partition of the landing topic (its committed offset, or "
            "the log start): whether it moves is whether the group makes progress.",
            ("topic", "partition"),
        )
        self._oldest_age = self._gauge(
            "oldest_unprocessed_age_seconds",
            "Seconds since the timestamp of the oldest landing record the group has not processed (committed, "
            "or in a transaction still open), 0 when none waits: the time-based lag. Aggregate with max.",
            ("topic", "partition"),
        )
        self._lag_failures = self._counter(
            "consumer_lag_refresh_failures",
            "Lag readings that failed (the broker did not answer); the lag series are dropped until one succeeds.",
        )
        self._transactions = self._counter("transactions", "Kafka transactions, by outcome.", ("result",))
        for result in TRANSACTION_RESULTS:
            self._transactions.labels(result=result)
        self._rebalances = self._counter(
            "rebalances",
            "Rebalance callbacks of the processor's consumer: partitions assigned, revoked, or lost (taken "
            "away without a revoke: the session timed out).",
            ("event",),
        )
        for event in REBALANCE_EVENTS:
            self._rebalances.labels(event=event)
        self._log_lines_suppressed = self._counter(
            "log_lines_suppressed",
            "Log lines not written because their host had its quota for the minute (quarantined records: "
            "quarantine_log_per_host_per_minute); one summary line a minute counts them by host.",
        )

    def _define_overrides(self) -> None:
        self._reloads = self._counter("overrides_reloads", "Overrides file reloads, by outcome.", ("result",))
        for result in RELOAD_RESULTS:
            self._reloads.labels(result=result)
        self._overrides_valid = self._gauge(
            "overrides_config_valid", "1 when the last overrides file read was applied, 0 when it was rejected."
        )
        self._overrides_loaded = self._gauge("overrides_loaded", "Overrides in force.")
        self._overrides_applied_at = self._gauge(
            "overrides_last_applied_timestamp_seconds", "Unix time the overrides in force were applied."
        )
        self._overrides_overdue = self._gauge("overrides_overdue", "Overrides past their review_by date.")
        self._override_hits = self._counter(
            "override_hits",
            "Records decoded under an override, by override host pattern and whether the page's own "
            "evidence (shadow decision) agreed.",
            ("override", "shadow"),
        )

    def _define_client_statistics(self) -> None:
        role = ("role",)
        self._kafka_counters = {
            "rebalances": self._counter(
                "kafka_rebalances", "Group rebalances librdkafka counted (cgrp.rebalance_cnt).", role
            ),
            "tx_messages": self._counter("kafka_tx_messages", "Messages sent to brokers (txmsgs).", role),
            "rx_messages": self._counter("kafka_rx_messages", "Messages received from brokers (rxmsgs).", role),
            "tx_errors": self._counter("kafka_tx_errors", "Request send errors, over all brokers (txerrs).", role),
            "rx_errors": self._counter("kafka_rx_errors", "Response receive errors, over all brokers (rxerrs).", role),
        }
        for counter in self._kafka_counters.values():
            for client in CLIENT_ROLES:
                counter.labels(role=client)  # 0 from the start, so rate() has a first point
        self._kafka_gauges = {
            "queue_messages": self._gauge(
                "kafka_queue_messages", "Messages in the producer's queues, not yet acknowledged (msg_cnt).", role
            ),
            "queue_bytes": self._gauge("kafka_queue_bytes", "Bytes of those messages (msg_size).", role),
            "fetch_queue_messages": self._gauge(
                "kafka_fetch_queue_messages", "Messages fetched and not yet consumed, all partitions (fetchq_cnt).",
                role,
            ),
            "fetch_queue_bytes": self._gauge(
                "kafka_fetch_queue_bytes", "Bytes fetched and not yet consumed, all partitions (fetchq_size).", role
            ),
        }
        self._rtt = {
            stat: self._gauge(
                f"kafka_broker_rtt_{stat}_seconds",
                f"Request round-trip time to each broker over the last statistics interval, {stat} (rtt.{stat}).",
                ("role", "broker"),
            )
            for stat in ("avg", "p99")
        }

    def _define_mojibake(self) -> None:
        self._mojibake = self._counter(
            "mojibake_suspected",
            "Clean records published with mojibake suspected (UTF-8 read as windows-1252 or ISO-8859-1 somewhere "
            "upstream, or by us under a left-over declaration), by how the encoding was decided. The hosts are on "
            "/alarms, never a label.",
            ("source", "encoding"),
        )
        self._mojibake_host_alarms = self._counter(
            "mojibake_host_alarms",
            "Hosts whose share of mojibake-suspected clean records crossed the ratio over the window (episodes "
            "started; the logs and /alarms say which).",
        )
        self._mojibake_hosts = self._gauge(
            "mojibake_hosts",
            "Hosts in a mojibake episode now: their share of mojibake-suspected clean records over the window "
            "is above the ratio (see /alarms for which).",
        )

    # Routing -----------------------------------------------------------------

    def record_routed(self, destination: str, source: str, encoding: str) -> None:
        """Count one record written to *destination* (clean or quarantine)."""
        key = (destination, source, encoding)
        child = self._routed.get(key)
        if child is None:
            child = self._routed_child(key)
        child.inc()

    def _routed_child(self, key: tuple[str, str, str]) -> Counter:
        # Called per record, so the labelled child is cached (11 µs -> 2 µs a call, measured); only
        # combinations admitted unfolded are cached, which bounds the cache like the labels.
        destination, source, encoding = key
        labels = (
            _closed("destination", destination, DESTINATIONS),
            self._bounded["source"].admit(source),
            self._bounded["encoding"].admit(encoding),
        )
        child = self._records.labels(*labels)
        if labels == key:
            self._routed[key] = child
        return child

    def record_replacements(self, n: int) -> None:
        """Count the U+FFFD of one record; a record with none is not lossy and adds nothing."""
        if n < 0:
            raise ValueError(f"replacements must not be negative, got {n}")
        if n:
            self._replacements.inc(n)
            self._replacements_per_record.observe(n)

    def record_quarantine(self, reason: str) -> None:
        self._quarantined.labels(reason=self._bounded["reason"].admit(reason)).inc()

    def record_skip(self, reason: str, media_family: str) -> None:
        """Count one record written nowhere; *media_family* is ``decoding.media_family`` of what it was."""
        reason = _closed("reason", reason, SKIP_REASONS)
        self._skipped.labels(reason=reason, media_family=_closed("media_family", media_family, MEDIA_FAMILIES)).inc()

    def host_alarm(self) -> None:
        """Count one host alarm; the host itself goes to the logs, never to a label."""
        self._host_alarms.inc()

    def record_mojibake(self, source: str, encoding: str) -> None:
        """Count one clean record published with mojibake suspected, decided by *source* as *encoding*."""
        self._mojibake.labels(self._bounded["source"].admit(source), self._bounded["encoding"].admit(encoding)).inc()

    def mojibake_host_alarm(self) -> None:
        """Count one mojibake episode of a host; the host goes to the logs and /alarms, never to a label."""
        self._mojibake_host_alarms.inc()

    def track_mojibake_hosts(self, alarmed: Callable[[], int]) -> None:
        """``crawl_decoder_mojibake_hosts`` reads *alarmed* (``MojibakeAlarms.alarmed``) at each scrape."""
        self._mojibake_hosts.set_function(lambda: float(alarmed()))

    # Timing ------------------------------------------------------------------

    def observe_batch(self, seconds: float, records: int, value_bytes: int = 0) -> None:
        """One committed batch: its duration, its records and the bytes of their values."""
        self._batch_seconds.observe(seconds)
        self._batch_records.observe(records)
        if value_bytes:
            self._processed_bytes.inc(value_bytes)

    def observe_end_to_end(self, seconds: float) -> None:
        # The Kafka timestamp comes from the producer's clock; skew can make it "future".
        self._end_to_end.observe(max(0.0, seconds))

    # Kafka -------------------------------------------------------------------

    def set_consumer_lags(self, lags: Mapping[tuple[str, int], int]) -> None:
        """Replace every lag series with *lags*, keyed by (topic, partition), and drop the other series of a
        lag reading (``set_lag_reading`` sets them all).

        Partitions set earlier and missing from *lags* are removed, so no series
        keeps a value nobody measures any more.
        """
        self._replace_lag_series({(topic, str(partition)): (lag,) for (topic, partition), lag in lags.items()})

    def set_lag_reading(self, topic: str, reading: Mapping[int, PartitionReadingLike]) -> None:
        """Replace every series of a lag reading with *reading* (partition -> its offsets, lags and age)."""
        self._replace_lag_series({
            (topic, str(partition)): (r.lag, r.lag_uncommitted, r.start, r.age_s) for partition, r in reading.items()
        })  # fmt: skip

    def _replace_lag_series(self, values: Mapping[tuple[str, str], tuple[float, ...]]) -> None:
        gauges = (self._lag, self._lag_uncommitted, self._committed_offset, self._oldest_age)
        with self._lag_lock:
            for labels in self._lag_partitions:
                for gauge in gauges:
                    try:
                        gauge.remove(*labels)
                    except KeyError:  # a series this reading did not set (set_consumer_lags sets the lag only)
                        pass
            for labels, numbers in values.items():
                for gauge, number in zip(gauges, numbers, strict=False):
                    gauge.labels(*labels).set(number)
            self._lag_partitions = set(values)

    def lag_refresh_failed(self) -> None:
        """A lag reading failed: count it and drop the series of the reading (an old number would pass for a
        true one)."""
        self._lag_failures.inc()
        self.set_consumer_lags({})

    def transaction(self, result: str) -> None:
        """Count one transaction: committed, aborted or retried."""
        self._transactions.labels(result=_closed("result", result, TRANSACTION_RESULTS)).inc()

    def partitions_assigned(self, partitions: Iterable[tuple[str, int]]) -> None:
        """Partitions added to this instance's assignment (an incremental assign adds to what it held)."""
        with self._assigned_lock:
            for topic, partition in partitions:
                self._assigned.labels(topic, str(partition)).set(1)

    def partitions_released(self, partitions: Iterable[tuple[str, int]]) -> None:
        """Partitions revoked or lost: their series go (no 0 left behind for a partition held elsewhere)."""
        with self._assigned_lock:
            for topic, partition in partitions:
                try:
                    self._assigned.remove(topic, str(partition))
                except KeyError:  # not held here (a revoke of what an earlier lost already took)
                    pass

    def rebalance(self, event: str) -> None:
        """Count one rebalance callback of the processor's consumer: assigned, revoked or lost."""
        self._rebalances.labels(event=_closed("event", event, REBALANCE_EVENTS)).inc()

    def kafka_statistics(
        self,
        role: str,
        figures: Mapping[str, int],
        increases: Mapping[str, int],
        rtt: Mapping[str, tuple[float, float]],
    ) -> None:
        """One librdkafka statistics report of the client in *role* (``client_stats.ClientStats``).

        *figures* are the levels, *increases* what the cumulative figures grew by
        since the last report, *rtt* broker node id -> (avg, p99) seconds.
        """
        role = _closed("role", role, CLIENT_ROLES)
        for name, counter in self._kafka_counters.items():
            counter.labels(role=role).inc(increases.get(name, 0))
        for name, gauge in self._kafka_gauges.items():
            gauge.labels(role=role).set(figures.get(name, 0))
        for broker, (avg, p99) in rtt.items():
            broker = self._bounded["broker"].admit(broker)
            self._rtt["avg"].labels(role=role, broker=broker).set(avg)
            self._rtt["p99"].labels(role=role, broker=broker).set(p99)

    def log_lines_suppressed(self, n: int = 1) -> None:
        self._log_lines_suppressed.inc(n)

    # Overrides ---------------------------------------------------------------

    def overrides_reloaded(self, ok: bool, loaded: int | None = None) -> None:
        """Record one reload of the overrides file; *loaded* is the number of overrides now in force.

        A rejected file leaves the previous overrides in force, so only an
        applied one moves ``overrides_loaded`` and the applied timestamp.
        """
        self._reloads.labels(result="applied" if ok else "rejected").inc()
        self._overrides_valid.set(1 if ok else 0)
        if ok:
            self._overrides_applied_at.set_to_current_time()
            if loaded is not None:
                self._overrides_loaded.set(loaded)

    def overrides_loaded(self, loaded: int) -> None:
        """The overrides in force at start-up (no reload counted): the file read before the first batch."""
        self._overrides_valid.set(1)
        self._overrides_loaded.set(loaded)
        self._overrides_applied_at.set_to_current_time()

    def override_hit(self, host: str, agrees: bool | None) -> None:
        """Count a record decoded under the override whose host pattern is *host*.

        *agrees* says whether the decision without the override would have been
        the same (None: the page gave no evidence either way).
        """
        shadow = "unknown" if agrees is None else "agree" if agrees else "disagree"
        self._override_hits.labels(override=self._bounded["override"].admit(host), shadow=shadow).inc()

    def overrides_restored(self) -> None:
        """The file on disk is again the one in force (a refused edit reverted byte for byte): valid again."""
        self._overrides_valid.set(1)

    def set_overrides_overdue(self, n: int) -> None:
        self._overrides_overdue.set(n)

    # Health ------------------------------------------------------------------

    def track_readiness(self, is_ready: Callable[[], bool]) -> None:
        """``crawl_decoder_ready`` reads *is_ready* at each scrape (what ``/readyz`` answers)."""
        def read() -> float:
            try:
                return 1.0 if is_ready() else 0.0
            except Exception:  # noqa: BLE001 - a failing check means "not ready", never a failed scrape
                return 0.0

        self._ready.set_function(read)

    # Exposition --------------------------------------------------------------

    def render(self) -> tuple[bytes, str]:
        """The body and Content-Type of a ``/metrics`` response (Prometheus text format)."""
        return generate_latest(_WithoutCreated(self.registry)), CONTENT_TYPE_LATEST

