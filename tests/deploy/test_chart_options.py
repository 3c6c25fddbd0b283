"""The chart's options for running in someone else's cluster (issue 19, "The chart").

As a subchart (``global``), extra volumes, Schema Registry credentials and CA
from Secrets, ids left to the platform (OpenShift), pod anti-affinity, the
NetworkPolicy, ephemeral storage, KEDA's behavior and fallback, and a replay
Job that runs once per ``replay.runId``.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from fake_kube_api import fake_kube_api

from consumer.serialization.registry import client_config
from consumer.settings import Settings

from deploy_support import (
    CHART_DIR,
    RELEASE,
    REQUIRED_VALUES,
    VALIDATE_KUBE_VERSIONS,
    VALUES_ALL_ON,
    env_of,
    of_kind,
    only,
    pod_specs,
)

ALL_ON = yaml.safe_load(VALUES_ALL_ON.read_text())
CHART = yaml.safe_load((CHART_DIR / "Chart.yaml").read_text())


def _values_file(tmp_path: Path, values: dict) -> Path:
    path = tmp_path / "values.yaml"
    path.write_text(yaml.safe_dump(values))
    return path


def _render_file(render, tmp_path, values: dict):
    return render(values_files=[_values_file(tmp_path, values)], set_values={})


def _refusal(run_helm, tmp_path, values: dict) -> str:
    result = run_helm("template", values_files=[_values_file(tmp_path, values)], set_values={})
    assert result.returncode != 0, f"accepted: {values}"
    return result.stderr


def _pod_spec(manifests):
    return only(manifests, "Deployment")["spec"]["template"]["spec"]


# -- a subchart ------------------------------------------------------------------------------------------


def test_the_chart_renders_as_a_dependency_of_an_umbrella_chart(run_helm, tmp_path):
    umbrella = tmp_path / "umbrella"
    (umbrella / "charts").mkdir(parents=True)
    shutil.copytree(CHART_DIR, umbrella / "charts" / "crawl-decoder")
    (umbrella / "Chart.yaml").write_text(yaml.safe_dump({
        "apiVersion": "v2", "name": "crawl-platform", "version": "1.0.0",
        "dependencies": [{"name": "crawl-decoder", "version": CHART["version"]}],
    }))
    # A parent passes `global` to every subchart; the values schema must let it through.
    (umbrella / "values.yaml").write_text(yaml.safe_dump({
        "global": {"imageRegistry": "registry.example.com", "storageClass": "fast"},
        "crawl-decoder": {"kafka": {"bootstrapServers": "kafka:9092"}},
    }))
    result = run_helm("template", chart=umbrella, set_values={})
    assert result.returncode == 0, result.stderr
    kinds = {m["kind"] for m in yaml.safe_load_all(result.stdout) if m}
    assert "Deployment" in kinds


# -- extra volumes ----------------------------------------------------------------------------------------


def test_extra_volumes_are_mounted_in_the_processor_and_the_replay_job(all_on_manifests):
    (volume,) = ALL_ON["extraVolumes"]
    (mount,) = ALL_ON["extraVolumeMounts"]
    for spec in pod_specs(all_on_manifests):
        assert volume in spec["volumes"]
        assert mount in spec["containers"][0]["volumeMounts"]
    # The writer schemas the example mounts are where the processor is told to look.
    config = yaml.safe_load(next(
        m for m in of_kind(all_on_manifests, "ConfigMap") if m["metadata"]["name"].endswith("-settings")
    )["data"]["config.yaml"])
    assert config["writer_schemas_dir"] == mount["mountPath"]


# -- Schema Registry credentials and CA -----------------------------------------------------------------


def _settings_config(manifests) -> dict:
    configmap = next(m for m in of_kind(manifests, "ConfigMap") if m["metadata"]["name"].endswith("-settings"))
    return yaml.safe_load(configmap["data"]["config.yaml"])


def test_registry_credentials_come_from_the_secret_and_the_ca_is_mounted_where_the_settings_say(
    all_on_manifests, tmp_path
):
    auth, tls = ALL_ON["schemaRegistry"]["auth"], ALL_ON["schemaRegistry"]["tls"]
    for spec in pod_specs(all_on_manifests):
        container = spec["containers"][0]
        env = env_of(container)
        for name, key in (("USERNAME", auth["usernameKey"]), ("PASSWORD", auth["passwordKey"])):
            variable = f"CRAWL_DECODER_SCHEMA_REGISTRY_{name}"
            assert env[variable]["valueFrom"] == {"secretKeyRef": {"name": auth["existingSecret"], "key": key}}
        volumes = {v["name"]: v for v in spec["volumes"]}
        mounts = {m["name"]: m for m in container["volumeMounts"]}
        assert volumes["schema-registry-tls"]["secret"]["secretName"] == tls["existingSecret"]
        assert mounts["schema-registry-tls"]["readOnly"] is True
        ca_location = _settings_config(all_on_manifests)["schema_registry_ca_location"]
        assert ca_location == f"{mounts['schema-registry-tls']['mountPath']}/{tls['caKey']}"

    # What the processor makes of it: the rendered file plus the Secret's values in the environment.
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(_settings_config(all_on_manifests)))
    settings = Settings.load(path, environ={
        "CRAWL_DECODER_TRANSACTIONAL_ID": "t",
        "CRAWL_DECODER_SCHEMA_REGISTRY_USERNAME": "key",
        "CRAWL_DECODER_SCHEMA_REGISTRY_PASSWORD": "secret",
    })
    assert client_config(
        username=settings.schema_registry_username,
        password=settings.schema_registry_password,
        ca_location=settings.schema_registry_ca_location,
    ) == {"basic.auth.user.info": "key:secret", "ssl.ca.location": "/etc/schema-registry/tls/ca.pem"}
    assert "@" not in settings.schema_registry_url


def test_no_registry_credentials_or_ca_by_default(default_manifests):
    spec = _pod_spec(default_manifests)
    assert not [n for n in env_of(spec["containers"][0]) if n.startswith("CRAWL_DECODER_SCHEMA_REGISTRY_")]
    assert "schema-registry-tls" not in {v["name"] for v in spec["volumes"]}
    assert _settings_config(default_manifests)["schema_registry_ca_location"] == ""


@pytest.mark.parametrize("url", [
    "https://reader:hunter2@registry.example:8081",
    "http://reader@registry.example",
    "https://a.example:8081,https://reader:hunter2@b.example:8081",
])
def test_credentials_in_the_registry_url_are_refused(run_helm, tmp_path, url):
    stderr = _refusal(run_helm, tmp_path, {**_bootstrap(), "settings": {"schemaRegistryUrl": url}})
    assert "settings.schemaRegistryUrl carries credentials" in stderr
    assert "hunter2" not in stderr.split("carries credentials")[1]


def test_an_at_sign_in_the_registry_url_path_is_not_taken_for_credentials(render, tmp_path):
    url = "https://registry.example:8081/contexts/@team"
    manifests = _render_file(render, tmp_path, {**_bootstrap(), "settings": {"schemaRegistryUrl": url}})
    assert _settings_config(manifests)["schema_registry_url"] == url


def test_registry_secrets_without_a_matching_url_are_refused(run_helm, tmp_path):
    auth_only = {**_bootstrap(), "schemaRegistry": {"auth": {"existingSecret": "registry-user"}}}
    assert "schemaRegistry.auth.existingSecret is set but settings.schemaRegistryUrl is empty" in _refusal(
        run_helm, tmp_path, auth_only)
    ca_over_http = {
        **_bootstrap(), "settings": {"schemaRegistryUrl": "http://registry:8081"},
        "schemaRegistry": {"tls": {"existingSecret": "registry-ca"}},
    }
    assert "not an https:// URL" in _refusal(run_helm, tmp_path, ca_over_http)


def _bootstrap() -> dict:
    return {"kafka": {"bootstrapServers": REQUIRED_VALUES["kafka.bootstrapServers"]}}


# -- ids left to the platform (OpenShift) ------------------------------------------------------------------


def test_null_ids_are_left_out_and_the_rest_of_the_context_stays(render, tmp_path):
    values = {**_bootstrap(), "runAsUser": None, "runAsGroup": None, "fsGroup": None,
              "replay": {"enabled": True, "runId": "r1"}}
    manifests = _render_file(render, tmp_path, values)
    specs = pod_specs(manifests)
    assert len(specs) == 2
    for spec in specs:
        assert spec["securityContext"] == {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}
        context = spec["containers"][0]["securityContext"]
        assert not {"runAsUser", "runAsGroup"} & set(context)
        assert context["runAsNonRoot"] is True and context["readOnlyRootFilesystem"] is True
        assert context["allowPrivilegeEscalation"] is False and context["capabilities"] == {"drop": ["ALL"]}
    for manifest in manifests:
        if manifest["kind"] in ("Deployment", "Job"):
            kubernetes_validate.validate(manifest, VALIDATE_KUBE_VERSIONS[-1], strict=True)


def test_ids_can_be_left_out_one_by_one(render, tmp_path):
    manifests = _render_file(render, tmp_path, {**_bootstrap(), "fsGroup": None})
    assert _pod_spec(manifests)["securityContext"] == {
        "runAsNonRoot": True, "runAsUser": 10001, "runAsGroup": 10001, "seccompProfile": {"type": "RuntimeDefault"},
    }


# -- pod anti-affinity ------------------------------------------------------------------------------------


def test_soft_anti_affinity_on_the_hostname_by_default(default_manifests):
    spec = _pod_spec(default_manifests)
    pod_labels = only(default_manifests, "Deployment")["spec"]["template"]["metadata"]["labels"]
    (term,) = spec["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert term["podAffinityTerm"]["topologyKey"] == "kubernetes.io/hostname"
    selector = term["podAffinityTerm"]["labelSelector"]["matchLabels"]
    assert selector.items() <= pod_labels.items()
    assert selector["app.kubernetes.io/instance"] == RELEASE, "only this release's pods"


def test_anti_affinity_preset_hard_none_and_affinity_wins(render, tmp_path):
    hard = _pod_spec(_render_file(render, tmp_path, {**_bootstrap(), "podAntiAffinity": "hard"}))
    (term,) = hard["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["topologyKey"] == "kubernetes.io/hostname"
    assert "affinity" not in _pod_spec(_render_file(render, tmp_path, {**_bootstrap(), "podAntiAffinity": "none"}))
    node_affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["stream"]}]}]}}}
    own = _pod_spec(_render_file(render, tmp_path, {**_bootstrap(), "affinity": node_affinity}))
    assert own["affinity"] == node_affinity


# -- NetworkPolicy --------------------------------------------------------------------------------------


def _selects(policy, labels: dict) -> bool:
    selector = policy["spec"]["podSelector"]
    if not selector.get("matchLabels", {}).items() <= labels.items():
        return False
    for expression in selector.get("matchExpressions", []):
        assert expression["operator"] == "In"
        if labels.get(expression["key"]) not in expression["values"]:
            return False
    return True


def test_network_policy_covers_the_processor_and_replay_pods_only(all_on_manifests, default_manifests):
    assert not of_kind(default_manifests, "NetworkPolicy")
    policy = only(all_on_manifests, "NetworkPolicy")
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"]
    for workload in ("Deployment", "Job"):
        assert _selects(policy, only(all_on_manifests, workload)["spec"]["template"]["metadata"]["labels"])
    assert not _selects(policy, {"app.kubernetes.io/name": "crawl-decoder", "app.kubernetes.io/instance": "other"})


def test_network_policy_lets_in_only_the_metrics_port_from_the_given_peers(all_on_manifests):
    # The other ingress rule of values-all-on is /alarms's own port (tests/deploy/test_operations.py).
    rule, alarms = only(all_on_manifests, "NetworkPolicy")["spec"]["ingress"]
    assert alarms["ports"] == [{"port": "alarms", "protocol": "TCP"}]
    container_ports = {p["name"] for p in _pod_spec(all_on_manifests)["containers"][0]["ports"]}
    (port,) = rule["ports"]
    assert port["port"] in container_ports
    service = only(all_on_manifests, "Service")
    assert service["spec"]["ports"][0]["targetPort"] == port["port"]
    assert rule["from"] == ALL_ON["networkPolicy"]["metricsFrom"]


def _egress_ports(policy) -> list[set[tuple[int, str]]]:
    return [{(p["port"], p["protocol"]) for p in rule["ports"]} for rule in policy["spec"]["egress"]]


def test_network_policy_egress_to_dns_kafka_registry_and_extra_rules(all_on_manifests):
    policy = only(all_on_manifests, "NetworkPolicy")
    egress = policy["spec"]["egress"]
    assert _egress_ports(policy)[:3] == [{(53, "UDP"), (53, "TCP")}, {(9093, "TCP")}, {(8081, "TCP")}]
    assert egress[0]["to"] == ALL_ON["networkPolicy"]["dns"]["to"]
    assert egress[1]["to"] == ALL_ON["networkPolicy"]["kafka"]["to"]
    assert egress[3:] == ALL_ON["networkPolicy"]["extraEgress"]


def test_network_policy_ports_follow_the_addresses(render, tmp_path):
    values = {
        "kafka": {"bootstrapServers": "a:9092,[fd00::1]:9094,b.example:9092"},
        "settings": {"schemaRegistryUrl": "https://registry.example"},
        "networkPolicy": {"enabled": True},
    }
    policy = only(_render_file(render, tmp_path, values), "NetworkPolicy")
    assert _egress_ports(policy) == [{(53, "UDP"), (53, "TCP")}, {(9092, "TCP"), (9094, "TCP")}, {(443, "TCP")}]
    assert all("to" not in rule for rule in policy["spec"]["egress"]), "no peers given: any destination"
    assert "from" not in policy["spec"]["ingress"][0]
    # Without a registry there is no registry rule; explicit ports win.
    values = {**_bootstrap(), "networkPolicy": {"enabled": True, "kafka": {"ports": [9093, 9094]}}}
    policy = only(_render_file(render, tmp_path, values), "NetworkPolicy")
    assert _egress_ports(policy) == [{(53, "UDP"), (53, "TCP")}, {(9093, "TCP"), (9094, "TCP")}]


# -- ephemeral storage -----------------------------------------------------------------------------------


def _bytes(quantity: str) -> int:
    number, unit = re.fullmatch(r"([0-9]+)(Ki|Mi|Gi)?", str(quantity)).groups()
    return int(number) * {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, None: 1}[unit]


def test_every_container_requests_and_limits_ephemeral_storage_above_tmp(manifests):
    for spec in pod_specs(manifests):
        tmp = next(v for v in spec["volumes"] if v["name"] == "tmp")["emptyDir"]["sizeLimit"]
        for container in spec["containers"]:
            if "/tmp" not in {m["mountPath"] for m in container.get("volumeMounts", [])}:
                continue  # a sidecar of values-all-on.yaml: its own resources
            resources = container["resources"]
            request = _bytes(resources["requests"]["ephemeral-storage"])
            limit = _bytes(resources["limits"]["ephemeral-storage"])
            assert _bytes(tmp) < request <= limit
            # What kube-score's waived CPU-limit rule leaves to this test: requests and a memory limit.
            assert resources["requests"]["cpu"] and resources["requests"]["memory"] and resources["limits"]["memory"]


# -- KEDA: behavior, fallback, no cooldownPeriod ------------------------------------------------------------


def _behavior_as_hpa(behavior: dict) -> dict:
    return {
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "check"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
                 "maxReplicas": 2, "behavior": behavior},
    }


@pytest.mark.parametrize("kube_version", VALIDATE_KUBE_VERSIONS)
def test_keda_behavior_is_a_valid_hpa_behavior(all_on_manifests, render, tmp_path, kube_version):
    values = {"kafka": {"bootstrapServers": "kafka:9092", "landingTopicPartitions": 6},
              "autoscaling": {"enabled": True}}
    defaults = only(_render_file(render, tmp_path, values), "ScaledObject")["spec"]
    for spec in (defaults, only(all_on_manifests, "ScaledObject")["spec"]):
        behavior = spec["advanced"]["horizontalPodAutoscalerConfig"]["behavior"]
        kubernetes_validate.validate(_behavior_as_hpa(behavior), kube_version, strict=True)
        assert "cooldownPeriod" not in spec, "inert without scaling to zero"
    # The chart's default: slow scale-down, each one a rebalance.
    assert defaults["advanced"]["horizontalPodAutoscalerConfig"]["behavior"] == {"scaleDown": {
        "stabilizationWindowSeconds": 300, "policies": [{"type": "Pods", "value": 1, "periodSeconds": 120}],
    }}
    assert "fallback" not in defaults


def test_hpa_behavior_validation_can_fail():
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(
            _behavior_as_hpa({"scaleDown": {"stabilisationWindowSeconds": 300}}), VALIDATE_KUBE_VERSIONS[0], strict=True)


def test_keda_fallback_when_set(all_on_manifests):
    assert only(all_on_manifests, "ScaledObject")["spec"]["fallback"] == ALL_ON["autoscaling"]["fallback"]


def test_a_cooldown_period_is_refused_with_the_reason(run_helm, tmp_path):
    values = {"kafka": {"bootstrapServers": "kafka:9092", "landingTopicPartitions": 6},
              "autoscaling": {"enabled": True, "cooldownPeriod": 300}}
    assert "autoscaling.cooldownPeriod is gone" in _refusal(run_helm, tmp_path, values)


# -- replay Job: once per runId ------------------------------------------------------------------------------


def test_replay_job_is_named_after_the_run_id_and_is_no_hook(all_on_manifests):
    job = only(all_on_manifests, "Job")
    assert job["metadata"]["name"] == f"{RELEASE}-crawl-decoder-replay-{ALL_ON['replay']['runId']}"
    annotations = job["metadata"].get("annotations", {})
    assert not [k for k in annotations if k.startswith(("helm.sh/hook", "argocd.argoproj.io/hook"))], (
        "a hook would run again on every upgrade or sync"
    )
    assert annotations["example.com/ticket"] == "CRAWL-1234"
    assert job["spec"]["ttlSecondsAfterFinished"] == ALL_ON["replay"]["ttlSecondsAfterFinished"]


def test_replay_job_does_not_change_with_unrelated_upgrades(render, tmp_path):
    """Same runId and args: the same Job, so an upgrade (or Argo CD sync) leaves the finished one alone."""
    base = {**_bootstrap(), "replay": {"enabled": True, "runId": "2027-03-31-sjis"}}
    first = only(_render_file(render, tmp_path, base), "Job")
    changed = {**base, "settings": {"batchSize": 1000}, "replicaCount": 3, "overrides": {"entries": [{
        "host": "a.example", "encoding": "utf-8", "mode": "force", "reason": "r", "review_by": "2027-01-01",
        "owner": "o"}]}}
    assert only(_render_file(render, tmp_path, changed), "Job") == first
    assert "ttlSecondsAfterFinished" not in first["spec"], "a deleted Job would be recreated (rerun) on the next upgrade"
    other_run = {**base, "replay": {"enabled": True, "runId": "2027-04-01"}}
    assert only(_render_file(render, tmp_path, other_run), "Job")["metadata"]["name"] != first["metadata"]["name"]


def test_no_template_depends_on_the_release_revision():
    # Argo CD renders with `helm template` (revision always 1), and a revision in the Job's name made
    # every `helm upgrade` a new run.
    for template in (CHART_DIR / "templates").iterdir():
        assert ".Release.Revision" not in template.read_text(), template.name


def test_replay_needs_a_run_id(run_helm, tmp_path):
    assert "replay.enabled needs replay.runId" in _refusal(run_helm, tmp_path, {**_bootstrap(), "replay": {"enabled": True}})


def test_replay_job_name_fits_a_label_with_the_longest_names(render, tmp_path):
    values = {**_bootstrap(), "fullnameOverride": "a" * 63, "replay": {"enabled": True, "runId": "r" * 24}}
    job = only(_render_file(render, tmp_path, values), "Job")
    assert len(job["metadata"]["name"]) <= 63
    assert job["metadata"]["name"].endswith("-replay-" + "r" * 24)


# -- a parent chart's registry and pull Secrets ------------------------------------------------------------


def _images(manifests) -> set[str]:
    return {c["image"] for spec in pod_specs(manifests) for c in spec["containers"] if c["name"] in ("crawl-decoder", "replay")}


def test_global_image_registry_and_pull_secrets_reach_every_pod(all_on_manifests):
    assert _images(all_on_manifests) == {"registry.example.com/crawl/crawl-decoder:0.1.0"}
    for spec in pod_specs(all_on_manifests):
        # The parent's names (a plain name and a {name:}) and the chart's own, each once.
        assert spec["imagePullSecrets"] == [{"name": "mirror-credentials"}, {"name": "registry-credentials"}]


@pytest.mark.parametrize(("image", "global_", "expected"), [
    ({"repository": "crawl/crawl-decoder"}, {}, "crawl/crawl-decoder:0.1.0"),
    ({"registry": "own.example:5000", "repository": "crawl/crawl-decoder"}, {}, "own.example:5000/crawl/crawl-decoder:0.1.0"),
    ({"registry": "own.example", "repository": "crawl/crawl-decoder"}, {"imageRegistry": "mirror.example/"},
     "mirror.example/crawl/crawl-decoder:0.1.0"),
    ({"repository": "crawl/crawl-decoder", "digest": "sha256:" + "a" * 64}, {"imageRegistry": "mirror.example"},
     "mirror.example/crawl/crawl-decoder@sha256:" + "a" * 64),
], ids=["no registry", "image.registry", "global wins", "global with a digest"])
def test_the_image_registry(render, tmp_path, image, global_, expected):
    values = {**_bootstrap(), "image": image, "global": global_, "replay": {"enabled": True, "runId": "r1"}}
    assert _images(_render_file(render, tmp_path, values)) == {expected}


def test_no_pull_secrets_by_default_and_a_parents_alone_are_used(default_manifests, render, tmp_path):
    assert "imagePullSecrets" not in _pod_spec(default_manifests)
    values = {**_bootstrap(), "global": {"imagePullSecrets": ["mirror"]}}
    assert _pod_spec(_render_file(render, tmp_path, values))["imagePullSecrets"] == [{"name": "mirror"}]


# -- extraEnvFrom, init containers, sidecars -------------------------------------------------------------


def test_extra_env_from_in_the_processor_and_the_replay_job(all_on_manifests, default_manifests):
    for spec in pod_specs(all_on_manifests):
        assert spec["containers"][0]["envFrom"] == ALL_ON["extraEnvFrom"]
    assert "envFrom" not in _pod_spec(default_manifests)["containers"][0]


def test_init_containers_in_every_pod_and_sidecars_in_the_processors_only(all_on_manifests, default_manifests):
    deployment, job = _pod_spec(all_on_manifests), only(all_on_manifests, "Job")["spec"]["template"]["spec"]
    for spec in (deployment, job):
        assert spec["initContainers"] == ALL_ON["initContainers"]
    assert [c["name"] for c in deployment["containers"]] == ["crawl-decoder", "log-shipper"]
    assert deployment["containers"][1] == ALL_ON["extraContainers"][0]
    # A sidecar that never exits would keep the replay Job from finishing.
    assert [c["name"] for c in job["containers"]] == ["replay"]
    assert not {"initContainers"} & set(_pod_spec(default_manifests))


# -- rolling the pods when a Secret they use changes ---------------------------------------------------------


def _secrets_checksum(manifests) -> str | None:
    workload = next(m for m in manifests if m["kind"] in ("Deployment", "StatefulSet"))
    return workload["spec"]["template"]["metadata"]["annotations"].get("checksum/secrets")


def test_no_secrets_checksum_without_secrets(default_manifests, render, tmp_path):
    assert _secrets_checksum(default_manifests) is None
    assert _secrets_checksum(_render_file(render, tmp_path, {**ALL_ON, "rollOnSecretChange": False})) is None


def test_the_secrets_checksum_follows_every_secret_the_pods_use(all_on_manifests, render, tmp_path):
    base = _secrets_checksum(all_on_manifests)
    assert base and len(base) == 64
    # One more Secret, by each way the pods can use one, changes it; a ConfigMap does not.
    more = {
        "extraEnv": ALL_ON["extraEnv"] + [
            {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "another", "key": "token"}}}],
        "extraEnvFrom": ALL_ON["extraEnvFrom"] + [{"secretRef": {"name": "another"}}],
        "extraVolumes": ALL_ON["extraVolumes"] + [{"name": "another", "secret": {"secretName": "another"}}],
    }
    for key, value in more.items():
        assert _secrets_checksum(_render_file(render, tmp_path, {**ALL_ON, key: value})) != base, key
    projected = ALL_ON["extraVolumes"] + [
        {"name": "both", "projected": {"sources": [{"secret": {"name": "another"}}]}}]
    assert _secrets_checksum(_render_file(render, tmp_path, {**ALL_ON, "extraVolumes": projected})) != base
    config_map = ALL_ON["extraEnvFrom"] + [{"configMapRef": {"name": "more-env"}}]
    assert _secrets_checksum(_render_file(render, tmp_path, {**ALL_ON, "extraEnvFrom": config_map})) == base


# -- StatefulSet -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def statefulset_manifests(render):
    return render(values_files=[VALUES_ALL_ON], set_values={"workload.kind": "StatefulSet"})


def test_a_statefulset_runs_the_same_pods_under_names_that_survive_rollouts(statefulset_manifests, render):
    assert not of_kind(statefulset_manifests, "Deployment")
    statefulset = only(statefulset_manifests, "StatefulSet")
    # The same pods as a Deployment's with static membership, which a StatefulSet has by default.
    static = render(values_files=[VALUES_ALL_ON], set_values={"kafka.staticMembership": True})
    deployment = only(static, "Deployment")
    assert statefulset["spec"]["template"] == deployment["spec"]["template"]
    assert statefulset["spec"]["selector"] == deployment["spec"]["selector"]
    # group.instance.id and transactional.id are the pod name: <fullname>-<ordinal>, stable.
    env = env_of(statefulset["spec"]["template"]["spec"]["containers"][0])
    for name in ("CRAWL_DECODER_GROUP_INSTANCE_ID", "CRAWL_DECODER_TRANSACTIONAL_ID"):
        assert env[name]["valueFrom"] == {"fieldRef": {"fieldPath": "metadata.name"}}
    assert statefulset["spec"]["updateStrategy"] == {"type": "RollingUpdate"}
    assert statefulset["spec"]["podManagementPolicy"] == "Parallel"


def test_a_statefulsets_governing_service_is_headless_and_not_scraped_twice(statefulset_manifests):
    statefulset = only(statefulset_manifests, "StatefulSet")
    services = {s["metadata"]["name"]: s for s in of_kind(statefulset_manifests, "Service")}
    headless = services[statefulset["spec"]["serviceName"]]
    assert headless["spec"]["clusterIP"] == "None"
    assert headless["spec"]["selector"].items() <= statefulset["spec"]["template"]["metadata"]["labels"].items()
    # The ServiceMonitor scrapes the port named metrics of every Service it selects: the headless one has none.
    monitor = only(statefulset_manifests, "ServiceMonitor")
    (endpoint,) = monitor["spec"]["endpoints"]
    scraped = [
        name for name, service in services.items()
        if monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
        and endpoint["port"] in {p["name"] for p in service["spec"].get("ports", [])}
    ]
    assert scraped == [f"{RELEASE}-crawl-decoder"]


def test_keda_and_the_pdb_follow_the_statefulset(statefulset_manifests):
    statefulset = only(statefulset_manifests, "StatefulSet")
    target = only(statefulset_manifests, "ScaledObject")["spec"]["scaleTargetRef"]
    assert target == {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": statefulset["metadata"]["name"]}
    assert "replicas" not in statefulset["spec"], "KEDA's HPA owns it"
    pdb = only(statefulset_manifests, "PodDisruptionBudget")
    assert pdb["spec"]["selector"]["matchLabels"].items() <= statefulset["spec"]["template"]["metadata"]["labels"].items()


@pytest.mark.parametrize("kube_version", VALIDATE_KUBE_VERSIONS)
def test_the_statefulset_and_its_service_validate(statefulset_manifests, render, tmp_path, kube_version):
    plain = _render_file(render, tmp_path, {**_bootstrap(), "workload": {"kind": "StatefulSet"}})
    assert only(plain, "StatefulSet")["spec"]["replicas"] == 2
    for manifests in (statefulset_manifests, plain):
        for manifest in manifests:
            if manifest["kind"] in ("StatefulSet", "Service", "Job"):
                kubernetes_validate.validate(manifest, kube_version, strict=True)


def test_every_workload_and_option_validates(all_on_manifests):
    # values-all-on.yaml's init container, sidecar and envFrom against the API schemas (strict: no unknown field).
    for manifest in all_on_manifests:
        if manifest["kind"] in ("Deployment", "Job"):
            for kube_version in VALIDATE_KUBE_VERSIONS:
                kubernetes_validate.validate(manifest, kube_version, strict=True)


def test_a_changed_secret_changes_the_checksum_when_helm_can_read_it(helm, tmp_path):
    # `helm template --dry-run=server` looks the Secrets up as `helm upgrade` does, here from a fake API
    # server (fake_kube_api.py): the checksum follows their data, and stays when the data does.
    values = {"kafka.bootstrapServers": "kafka:9093", "kafka.securityProtocol": "SSL",
              "kafka.tls.existingSecret": "kafka-tls", "extraEnvFrom": [{"secretRef": {"name": "extra"}}]}
    with fake_kube_api(tmp_path) as (api, kubeconfig):

        def checksum() -> str:
            args = [str(helm), "template", RELEASE, str(CHART_DIR), "--namespace", "crawl", "--dry-run=server",
                    "--disable-openapi-validation"]
            for key, value in values.items():
                args += ["--set-json", f"{key}={json.dumps(value)}"]
            result = subprocess.run(args, capture_output=True, text=True, timeout=120,
                                    env={**os.environ, "KUBECONFIG": str(kubeconfig)})
            assert result.returncode == 0, result.stderr
            return _secrets_checksum([m for m in yaml.safe_load_all(result.stdout) if m])

        api.secrets[("crawl", "kafka-tls")] = {"ca.crt": base64.b64encode(b"CA one").decode()}
        first = checksum()
        assert "/api/v1/namespaces/crawl/secrets/kafka-tls" in api.requests
        assert "/api/v1/namespaces/crawl/secrets/extra" in api.requests
        assert checksum() == first
        api.secrets[("crawl", "kafka-tls")] = {"ca.crt": base64.b64encode(b"CA two").decode()}
        second = checksum()
        assert second != first
        api.secrets[("crawl", "extra")] = {"TOKEN": base64.b64encode(b"t").decode()}
        assert checksum() not in (first, second)
