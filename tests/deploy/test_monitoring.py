"""The chart's PrometheusRule and Grafana dashboard (values-all-on.yaml switches both on).

- every expression parses and every rule is well formed: ``promtool check rules``, Prometheus's own
  parser and linter (tests/deploy/ensure_promtool.py builds it from the Go module proxy once);
- each alert fires on the series that should fire it, and not on look-alikes, and the whole rule set stays
  silent on two hours of a healthy group (``promtool test rules``), also with the selectors of a PodMonitor;
- each alert's runbook_url names a section of docs/runbook.md;
- every metric an expression names is on ``/metrics`` of a processor that ran (a real broker, the
  bundled samples: clean, quarantined, skipped and override-decoded records), found by walking each
  expression's syntax tree (promql-parser, a port of Prometheus's parser);
- every selector is scoped to the release (namespace and job, or what prometheusRule.selector says), so two
  releases never mix.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import promql_parser
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from deploy_support import RELEASE, REPO_ROOT, VALUES_ALL_ON, of_kind, only
from ensure_promtool import PromtoolUnavailable, find_or_build_promtool

NAMESPACE = "crawl"  # what the render fixture passes to helm template
JOB = f"{RELEASE}-crawl-decoder"
#: Grafana's variables, as the dashboard's queries use them, and a value each for checking them.
GRAFANA_VARIABLES = {"$__rate_interval": "5m", "$namespace": NAMESPACE, "$job": JOB}
#: Series Prometheus makes itself for every target; the only names not from the processor besides RECORDED.
SYNTHETIC = {"up"}
#: Series the rule file records itself (from the chart's values, not from a scrape).
RECORDED = {"crawl_decoder:paused"}
ALERTS = {
    "CrawlDecoderLagGrowing", "CrawlDecoderStalled", "CrawlDecoderAbsent", "CrawlDecoderLagUnreadable",
    "CrawlDecoderOldestUnprocessedTooOld", "CrawlDecoderQuarantineRateHigh", "CrawlDecoderOverridesConfigInvalid",
    "CrawlDecoderOverridesOverdue", "CrawlDecoderTransactionsAborted", "CrawlDecoderNotReady",
    "CrawlDecoderRestarting", "CrawlDecoderHostMojibake", "CrawlDecoderRebalanceStorm",
}


@pytest.fixture(scope="session")
def promtool() -> Path:
    try:
        return find_or_build_promtool()
    except PromtoolUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def rules(all_on_manifests) -> dict[str, Any]:
    """The PrometheusRule's spec: a Prometheus rule file."""
    return only(all_on_manifests, "PrometheusRule")["spec"]


@pytest.fixture(scope="session")
def dashboard(all_on_manifests) -> dict[str, Any]:
    [configmap] = [m for m in of_kind(all_on_manifests, "ConfigMap") if m["metadata"]["name"].endswith("-dashboard")]
    return json.loads(configmap["data"]["crawl-decoder.json"])


def dashboard_queries(dashboard: dict[str, Any]) -> list[tuple[str, str]]:
    """(where, PromQL) of every panel target and every variable's label_values() selector, variables filled."""
    found = [(f"panel {p['title']!r} {t['refId']}", t["expr"]) for p in dashboard["panels"] for t in p["targets"]]
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            query = variable["query"]["query"]
            assert query.startswith("label_values(") and query.endswith(")")
            selector = query.removeprefix("label_values(").rsplit(",", 1)[0]
            found.append((f"variable {variable['name']}", selector))
    out = []
    for where, expr in found:
        for variable, example in GRAFANA_VARIABLES.items():
            expr = expr.replace(variable, example)
        assert "$" not in expr, f"{where}: a variable the test does not know: {expr}"
        out.append((where, expr))
    return out


def rule_queries(rules: dict[str, Any]) -> list[tuple[str, str]]:
    """(alert or recorded name, PromQL) of every rule."""
    return [(rule.get("alert") or rule["record"], rule["expr"]) for group in rules["groups"] for rule in group["rules"]]


def alert_names(rules: dict[str, Any]) -> set[str]:
    return {rule["alert"] for group in rules["groups"] for rule in group["rules"] if "alert" in rule}


def selectors(expr: str) -> list[promql_parser.VectorSelector]:
    found: list[promql_parser.VectorSelector] = []

    def visit(node) -> None:
        if isinstance(node, promql_parser.VectorSelector):
            found.append(node)

    promql_parser.walk(promql_parser.parse(expr), pre_visit=visit)
    return found


