"""Find a ``helm`` binary for the chart tests, building it with Go if needed.

Helm is not packaged on the project's machines, so the first run builds it from
its Go module (``go install``, about two to three minutes on two cores; later
runs reuse the cached binary). The link flags are the ones Helm's own Makefile
sets, so ``helm version`` reports the release and the default Kubernetes
version of ``helm template``/``lint`` is the one the Helm release was built
against, not the v1.20 fallback of a plain ``go install``. The building and
caching is go_tool.py's.

Usable on its own: ``python tests/deploy/ensure_helm.py`` prints the path.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from go_tool import CACHE_BIN, GO_FALLBACKS, GoTool, ToolUnavailable, find_go

__all__ = ["CACHE_BIN", "GO_FALLBACKS", "HELM", "HelmUnavailable", "build_helm", "find_go", "find_or_build_helm"]

#: The Helm release the tests use; its Kubernetes modules are v0.36.
HELM_VERSION = "v3.21.4"
HELM_K8S_MAJOR, HELM_K8S_MINOR = "1", "36"
HELM_MODULE = "helm.sh/helm/v3"


class HelmUnavailable(ToolUnavailable):
    """Neither a helm binary nor a Go toolchain to build one."""


def _ldflags() -> str:
    flags = [
        "-s", "-w",
        f"-X {HELM_MODULE}/internal/version.version={HELM_VERSION}",
        f"-X {HELM_MODULE}/pkg/lint/rules.k8sVersionMajor={HELM_K8S_MAJOR}",
        f"-X {HELM_MODULE}/pkg/lint/rules.k8sVersionMinor={HELM_K8S_MINOR}",
        f"-X {HELM_MODULE}/pkg/chartutil.k8sVersionMajor={HELM_K8S_MAJOR}",
        f"-X {HELM_MODULE}/pkg/chartutil.k8sVersionMinor={HELM_K8S_MINOR}",
    ]
    return " ".join(flags)


HELM = GoTool(
    name="helm",
    package=f"{HELM_MODULE}/cmd/helm",
    version=HELM_VERSION,
    ldflags=_ldflags(),
    version_args=("version", "--template", "{{.Version}}"),
    reports_version=lambda out: out.strip() == HELM_VERSION,
    error=HelmUnavailable,
)


def build_helm(bin_dir: Path, go: str | None) -> Path:
    """``go install`` Helm into *bin_dir* with the *go* binary; raise HelmUnavailable if it is None."""
    return HELM.build(bin_dir, go)


def find_or_build_helm() -> Path:
    """A helm of any v3 release on PATH, else the cached build, else build it.

    A cached binary that does not report HELM_VERSION (an older build, or one
    made without the link flags) is rebuilt.
    """
    on_path = shutil.which("helm")
    if on_path:
        return Path(on_path)
    return HELM.find_or_build(CACHE_BIN)


if __name__ == "__main__":
    try:
        print(find_or_build_helm())
    except HelmUnavailable as exc:
        print(f"ensure_helm: {exc}", file=sys.stderr)
        sys.exit(1)
