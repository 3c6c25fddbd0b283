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
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

from ..decoding.mime_sniff import MEDIA_FAMILIES
from .exceptions import InvalidLabelError

NAMESPACE = "crawl_decoder"
OTHER = "other"

DESTINATIONS = ("clean", "quarantine")
TRANSACTION_RESULTS = ("committed", "aborted", "retried")
RELOAD_RESULTS = ("applied", "rejected")
SHADOW_VERDICTS = ("agree", "disagree", "unknown")
SKIP_REASONS = ("not-text",)

#: Distinct values admitted per open label before folding into "other".  The
#: decoding core has 10 sources and the Encoding Standard 40 encodings; overrides
#: are bounded by the operators' file, which is reviewed, so 1024 is generous.
LABEL_LIMITS = {"source": 16, "encoding": 64, "reason": 32, "override": 1024}
# A label value longer than this is a bug (a URL, a message), never a category.
_MAX_LABEL_LENGTH = 100

# Buckets, in the unit of each histogram.  Crawl pipelines can lag by minutes to
# hours, so end-to-end latency goes up to an hour.
BATCH_SECONDS_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
BATCH_RECORDS_BUCKETS = (1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000)
END_TO_END_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)
REPLACEMENTS_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000, 10000, 100000)


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


class Metrics:
    """The processor's metrics; every method is safe to call from any thread."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._define_routing()
        self._define_timing()
        self._define_kafka()
        self._define_overrides()
        self._routed: dict[tuple[str, str, str], Counter] = {}
        self._bounded = {
            label: _BoundedValues(label, limit, self._folded) for label, limit in LABEL_LIMITS.items()
        }
        # The (topic, partition) series the last librdkafka statistics set, so the next
        # payload can drop partitions this consumer no longer owns.
        self._stats_partitions: set[tuple[str, str]] = set()
        self._stats_lock = threading.Lock()

    def _counter(self, name: str, doc: str, labels: tuple[str, ...] = ()) -> Counter:
        return Counter(name, doc, labels, namespace=NAMESPACE, registry=self.registry)

    def _gauge(self, name: str, doc: str, labels: tuple[str, ...] = ()) -> Gauge:
        return Gauge(name, doc, labels, namespace=NAMESPACE, registry=self.registry)

    def _histogram(self, name: str, doc: str, buckets: tuple[float, ...]) -> Histogram:
        return Histogram(name, doc, namespace=NAMESPACE, registry=self.registry, buckets=buckets)

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
        self._end_to_end = self._histogram(
            "end_to_end_latency_seconds",
            "From the landing record's Kafka timestamp to the commit of its output.",
            END_TO_END_BUCKETS,
        )

    def _define_kafka(self) -> None:
        self._lag = self._gauge(
            "consumer_lag", "Records between the committed offset and the high watermark.", ("topic", "partition")
        )
        self._stats_errors = self._counter(
            "librdkafka_stats_errors", "librdkafka statistics payloads that could not be parsed."
        )
        self._transactions = self._counter("transactions", "Kafka transactions, by outcome.", ("result",))
        for result in TRANSACTION_RESULTS:
            self._transactions.labels(result=result)

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

    # Timing ------------------------------------------------------------------

    def observe_batch(self, seconds: float, records: int) -> None:
        self._batch_seconds.observe(seconds)
        self._batch_records.observe(records)

    def observe_end_to_end(self, seconds: float) -> None:
        # The Kafka timestamp comes from the producer's clock; skew can make it "future".
        self._end_to_end.observe(max(0.0, seconds))

    # Kafka -------------------------------------------------------------------

    def set_consumer_lag(self, topic: str, partition: int, lag: int) -> None:
        self._lag.labels(topic=topic, partition=str(partition)).set(lag)

    def observe_librdkafka_stats(self, stats_json: str | bytes) -> int:
        """Set ``consumer_lag`` from librdkafka's statistics JSON (the ``stats_cb`` payload).

        Reads ``topics.<topic>.partitions.<id>.consumer_lag`` as documented in
        librdkafka's STATISTICS.md, skipping the internal partition -1 and lags of
        -1 (unknown: not assigned or no committed offset yet).  Series this method
        set earlier and the payload no longer reports are removed, so a revoked
        partition stops showing a frozen lag.  Returns the number of partitions
        set.  Never raises: it runs inside librdkafka's poll, and a malformed
        payload is counted in ``librdkafka_stats_errors_total`` instead.
        """
        try:
            lags = dict(_partition_lags(json.loads(stats_json)))
        except (ValueError, TypeError, AttributeError):
            self._stats_errors.inc()
            return 0
        with self._stats_lock:
            for topic, partition in self._stats_partitions - lags.keys():
                self._lag.remove(topic, partition)
            for (topic, partition), lag in lags.items():
                self._lag.labels(topic=topic, partition=partition).set(lag)
            self._stats_partitions = set(lags)
        return len(lags)

    def transaction(self, result: str) -> None:
        """Count one transaction: committed, aborted or retried."""
        self._transactions.labels(result=_closed("result", result, TRANSACTION_RESULTS)).inc()

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

    def set_overrides_overdue(self, n: int) -> None:
        self._overrides_overdue.set(n)

    # Exposition --------------------------------------------------------------

    def render(self) -> tuple[bytes, str]:
        """The body and Content-Type of a ``/metrics`` response (Prometheus text format)."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


def _partition_lags(stats: dict) -> Iterable[tuple[tuple[str, str], int]]:
    for topic, topic_stats in (stats.get("topics") or {}).items():
        for partition, partition_stats in (topic_stats.get("partitions") or {}).items():
            lag = partition_stats.get("consumer_lag")
            # -1 is librdkafka's internal "UA" (unassigned) partition.
            if int(partition) < 0 or not isinstance(lag, int) or isinstance(lag, bool) or lag < 0:
                continue
            yield (topic, str(partition)), lag