def metric_names(queries: list[tuple[str, str]]) -> dict[str, str]:
    """metric name -> the first place that names it."""
    names: dict[str, str] = {}
    for where, expr in queries:
        for selector in selectors(expr):
            assert selector.name, f"{where}: a selector without a metric name: {expr}"
            names.setdefault(selector.name, where)
    return names


def run_promtool(promtool: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(promtool), *args], capture_output=True, text=True, timeout=120)


# -- parsing and checking --------------------------------------------------------------------------


def test_default_values_render_neither(default_manifests):
    assert not of_kind(default_manifests, "PrometheusRule")
    assert not [m for m in default_manifests if m["metadata"]["name"].endswith("-dashboard")]


def test_the_rules_pass_promtool_check(promtool, rules, tmp_path):
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump(rules))
    result = run_promtool(promtool, "check", "rules", "--lint=all", "--lint-fatal", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(ALERTS) + len(RECORDED)} rules found" in result.stdout
    assert alert_names(rules) == ALERTS
    assert {name for name, _ in rule_queries(rules)} == ALERTS | RECORDED


def test_every_dashboard_query_passes_promtool_check(promtool, dashboard, tmp_path):
    # promtool checks expressions inside rule files: each query becomes a recording rule.
    queries = dashboard_queries(dashboard)
    recording = [{"record": f"crawl_decoder_dashboard:query_{i}", "expr": expr} for i, (_, expr) in enumerate(queries)]
    path = tmp_path / "dashboard-queries.yaml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": recording}]}))
    result = run_promtool(promtool, "check", "rules", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(queries)} rules found" in result.stdout


def test_the_dashboard_has_the_panels_operators_look_for(dashboard):
    titles = {panel["title"] for panel in dashboard["panels"]}
    assert {
        "Throughput (records/s)", "Throughput (bytes/s)", "Consumer lag by partition", "End-to-end latency",
        "Quarantine by reason", "Encoding mix", "Override hits", "Skipped, not text, by media family",
        "Oldest unprocessed record (age)", "Records held by open upstream transactions",
        "Mojibake suspected, share of clean records", "Hosts in a mojibake episode",
        "Rebalances by pod", "Memory (RSS) by pod", "Partitions held by pod",
    } <= titles
    assert len({panel["id"] for panel in dashboard["panels"]}) == len(dashboard["panels"])


def test_every_selector_is_scoped_to_the_release(rules, dashboard):
    for where, expr in rule_queries(rules) + dashboard_queries(dashboard):
        for selector in selectors(expr):
            if where.startswith("variable namespace"):
                continue  # lists the namespaces to choose from
            matchers = {(m.name, m.value) for m in selector.matchers.matchers}
            assert ("namespace", NAMESPACE) in matchers, f"{where}: {selector.name} not scoped by namespace"
            if not where.startswith("variable job"):
                assert ("job", JOB) in matchers, f"{where}: {selector.name} not scoped by job"


# -- the alerts fire when they should --------------------------------------------------------------


#: The labels a scrape by the chart's ServiceMonitor gives every series.
SERVICE_MONITOR = {"namespace": NAMESPACE, "job": JOB}
#: A PodMonitor's scrape (job "<namespace>/<name>") in a Prometheus that adds a cluster label.
POD_MONITOR_JOB = f"{NAMESPACE}/{RELEASE}-pods"
POD_MONITOR = {"namespace": NAMESPACE, "job": POD_MONITOR_JOB, "cluster": "prod"}
POD_MONITOR_VALUES = {"prometheusRule.selector": {"job": POD_MONITOR_JOB, "extraMatchers": ['cluster="prod"']}}


