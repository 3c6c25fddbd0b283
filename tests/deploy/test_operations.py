"""The chart's operating switches: pausing on purpose and resuming, where the HTTP endpoints listen and who may
reach /alarms.  (The alerts' side of pausing, CrawlDecoderAbsent silent while paused, is a promtool test in
test_monitoring.py.)"""

from __future__ import annotations

import pytest
import yaml

from deploy_support import REQUIRED_VALUES, VALUES_ALL_ON, of_kind, only

PAUSED_REPLICAS = "autoscaling.keda.sh/paused-replicas"


def _workload(manifests):
    return next(m for m in manifests if m["kind"] in ("Deployment", "StatefulSet"))


def _container(manifests):
    return _workload(manifests)["spec"]["template"]["spec"]["containers"][0]


def _config(manifests) -> dict:
    [configmap] = [m for m in of_kind(manifests, "ConfigMap") if m["metadata"]["name"].endswith("-settings")]
    return yaml.safe_load(configmap["data"]["config.yaml"])


# -- pausing ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["Deployment", "StatefulSet"])
def test_paused_scales_the_workload_to_zero_and_resuming_brings_it_back(render, kind):
    values = {**REQUIRED_VALUES, "workload.kind": kind, "replicaCount": 3}
    paused = render(set_values={**values, "paused": True})
    assert _workload(paused)["kind"] == kind and _workload(paused)["spec"]["replicas"] == 0
    resumed = render(set_values={**values, "paused": False})
    assert _workload(resumed)["spec"]["replicas"] == 3


def test_paused_holds_keda_at_zero(render):
    paused = render(values_files=[VALUES_ALL_ON], set_values={"paused": True})
    assert "replicas" not in _workload(paused)["spec"]  # KEDA's HPA owns it
    assert only(paused, "ScaledObject")["metadata"]["annotations"] == {PAUSED_REPLICAS: "0"}
    running = render(values_files=[VALUES_ALL_ON], set_values={})
    assert PAUSED_REPLICAS not in (only(running, "ScaledObject")["metadata"].get("annotations") or {})


def test_the_paused_value_is_recorded_for_the_alerts(render):
    for paused, value in ((True, "vector(1)"), (False, "vector(0)")):
        manifests = render(values_files=[VALUES_ALL_ON], set_values={"paused": paused})
        rules = [r for g in only(manifests, "PrometheusRule")["spec"]["groups"] for r in g["rules"]]
        [recorded] = [r for r in rules if r.get("record") == "crawl_decoder:paused"]
        assert recorded["expr"] == value
        assert recorded["labels"] == {"job": "cd-crawl-decoder", "namespace": "crawl"}


def test_paused_is_a_boolean(run_helm):
    result = run_helm("template", set_values={**REQUIRED_VALUES, "paused": "yes"})
    assert result.returncode != 0 and "paused" in result.stderr


# -- where the endpoints listen ---------------------------------------------------------------------


def test_by_default_alarms_listen_on_the_pods_loopback_only(default_manifests):
    config = _config(default_manifests)
    assert (config["http_host"], config["http_port"]) == ("0.0.0.0", 9102)
    assert (config["alarms"], config["alarms_host"], config["alarms_port"]) == ("separate", "127.0.0.1", 9103)
    # No container port, no Service port: only kubectl port-forward (or exec) reaches it.
    assert [p["name"] for p in _container(default_manifests)["ports"]] == ["http"]
    assert [p["port"] for p in only(default_manifests, "Service")["spec"]["ports"]] == [9102]


def test_alarms_on_a_reachable_port_are_opened_only_to_alarms_from(all_on_manifests, render):
    config = _config(all_on_manifests)
    assert (config["http_host"], config["alarms_host"]) == ("::", "::")
    ports = {p["name"]: p["containerPort"] for p in _container(all_on_manifests)["ports"]}
    assert ports == {"http": 9102, "alarms": 9103}
    # The Service still exposes the metrics port only: /alarms is never scraped.
    assert [p["targetPort"] for p in only(all_on_manifests, "Service")["spec"]["ports"]] == ["http"]
    ingress = only(all_on_manifests, "NetworkPolicy")["spec"]["ingress"]
    [alarms_rule] = [rule for rule in ingress if rule["ports"] == [{"port": "alarms", "protocol": "TCP"}]]
    assert alarms_rule["from"] == [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "crawl-ops"}}}]
    # Without alarmsFrom the port is declared but no rule opens it.
    closed = render(values_files=[VALUES_ALL_ON], set_values={"networkPolicy.alarmsFrom": []})
    assert len(only(closed, "NetworkPolicy")["spec"]["ingress"]) == 1


@pytest.mark.parametrize("alarms", ["shared", "off"])
def test_alarms_shared_or_off_have_no_port_of_their_own(render, alarms):
    manifests = render(values_files=[VALUES_ALL_ON], set_values={"settings.alarms": alarms})
    assert _config(manifests)["alarms"] == alarms
    assert [p["name"] for p in _container(manifests)["ports"]] == ["http"]
    assert len(only(manifests, "NetworkPolicy")["spec"]["ingress"]) == 1


def test_the_alarms_port_must_differ_from_the_metrics_port(run_helm):
    result = run_helm("template", set_values={**REQUIRED_VALUES, "settings.alarmsPort": 9102})
    assert result.returncode != 0
    assert "settings.alarmsPort (9102) must differ from settings.httpPort" in result.stderr
