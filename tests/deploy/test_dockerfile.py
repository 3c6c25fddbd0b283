"""The image, checked statically: there is no Docker engine to build it here.

What these tests pin is what the chart and the operators rely on: a slim final
stage holding only the venv, a numeric non-root user, the
``crawl-decoder run`` entrypoint, and nothing from the work tree leaking in. And
what builds rely on: the dependencies in a layer of their own, at the versions
constraints.txt pins (test_constraints.py checks the pins), before the sources;
a HEALTHCHECK that asks the port the processor serves (its command is run here
against the processor's own health server); OCI labels that agree with pyproject.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tomllib
from pathlib import Path, PurePosixPath

import pytest

from consumer.observability.health import HealthServer
from consumer.observability.metrics import Metrics
from consumer.settings import ENV_PREFIX, Settings

from deploy_support import REPO_ROOT
from dockerfile import parse

#: Packages and commands that mean a compiler toolchain is being installed.
BUILD_TOOLS = re.compile(
    r"\b(gcc|g\+\+|clang|make|build-essential|cmake|autoconf|automake|libtool|"
    r"python3?-dev|libc6?-dev|musl-dev|linux-headers|cargo|rustc)\b"
)
PACKAGE_INSTALL = re.compile(r"\b(apt-get|apt|apk|yum|dnf|microdnf)\b[^&;|]*\b(install|add)\b")


def test_parser_reads_continuations_comments_and_global_args():
    parsed = parse(
        "# syntax=docker/dockerfile:1\n"
        "ARG BASE=python:3.12-slim\n"
        "FROM ${BASE} AS one\n"
        "RUN a \\\n"
        "# a comment inside a continuation is dropped\n"
        "    b\n"
        'FROM $BASE\nENTRYPOINT ["x", "y"]\n'
    )
    assert [s.base for s in parsed.stages] == ["python:3.12-slim", "python:3.12-slim"]
    assert parsed.stages[0].name == "one"
    assert parsed.stages[0].all("RUN")[0].args == "a b"
    assert parsed.final.last("ENTRYPOINT").exec_form() == ["x", "y"]


def test_multi_stage_with_a_slim_python_base_for_all(dockerfile):
    assert [s.name for s in dockerfile.stages] == ["requirements", "builder", "runtime"]
    for stage in dockerfile.stages:
        assert re.fullmatch(r"python:3\.1[1-3]-slim(-\w+)?", stage.base), stage.base
    # The venv's interpreter is a symlink to the base image's python: the builder
    # and the runtime stage must use the same base for the copied venv to run.
    assert len({stage.base for stage in dockerfile.stages}) == 1


def test_builder_installs_the_project_into_the_venv_the_final_stage_copies(dockerfile):
    builder = dockerfile.stage("builder")
    builder_runs = " ".join(i.args for i in builder.all("RUN"))
    assert "python -m venv /opt/venv" in builder_runs
    assert re.search(r"pip wheel .*--wheel-dir /wheels \.", builder_runs)
    assert re.search(r"/opt/venv/bin/pip install .*/wheels/\*\.whl", builder_runs)

    copies = [i.flags_and_args() for i in dockerfile.final.all("COPY")]
    assert ({"from": "builder"}, ["/opt/venv", "/opt/venv"]) in copies
    assert dockerfile.final.env()["PATH"].startswith("/opt/venv/bin:")


def test_builder_has_the_compiler_the_prescan_loop_needs(dockerfile):
    """The extension is optional: without gcc the image would build and decode, silently slower."""
    installs = [run.args for run in dockerfile.stage("builder").all("RUN") if PACKAGE_INSTALL.search(run.args)]
    assert any(re.search(r"\bgcc\b", run) for run in installs), "the builder must install gcc"
    pyproject = (REPO_ROOT / "pyproject.toml").read_text()
    assert 'sources = ["consumer/decoding/_native/prescan.c"]' in pyproject


def test_final_stage_has_no_build_tools_and_no_source_tree(dockerfile):
    for run in dockerfile.final.all("RUN"):
        assert not (PACKAGE_INSTALL.search(run.args) and BUILD_TOOLS.search(run.args)), run.args
        assert "pip install" not in run.args, "the final stage installs nothing: it copies the venv"
    for copy in dockerfile.final.all("COPY"):
        flags, paths = copy.flags_and_args()
        # The schemas and the example overrides are inside the installed wheel (tests/packaging).
        assert "from" in flags, f"the final stage copies only the built venv, not {paths} from the work tree"


def test_runs_as_a_numeric_non_root_user(dockerfile):
    user = dockerfile.final.last("USER")
    assert user is not None, "the final stage must set USER"
    uid, _, gid = user.args.partition(":")
    assert uid.isdigit() and int(uid) != 0, f"USER must be a numeric non-root UID, not {user.args!r}"
    assert not gid or (gid.isdigit() and int(gid) != 0)
    # The user is created with that UID, and USER comes after every RUN.
    created = " ".join(i.args for i in dockerfile.final.all("RUN"))
    assert f"--uid {uid}" in created
    last_run = max(n for n, i in enumerate(dockerfile.final.instructions) if i.keyword == "RUN")
    assert dockerfile.final.instructions.index(user) > last_run


def test_entrypoint_is_crawl_decoder_run_in_exec_form(dockerfile):
    entrypoint = dockerfile.final.last("ENTRYPOINT").exec_form()
    cmd = dockerfile.final.last("CMD").exec_form()
    # Exec form: the processor is PID 1 and receives SIGTERM itself.
    assert entrypoint is not None and cmd is not None
    assert entrypoint + cmd == ["crawl-decoder", "run"]


# -- the dependency layer -----------------------------------------------------------------------


def _index(stage, keyword: str, pattern: str) -> int:
    return next(n for n, i in enumerate(stage.instructions) if i.keyword == keyword and re.search(pattern, i.args))


def test_dependencies_install_in_a_layer_before_the_sources_are_copied(dockerfile):
    """An edit to consumer/ rebuilds the project's layer only, not the dependencies'."""
    builder = dockerfile.stage("builder")
    deps_at = _index(builder, "RUN", r"/opt/venv/bin/pip install .*-r requirements\.txt")
    deps = builder.instructions[deps_at].args
    assert "-c constraints.txt" in deps, "the dependencies install at the versions constraints.txt pins"
    assert "--only-binary=:all:" in deps
    # What that layer's cache depends on: the pins and the dependency list, nothing else of the work tree.
    copied_before = [i.flags_and_args() for i in builder.instructions[:deps_at] if i.keyword == "COPY"]
    assert copied_before, "the dependency list and constraints.txt must be copied in before"
    for flags, paths in copied_before:
        assert flags == {"from": "requirements"} or paths[:-1] == ["constraints.txt"], (flags, paths)
    assert any(flags.get("from") == "requirements" for flags, _ in copied_before)

    sources_at = _index(builder, "COPY", r"(^|\s)consumer/")
    assert sources_at > deps_at
    project_installs = [
        i.args for i in builder.instructions[sources_at:] if i.keyword == "RUN" and "/opt/venv/bin/pip install" in i.args
    ]
    assert project_installs, "the project is installed after its sources are copied"
    for run in project_installs:
        assert "--no-deps" in run, f"the project's install must not resolve the dependencies again: {run}"
    assert any("/opt/venv/bin/pip check" in i.args for i in builder.instructions[sources_at:] if i.keyword == "RUN")


def _stdlib_python_on_path(tmp_path: Path, **env: str) -> dict[str, str]:
    """An environment whose ``python`` is this interpreter (the image's commands need only the stdlib)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    if not (bin_dir / "python").exists():
        (bin_dir / "python").symlink_to(sys.executable)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}", **env}