def unit_tests(scrape: dict[str, str]) -> list[dict[str, Any]]:
    """The promtool test groups, for series scraped with the labels *scrape*: one or more groups per alert,
    each firing in its scenario and silent on its look-alikes, and one healthy group on which every alert
    stays silent. Values are per minute ("a+bxN": N more steps of +b; "_": no sample)."""

    def series(name: str, values: str, **labels: str) -> dict[str, str]:
        label_text = ", ".join(f'{k}="{v}"' for k, v in {**scrape, **labels}.items())
        return {"series": f"{name}{{{label_text}}}", "values": values}

    def pod(severity: str, name: str) -> dict[str, str]:
        """An alert on one pod's series carries all of its labels."""
        return {"severity": severity, **scrape, "pod": name}

    grouped = {"namespace": scrape["namespace"]}
    return [
        {
            # Two pods report the same partitions (a rebalance's overlap: each pod reports the partitions it
            # holds, and for a reading two may hold one). crawl.raw: 2 partitions
            # growing from 30000 each, above values-all-on's 50000 in all, fires. crawl.slow: 2 partitions
            # from 10000 each, 38000 in all at 30m, stays silent, though a sum over the two pods (76000)
            # would be above. crawl.flat: above the threshold but not growing, silent.
            "input_series": [
                series("crawl_decoder_consumer_lag", f"{start}+300x40", pod=pod_, topic=topic, partition=p)
                for topic, start in (("crawl.raw", 30000), ("crawl.slow", 10000))
                for pod_ in ("a", "b") for p in ("0", "1")
            ] + [
                series("crawl_decoder_consumer_lag", "60000x40", pod="a", topic="crawl.flat", partition="0"),
            ],
            "alert_rule_test": [
                alert("CrawlDecoderLagGrowing", "10m"),  # growing for less than lagFor (15m)
                alert("CrawlDecoderLagGrowing", "30m", {"severity": "warning", **grouped, "topic": "crawl.raw"}),
            ],
        },
        {
            # A flat backlog nobody processes: crawl.raw[0], held by pod a, keeps 60000 records, the oldest ages a
            # minute a minute, the committed offset stays. Look-alikes: crawl.busy[0], held by pod b, as big and
            # flat, but its offset moves (processing keeps pace with the crawl); crawl.idle[0], held by pod a,
            # lag 1 for ever (a transaction marker after the last record) and nothing to process.
            "input_series": [
                series("crawl_decoder_consumer_lag", "60000x40", pod="a", topic="crawl.raw", partition="0"),
                series("crawl_decoder_oldest_unprocessed_age_seconds", "600+60x40", pod="a", topic="crawl.raw",
                       partition="0"),
                series("crawl_decoder_consumer_committed_offset", "1000x40", pod="a", topic="crawl.raw", partition="0"),
                series("crawl_decoder_consumer_lag", "60000x40", pod="b", topic="crawl.busy", partition="0"),
                series("crawl_decoder_oldest_unprocessed_age_seconds", "30x40", pod="b", topic="crawl.busy",
                       partition="0"),
                series("crawl_decoder_consumer_committed_offset", "1000+6000x40", pod="b", topic="crawl.busy",
                       partition="0"),
                series("crawl_decoder_consumer_lag", "1x40", pod="a", topic="crawl.idle", partition="0"),
                series("crawl_decoder_oldest_unprocessed_age_seconds", "0x40", pod="a", topic="crawl.idle",
                       partition="0"),
                series("crawl_decoder_consumer_committed_offset", "500x40", pod="a", topic="crawl.idle", partition="0"),
            ] + [
                series("crawl_decoder_partition_assigned", "1x40", pod=pod_, topic=topic, partition="0")
                for pod_, topic in (("a", "crawl.raw"), ("b", "crawl.busy"), ("a", "crawl.idle"))
            ],
            "alert_rule_test": [
                alert("CrawlDecoderStalled", "12m"),  # unchanged for stallFor (10m), not yet for 3m more
                # The alert names the pod holding the partition: the stuck one.
                alert("CrawlDecoderStalled", "15m", {"severity": "critical", **grouped, "topic": "crawl.raw",
                                                     "partition": "0", "pod": "a"}),
                alert("CrawlDecoderLagGrowing", "30m"),  # what the issue found: a flat backlog fired nothing
            ],
        },
        {
            # The stalled partition moves from pod a (gone after minute 6) to pod b, which does no better: the
            # group's offset is judged over both, and the alert names b, the pod holding it now.
            "input_series": [
                series("crawl_decoder_oldest_unprocessed_age_seconds", "600+60x6", pod="a", topic="crawl.raw",
                       partition="0"),
                series("crawl_decoder_consumer_committed_offset", "1000x6", pod="a", topic="crawl.raw", partition="0"),
                series("crawl_decoder_oldest_unprocessed_age_seconds", "_x7 1020+60x30", pod="b", topic="crawl.raw",
                       partition="0"),
                series("crawl_decoder_consumer_committed_offset", "_x7 1000x30", pod="b", topic="crawl.raw",
                       partition="0"),
            ],
            "alert_rule_test": [
                alert("CrawlDecoderStalled", "15m", {"severity": "critical", **grouped, "topic": "crawl.raw",
                                                     "partition": "0", "pod": "b"}),
            ],
        },
        {
            # Nothing of the job scraped at all (scaled to zero, a broken ServiceMonitor); another job is.
            "input_series": [{"series": 'up{namespace="crawl", job="other"}', "values": "1x20"}],
            "alert_rule_test": [
                alert("CrawlDecoderAbsent", "3m"),  # absentFor: 5m
                alert("CrawlDecoderAbsent", "10m", {"severity": "critical", "namespace": NAMESPACE}),
            ],
        },
        {
            # Every pod's scrape fails from minute 11 (a crash loop, the metrics port refused).
            "input_series": [series("up", "1x10 0x20", pod="a"), series("up", "1x10 0x20", pod="b")],
            "alert_rule_test": [
                alert("CrawlDecoderAbsent", "10m"),
                alert("CrawlDecoderAbsent", "25m", {"severity": "critical", "namespace": NAMESPACE}),
            ],
        },
        {
            # One pod down, one up: CrawlDecoderNotReady's case, not this one.
            "input_series": [series("up", "0x30", pod="a"), series("up", "1x30", pod="b")],
            "alert_rule_test": [alert("CrawlDecoderAbsent", "25m")],
        },
        {
            # Every pod's lag readings fail (4 a minute each), so no lag series at all.
            "input_series": [
                series("crawl_decoder_consumer_lag_refresh_failures_total", "0+4x40", pod="a"),
                series("crawl_decoder_consumer_lag_refresh_failures_total", "0+4x40", pod="b"),
            ],
            "alert_rule_test": [
                alert("CrawlDecoderLagUnreadable", "8m"),  # lagUnreadableFor: 10m
                alert("CrawlDecoderLagUnreadable", "25m", {"severity": "warning", **grouped}),
            ],
        },
        {
            # Pod a's readings fail, pod b's succeed: the group's lag is known.
            "input_series": [
                series("crawl_decoder_consumer_lag_refresh_failures_total", "0+4x40", pod="a"),
                series("crawl_decoder_consumer_lag_refresh_failures_total", "0x40", pod="b"),
                series("crawl_decoder_consumer_lag", "100x40", pod="b", topic="crawl.raw", partition="0"),
            ],
            "alert_rule_test": [alert("CrawlDecoderLagUnreadable", "25m")],
        },
        {
            # crawl.raw[0]'s oldest record goes past 1800 s at minute 14; crawl.near[0] stays at 1700 s.
            "input_series": [
                series("crawl_decoder_oldest_unprocessed_age_seconds", "1000+60x40", pod="a", topic="crawl.raw",
                       partition="0"),
                series("crawl_decoder_oldest_unprocessed_age_seconds", "1700x40", pod="a", topic="crawl.near",
                       partition="0"),
            ],
            "alert_rule_test": [
                alert("CrawlDecoderOldestUnprocessedTooOld", "16m"),  # above for less than 5m
                alert("CrawlDecoderOldestUnprocessedTooOld", "25m", {"severity": "warning", **grouped,
                                                                     "topic": "crawl.raw"}),
            ],
        },
        {
            # 100 records/s written; 20/s quarantined as lossy (20%, above 10%), 1/s as too-large (1%).
            "input_series": [
                series("crawl_decoder_records_total", "0+6000x40", pod="a", destination="clean", source="bom",
                       encoding="UTF-8"),
                series("crawl_decoder_quarantined_total", "0+1200x40", pod="a", reason="lossy"),
                series("crawl_decoder_quarantined_total", "0+60x40", pod="a", reason="too-large"),
            ],
            "alert_rule_test": [
                alert("CrawlDecoderQuarantineRateHigh", "10m"),  # not yet for 15 minutes
                alert("CrawlDecoderQuarantineRateHigh", "35m", {"severity": "warning", **grouped, "reason": "lossy"}),
            ],
        },
        {
            # Pod a refuses a bad file; pod b had one refused and reverted (back to 1).
            "input_series": [
                series("crawl_decoder_overrides_config_valid", "1 1 0x20", pod="a"),
                series("crawl_decoder_overrides_config_valid", "1 0 0 0 1x20", pod="b"),
            ],
            "alert_rule_test": [alert("CrawlDecoderOverridesConfigInvalid", "15m", pod("warning", "a"))],
        },
        {
            "input_series": [series("crawl_decoder_overrides_overdue", "0 2x120", pod="a")],
            "alert_rule_test": [
                alert("CrawlDecoderOverridesOverdue", "30m"),
                alert("CrawlDecoderOverridesOverdue", "90m", {"severity": "info", **grouped}),
            ],
        },
        {
            # 10 commits and 2 aborts a minute: 1/6 aborted, above 5%; then none aborted.
            "input_series": [
                series("crawl_decoder_transactions_total", "0+10x60", pod="a", result="committed"),
                series("crawl_decoder_transactions_total", "0+2x25 50x35", pod="a", result="aborted"),
                series("crawl_decoder_transactions_total", "0x60", pod="a", result="retried"),
            ],
            "alert_rule_test": [
                alert("CrawlDecoderTransactionsAborted", "22m", {"severity": "warning", **grouped}),
                alert("CrawlDecoderTransactionsAborted", "55m"),
            ],
        },
        {
            # Pod a scraped but not ready; pod b not scraped at all; pod c ready.
            "input_series": [
                series("crawl_decoder_ready", "0x30", pod="a"),
                series("up", "1x30", pod="a"),
                series("up", "0x30", pod="b"),
                series("crawl_decoder_ready", "1x30", pod="c"),
                series("up", "1x30", pod="c"),
            ],
            "alert_rule_test": [
                alert("CrawlDecoderNotReady", "5m"),  # notReadyFor: 10m
                # An alert's labels are its series' without the metric name.
                alert("CrawlDecoderNotReady", "15m", pod("critical", "a"), pod("critical", "b")),
            ],
        },
        {
            # Pod a restarted three times within the hour, pod b once.
            "input_series": [
                series("crawl_decoder_start_time_seconds", "100x10 700x10 1300x10 1900x10", pod="a"),
                series("crawl_decoder_start_time_seconds", "100x20 1300x20", pod="b"),
            ],
            "alert_rule_test": [
                alert("CrawlDecoderRestarting", "25m"),
                alert("CrawlDecoderRestarting", "35m"),  # three restarts, but not yet for restartingFor (5m)
                alert("CrawlDecoderRestarting", "40m", pod("warning", "a")),
            ],
        },
        {
            # Pod a: a host's share of mojibake-suspected records crossed the ratio at minute 11 (one
            # episode). Look-alikes: pod b publishes mojibake spread over many hosts, none of them alarmed;
            # pod c restarted at minute 31 (its count of episodes back to 0), with no new episode.
            "input_series": [
                series("crawl_decoder_mojibake_host_alarms_total", "0x10 1x70", pod="a"),
                series("crawl_decoder_mojibake_host_alarms_total", "0x80", pod="b"),
                series("crawl_decoder_mojibake_suspected_total", "0+5x80", pod="b", source="http-header",
                       encoding="windows-1252"),
                series("crawl_decoder_mojibake_host_alarms_total", "2x30 0x50", pod="c"),
            ],
            "alert_rule_test": [
                alert("CrawlDecoderHostMojibake", "10m"),
                alert("CrawlDecoderHostMojibake", "12m", {"severity": "warning", **grouped}),
                alert("CrawlDecoderHostMojibake", "65m", {"severity": "warning", **grouped}),
                alert("CrawlDecoderHostMojibake", "75m"),  # an hour on: one episode is one alert, not for ever
            ],
        },
        {
            # Pod a's and pod b's consumers get partitions assigned or lost every minute from minute 10 (members
            # leaving and joining for ever): rebalances in every minute of the window.
            "input_series": [
                series("crawl_decoder_rebalances_total", "0x10 1+1x30", pod="a", event="assigned"),
                series("crawl_decoder_rebalances_total", "0x10 1+1x30", pod="b", event="assigned"),
                series("crawl_decoder_rebalances_total", "0x20 1+1x20", pod="b", event="lost"),
            ],
            "alert_rule_test": [
                alert("CrawlDecoderRebalanceStorm", "20m"),  # not yet in 10 of the last 15 minutes
                alert("CrawlDecoderRebalanceStorm", "30m", {"severity": "warning", **grouped}),
            ],
        },
        {
            # A rollout of four pods: many rebalances (every pod, every step), all within 5 minutes.
            "input_series": [
                series("crawl_decoder_rebalances_total", "0x10 4+4x4 20x30", pod=pod_, event=event)
                for pod_ in ("a", "b", "c", "d") for event in ("assigned", "revoked")
            ],
            "alert_rule_test": [alert("CrawlDecoderRebalanceStorm", at) for at in ("15m", "20m", "25m", "40m")],
        },
        {"input_series": healthy_series(series), "alert_rule_test": [
            alert(name, at) for name in sorted(ALERTS) for at in HEALTHY_CHECKS
        ]},
    ]


