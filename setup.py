"""Puts the top-level ``schemas/`` and ``config/overrides.yaml`` into the package at build time.

``schemas/`` stays the one source of truth for the Avro schemas and ``config/`` for the example
overrides (the repository's layout is fixed), but a wheel carries only packages: without this step
an installed crawl-decoder could not find its RawResponse schema, nor the demo its overrides.
``build_py`` copies them to ``consumer/schemas/`` and ``consumer/config/`` in the build, where
``consumer.packaged`` finds them with ``importlib.resources``. An sdist carries both (MANIFEST.in),
so a wheel built from it gets them the same way. Everything else about the build is in pyproject.toml.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent
#: What is copied: (top-level directory, glob) -> the same directory inside the package.
COPIED = (("schemas", "*.avsc"), ("config", "overrides.yaml"))


class build_py_with_data(build_py):  # noqa: N801 (setuptools' command naming)
    def run(self) -> None:
        super().run()
        for source, target in self._copies():
            self.mkpath(str(target.parent))
            self.copy_file(str(source), str(target))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), *(str(target) for _, target in self._copies())]

    def get_output_mapping(self) -> dict[str, str]:
        # Editable installs ask for this mapping; a checkout finds the top-level originals itself.
        return {**super().get_output_mapping(), **{str(target): str(source) for source, target in self._copies()}}

    def _copies(self) -> list[tuple[Path, Path]]:
        copies = []
        for directory, pattern in COPIED:
            found = sorted((ROOT / directory).glob(pattern))
            if not found:
                raise FileNotFoundError(f"{ROOT / directory}/{pattern}: missing from this source tree")
            copies += [(path, Path(self.build_lib) / "consumer" / directory / path.name) for path in found]
        return copies


setup(cmdclass={"build_py": build_py_with_data})
