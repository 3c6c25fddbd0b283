"""The running App's HTTP face: /metrics counts what the processor did, /readyz and /healthz tell its state."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections import Counter

from prometheus_client.parser import text_string_to_metric_families

from consumer.app import App


def get(app: App, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{app.http.port}{path}", timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def samples(app: App, name: str) -> dict[tuple, float]:
    """Value of each sample called *name* on /metrics, keyed by its sorted labels."""
    status, text = get(app, "/metrics")
    assert status == 200
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                out[tuple(sorted(sample.labels.items()))] = sample.value
    return out


def test_running_app_serves_probes_and_counts_records(
    settings_for, kafka_connection, produce, read_outputs, topics, mixed_corpus, helpers
):
    items = mixed_corpus(400, seed=2)
    produce(topics["landing"], items)
    app = App(settings_for(batch_size=50), kafka_connection)
    app.http.start()  # what run() does first; the loop has not subscribed yet
    thread = threading.Thread(target=app.run, daemon=True)
    try:
        assert get(app, "/readyz")[0] == 503, "not ready before partitions are assigned"
        assert get(app, "/healthz")[0] == 200, "alive while starting"
        thread.start()
        helpers.wait_for(lambda: get(app, "/readyz")[0] == 200, "ready once partitions are assigned", timeout=60)
        assert app.processor.assigned.is_set()

        found = read_outputs(len(items))
        helpers.assert_exactly_once(found, items)
        written = len(found.clean) + len(found.quarantine)
        # Metrics are counted after the commit, so they may trail the reader by one batch.
        helpers.wait_for(
            lambda: sum(samples(app, "crawl_decoder_records_total").values()) == written, "records_total", timeout=30
        )
        records = samples(app, "crawl_decoder_records_total")
        by_destination = Counter()
        for labels, value in records.items():
            by_destination[dict(labels)["destination"]] += value
        assert by_destination == {"clean": len(found.clean), "quarantine": len(found.quarantine)}
        unreadable = [labels for labels in records if dict(labels)["destination"] == "quarantine" and dict(labels)["source"] == "none"]
        assert unreadable, "unreadable records are counted with source 'none'"

        quarantined = {dict(labels)["reason"]: value for labels, value in samples(app, "crawl_decoder_quarantined_total").items()}
        assert quarantined == dict(Counter(r["reason"] for r in found.quarantine))
        assert quarantined.get("lossy", 0) > 0
        assert samples(app, "crawl_decoder_transactions_total")[(("result", "committed"),)] >= written / 50
        assert samples(app, "crawl_decoder_end_to_end_latency_seconds_count")[()] == written
        assert get(app, "/healthz")[0] == 200
        status, body = get(app, "/alarms")
        alarms = json.loads(body)
        assert status == 200 and alarms["hosts"], "/alarms lists the hosts seen, bounded"
        assert {"host", "lossy"} <= set(alarms["hosts"][0])
    finally:
        app.stop()
        thread.join(60)
    assert not thread.is_alive()