#: When the healthy group is checked: through a quiet spell, the record that ends it, a failed lag reading.
HEALTHY_CHECKS = ("10m", "30m", "41m", "42m", "43m", "45m", "60m", "61m", "90m", "120m")


def healthy_series(series) -> list[dict[str, str]]:
    """Two hours of a healthy group of two pods, each reporting the partitions it holds, with what a healthy
    group does that look-alikes of trouble are made of: a partition quiet for 40 minutes (its offset unchanged)
    until a record arrives, waits 2 minutes and is processed; a partition whose lag is a transaction marker for
    ever; one failed lag reading; a few retried transactions; a rollout's rebalances; quarantine at 1%; mojibake
    suspected on 0.1% of the clean records."""
    out = []
    for pod_ in ("a", "b"):
        out += [
            # One rollout: a few rebalances at minutes 51 to 55.
            series("crawl_decoder_rebalances_total", "1x50 2+1x4 6x65", pod=pod_, event="assigned"),
            series("crawl_decoder_rebalances_total", "0x50 1+1x4 5x65", pod=pod_, event="revoked"),
            series("up", "1x120", pod=pod_),
            series("crawl_decoder_ready", "1x120", pod=pod_),
            series("crawl_decoder_start_time_seconds", "1700000000x120", pod=pod_),
            series("crawl_decoder_overrides_config_valid", "1x120", pod=pod_),
            series("crawl_decoder_overrides_overdue", "0x120", pod=pod_),
            series("crawl_decoder_transactions_total", "0+10x120", pod=pod_, result="committed"),
            series("crawl_decoder_transactions_total", "0x120", pod=pod_, result="aborted"),
            series("crawl_decoder_transactions_total", "0+1x120", pod=pod_, result="retried"),
            series("crawl_decoder_records_total", "0+3000x120", pod=pod_, destination="clean", source="meta",
                   encoding="UTF-8"),
            series("crawl_decoder_quarantined_total", "0+30x120", pod=pod_, reason="lossy"),
            # Mojibake now and then (pages quoting it), no host over the ratio.
            series("crawl_decoder_mojibake_suspected_total", "0+3x120", pod=pod_, source="http-header",
                   encoding="windows-1252"),
            series("crawl_decoder_mojibake_host_alarms_total", "0x120", pod=pod_),
            series("crawl_decoder_mojibake_hosts", "0x120", pod=pod_),
            series("crawl_decoder_consumer_lag_refresh_failures_total", "0x60 1x60" if pod_ == "a" else "0x120",
                   pod=pod_),
        ]
        # Pod a's reading at minute 60 failed: its lag series are missing for that scrape.
        gap = "x59 _ " if pod_ == "a" else "x60 "
        # Each pod reports the partitions it holds: a holds 0 and 2, b holds 1.
        held = ("0", "2") if pod_ == "a" else ("1",)
        out += [
            series("crawl_decoder_partition_assigned", "1x120", pod=pod_, topic="crawl.raw", partition=partition)
            for partition in held
        ]
        for partition in ("0",) if pod_ == "a" else ("1",):
            out += [
                series("crawl_decoder_consumer_lag", f"200{gap}200x60", pod=pod_, topic="crawl.raw",
                       partition=partition),
                series("crawl_decoder_oldest_unprocessed_age_seconds", f"2{gap}2x60", pod=pod_, topic="crawl.raw",
                       partition=partition),
                series("crawl_decoder_consumer_committed_offset", "0+6000x120", pod=pod_, topic="crawl.raw",
                       partition=partition),
            ]
        if pod_ != "a":
            continue
        out += [
            # Partition 2: quiet; at minute 41 a record arrives, at 43 it is committed; then a marker is its lag.
            series("crawl_decoder_consumer_lag", "0x40 1 1 1x78", pod=pod_, topic="crawl.raw", partition="2"),
            series("crawl_decoder_oldest_unprocessed_age_seconds", "0x40 20 80 0x78", pod=pod_, topic="crawl.raw",
                   partition="2"),
            series("crawl_decoder_consumer_committed_offset", "7x42 9x78", pod=pod_, topic="crawl.raw",
                   partition="2"),
        ]
    return out