def test_requirements_stage_lists_exactly_pyprojects_runtime_dependencies(dockerfile, tmp_path):
    stage = dockerfile.stage("requirements")
    copies = [i.flags_and_args() for i in stage.all("COPY")]
    assert copies == [({}, ["pyproject.toml", "./"])], "the stage reads pyproject.toml and nothing else"
    (run,) = stage.all("RUN")
    shutil.copy(REPO_ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    # The RUN as /bin/sh -c runs it (shell form), in a copy of the stage's WORKDIR.
    subprocess.run(["sh", "-c", run.args], cwd=tmp_path, env=_stdlib_python_on_path(tmp_path), check=True, timeout=60)
    written = (tmp_path / "requirements.txt").read_text().splitlines()
    assert written == tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    builder_copy = next(
        i.flags_and_args()[1] for i in dockerfile.stage("builder").all("COPY") if "from" in i.flags_and_args()[0]
    )
    assert builder_copy[0] == str(PurePosixPath(stage.last("WORKDIR").args) / "requirements.txt")


# -- the healthcheck -------------------------------------------------------------------------------


def _healthcheck_command(dockerfile) -> str:
    check = dockerfile.final.last("HEALTHCHECK")
    assert check is not None
    _options, sep, command = check.args.partition(" CMD ")
    assert sep, check.args
    assert not command.lstrip().startswith("["), "shell form: the shell expands the port variable at each check"
    return command


def _default_http_port() -> int:
    return next(f.default for f in dataclasses.fields(Settings) if f.name == "http_port")


def test_healthcheck_asks_the_configured_port_defaulting_to_the_exposed_one(dockerfile):
    (exposed,) = dockerfile.final.last("EXPOSE").args.split()
    assert exposed == str(_default_http_port())
    variable = ENV_PREFIX + "HTTP_PORT"
    assert f"http://127.0.0.1:${{{variable}:-{exposed}}}/healthz" in _healthcheck_command(dockerfile)


@pytest.mark.parametrize(("environment", "port"), [
    ({}, None), ({"CRAWL_DECODER_HTTP_PORT": ""}, None), ({"CRAWL_DECODER_HTTP_PORT": "8000"}, "8000"),
])
def test_healthcheck_url_follows_the_environment(dockerfile, tmp_path, environment, port):
    """The command as the container's shell expands it: a stand-in ``python`` prints its arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    (bin_dir / "python").chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", **environment}
    result = subprocess.run(["sh", "-c", _healthcheck_command(dockerfile)], env=env, capture_output=True, text=True, check=True)
    expected = f"http://127.0.0.1:{port or _default_http_port()}/healthz"
    assert f"'{expected}'" in result.stdout, result.stdout


@pytest.mark.parametrize("alive", [True, False])
def test_healthcheck_passes_only_while_the_processor_says_it_is_alive(dockerfile, tmp_path, alive):
    """Against the processor's own health server; exit 1 is Docker's "unhealthy" (2 is reserved)."""
    server = HealthServer(0, Metrics(), is_alive=lambda: alive, is_ready=lambda: True, host="127.0.0.1")
    server.start()
    try:
        env = _stdlib_python_on_path(tmp_path, CRAWL_DECODER_HTTP_PORT=str(server.port))
        result = subprocess.run(
            ["sh", "-c", _healthcheck_command(dockerfile)], env=env, capture_output=True, text=True, timeout=30
        )
    finally:
        server.stop()
    assert result.returncode == (0 if alive else 1), result.stderr


def test_healthcheck_fails_when_nothing_listens_on_the_port(dockerfile, tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free_port = probe.getsockname()[1]
    env = _stdlib_python_on_path(tmp_path, CRAWL_DECODER_HTTP_PORT=str(free_port))
    result = subprocess.run(["sh", "-c", _healthcheck_command(dockerfile)], env=env, capture_output=True, timeout=30)
    assert result.returncode == 1


# -- OCI annotations -------------------------------------------------------------------------------

OCI = "org.opencontainers.image."


def _labels(stage) -> dict[str, str]:
    labels: dict[str, str] = {}
    for instruction in stage.all("LABEL"):
        for word in shlex.split(instruction.args):
            key, sep, value = word.partition("=")
            assert sep, f"LABEL takes key=value pairs: {instruction.args!r}"
            labels[key] = value
    return labels


def _build_args(stage) -> dict[str, str | None]:
    args: dict[str, str | None] = {}
    for instruction in stage.all("ARG"):
        name, sep, default = instruction.args.partition("=")
        args[name.strip()] = default.strip() if sep else None
    return args


def test_oci_labels_describe_the_image_as_pyproject_does(dockerfile):
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    license_ = project["license"] if isinstance(project["license"], str) else project["license"]["text"]
    labels = _labels(dockerfile.final)
    assert labels[OCI + "title"] == project["name"]
    assert labels[OCI + "description"] == project["description"]
    assert labels[OCI + "licenses"] == license_


def test_oci_labels_take_version_revision_created_and_source_from_build_args(dockerfile):
    labels, args = _labels(dockerfile.final), _build_args(dockerfile.final)
    for key, arg in {"version": "VERSION", "revision": "REVISION", "created": "CREATED", "source": "SOURCE"}.items():
        assert labels.get(OCI + key) == f"${{{arg}}}", f"{OCI}{key} must come from the build ARG {arg}"
        assert arg in args, f"ARG {arg} must be declared in the final stage"
    from consumer import __version__

    assert "version" in tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["dynamic"]
    assert args["VERSION"] == __version__, "VERSION's default follows consumer.__version__, the one version source"


def test_labels_and_their_build_args_come_after_every_layer(dockerfile):
    """REVISION and CREATED differ on every build: declared earlier, they would bust the cache of what follows."""
    instructions = dockerfile.final.instructions
    last_layer = max(n for n, i in enumerate(instructions) if i.keyword in ("RUN", "COPY"))
    first_label = min(n for n, i in enumerate(instructions) if i.keyword in ("ARG", "LABEL"))
    assert first_label > last_layer


def _ignored(patterns: list[str], path: str) -> bool:
    ignored = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pattern = pattern.lstrip("!").rstrip("/")
        if fnmatch.fnmatch(path, pattern) or path.startswith(pattern + "/"):
            ignored = not negate
    return ignored


def test_dockerignore_keeps_local_state_out_but_not_what_the_build_copies(dockerfile):
    patterns = [
        line.strip()
        for line in (REPO_ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    built_in_place = "consumer/decoding/_native/prescan.cpython-312-x86_64-linux-gnu.so"
    for path in (".venv", ".git", "tests", ".pytest_cache", built_in_place):
        assert _ignored(patterns, path), f"{path} must not be sent to the build"
    for stage in dockerfile.stages:
        for copy in stage.all("COPY"):
            flags, paths = copy.flags_and_args()
            if "from" in flags:
                continue
            for source in paths[:-1]:
                source = source.rstrip("/")
                assert not _ignored(patterns, source), f"{source} is COPYed but .dockerignore drops it"
                assert (REPO_ROOT / source).exists(), f"{source} is COPYed but missing from the repository"

