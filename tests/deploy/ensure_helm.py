"""Find a ``helm`` binary for the chart tests, building it with Go if needed.

Helm is not packaged on the project's machines, so the first run builds it from
its Go module (``go install``, about two to three minutes on two cores; later
runs reuse the cached binary). The link flags are the ones Helm's own Makefile
sets, so ``helm version`` reports the release and the default Kubernetes
version of ``helm template``/``lint`` is the one the Helm release was built
against, not the v1.20 fallback of a plain ``go install``.

Usable on its own: ``python tests/deploy/ensure_helm.py`` prints the path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

#: The Helm release the tests use; its Kubernetes modules are v0.36.
HELM_VERSION = "v3.21.4"
HELM_K8S_MAJOR, HELM_K8S_MINOR = "1", "36"
HELM_MODULE = "helm.sh/helm/v3"

CACHE_BIN = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "crawl-decoder" / "bin"


class HelmUnavailable(RuntimeError):
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


#: Where Go's official archive installs it, for shells whose PATH lacks it.
GO_FALLBACKS = (Path("/usr/local/go/bin/go"),)


def find_go(fallbacks: tuple[Path, ...] = GO_FALLBACKS) -> str | None:
    return shutil.which("go") or next((str(p) for p in fallbacks if p.exists()), None)


def build_helm(bin_dir: Path, go: str | None) -> Path:
    """``go install`` Helm into *bin_dir* with the *go* binary; raise HelmUnavailable if it is None."""
    if go is None:
        raise HelmUnavailable(
            "helm is not on PATH nor in the cache "
            f"({bin_dir / 'helm'}), and there is no Go toolchain to build it with "
            f"`go install {HELM_MODULE}/cmd/helm@{HELM_VERSION}`: install Go (>= 1.24) or helm"
        )
    bin_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, GOBIN=str(bin_dir), CGO_ENABLED="0")
    result = subprocess.run(
        [go, "install", "-trimpath", f"-ldflags={_ldflags()}", f"{HELM_MODULE}/cmd/helm@{HELM_VERSION}"],
        env=env, capture_output=True, text=True, timeout=850,  # under pytest-timeout's 900 s
    )
    if result.returncode != 0:
        raise HelmUnavailable(f"go install of helm {HELM_VERSION} failed:\n{result.stderr[-4000:]}")
    return bin_dir / "helm"


def _reports_version(helm: Path) -> bool:
    result = subprocess.run([str(helm), "version", "--template", "{{.Version}}"], capture_output=True, text=True)
    return result.returncode == 0 and result.stdout.strip() == HELM_VERSION


def find_or_build_helm() -> Path:
    """A helm of any v3 release on PATH, else the cached build, else build it.

    A cached binary that does not report HELM_VERSION (an older build, or one
    made without the link flags) is rebuilt.
    """
    on_path = shutil.which("helm")
    if on_path:
        return Path(on_path)
    cached = CACHE_BIN / "helm"
    if cached.exists() and _reports_version(cached):
        return cached
    return build_helm(CACHE_BIN, find_go())


if __name__ == "__main__":
    try:
        print(find_or_build_helm())
    except HelmUnavailable as exc:
        print(f"ensure_helm: {exc}", file=sys.stderr)
        sys.exit(1)