def alert(name: str, at: str, *expected: dict[str, str]) -> dict[str, Any]:
    """One alert_rule_test: *name* firing at *at* with exactly the *expected* label sets (none: silent)."""
    common = {"severity": "", "team": "crawl"}  # alertLabels of values-all-on.yaml
    return {
        "eval_time": at,
        "alertname": name,
        "exp_alerts": [{"exp_labels": {**common, **labels}} for labels in expected],
    }


def run_unit_tests(promtool: Path, rules: dict[str, Any], groups: list[dict[str, Any]], tmp_path: Path) -> None:
    # Annotations are checked by `promtool check rules` (their templates must parse); here only when and for
    # which labels each alert fires, so the unit tests compare labels only.
    rules = copy.deepcopy(rules)
    for group in rules["groups"]:
        for rule in group["rules"]:
            rule.pop("annotations", None)
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(rules))
    severity = {rule["alert"]: rule["labels"]["severity"] for g in rules["groups"] for rule in g["rules"] if "alert" in rule}
    for group in groups:
        for test in group["alert_rule_test"]:
            for expected in test["exp_alerts"]:
                assert expected["exp_labels"]["severity"] == severity[test["alertname"]]
    tests = {"rule_files": ["rules.yaml"], "evaluation_interval": "1m",
             "tests": [{"interval": "1m", **group} for group in groups]}
    (tmp_path / "tests.yaml").write_text(yaml.safe_dump(tests))
    result = subprocess.run(
        [str(promtool), "test", "rules", "tests.yaml"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_each_alert_fires_on_what_it_is_for_and_the_rule_set_is_silent_on_a_healthy_group(
    promtool, rules, tmp_path
):
    groups = unit_tests(SERVICE_MONITOR)
    firing = {t["alertname"] for g in groups for t in g["alert_rule_test"] if t["exp_alerts"]}
    assert firing == ALERTS, "every alert has a scenario it fires in"
    healthy = groups[-1]["alert_rule_test"]
    assert {t["alertname"] for t in healthy} == ALERTS and not any(t["exp_alerts"] for t in healthy)
    run_unit_tests(promtool, rules, groups, tmp_path)


def test_the_unit_tests_can_fail(promtool, rules, tmp_path):
    # The healthy group with a stalled partition (the quiet one never processes its record): not silent.
    groups = unit_tests(SERVICE_MONITOR)
    stalled = [s for s in groups[-1]["input_series"] if "partition=\"2\"" in s["series"] and "committed" in s["series"]]
    for s in stalled:
        s["values"] = "7x120"
    for s in groups[-1]["input_series"]:
        if "partition=\"2\"" in s["series"] and "oldest" in s["series"]:
            s["values"] = "0x40 20+60x80"
    with pytest.raises(AssertionError, match="CrawlDecoderStalled"):
        run_unit_tests(promtool, rules, groups[-1:], tmp_path)


def test_with_a_pod_monitor_and_extra_matchers_the_alerts_still_fire_and_stay_silent(
    promtool, render, tmp_path
):
    manifests = render(values_files=[VALUES_ALL_ON], set_values=POD_MONITOR_VALUES)
    rules = only(manifests, "PrometheusRule")["spec"]
    for where, expr in rule_queries(rules):
        for selector in selectors(expr):
            matchers = {(m.name, m.value) for m in selector.matchers.matchers}
            # A recorded series carries the job and namespace the rule gives it, never a scrape's extra labels.
            scrape = set() if selector.name in RECORDED else {("cluster", "prod")}
            assert {("job", POD_MONITOR_JOB), ("namespace", NAMESPACE)} | scrape <= matchers, where
    run_unit_tests(promtool, rules, unit_tests(POD_MONITOR), tmp_path)
    # A stalled partition scraped under another job (the ServiceMonitor's) is not this release's series.
    stall = unit_tests(SERVICE_MONITOR)[1]
    run_unit_tests(promtool, rules, [{**stall, "alert_rule_test": [alert("CrawlDecoderStalled", "15m")]}], tmp_path)


def test_paused_on_purpose_silences_the_absent_alert_and_unintended_absence_still_fires(promtool, render, tmp_path):
    # The same scenario, nothing of the job scraped (scaled to zero), against the rules of a release paused on
    # purpose (`paused: true`) and of one that is not: silent, then firing.
    absent = scenario("CrawlDecoderAbsent")
    paused = only(render(values_files=[VALUES_ALL_ON], set_values={"paused": True}), "PrometheusRule")["spec"]
    silent = [alert("CrawlDecoderAbsent", at) for at in ("3m", "10m", "25m")]
    run_unit_tests(promtool, paused, [{**absent, "alert_rule_test": silent}], tmp_path)
    resumed = only(render(values_files=[VALUES_ALL_ON], set_values={"paused": False}), "PrometheusRule")["spec"]
    run_unit_tests(promtool, resumed, [absent], tmp_path)
    # Paused silences the absence only: pods still scraped (not stopped yet, or started by hand) are watched.
    run_unit_tests(promtool, paused, [scenario("CrawlDecoderNotReady")], tmp_path)


def scenario(name: str) -> dict[str, Any]:
    """The first unit test group made for the alert *name*: only its checks, one of them firing."""
    for group in unit_tests(SERVICE_MONITOR):
        checks = group["alert_rule_test"]
        if {check["alertname"] for check in checks} == {name} and any(check["exp_alerts"] for check in checks):
            return group
    raise AssertionError(f"no scenario for {name}")


def test_the_namespace_matcher_can_be_left_out(render):
    manifests = render(values_files=[VALUES_ALL_ON], set_values={"prometheusRule.selector.namespace": False})
    for where, expr in rule_queries(only(manifests, "PrometheusRule")["spec"]):
        for selector in selectors(expr):
            names = {m.name for m in selector.matchers.matchers}
            assert "namespace" not in names and "job" in names, where


def test_every_alert_links_its_section_of_the_runbook(rules, render):
    runbook = (REPO_ROOT / "docs" / "runbook.md").read_text()
    sections = {_anchor(line.lstrip("#").strip()) for line in runbook.splitlines() if line.startswith("## ")}
    for group in rules["groups"]:
        for rule in (rule for rule in group["rules"] if "alert" in rule):
            url = rule["annotations"]["runbook_url"]
            path, anchor = url.split("#")
            assert path == "docs/runbook.md" and anchor in sections, f"{rule['alert']}: {url}"
    base = "https://git.example.com/crawl/crawl-decoder/-/blob/main/docs/runbook.md"
    manifests = render(values_files=[VALUES_ALL_ON], set_values={"prometheusRule.runbookUrl": base})
    for group in only(manifests, "PrometheusRule")["spec"]["groups"]:
        for rule in (rule for rule in group["rules"] if "alert" in rule):
            assert rule["annotations"]["runbook_url"] == f"{base}#{rule['alert'].lower()}"


def _anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to dashes."""
    return re.sub(r"[^a-z0-9 _-]", "", heading.lower()).replace(" ", "-")


# -- every metric they name exists -----------------------------------------------------------------


@pytest.fixture
def topics(topic_factory) -> dict[str, str]:
    return {"landing": topic_factory(partitions=2), "clean": topic_factory(partitions=2), "quarantine": topic_factory()}


def test_every_metric_named_is_on_the_metrics_of_a_running_processor(
    rules, dashboard, settings_for, topics, kafka_connection, store
):
    from consumer.app import App
    from consumer.demo import produce_inputs
    from consumer.kafka import make_producer
    from consumer.serialization.avro import AvroSerializer

    settings = settings_for(overrides_path=str(REPO_ROOT / "config" / "overrides.yaml"), max_body_bytes=1024 * 1024)
    # The demo's records: pages in many encodings (some under an override), lossy and poison ones,
    # a compression bomb, an oversize body, an image and a PDF (skipped as not text).
    keys = produce_inputs(kafka_connection, settings.landing_topic, store)
    # And a page double-encoded upstream ("CafÃ©" in its own UTF-8): published clean, mojibake suspected.
    producer = make_producer(kafka_connection)
    double = "<p>Café crème brûlée, déjà vu à la carte</p>".encode().decode("cp1252").encode()
    producer.produce(settings.landing_topic, AvroSerializer(store, "RawResponse")({
        "url": "https://double.example.fr/", "fetched_at": 0, "status": 200, "body": double,
        "headers": [{"name": "Content-Type", "value": "text/html; charset=utf-8"}],
    }), b"double-encoded")
    assert producer.flush(30) == 0
    keys.append("double-encoded")
    app = App(settings, kafka_connection)
    app.lag.interval_s = 0.5
    thread = threading.Thread(target=app.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 180
        while True:
            text = _scrape(app)
            done = _sum(text, "crawl_decoder_records_total") + _sum(text, "crawl_decoder_skipped_total")
            if done >= len(keys) and _sum(text, "crawl_decoder_consumer_lag") == 0 and "crawl_decoder_consumer_lag{" in text:
                break
            assert time.monotonic() < deadline, f"{done} of {len(keys)} records counted, or no lag reading"
            time.sleep(0.2)  # polling a real condition, bounded by the deadline
    finally:
        app.stop()
        thread.join(60)
    assert not thread.is_alive()
    exposed = {sample.name for family in text_string_to_metric_families(text) for sample in family.samples}
    named = metric_names(rule_queries(rules) + dashboard_queries(dashboard))
    missing = {
        name: where for name, where in named.items() if name not in exposed and name not in SYNTHETIC | RECORDED
    }
    assert not missing, f"named but not on /metrics: {missing}"
    assert {"crawl_decoder_override_hits_total", "crawl_decoder_skipped_total", "crawl_decoder_quarantined_total"} <= set(named)


def _scrape(app) -> str:
    if not app.http.port:  # not serving yet
        return ""
    with urllib.request.urlopen(f"http://127.0.0.1:{app.http.port}/metrics", timeout=10) as response:
        return response.read().decode()


def _sum(text: str, name: str) -> float:
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name
    )
