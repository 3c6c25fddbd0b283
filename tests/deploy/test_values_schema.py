"""Bad values fail at install time, naming what is wrong.

Each case is a values file that ``helm template`` (the same checks as
``helm install``) must refuse: by values.schema.json, or, for rules that
compare two values, by a ``fail`` in the templates.
"""

from __future__ import annotations

import pytest
import yaml

from deploy_support import VALUES_ALL_ON

SCHEMA_ERROR = "values don't meet the specifications of the schema"
BOOTSTRAP = {"kafka": {"bootstrapServers": "kafka:9092"}}
GOOD_OVERRIDE = {
    "host": "*.example.jp", "encoding": "shift_jis", "mode": "fallback",
    "reason": "no declaration", "review_by": "2027-03-31", "owner": "ops",
}


def _override(**changes):
    entry = {**GOOD_OVERRIDE, **changes}
    return {**BOOTSTRAP, "overrides": {"entries": [{k: v for k, v in entry.items() if v is not None}]}}


SCHEMA_CASES = {
    "bootstrap servers missing": ({}, "bootstrapServers"),
    "bootstrap servers without port": ({"kafka": {"bootstrapServers": "kafka"}}, "bootstrapServers"),
    "replicas not an integer": ({**BOOTSTRAP, "replicaCount": "three"}, "replicaCount"),
    "replicas zero": ({**BOOTSTRAP, "replicaCount": 0}, "replicaCount"),
    "processing mode not in the enum": (
        {**BOOTSTRAP, "settings": {"processingMode": "exactly-twice"}}, "processingMode"),
    "misspelled top-level key": ({**BOOTSTRAP, "replicas": 3}, "replicas"),
    "a password as a value": (
        {"kafka": {"bootstrapServers": "kafka:9092", "sasl": {"password": "hunter2"}}}, "password"),
    "SASL without a Secret": (
        {"kafka": {"bootstrapServers": "kafka:9092", "securityProtocol": "SASL_SSL",
                   "sasl": {"mechanism": "SCRAM-SHA-512"}}}, "existingSecret"),
    "unknown SASL mechanism": (
        {"kafka": {"bootstrapServers": "kafka:9092", "securityProtocol": "SASL_SSL",
                   "sasl": {"mechanism": "MD5", "existingSecret": "s"}}}, "mechanism"),
    "autoscaling without the partition count": (
        {**BOOTSTRAP, "autoscaling": {"enabled": True}}, "landingTopicPartitions"),
    "fractional replacement threshold": (
        {**BOOTSTRAP, "settings": {"replacementThreshold": 0.5}}, "replacementThreshold"),
    "log level not in the enum": ({**BOOTSTRAP, "settings": {"logLevel": "verbose"}}, "logLevel"),
    "override without a reason": (_override(reason=None), "reason"),
    "override with an unknown mode": (_override(mode="sometimes"), "mode"),
    "override with a free-text date": (_override(review_by="next spring"), "review_by"),
    "override without owner or ticket": (_override(owner=None), "owner"),
    "override host with a path": (_override(host="example.jp/shop"), "host"),
    "quarantine ratio as a percentage": (
        {**BOOTSTRAP, "prometheusRule": {"enabled": True, "quarantineRatio": 5}}, "quarantineRatio"),
    "lag window not a duration": ({**BOOTSTRAP, "prometheusRule": {"lagFor": "a while"}}, "lagFor"),
    "misspelled dashboard key": ({**BOOTSTRAP, "grafanaDashboard": {"enable": True}}, "enable"),
    "global not a mapping": ({**BOOTSTRAP, "global": "prod"}, "global"),
    "a registry password as a value": (
        {**BOOTSTRAP, "schemaRegistry": {"auth": {"password": "hunter2"}}}, "password"),
    "root user id": ({**BOOTSTRAP, "runAsUser": 0}, "runAsUser"),
    "unknown anti-affinity preset": ({**BOOTSTRAP, "podAntiAffinity": "strict"}, "podAntiAffinity"),
    "KEDA fallback without replicas": (
        {**BOOTSTRAP, "autoscaling": {"fallback": {"failureThreshold": 3}}}, "replicas"),
    "misspelled HPA behavior key": (
        {**BOOTSTRAP, "autoscaling": {"behavior": {"scaledown": {}}}}, "scaledown"),
    "replay run id with capitals": ({**BOOTSTRAP, "replay": {"runId": "March-31"}}, "runId"),
    "replay run id too long": ({**BOOTSTRAP, "replay": {"runId": "r" * 25}}, "runId"),
    "network policy port out of range": (
        {**BOOTSTRAP, "networkPolicy": {"kafka": {"ports": [70000]}}}, "ports"),
    "workload kind not in the enum": ({**BOOTSTRAP, "workload": {"kind": "DaemonSet"}}, "kind"),
    "extraEnvFrom without a reference": ({**BOOTSTRAP, "extraEnvFrom": [{"prefix": "X_"}]}, "extraEnvFrom"),
    "extraEnvFrom with both references": (
        {**BOOTSTRAP, "extraEnvFrom": [{"secretRef": {"name": "a"}, "configMapRef": {"name": "b"}}]}, "extraEnvFrom"),
    "an init container without an image": ({**BOOTSTRAP, "initContainers": [{"name": "wait"}]}, "image"),
    "a sidecar named like the processor": (
        {**BOOTSTRAP, "extraContainers": [{"name": "crawl-decoder", "image": "x"}]}, "extraContainers"),
    "a global pull Secret that is no name": (
        {**BOOTSTRAP, "global": {"imagePullSecrets": ["Not A Name"]}}, "imagePullSecrets"),
    "an image registry with a scheme": (
        {**BOOTSTRAP, "image": {"registry": "https://registry.example", "repository": "x"}}, "registry"),
    "an extra matcher that is not PromQL": (
        {**BOOTSTRAP, "prometheusRule": {"selector": {"extraMatchers": ["cluster=prod"]}}}, "extraMatchers"),
    "a runbook URL without a scheme": (
        {**BOOTSTRAP, "prometheusRule": {"runbookUrl": "wiki/runbook"}}, "runbookUrl"),
    "a stall window not a duration": ({**BOOTSTRAP, "prometheusRule": {"stallFor": "ten minutes"}}, "stallFor"),
    "extra volume mount with a relative path": (
        {**BOOTSTRAP, "extraVolumeMounts": [{"name": "x", "mountPath": "data"}]}, "mountPath"),
}

