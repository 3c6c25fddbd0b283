"""``Metrics``: the series a scrape sees after each call, parsed as Prometheus parses them."""

from __future__ import annotations

import threading

import prometheus_client
import pytest
from prometheus_client.parser import text_string_to_metric_families

from consumer.observability.exceptions import InvalidLabelError
from consumer.observability.metrics import LABEL_LIMITS, Metrics

from .scrape import samples, series, value


def _families(metrics: Metrics) -> list:
    return list(text_string_to_metric_families(metrics.render()[0].decode()))


class TestExposition:
    def test_every_family_is_prefixed(self, metrics):
        names = [family.name for family in _families(metrics)]
        assert names
        # process_* keep the names every dashboard knows (prometheus_client's ProcessCollector).
        assert all(name.startswith(("crawl_decoder_", "process_")) for name in names)
        assert any(name.startswith("crawl_decoder_") for name in names)

    def test_the_documented_families_exist(self, metrics):
        names = {family.name for family in _families(metrics)}
        assert {
            "crawl_decoder_records",
            "crawl_decoder_replacements",
            "crawl_decoder_replacements_per_lossy_record",
            "crawl_decoder_quarantined",
            "crawl_decoder_batch_duration_seconds",
            "crawl_decoder_batch_records",
            "crawl_decoder_end_to_end_latency_seconds",
            "crawl_decoder_consumer_lag",
            "crawl_decoder_overrides_reloads",
            "crawl_decoder_overrides_config_valid",
            "crawl_decoder_overrides_loaded",
            "crawl_decoder_override_hits",
            "crawl_decoder_overrides_overdue",
            "crawl_decoder_transactions",
            "crawl_decoder_host_alarms",
            "crawl_decoder_mojibake_suspected",
            "crawl_decoder_mojibake_host_alarms",
            "crawl_decoder_mojibake_hosts",
            "crawl_decoder_build_info",
            "crawl_decoder_start_time_seconds",
            "crawl_decoder_ready",
            "crawl_decoder_processed_bytes",
            "crawl_decoder_consumer_lag_refresh_failures",
        } <= names

    def test_no_created_series(self, metrics):
        metrics.record_routed("clean", "bom", "UTF-8")
        metrics.observe_batch(0.1, 10)
        metrics.transaction("committed")
        names = {name for name, _ in samples(metrics)}
        assert "crawl_decoder_records_total" in names and "crawl_decoder_batch_records_count" in names
        assert not [name for name in names if name.endswith("_created")]

    def test_build_info(self, metrics):
        import importlib.metadata

        import confluent_kafka

        from consumer import __version__
        from consumer.decoding import prescan

        [labels] = series(metrics, "crawl_decoder_build_info")
        assert labels["version"] == __version__
        # The whole release, not its first character (confluent_kafka.version()[0] of a string gave "2").
        assert labels["confluent_kafka"] == importlib.metadata.version("confluent-kafka")
        assert labels["confluent_kafka"].count(".") >= 2
        assert labels["librdkafka"] == confluent_kafka.libversion()[0]
        assert labels["python"].count(".") == 2
        assert ("prescan" in labels["compiled"].split()) == prescan.COMPILED
        assert value(metrics, "crawl_decoder_build_info", **labels) == 1

    def test_start_time(self):
        assert value(Metrics(clock=lambda: 1_700_000_000.5), "crawl_decoder_start_time_seconds") == 1_700_000_000.5

    def test_ready_follows_the_check_at_each_scrape(self, metrics):
        ready = [False]
        assert value(metrics, "crawl_decoder_ready") == 0
        metrics.track_readiness(lambda: ready[0])
        assert value(metrics, "crawl_decoder_ready") == 0
        ready[0] = True
        assert value(metrics, "crawl_decoder_ready") == 1

    def test_a_failing_readiness_check_reads_not_ready(self, metrics):
        metrics.track_readiness(lambda: 1 / 0)
        assert value(metrics, "crawl_decoder_ready") == 0

    def test_content_type_is_the_prometheus_text_format(self, metrics):
        body, content_type = metrics.render()
        # The Prometheus text exposition format (0.0.4 or, from prometheus_client 0.22, 1.0.0).
        assert content_type.startswith("text/plain; version=")
        assert "charset=utf-8" in content_type
        assert isinstance(body, bytes)

    def test_instances_have_private_registries(self):
        first, second = Metrics(), Metrics()
        first.host_alarm()
        assert value(first, "crawl_decoder_host_alarms_total") == 1
        assert value(second, "crawl_decoder_host_alarms_total") == 0
        global_text = prometheus_client.generate_latest(prometheus_client.REGISTRY).decode()
        assert "crawl_decoder_" not in global_text


