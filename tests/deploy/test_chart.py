"""``helm lint`` and ``helm template`` of the chart, the rendered manifests
validated against the Kubernetes API schemas, and what each template promises.
"""

from __future__ import annotations

import jsonschema
import kubernetes_validate
import pytest
import yaml

from crd_schemas import CRD_SCHEMAS, KAFKA_AUTH_PARAMETERS, KAFKA_TRIGGER_METADATA
from deploy_support import RELEASE, VALIDATE_KUBE_VERSIONS, VALUES_ALL_ON, env_of, of_kind, only, pod_specs

FULLNAME = f"{RELEASE}-crawl-decoder"


# -- lint and template ---------------------------------------------------------------------------


def test_lint_with_default_values(run_helm):
    result = run_helm("lint", extra=["--strict"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 chart(s) linted, 0 chart(s) failed" in result.stdout


def test_lint_with_every_optional_part_on(run_helm):
    result = run_helm("lint", values_files=[VALUES_ALL_ON], set_values={}, extra=["--strict"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 chart(s) linted, 0 chart(s) failed" in result.stdout


def test_default_values_render_the_core_objects_only(default_manifests):
    kinds = sorted(m["kind"] for m in default_manifests)
    assert kinds == ["ConfigMap", "ConfigMap", "Deployment", "PodDisruptionBudget", "Service", "ServiceAccount"]


def test_all_on_values_render_every_optional_object(all_on_manifests):
    kinds = sorted(m["kind"] for m in all_on_manifests)
    assert kinds == sorted([
        "ConfigMap", "ConfigMap", "ConfigMap", "Deployment", "Job", "NetworkPolicy", "PodDisruptionBudget",
        "PrometheusRule", "ScaledObject", "Service", "ServiceAccount", "ServiceMonitor", "TriggerAuthentication",
    ])


# -- validation against the API schemas --------------------------------------------------------------


@pytest.mark.parametrize("kube_version", VALIDATE_KUBE_VERSIONS)
def test_manifests_validate_against_kubernetes_schemas(manifests, kube_version):
    validated = 0
    for manifest in manifests:
        key = (manifest["apiVersion"], manifest["kind"])
        if key in CRD_SCHEMAS:
            jsonschema.validate(manifest, CRD_SCHEMAS[key])
        else:
            # strict: unknown fields are errors too (a typo'd key would be silently dropped by the API server).
            kubernetes_validate.validate(manifest, kube_version, strict=True)
            validated += 1
    assert validated >= 6


def test_kubernetes_validation_catches_a_broken_manifest(default_manifests):
    # The validator must be able to fail: a misspelled field and a string port.
    deployment = yaml.safe_load(yaml.safe_dump(only(default_manifests, "Deployment")))
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["readinessProbe"]["httpGet"]["paht"] = "/readyz"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, VALIDATE_KUBE_VERSIONS[0], strict=True)


def test_crd_schemas_catch_a_non_string_trigger_metadata_value(all_on_manifests):
    scaled = yaml.safe_load(yaml.safe_dump(only(all_on_manifests, "ScaledObject")))
    scaled["spec"]["triggers"][0]["metadata"]["lagThreshold"] = 10000
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(scaled, CRD_SCHEMAS[("keda.sh/v1alpha1", "ScaledObject")])


# -- Deployment ----------------------------------------------------------------------------------------


def test_deployment_replicas_from_values_unless_keda_owns_them(default_manifests, all_on_manifests):
    assert only(default_manifests, "Deployment")["spec"]["replicas"] == 2
    # With autoscaling on, a replicas field would fight the HPA on every upgrade.
    assert "replicas" not in only(all_on_manifests, "Deployment")["spec"]


def test_settings_checksum_on_pods_but_no_overrides_checksum(manifests, render):
    annotations = only(manifests, "Deployment")["spec"]["template"]["metadata"]["annotations"]
    assert len(annotations["checksum/settings"]) == 64
    assert not [key for key in annotations if "overrides" in key], "overrides hot-reload: no restart on change"


def test_settings_change_rolls_pods_but_overrides_change_does_not(render):
    def pod_annotations(**set_values):
        manifests = render(set_values={"kafka.bootstrapServers": "kafka:9092", **set_values})
        return only(manifests, "Deployment")["spec"]["template"]["metadata"]["annotations"]

    base = pod_annotations()
    assert pod_annotations(**{"settings.batchSize": 1000}) != base
    new_override = [{
        "host": "www.example.jp", "encoding": "shift_jis", "mode": "force",
        "reason": "declares EUC-JP, serves Shift_JIS", "review_by": "2027-06-30", "owner": "ops",
    }]
    assert pod_annotations(**{"overrides.entries": new_override}) == base


def test_sasl_credentials_come_from_the_named_secret(all_on_manifests):
    container = only(all_on_manifests, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    env = env_of(container)
    assert env["KAFKA_SECURITY_PROTOCOL"]["value"] == "SASL_SSL"
    assert env["KAFKA_SASL_MECHANISM"]["value"] == "SCRAM-SHA-512"
    for name, key in (("KAFKA_SASL_USERNAME", "username"), ("KAFKA_SASL_PASSWORD", "password")):
        assert env[name] == {
            "name": name,
            "valueFrom": {"secretKeyRef": {"name": "crawl-decoder-kafka-user", "key": key}},
        }
    assert env["KAFKA_SSL_KEY_PASSWORD"]["valueFrom"]["secretKeyRef"] == {
        "name": "crawl-decoder-kafka-tls", "key": "key-password",
    }


def test_tls_files_are_mounted_from_the_named_secret(all_on_manifests):
    spec = only(all_on_manifests, "Deployment")["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert volumes["kafka-tls"]["secret"]["secretName"] == "crawl-decoder-kafka-tls"
    mounts = {m["name"]: m for m in spec["containers"][0]["volumeMounts"]}
    tls_dir = mounts["kafka-tls"]["mountPath"]
    assert mounts["kafka-tls"]["readOnly"] is True
    env = env_of(spec["containers"][0])
    assert env["KAFKA_SSL_CA_LOCATION"]["value"] == f"{tls_dir}/ca.crt"
    assert env["KAFKA_SSL_CERTIFICATE_LOCATION"]["value"] == f"{tls_dir}/tls.crt"
    assert env["KAFKA_SSL_KEY_LOCATION"]["value"] == f"{tls_dir}/tls.key"


def test_plaintext_default_has_no_credentials_or_tls(default_manifests):
    spec = only(default_manifests, "Deployment")["spec"]["template"]["spec"]
    env = env_of(spec["containers"][0])
    assert env["KAFKA_SECURITY_PROTOCOL"]["value"] == "PLAINTEXT"
    assert not [name for name in env if name.startswith(("KAFKA_SASL_", "KAFKA_SSL_"))]
    assert "kafka-tls" not in {v["name"] for v in spec["volumes"]}


def test_no_secret_values_in_any_rendered_object(manifests):
    assert not of_kind(manifests, "Secret"), "the chart only references existing Secrets"
    for spec in pod_specs(manifests):
        for container in spec["containers"]:
            for name, entry in env_of(container).items():
                if any(word in name for word in ("PASSWORD", "USERNAME", "SECRET", "TOKEN")):
                    assert "value" not in entry, f"{name} must come from a Secret"


def test_transactional_id_is_the_pod_name(manifests):
    for spec in pod_specs(manifests):
        env = env_of(spec["containers"][0])
        assert env["CRAWL_DECODER_TRANSACTIONAL_ID"]["valueFrom"] == {"fieldRef": {"fieldPath": "metadata.name"}}


def test_overrides_configmap_holds_the_entries_verbatim(all_on_manifests):
    configmap = next(m for m in of_kind(all_on_manifests, "ConfigMap") if m["metadata"]["name"].endswith("-overrides"))
    document = yaml.safe_load(configmap["data"]["overrides.yaml"])
    expected = yaml.safe_load(VALUES_ALL_ON.read_text())["overrides"]["entries"]
    assert [{k: str(v) for k, v in entry.items()} for entry in document["overrides"]] == expected
    assert document["settings"] == {"expired": "apply"}


def test_existing_overrides_configmap_replaces_the_charts(render):
    manifests = render(set_values={
        "kafka.bootstrapServers": "kafka:9092",
        "overrides.existingConfigMap": "crawl-overrides-gitops",
        "overrides.existingConfigMapKey": "hosts.yaml",
    })
    names = [m["metadata"]["name"] for m in of_kind(manifests, "ConfigMap")]
    assert names == [f"{FULLNAME}-settings"]
    volume = next(v for v in only(manifests, "Deployment")["spec"]["template"]["spec"]["volumes"] if v["name"] == "config")
    assert {"configMap": {"name": "crawl-overrides-gitops", "items": [{"key": "hosts.yaml", "path": "overrides.yaml"}]}} in volume["projected"]["sources"]


# -- Service, PDB, KEDA, ServiceMonitor, replay Job ------------------------------------------------------------


def test_service_exposes_the_metrics_port_of_the_pods(manifests):
    service = only(manifests, "Service")
    deployment = only(manifests, "Deployment")
    assert service["spec"]["selector"].items() <= deployment["spec"]["template"]["metadata"]["labels"].items()
    (port,) = service["spec"]["ports"]
    container_ports = {p["name"] for p in deployment["spec"]["template"]["spec"]["containers"][0]["ports"]}
    assert port["name"] == "metrics" and port["targetPort"] in container_ports
    # Prometheus must still scrape a pod whose /readyz fails.
    assert service["spec"]["publishNotReadyAddresses"] is True


def test_pdb_selects_the_deployments_pods(manifests):
    pdb = only(manifests, "PodDisruptionBudget")
    labels = only(manifests, "Deployment")["spec"]["template"]["metadata"]["labels"]
    assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert pdb["spec"]["maxUnavailable"] == 1


def test_scaled_object_scales_the_deployment_on_landing_topic_lag(all_on_manifests):
    scaled = only(all_on_manifests, "ScaledObject")
    values = yaml.safe_load(VALUES_ALL_ON.read_text())
    assert scaled["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": FULLNAME}
    assert scaled["spec"]["maxReplicaCount"] <= values["kafka"]["landingTopicPartitions"]
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["type"] == "kafka"
    metadata = trigger["metadata"]
    assert set(metadata) <= KAFKA_TRIGGER_METADATA
    assert metadata["topic"] == values["kafka"]["landingTopic"]
    assert metadata["consumerGroup"] == values["kafka"]["groupId"]
    assert metadata["bootstrapServers"] == values["kafka"]["bootstrapServers"]
    assert metadata["sasl"] == "scram_sha512" and metadata["tls"] == "enable"
    auth = only(all_on_manifests, "TriggerAuthentication")
    assert trigger["authenticationRef"]["name"] == auth["metadata"]["name"]
    refs = {ref["parameter"]: (ref["name"], ref["key"]) for ref in auth["spec"]["secretTargetRef"]}
    assert set(refs) <= KAFKA_AUTH_PARAMETERS
    assert refs["username"] == ("crawl-decoder-kafka-user", "username")
    assert refs["password"] == ("crawl-decoder-kafka-user", "password")
    assert refs["ca"] == ("crawl-decoder-kafka-tls", "ca.crt")


@pytest.mark.parametrize(("mechanism", "keda_name"), [("PLAIN", "plaintext"), ("SCRAM-SHA-256", "scram_sha256")])
def test_scaled_object_names_sasl_mechanisms_the_keda_way(render, mechanism, keda_name):
    manifests = render(values_files=[VALUES_ALL_ON], set_values={"kafka.sasl.mechanism": mechanism})
    assert only(manifests, "ScaledObject")["spec"]["triggers"][0]["metadata"]["sasl"] == keda_name


def test_service_monitor_scrapes_the_services_metrics_port(all_on_manifests):
    monitor = only(all_on_manifests, "ServiceMonitor")
    service = only(all_on_manifests, "Service")
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    assert monitor["metadata"]["labels"]["release"] == "prometheus"
    (endpoint,) = monitor["spec"]["endpoints"]
    assert endpoint["port"] in {p["name"] for p in service["spec"]["ports"]}
    assert endpoint["path"] == "/metrics"


def test_replay_job_runs_replay_with_the_processors_config(all_on_manifests):
    job = only(all_on_manifests, "Job")
    deployment = only(all_on_manifests, "Deployment")
    job_spec, pod_spec = job["spec"]["template"]["spec"], deployment["spec"]["template"]["spec"]
    (container,) = job_spec["containers"]
    assert container["command"] == ["crawl-decoder"]
    assert container["args"] == ["replay", "--dry-run", "--host", "*.example.jp"]
    assert job_spec["restartPolicy"] == "Never"
    assert job_spec["volumes"] == pod_spec["volumes"]
    assert container["volumeMounts"] == pod_spec["containers"][0]["volumeMounts"]
    assert container["env"] == pod_spec["containers"][0]["env"]
    # The Job's pods must not be counted as processor pods by the Service or PDB.
    selector = only(all_on_manifests, "Service")["spec"]["selector"]
    assert not selector.items() <= job["spec"]["template"]["metadata"]["labels"].items()


def test_missing_go_is_a_clear_failure_not_a_skip(tmp_path, monkeypatch):
    from ensure_helm import HelmUnavailable, build_helm, find_go

    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_go(fallbacks=()) is None
    with pytest.raises(HelmUnavailable, match="no Go toolchain"):
        build_helm(tmp_path / "bin", go=find_go(fallbacks=()))
