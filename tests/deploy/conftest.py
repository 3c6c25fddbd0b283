"""Fixtures of the deployment tests: helm, rendered manifests, the Dockerfile.

``helm`` is found on PATH or in ~/.cache/crawl-decoder/bin, else built with
``go install`` (see ensure_helm.py). Without Go the tests fail, naming what is
missing: a deployment left unchecked must not pass as green.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from dockerfile import Dockerfile, parse_file
from ensure_helm import HelmUnavailable, find_or_build_helm

REPO_ROOT = Path(__file__).resolve().parents[2]
CHART_DIR = REPO_ROOT / "helm" / "crawl-decoder"
DEPLOY_TESTS = Path(__file__).resolve().parent
VALUES_ALL_ON = DEPLOY_TESTS / "values-all-on.yaml"
DOCKERFILE = REPO_ROOT / "Dockerfile"

#: The one value the chart cannot default: the cluster to connect to.
REQUIRED_VALUES = {"kafka.bootstrapServers": "kafka:9092"}
#: Kubernetes version the chart is rendered for; the oldest one validated below.
RENDER_KUBE_VERSION = "1.30.0"
#: Kubernetes versions whose OpenAPI schemas (from kubernetes-validate) the
#: rendered manifests must satisfy: the oldest supported and a recent one.
VALIDATE_KUBE_VERSIONS = ("1.30.0", "1.35.0")

RELEASE = "cd"


@pytest.fixture(scope="session")
def helm() -> Path:
    try:
        return find_or_build_helm()
    except HelmUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)


def _set_args(values: Mapping[str, Any]) -> list[str]:
    args: list[str] = []
    for key, value in values.items():
        args += ["--set-json", f"{key}={json.dumps(value)}"]
    return args


@pytest.fixture(scope="session")
def run_helm(helm: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``run_helm("template", values_files=[...], set_values={...})``: the finished process."""

    def run(
        command: str,
        *,
        values_files: Iterable[Path] = (),
        set_values: Mapping[str, Any] = REQUIRED_VALUES,
        extra: Iterable[str] = (),
        chart: Path = CHART_DIR,
    ) -> subprocess.CompletedProcess[str]:
        args = [str(helm), command]
        if command == "template":
            args.append(RELEASE)
        args += [str(chart), "--kube-version", RENDER_KUBE_VERSION]
        if command == "template":
            args += ["--namespace", "crawl"]
        for path in values_files:
            args += ["--values", str(path)]
        args += _set_args(set_values)
        args += list(extra)
        return subprocess.run(args, capture_output=True, text=True, timeout=120)

    return run


@pytest.fixture(scope="session")
def render(run_helm) -> Callable[..., list[dict[str, Any]]]:
    """``render(values_files=..., set_values=...)``: the manifests ``helm template`` produces."""

    def template(**kwargs: Any) -> list[dict[str, Any]]:
        result = run_helm("template", **kwargs)
        assert result.returncode == 0, f"helm template failed:\n{result.stderr}"
        return [doc for doc in yaml.safe_load_all(result.stdout) if doc]

    return template


@pytest.fixture(scope="session")
def default_manifests(render) -> list[dict[str, Any]]:
    """The chart with its own values.yaml plus the required bootstrap servers."""
    return render()


@pytest.fixture(scope="session")
def all_on_manifests(render) -> list[dict[str, Any]]:
    """The chart with every optional part switched on (values-all-on.yaml)."""
    return render(values_files=[VALUES_ALL_ON], set_values={})


@pytest.fixture(scope="session", params=["default", "all-on"])
def manifests(request, default_manifests, all_on_manifests) -> list[dict[str, Any]]:
    return default_manifests if request.param == "default" else all_on_manifests


@pytest.fixture(scope="session")
def dockerfile() -> Dockerfile:
    return parse_file(DOCKERFILE)


def only(manifests: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    """The single manifest of *kind*; fails if there are none or several."""
    found = [m for m in manifests if m["kind"] == kind]
    assert len(found) == 1, f"expected one {kind}, rendered {len(found)}"
    return found[0]


def of_kind(manifests: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m for m in manifests if m["kind"] == kind]


def pod_specs(manifests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Pod specs of every workload (Deployment, Job) in *manifests*."""
    return [m["spec"]["template"]["spec"] for m in manifests if m["kind"] in ("Deployment", "Job", "StatefulSet")]


def env_of(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in container.get("env", [])}
