"""Find ``promtool`` (Prometheus's rule checker) for the monitoring tests, building it with Go if needed.

promtool is not packaged on the project's machines; it is built from the
Prometheus Go module (``go install``, about six minutes on two cores the first
time; later runs reuse the cached binary in ~/.cache/crawl-decoder/bin). The
Prometheus 3.x releases v3.N.M are published as Go module versions v0.N.M, so
``PROMETHEUS_MODULE_VERSION`` v0.316.0 is Prometheus 3.16.0. The version is
linked in, so ``promtool --version`` says which one a cached binary is.

Usable on its own: ``python tests/deploy/ensure_promtool.py`` prints the path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ensure_helm import CACHE_BIN, find_go

PROMETHEUS_MODULE = "github.com/prometheus/prometheus"
PROMETHEUS_MODULE_VERSION = "v0.316.0"
#: What ``promtool --version`` reports for that build (the -X below).
REPORTED_VERSION = PROMETHEUS_MODULE_VERSION.removeprefix("v")


class PromtoolUnavailable(RuntimeError):
    """Neither a cached promtool of the pinned version nor a Go toolchain to build one."""


def build_promtool(bin_dir: Path, go: str | None) -> Path:
    """``go install`` promtool into *bin_dir*; raise PromtoolUnavailable if *go* is None or the build fails."""
    if go is None:
        raise PromtoolUnavailable(
            f"promtool is not in the cache ({bin_dir / 'promtool'}) and there is no Go toolchain to build it with "
            f"`go install {PROMETHEUS_MODULE}/cmd/promtool@{PROMETHEUS_MODULE_VERSION}`: install Go (>= 1.24)"
        )
    bin_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, GOBIN=str(bin_dir), CGO_ENABLED="0")
    ldflags = f"-s -w -X github.com/prometheus/common/version.Version={REPORTED_VERSION}"
    result = subprocess.run(
        [go, "install", "-trimpath", f"-ldflags={ldflags}", f"{PROMETHEUS_MODULE}/cmd/promtool@{PROMETHEUS_MODULE_VERSION}"],
        env=env, capture_output=True, text=True, timeout=850,  # under pytest-timeout's 900 s
    )
    if result.returncode != 0:
        raise PromtoolUnavailable(f"go install of promtool {PROMETHEUS_MODULE_VERSION} failed:\n{result.stderr[-4000:]}")
    return bin_dir / "promtool"


def _reports_version(promtool: Path) -> bool:
    result = subprocess.run([str(promtool), "--version"], capture_output=True, text=True)
    return result.returncode == 0 and f"version {REPORTED_VERSION} " in result.stdout


def find_or_build_promtool() -> Path:
    """The cached build of the pinned version, else build it.

    One on PATH is not taken: rule syntax moves between Prometheus releases, and
    the tests should check against the one pinned here.
    """
    cached = CACHE_BIN / "promtool"
    if cached.exists() and _reports_version(cached):
        return cached
    return build_promtool(CACHE_BIN, find_go())


if __name__ == "__main__":
    try:
        print(find_or_build_promtool())
    except PromtoolUnavailable as exc:
        print(f"ensure_promtool: {exc}", file=sys.stderr)
        sys.exit(1)
