"""Build a pinned Go command-line tool once with ``go install`` and cache it.

helm, promtool and kube-score are not packaged on the project's machines; each
is built from its Go module (``go install MODULE/cmd/NAME@VERSION``) into
~/.cache/crawl-decoder/bin and reused while it reports the pinned version.
The check and the build hold a file lock per tool, so pytest-xdist workers that
ask at the same time build it once: the first builds, the others wait and reuse.
ensure_helm.py, ensure_promtool.py and ensure_kube_score.py say which module,
version and link flags; this module does the finding, building and checking.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CACHE_BIN = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "crawl-decoder" / "bin"

#: Where Go's official archive installs it, for shells whose PATH lacks it.
GO_FALLBACKS = (Path("/usr/local/go/bin/go"),)

#: Under pytest-timeout's 900 s.
BUILD_TIMEOUT_S = 850


class ToolUnavailable(RuntimeError):
    """Neither a cached build of the pinned version nor a Go toolchain (or a working build) to make one."""


def find_go(fallbacks: tuple[Path, ...] = GO_FALLBACKS) -> str | None:
    return shutil.which("go") or next((str(p) for p in fallbacks if p.exists()), None)


@dataclass(frozen=True)
class GoTool:
    """A command built from ``package@version`` with *ldflags*, named *name* in the cache."""

    name: str
    package: str  # e.g. helm.sh/helm/v3/cmd/helm
    version: str  # a Go module version, e.g. v3.21.4
    ldflags: str
    #: The tool's own version command, and a test of its output.
    version_args: tuple[str, ...]
    reports_version: Callable[[str], bool]
    #: Raised instead of ToolUnavailable, so callers keep their own exception types.
    error: type[Exception] = ToolUnavailable

    @property
    def install_target(self) -> str:
        return f"{self.package}@{self.version}"

    def build(self, bin_dir: Path, go: str | None) -> Path:
        """``go install`` into *bin_dir* with the *go* binary; raise ``self.error`` if it is None or fails."""
        if go is None:
            raise self.error(
                f"{self.name} is not in the cache ({bin_dir / self.name}) and there is no Go toolchain to build it"
                f" with `go install {self.install_target}`: install Go (>= 1.24)"
            )
        bin_dir.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, GOBIN=str(bin_dir), CGO_ENABLED="0")
        result = subprocess.run(
            [go, "install", "-trimpath", f"-ldflags={self.ldflags}", self.install_target],
            env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S,
        )
        if result.returncode != 0:
            raise self.error(f"go install of {self.install_target} failed:\n{result.stderr[-4000:]}")
        return bin_dir / self.name

    def is_pinned_build(self, path: Path) -> bool:
        result = subprocess.run([str(path), *self.version_args], capture_output=True, text=True)
        return result.returncode == 0 and self.reports_version(result.stdout)

    def find_or_build(self, bin_dir: Path = CACHE_BIN) -> Path:
        """The cached build of the pinned version, else build it (a stale cached binary is rebuilt).

        Under an exclusive lock on ``bin_dir/.NAME.lock``: a second caller (another xdist worker, another
        checkout on the machine) waits for the first one's build and then finds it cached."""
        bin_dir.mkdir(parents=True, exist_ok=True)
        with open(bin_dir / f".{self.name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            cached = bin_dir / self.name
            if cached.exists() and self.is_pinned_build(cached):
                return cached
            return self.build(bin_dir, find_go())
