"""constraints.txt, the versions the image installs, agrees with pyproject.toml.

The Dockerfile installs the runtime dependencies with ``-c constraints.txt``; a
constraints file only narrows what is installed, so a dependency it does not pin
would be installed at whatever version is newest on the day of the build. Every
runtime dependency must be pinned, with ``==``, inside pyproject's range. Where
this venv holds a pinned package at the pinned version, its metadata is read too,
so the pins of the indirect dependencies are checked against their parents' ranges.
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from deploy_support import REPO_ROOT

CONSTRAINTS = REPO_ROOT / "constraints.txt"
PIN = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;#=]+)")

#: The image's interpreter and platform (the Dockerfile's python:3.12-slim base), for markers.
IMAGE_ENVIRONMENT = {
    **default_environment(),
    "python_version": "3.12",
    "python_full_version": "3.12.0",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "os_name": "posix",
    "sys_platform": "linux",
    "platform_system": "Linux",
}


def _runtime_dependencies() -> list[Requirement]:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    return [Requirement(line) for line in project["dependencies"]]


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for number, raw in enumerate(CONSTRAINTS.read_text().splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = PIN.fullmatch(line)
        assert match, f"constraints.txt:{number}: {line!r} is not NAME==VERSION"
        name = canonicalize_name(match["name"])
        assert name not in pins, f"constraints.txt:{number}: {name} is pinned twice"
        pins[name] = Version(match["version"])
    return pins


def test_every_line_is_an_exact_pin():
    assert _pins(), "constraints.txt pins nothing"


@pytest.mark.parametrize("requirement", _runtime_dependencies(), ids=str)
def test_every_runtime_dependency_is_pinned_inside_its_range(requirement):
    pins = _pins()
    name = canonicalize_name(requirement.name)
    assert name in pins, f"{requirement} (pyproject.toml) is not pinned in constraints.txt: regenerate it (its header says how)"
    assert requirement.specifier.contains(pins[name], prereleases=True), (
        f"constraints.txt pins {name}=={pins[name]}, outside pyproject.toml's {requirement}"
    )


def _applies(requirement: Requirement, extras: frozenset[str]) -> bool:
    if requirement.marker is None:
        return True
    return any(requirement.marker.evaluate({**IMAGE_ENVIRONMENT, "extra": extra}) for extra in extras | {""})


def test_indirect_pins_satisfy_their_parents_where_this_venv_can_tell():
    """Walks the closure from pyproject's dependencies through installed metadata.

    Only packages installed here at exactly the pinned version are opened (another
    version's requirements may differ); when every one could be, a pin that nothing
    requires is reported too (left over from an older resolution).
    """
    pins = _pins()
    todo = [(req, frozenset(req.extras)) for req in _runtime_dependencies()]
    seen: set[tuple[str, frozenset[str]]] = set()
    unreadable: list[str] = []
    problems: list[str] = []
    while todo:
        requirement, extras = todo.pop()
        name = canonicalize_name(requirement.name)
        if name not in pins:
            problems.append(f"{requirement} is needed but not pinned")
            continue
        if not requirement.specifier.contains(pins[name], prereleases=True):
            problems.append(f"{name}=={pins[name]} does not satisfy {requirement}")
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        try:
            installed = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            unreadable.append(f"{name} (not installed here)")
            continue
        if Version(installed.version) != pins[name]:
            unreadable.append(f"{name} (here {installed.version}, pinned {pins[name]})")
            continue
        for line in installed.requires or []:
            child = Requirement(line)
            if _applies(child, extras):
                todo.append((child, frozenset(child.extras)))
    assert not problems, problems
    if not unreadable:
        reached = {name for name, _ in seen}
        assert set(pins) <= reached, f"pinned but required by nothing: {sorted(set(pins) - reached)}"
