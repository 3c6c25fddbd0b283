"""The chart's Kafka client options (issue 29, "Any Kafka"): kafka.config reaches the processor's kafka_config,
and SASL OAUTHBEARER/OIDC takes its client id and secret from a Secret."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from consumer.exceptions import ConfigError
from consumer.kafka import KafkaConnection
from consumer.settings import Settings

from deploy_support import env_of, of_kind, only

OIDC = {
    "bootstrapServers": "kafka:9093",
    "securityProtocol": "SASL_SSL",
    "sasl": {
        "mechanism": "OAUTHBEARER",
        "existingSecret": "kafka-oidc",
        "oauthbearer": {"tokenEndpointUrl": "https://idp.example/token", "scope": "kafka"},
    },
}


def _values(tmp_path: Path, kafka: dict) -> list[Path]:
    path = tmp_path / "values.yaml"
    path.write_text(yaml.safe_dump({"kafka": kafka}))
    return [path]


def _settings_file(manifests, tmp_path: Path) -> Path:
    configmap = next(m for m in of_kind(manifests, "ConfigMap") if m["metadata"]["name"].endswith("-settings"))
    path = tmp_path / "config.yaml"
    path.write_text(configmap["data"]["config.yaml"])
    return path


def test_kafka_config_becomes_the_processors_kafka_config_as_strings(render, tmp_path):
    config = {"session.timeout.ms": 45000, "socket.keepalive.enable": True, "client.rack": "eu-1a"}
    manifests = render(values_files=_values(tmp_path, {"bootstrapServers": "kafka:9092", "config": config}),
                       set_values={})
    settings = Settings.load(_settings_file(manifests, tmp_path), environ={})
    assert dict(settings.kafka_config) == {
        "session.timeout.ms": "45000", "socket.keepalive.enable": "true", "client.rack": "eu-1a",
    }


def test_an_engine_owned_property_in_kafka_config_is_refused_when_the_processor_starts(render, tmp_path):
    manifests = render(
        values_files=_values(tmp_path, {"bootstrapServers": "kafka:9092", "config": {"enable.auto.commit": "true"}}),
        set_values={},
    )
    settings = Settings.load(_settings_file(manifests, tmp_path), environ={})
    with pytest.raises(ConfigError, match=re.escape("enable.auto.commit, which the engine owns")):
        KafkaConnection.from_env({"KAFKA_BOOTSTRAP_SERVERS": "kafka:9092"}, extra=settings.kafka_config)


def test_no_kafka_config_renders_none(default_manifests, tmp_path):
    assert dict(Settings.load(_settings_file(default_manifests, tmp_path), environ={}).kafka_config) == {}


def test_oauthbearer_takes_the_oidc_client_from_the_secret_and_no_password(render, tmp_path):
    manifests = render(values_files=_values(tmp_path, OIDC), set_values={})
    env = env_of(only(manifests, "Deployment")["spec"]["template"]["spec"]["containers"][0])
    assert env["KAFKA_SASL_MECHANISM"]["value"] == "OAUTHBEARER"
    assert env["KAFKA_SASL_OAUTHBEARER_METHOD"]["value"] == "oidc"
    assert env["KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL"]["value"] == "https://idp.example/token"
    assert env["KAFKA_SASL_OAUTHBEARER_SCOPE"]["value"] == "kafka"
    for name, key in (("KAFKA_SASL_OAUTHBEARER_CLIENT_ID", "clientId"),
                      ("KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET", "clientSecret")):
        assert env[name]["valueFrom"]["secretKeyRef"] == {"name": "kafka-oidc", "key": key}
    assert "KAFKA_SASL_USERNAME" not in env and "KAFKA_SASL_PASSWORD" not in env
    # What the pod would be given builds a valid connection (secrets stand-ins for the Secret's values).
    environ = {name: item.get("value", "from-secret") for name, item in env.items() if name.startswith("KAFKA_")}
    assert KafkaConnection.from_env(environ).sasl_oauthbearer_method == "oidc"


def test_oauthbearer_needs_a_token_endpoint(run_helm, tmp_path):
    values = {**OIDC, "sasl": {**OIDC["sasl"], "oauthbearer": {"tokenEndpointUrl": ""}}}
    result = run_helm("template", values_files=_values(tmp_path, values), set_values={})
    assert result.returncode != 0 and "tokenEndpointUrl" in result.stderr
