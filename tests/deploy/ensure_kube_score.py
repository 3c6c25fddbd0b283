"""Find ``kube-score`` (a static checker of Kubernetes objects) for the chart tests, building it with Go if needed.

kube-score is not packaged on the project's machines; it is built from its Go
module (``go install github.com/zegl/kube-score/cmd/kube-score@v1.20.0``, about
40 seconds on two cores the first time; later runs reuse the cached binary in
~/.cache/crawl-decoder/bin). The version is linked in (``main.version``), so
``kube-score version`` says which one a cached binary is. One on PATH is not
taken: the checks, and so the chart's waivers, move between releases.

Usable on its own: ``python tests/deploy/ensure_kube_score.py`` prints the path.
"""

from __future__ import annotations

import sys
from pathlib import Path

from go_tool import CACHE_BIN, GoTool, ToolUnavailable

KUBE_SCORE_VERSION = "v1.20.0"

KUBE_SCORE = GoTool(
    name="kube-score",
    package="github.com/zegl/kube-score/cmd/kube-score",
    version=KUBE_SCORE_VERSION,
    ldflags=f"-s -w -X main.version={KUBE_SCORE_VERSION.removeprefix('v')}",
    version_args=("version",),
    reports_version=lambda out: f"version: {KUBE_SCORE_VERSION.removeprefix('v')}," in out,
)


def find_or_build_kube_score() -> Path:
    return KUBE_SCORE.find_or_build(CACHE_BIN)


if __name__ == "__main__":
    try:
        print(find_or_build_kube_score())
    except ToolUnavailable as exc:
        print(f"ensure_kube_score: {exc}", file=sys.stderr)
        sys.exit(1)
