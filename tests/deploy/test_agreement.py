"""The image, the chart and the processor agree on ports, paths, names and times.

Each side is read from its source of truth: ``consumer.settings`` (and the
Kafka layer's variable names), the parsed Dockerfile, and the manifests
``helm template`` renders. The rendered files are fed to the processor's own
loaders, so a key the chart writes and the processor does not know fails here,
not at a pod's start.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import PurePosixPath

import pytest
import yaml

from consumer import settings as settings_module
from consumer.kafka.config import ENV_VARS as KAFKA_ENV_VARS
from consumer.settings import DEFAULT_CONFIG_PATH, ENV_PREFIX, Settings

from deploy_support import CHART_DIR, REPO_ROOT, REQUIRED_VALUES, env_of, of_kind, only

#: Settings every replica gets from elsewhere than the config file.
FROM_ENVIRONMENT = {
    "transactional_id", "group_instance_id", "schemas_dir", "overrides_path",
    # From a Secret (schemaRegistry.auth), never in a ConfigMap.
    "schema_registry_username", "schema_registry_password",
}


#: Where the chart's default differs from the processor's, on purpose. /alarms lists crawled host names: in a
#: cluster, where any pod can reach a pod's port unless a NetworkPolicy says otherwise, the chart serves it on
#: the pod's loopback (kubectl port-forward); a process run by hand keeps it with /metrics on its own host.
CHART_CHOICES = {"alarms": "separate"}


def _defaults() -> Settings:
    # From the pod name (the default Deployment has no static membership: no group_instance_id).
    return Settings(transactional_id="agreement-test")


def _container(manifests):
    return next(m for m in manifests if m["kind"] in ("Deployment", "StatefulSet"))["spec"]["template"]["spec"]["containers"][0]


def _configmap(manifests, suffix):
    return next(m for m in of_kind(manifests, "ConfigMap") if m["metadata"]["name"].endswith(suffix))


def _mounted_files(manifests) -> dict[str, tuple[str, str]]:
    """Path inside the container -> (ConfigMap name, key), through the projected config volume."""
    spec = only(manifests, "Deployment")["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in spec["volumes"]}
    files: dict[str, tuple[str, str]] = {}
    for mount in spec["containers"][0]["volumeMounts"]:
        assert "subPath" not in mount, "subPath mounts never see ConfigMap updates"
        volume = volumes[mount["name"]]
        sources = volume.get("projected", {}).get("sources", [])
        if "configMap" in volume:
            sources = [{"configMap": volume["configMap"]}]
        for source in sources:
            for item in source["configMap"].get("items", []):  # none: an extraVolumes ConfigMap, every key
                path = str(PurePosixPath(mount["mountPath"]) / item["path"])
                files[path] = (source["configMap"]["name"], item["key"])
    return files


# -- ports and probes ------------------------------------------------------------------------------


def test_http_port_agrees_across_settings_image_and_chart(default_manifests, dockerfile):
    port = _defaults().http_port
    assert dockerfile.final.last("EXPOSE").args.split() == [str(port)]
    (container_port,) = _container(default_manifests)["ports"]
    assert container_port == {"name": "http", "containerPort": port, "protocol": "TCP"}
    assert only(default_manifests, "Service")["spec"]["ports"][0]["port"] == port


@pytest.mark.parametrize(("probe", "path"), [
    ("livenessProbe", "/healthz"), ("readinessProbe", "/readyz"), ("startupProbe", "/healthz"),
])
def test_probes_hit_the_processors_endpoints_on_its_port(manifests, probe, path):
    container = _container(manifests)
    get = container[probe]["httpGet"]
    assert get["path"] == path
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports[get["port"]] == yaml_settings(manifests)["http_port"]


def test_changing_the_port_moves_every_reference(render):
    manifests = render(set_values={"kafka.bootstrapServers": "kafka:9092", "settings.httpPort": 9300})
    container = _container(manifests)
    assert container["ports"][0]["containerPort"] == 9300
    assert yaml_settings(manifests)["http_port"] == 9300


# -- config file and overrides file ------------------------------------------------------------------


def yaml_settings(manifests) -> dict:
    return yaml.safe_load(_configmap(manifests, "-settings")["data"]["config.yaml"])


def test_config_file_is_mounted_where_the_processor_looks(manifests):
    env = env_of(_container(manifests))
    config_path = env["CRAWL_DECODER_CONFIG"]["value"]
    assert settings_module.CONFIG_ENV == "CRAWL_DECODER_CONFIG"
    assert config_path == DEFAULT_CONFIG_PATH
    name, key = _mounted_files(manifests)[config_path]
    assert name.endswith("-settings") and key == "config.yaml"


def test_overrides_file_is_mounted_as_a_directory_where_the_processor_looks(manifests):
    overrides_path = env_of(_container(manifests))[ENV_PREFIX + "OVERRIDES_PATH"]["value"]
    assert overrides_path == _defaults().overrides_path
    name, key = _mounted_files(manifests)[overrides_path]
    assert name.endswith("-overrides") and key == "overrides.yaml"


def test_rendered_config_loads_with_the_processors_loader(manifests, tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(_configmap(manifests, "-settings")["data"]["config.yaml"])
    loaded = Settings.load(path, environ={"CRAWL_DECODER_TRANSACTIONAL_ID": "agreement-test"})
    assert loaded.http_port == yaml_settings(manifests)["http_port"]


def test_chart_defaults_are_the_processors_defaults(default_manifests, tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(_configmap(default_manifests, "-settings")["data"]["config.yaml"])
    environ = {
        e["name"]: e.get("value", "agreement-test") for e in _container(default_manifests)["env"]
        if e["name"].startswith(ENV_PREFIX)
    }
    loaded = Settings.load(path, environ=environ)
    written = set(yaml_settings(default_manifests))
    assert written == {f.name for f in dataclasses.fields(Settings)} - FROM_ENVIRONMENT
    assert loaded == dataclasses.replace(_defaults(), **CHART_CHOICES)


def test_static_membership_follows_the_workload_kind_unless_set(default_manifests, render):
    def pod_name_fields(manifests):
        env = env_of(_container(manifests))
        return {
            name: env[name]["valueFrom"]["fieldRef"]["fieldPath"]
            for name in (ENV_PREFIX + "TRANSACTIONAL_ID", ENV_PREFIX + "GROUP_INSTANCE_ID")
            if name in env
        }

    static = {ENV_PREFIX + "TRANSACTIONAL_ID": "metadata.name", ENV_PREFIX + "GROUP_INSTANCE_ID": "metadata.name"}
    dynamic = {ENV_PREFIX + "TRANSACTIONAL_ID": "metadata.name"}
    # A Deployment's pod names change on every rollout: a static member would hold its partitions for the
    # session timeout each time (docs/chart.md). A StatefulSet's survive: its pods rejoin as themselves.
    assert pod_name_fields(default_manifests) == dynamic
    statefulset = render(set_values={**REQUIRED_VALUES, "workload.kind": "StatefulSet"})
    assert pod_name_fields(statefulset) == static
    for kind, value, expected in (("Deployment", True, static), ("StatefulSet", False, dynamic)):
        chosen = render(set_values={**REQUIRED_VALUES, "workload.kind": kind, "kafka.staticMembership": value})
        assert pod_name_fields(chosen) == expected, (kind, value)


def test_rendered_overrides_load_with_the_processors_loader(manifests):
    from consumer.overrides.loader import parse_overrides

    text = _configmap(manifests, "-overrides")["data"]["overrides.yaml"]
    config = parse_overrides(text, "overrides ConfigMap")
    hosts = sorted(o.host for o in config.overrides)
    assert hosts in ([], ["*.example.jp", "news.example.com"])


# -- environment -------------------------------------------------------------------------------------


def test_env_names_are_ones_the_processor_reads(manifests):
    fields = {f.name for f in dataclasses.fields(Settings)}
    for name in env_of(_container(manifests)):
        if name.startswith("KAFKA_"):
            assert name in KAFKA_ENV_VARS, f"{name} is not a Kafka variable consumer.kafka reads"
        elif name != settings_module.CONFIG_ENV:
            assert name.startswith(ENV_PREFIX), name
            assert name[len(ENV_PREFIX):].lower() in fields, f"{name} names no setting"


def test_the_image_reads_the_schemas_the_wheel_carries(dockerfile):
    """No CRAWL_DECODER_SCHEMAS_DIR: the installed package finds its own schemas (consumer.packaged)."""
    assert ENV_PREFIX + "SCHEMAS_DIR" not in dockerfile.final.env()
    builder_copies = [i.flags_and_args()[1] for i in dockerfile.stage("builder").all("COPY")]
    assert ["schemas/", "./schemas/"] in builder_copies, "the wheel is built with the schemas beside setup.py"
    assert sorted(p.name for p in (REPO_ROOT / "schemas").glob("*.avsc")), "no Avro schemas to ship"


# -- shutdown ------------------------------------------------------------------------------------------


def test_grace_period_exceeds_the_processors_shutdown_bound(manifests):
    spec = only(manifests, "Deployment")["spec"]["template"]["spec"]
    bound = yaml_settings(manifests)["shutdown_timeout_s"]
    assert spec["terminationGracePeriodSeconds"] > bound
    # Room for the final commit and leaving the group after the bound.
    assert spec["terminationGracePeriodSeconds"] - bound >= 10


# -- the command --------------------------------------------------------------------------------------------


def test_image_and_pod_run_crawl_decoder_run(dockerfile, default_manifests):
    command = dockerfile.final.last("ENTRYPOINT").exec_form() + dockerfile.final.last("CMD").exec_form()
    container = _container(default_manifests)
    assert container["command"] + container["args"] == command == ["crawl-decoder", "run"]
    scripts = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["crawl-decoder"] == "consumer.cli:main"


def test_every_subcommand_the_chart_uses_exists():
    """``run`` (the image), ``replay`` (the Job) and what NOTES.txt tells operators to type."""
    from consumer.cli import build_parser

    text = (CHART_DIR / "templates" / "NOTES.txt").read_text()
    used = {("run",), ("replay",)}
    used |= {tuple(m.split()) for m in re.findall(r"crawl-decoder ((?:[a-z]+)(?: [a-z]+)?)", text)}
    parser = build_parser()
    for words in sorted(used):
        # A second word only counts when it is a sub-sub-command (e.g. "overrides report").
        try:
            parser.parse_args([*words, "--help"])
        except SystemExit as exit_:
            assert exit_.code == 0, f"`crawl-decoder {' '.join(words)}` is not a command"


# -- the processor's HTTP server answers what the chart asks ------------------------------------------------


@pytest.fixture
def health_server():
    from consumer.observability.health import HealthServer
    from consumer.observability.metrics import Metrics

    server = HealthServer(0, Metrics(), is_alive=lambda: True, is_ready=lambda: True, host="127.0.0.1")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _get(server, path: str) -> tuple[int, str]:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=10) as response:
            return response.status, response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        return exc.code, ""


def test_processors_server_answers_every_path_the_chart_probes_and_scrapes(all_on_manifests, health_server):
    container = _container(all_on_manifests)
    paths = {container[probe]["httpGet"]["path"] for probe in ("livenessProbe", "readinessProbe", "startupProbe")}
    paths |= {e["path"] for e in only(all_on_manifests, "ServiceMonitor")["spec"]["endpoints"]}
    assert paths == {"/healthz", "/readyz", "/metrics"}
    for path in sorted(paths):
        status, _ = _get(health_server, path)
        assert status == 200, f"{path} answered {status}"
    assert _get(health_server, "/no-such-path")[0] == 404