TEMPLATE_CASES = {
    "grace period not above the shutdown bound": (
        {**BOOTSTRAP, "terminationGracePeriodSeconds": 30, "settings": {"shutdownTimeoutS": 30}},
        "terminationGracePeriodSeconds (30) must exceed settings.shutdownTimeoutS (30)"),
    "KEDA max above the partition count": (
        {"kafka": {"bootstrapServers": "kafka:9092", "landingTopicPartitions": 12},
         "autoscaling": {"enabled": True, "maxReplicas": 13}},
        "autoscaling.maxReplicas (13) exceeds kafka.landingTopicPartitions (12)"),
    "replicas above the partition count": (
        {"kafka": {"bootstrapServers": "kafka:9092", "landingTopicPartitions": 4}, "replicaCount": 5},
        "replicaCount (5) exceeds kafka.landingTopicPartitions (4)"),
    "KEDA min above max": (
        {"kafka": {"bootstrapServers": "kafka:9092", "landingTopicPartitions": 12},
         "autoscaling": {"enabled": True, "minReplicas": 4, "maxReplicas": 3}},
        "autoscaling.minReplicas (4) exceeds autoscaling.maxReplicas (3)"),
}


def _template(run_helm, tmp_path, values):
    path = tmp_path / "values.yaml"
    path.write_text(yaml.safe_dump(values))
    return run_helm("template", values_files=[path], set_values={})


@pytest.mark.parametrize(("values", "names"), SCHEMA_CASES.values(), ids=SCHEMA_CASES.keys())
def test_schema_rejects(run_helm, tmp_path, values, names):
    result = _template(run_helm, tmp_path, values)
    assert result.returncode != 0, f"accepted bad values: {values}"
    assert SCHEMA_ERROR in result.stderr, result.stderr
    assert names in result.stderr, result.stderr


@pytest.mark.parametrize(("values", "message"), TEMPLATE_CASES.values(), ids=TEMPLATE_CASES.keys())
def test_templates_refuse(run_helm, tmp_path, values, message):
    result = _template(run_helm, tmp_path, values)
    assert result.returncode != 0, f"accepted bad values: {values}"
    assert message in result.stderr, result.stderr


def test_lint_fails_without_bootstrap_servers(run_helm):
    # The chart's own values.yaml alone is incomplete on purpose: there is no
    # sensible default cluster address.
    result = run_helm("lint", set_values={})
    assert result.returncode != 0
    assert "bootstrapServers" in result.stdout + result.stderr


@pytest.mark.parametrize("values", [
    {**BOOTSTRAP, "settings": {"processingMode": "at-least-once"}},
    {"kafka": {"bootstrapServers": "a:9092,[fd00::1]:9092", "landingTopicPartitions": 6}, "replicaCount": 6},
    _override(owner=None, ticket="CRAWL-1"),
    {**BOOTSTRAP, "workload": {"kind": "StatefulSet"}, "global": {"imagePullSecrets": ["a", {"name": "b"}]}},
    {"kafka": {"bootstrapServers": "kafka:9093", "securityProtocol": "SSL",
               "tls": {"existingSecret": "kafka-ca", "caKey": "ca.crt"}}},
], ids=["at-least-once", "replicas equal to partitions, IPv6 broker", "override with a ticket only", "StatefulSet, global pull Secrets",
     "TLS without SASL"])
def test_schema_accepts_good_variations(run_helm, tmp_path, values):
    result = _template(run_helm, tmp_path, values)
    assert result.returncode == 0, result.stderr


def test_all_on_values_pass_the_schema(run_helm):
    assert run_helm("template", values_files=[VALUES_ALL_ON], set_values={}).returncode == 0
