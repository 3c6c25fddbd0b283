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

from deploy_support import CHART_DIR, DOCKERFILE, RELEASE, RENDER_KUBE_VERSION, REQUIRED_VALUES, VALUES_ALL_ON
from dockerfile import Dockerfile, parse_file
from ensure_helm import HelmUnavailable, find_or_build_helm


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
