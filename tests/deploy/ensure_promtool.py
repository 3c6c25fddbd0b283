"""Find ``promtool`` (Prometheus's rule checker) for the monitoring tests, building it with Go if needed.

promtool is not packaged on the project's machines; it is built from the
Prometheus Go module (``go install``, about six minutes on two cores the first
time; later runs reuse the cached binary in ~/.cache/crawl-decoder/bin). The
Prometheus 3.x releases v3.N.M are published as Go module versions v0.N.M, so
``PROMETHEUS_MODULE_VERSION`` v0.316.0 is Prometheus 3.16.0. The version is
linked in, so ``promtool --version`` says which one a cached binary is. The
building and caching is go_tool.py's.

Usable on its own: ``python tests/deploy/ensure_promtool.py`` prints the path.
"""

from __future__ import annotations

import sys
from pathlib import Path

from go_tool import CACHE_BIN, GoTool, ToolUnavailable

PROMETHEUS_MODULE = "github.com/prometheus/prometheus"
PROMETHEUS_MODULE_VERSION = "v0.316.0"
#: What ``promtool --version`` reports for that build (the -X below).
REPORTED_VERSION = PROMETHEUS_MODULE_VERSION.removeprefix("v")


class PromtoolUnavailable(ToolUnavailable):
    """Neither a cached promtool of the pinned version nor a Go toolchain to build one."""


PROMTOOL = GoTool(
    name="promtool",
    package=f"{PROMETHEUS_MODULE}/cmd/promtool",
    version=PROMETHEUS_MODULE_VERSION,
    ldflags=f"-s -w -X github.com/prometheus/common/version.Version={REPORTED_VERSION}",
    version_args=("--version",),
    reports_version=lambda out: f"version {REPORTED_VERSION} " in out,
    error=PromtoolUnavailable,
)


def build_promtool(bin_dir: Path, go: str | None) -> Path:
    """``go install`` promtool into *bin_dir*; raise PromtoolUnavailable if *go* is None or the build fails."""
    return PROMTOOL.build(bin_dir, go)


def find_or_build_promtool() -> Path:
    """The cached build of the pinned version, else build it.

    One on PATH is not taken: rule syntax moves between Prometheus releases, and
    the tests should check against the one pinned here.
    """
    return PROMTOOL.find_or_build(CACHE_BIN)


if __name__ == "__main__":
    try:
        print(find_or_build_promtool())
    except PromtoolUnavailable as exc:
        print(f"ensure_promtool: {exc}", file=sys.stderr)
        sys.exit(1)