class TestRouting:
    def test_records_are_counted_by_destination_source_and_encoding(self, metrics):
        metrics.record_routed("clean", "http-header", "UTF-8")
        metrics.record_routed("clean", "http-header", "UTF-8")
        metrics.record_routed("quarantine", "detector", "Shift_JIS")
        assert value(
            metrics, "crawl_decoder_records_total", destination="clean", source="http-header", encoding="UTF-8"
        ) == 2
        assert value(
            metrics, "crawl_decoder_records_total", destination="quarantine", source="detector", encoding="Shift_JIS"
        ) == 1

    def test_an_unknown_destination_is_a_programming_error(self, metrics):
        with pytest.raises(InvalidLabelError):
            metrics.record_routed("dlq", "bom", "UTF-8")
        with pytest.raises(ValueError):  # InvalidLabelError is a ValueError
            metrics.record_routed("Clean", "bom", "UTF-8")

    def test_host_names_passed_as_labels_cannot_explode_cardinality(self, metrics):
        # A bug that passed the crawled host as the encoding must stay bounded.
        for i in range(1000):
            metrics.record_routed("clean", "meta-prescan", f"host{i}.example.com")
        encodings = {labels["encoding"] for labels in series(metrics, "crawl_decoder_records_total")}
        assert len(encodings) == LABEL_LIMITS["encoding"] + 1
        assert "other" in encodings
        other = value(
            metrics, "crawl_decoder_records_total", destination="clean", source="meta-prescan", encoding="other"
        )
        assert other == 1000 - LABEL_LIMITS["encoding"]
        assert value(metrics, "crawl_decoder_label_values_folded_total", label="encoding") == other
        # The per-record fast path caches labelled children; it must be bounded the same way.
        assert len(metrics._routed) <= LABEL_LIMITS["encoding"]

    def test_a_value_already_admitted_keeps_its_label_after_the_limit(self, metrics):
        metrics.record_quarantine("undecodable")
        for i in range(LABEL_LIMITS["reason"]):
            metrics.record_quarantine(f"reason-{i}")
        metrics.record_quarantine("undecodable")
        assert value(metrics, "crawl_decoder_quarantined_total", reason="undecodable") == 2

    def test_a_long_label_value_is_folded(self, metrics):
        metrics.record_quarantine("x" * 500)
        assert value(metrics, "crawl_decoder_quarantined_total", reason="other") == 1

    def test_quarantine_reasons(self, metrics):
        metrics.record_quarantine("lossy")
        metrics.record_quarantine("lossy")
        metrics.record_quarantine("too-large")
        assert value(metrics, "crawl_decoder_quarantined_total", reason="lossy") == 2
        assert value(metrics, "crawl_decoder_quarantined_total", reason="too-large") == 1

    def test_replacements_count_and_distribution_over_lossy_records(self, metrics):
        metrics.record_replacements(0)
        metrics.record_replacements(3)
        metrics.record_replacements(5)
        assert value(metrics, "crawl_decoder_replacements_total") == 8
        # The record with none is not lossy: it is not in the per-lossy-record histogram.
        assert value(metrics, "crawl_decoder_replacements_per_lossy_record_count") == 2
        assert value(metrics, "crawl_decoder_replacements_per_lossy_record_sum") == 8
        assert value(metrics, "crawl_decoder_replacements_per_lossy_record_bucket", le="2.0") == 0
        assert value(metrics, "crawl_decoder_replacements_per_lossy_record_bucket", le="5.0") == 2

    def test_negative_replacements_are_refused(self, metrics):
        with pytest.raises(ValueError):
            metrics.record_replacements(-1)

    def test_host_alarms_have_no_host_label(self, metrics):
        metrics.host_alarm()
        metrics.host_alarm()
        assert series(metrics, "crawl_decoder_host_alarms_total") == [{}]
        assert value(metrics, "crawl_decoder_host_alarms_total") == 2

    def test_mojibake_is_counted_by_source_and_encoding_without_a_host(self, metrics):
        metrics.record_mojibake("http-header", "windows-1252")
        metrics.record_mojibake("http-header", "windows-1252")
        metrics.record_mojibake("utf-8-valid", "UTF-8")
        assert value(metrics, "crawl_decoder_mojibake_suspected_total", source="http-header",
                     encoding="windows-1252") == 2
        assert value(metrics, "crawl_decoder_mojibake_suspected_total", source="utf-8-valid", encoding="UTF-8") == 1
        metrics.mojibake_host_alarm()
        assert series(metrics, "crawl_decoder_mojibake_host_alarms_total") == [{}]
        assert value(metrics, "crawl_decoder_mojibake_host_alarms_total") == 1

    def test_mojibake_labels_are_bounded_like_the_records(self, metrics):
        for i in range(100):
            metrics.record_mojibake(f"source-{i}", f"enc-{i}")
        sources = {labels["source"] for labels in series(metrics, "crawl_decoder_mojibake_suspected_total")}
        assert len(sources) == LABEL_LIMITS["source"] + 1 and "other" in sources

    def test_mojibake_hosts_are_read_at_each_scrape(self, metrics):
        assert value(metrics, "crawl_decoder_mojibake_hosts") == 0  # before anything tracks them
        alarmed = [3]
        metrics.track_mojibake_hosts(lambda: alarmed[0])
        assert value(metrics, "crawl_decoder_mojibake_hosts") == 3
        alarmed[0] = 0
        assert value(metrics, "crawl_decoder_mojibake_hosts") == 0

    def test_concurrent_writers_lose_no_counts(self, metrics):
        def write(worker: int) -> None:
            for i in range(500):
                metrics.record_routed("clean", "json", f"enc-{worker}-{i % 40}")

        threads = [threading.Thread(target=write, args=(worker,)) for worker in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        rendered = samples(metrics)
        total = sum(
            v for (name, _), v in rendered.items() if name == "crawl_decoder_records_total"
        )
        assert total == 2000
        assert len(series(metrics, "crawl_decoder_records_total")) == LABEL_LIMITS["encoding"] + 1


class TestTiming:
    def test_batches(self, metrics):
        metrics.observe_batch(0.2, 500)
        metrics.observe_batch(0.02, 3)
        assert value(metrics, "crawl_decoder_batch_duration_seconds_count") == 2
        assert value(metrics, "crawl_decoder_batch_duration_seconds_sum") == pytest.approx(0.22)
        assert value(metrics, "crawl_decoder_batch_duration_seconds_bucket", le="0.025") == 1
        assert value(metrics, "crawl_decoder_batch_records_bucket", le="5.0") == 1
        assert value(metrics, "crawl_decoder_batch_records_bucket", le="500.0") == 2
        assert value(metrics, "crawl_decoder_batch_records_sum") == 503
        assert value(metrics, "crawl_decoder_processed_bytes_total") == 0

    def test_processed_bytes(self, metrics):
        metrics.observe_batch(0.2, 2, 30_000)
        metrics.observe_batch(0.2, 1, 512)
        assert value(metrics, "crawl_decoder_processed_bytes_total") == 30_512

    def test_end_to_end_latency(self, metrics):
        metrics.observe_end_to_end(42.0)
        assert value(metrics, "crawl_decoder_end_to_end_latency_seconds_bucket", le="30.0") == 0
        assert value(metrics, "crawl_decoder_end_to_end_latency_seconds_bucket", le="60.0") == 1

    def test_clock_skew_does_not_make_latency_negative(self, metrics):
        metrics.observe_end_to_end(-3.0)
        assert value(metrics, "crawl_decoder_end_to_end_latency_seconds_sum") == 0
        assert value(metrics, "crawl_decoder_end_to_end_latency_seconds_count") == 1


class TestKafka:
    def test_a_later_lag_reading_replaces_the_value(self, metrics):
        metrics.set_consumer_lags({("crawl.raw", 3): 1200})
        metrics.set_consumer_lags({("crawl.raw", 3): 800})
        assert value(metrics, "crawl_decoder_consumer_lag", topic="crawl.raw", partition="3") == 800

    def test_a_lag_reading_replaces_every_lag_series(self, metrics):
        metrics.set_consumer_lags({("crawl.raw", 0): 60, ("crawl.raw", 1): 0, ("crawl.raw", 2): 5})
        metrics.set_consumer_lags({("crawl.raw", 1): 7, ("crawl.raw", 2): 5})
        assert {labels["partition"] for labels in series(metrics, "crawl_decoder_consumer_lag")} == {"1", "2"}
        assert value(metrics, "crawl_decoder_consumer_lag", topic="crawl.raw", partition="1") == 7

    def test_a_failed_lag_reading_drops_the_lag_and_is_counted(self, metrics):
        metrics.set_consumer_lags({("crawl.raw", 0): 60})
        metrics.lag_refresh_failed()
        assert series(metrics, "crawl_decoder_consumer_lag") == []
        assert value(metrics, "crawl_decoder_consumer_lag_refresh_failures_total") == 1
        metrics.set_consumer_lags({("crawl.raw", 0): 3})
        assert value(metrics, "crawl_decoder_consumer_lag", topic="crawl.raw", partition="0") == 3

    def test_transactions_start_at_zero_and_count_by_result(self, metrics):
        assert value(metrics, "crawl_decoder_transactions_total", result="aborted") == 0
        metrics.transaction("committed")
        metrics.transaction("committed")
        metrics.transaction("retried")
        assert value(metrics, "crawl_decoder_transactions_total", result="committed") == 2
        assert value(metrics, "crawl_decoder_transactions_total", result="retried") == 1

    def test_an_unknown_transaction_result_is_refused(self, metrics):
        with pytest.raises(InvalidLabelError):
            metrics.transaction("failed")


class TestOverrides:
    def test_applied_reload(self, metrics):
        metrics.overrides_reloaded(True, loaded=12)
        assert value(metrics, "crawl_decoder_overrides_reloads_total", result="applied") == 1
        assert value(metrics, "crawl_decoder_overrides_reloads_total", result="rejected") == 0
        assert value(metrics, "crawl_decoder_overrides_config_valid") == 1
        assert value(metrics, "crawl_decoder_overrides_loaded") == 12
        assert value(metrics, "crawl_decoder_overrides_last_applied_timestamp_seconds") > 0

    def test_a_rejected_reload_keeps_the_overrides_in_force(self, metrics):
        metrics.overrides_reloaded(True, loaded=12)
        metrics.overrides_reloaded(False)
        assert value(metrics, "crawl_decoder_overrides_reloads_total", result="rejected") == 1
        assert value(metrics, "crawl_decoder_overrides_config_valid") == 0
        assert value(metrics, "crawl_decoder_overrides_loaded") == 12

    def test_override_hits_by_pattern_and_shadow_verdict(self, metrics):
        metrics.override_hit("*.example.jp", True)
        metrics.override_hit("*.example.jp", False)
        metrics.override_hit("*.example.jp", False)
        metrics.override_hit("shop.example.cn", None)
        assert value(metrics, "crawl_decoder_override_hits_total", override="*.example.jp", shadow="agree") == 1
        assert value(metrics, "crawl_decoder_override_hits_total", override="*.example.jp", shadow="disagree") == 2
        assert value(
            metrics, "crawl_decoder_override_hits_total", override="shop.example.cn", shadow="unknown"
        ) == 1

    def test_a_refused_file_reverted_is_valid_again(self, metrics):
        metrics.overrides_reloaded(True, loaded=12)
        metrics.overrides_reloaded(False)
        applied_at = value(metrics, "crawl_decoder_overrides_last_applied_timestamp_seconds")
        metrics.overrides_restored()
        assert value(metrics, "crawl_decoder_overrides_config_valid") == 1
        # Nothing was reloaded: the overrides in force, and when they were applied, stay as they were.
        assert value(metrics, "crawl_decoder_overrides_reloads_total", result="applied") == 1
        assert value(metrics, "crawl_decoder_overrides_loaded") == 12
        assert value(metrics, "crawl_decoder_overrides_last_applied_timestamp_seconds") == applied_at

    def test_overdue(self, metrics):
        metrics.set_overrides_overdue(3)
        metrics.set_overrides_overdue(1)
        assert value(metrics, "crawl_decoder_overrides_overdue") == 1
