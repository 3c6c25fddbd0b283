"""Paths, constants and manifest helpers shared by the deployment tests.

Test modules import from here, not from conftest: with several conftest.py
files in the suite, ``import conftest`` may find another directory's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
