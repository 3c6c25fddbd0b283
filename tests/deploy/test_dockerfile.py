"""The image, checked statically: there is no Docker engine to build it here.

What these tests pin is what the chart and the operators rely on: a slim final
stage holding only the venv and the schemas, a numeric non-root user, the
``crawl-decoder run`` entrypoint, and nothing from the work tree leaking in.
"""

from __future__ import annotations

import fnmatch
import re

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


def test_multi_stage_with_a_slim_python_base_for_both(dockerfile):
    assert len(dockerfile.stages) >= 2
    assert dockerfile.stages[0].name == "builder"
    for stage in dockerfile.stages:
        assert re.fullmatch(r"python:3\.1[1-3]-slim(-\w+)?", stage.base), stage.base
    # The venv's interpreter is a symlink to the base image's python: both
    # stages must use the same base for the copied venv to run.
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
    assert 'sources = ["consumer/decoding/_prescan_loop.c"]' in pyproject


def test_final_stage_has_no_build_tools_and_no_source_tree(dockerfile):
    for run in dockerfile.final.all("RUN"):
        assert not (PACKAGE_INSTALL.search(run.args) and BUILD_TOOLS.search(run.args)), run.args
        assert "pip install" not in run.args, "the final stage installs nothing: it copies the venv"
    for copy in dockerfile.final.all("COPY"):
        flags, paths = copy.flags_and_args()
        if "from" not in flags:
            assert paths[:-1] == ["schemas/"], f"only the schemas come from the work tree, not {paths}"


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


def test_healthcheck_probes_the_exposed_port(dockerfile):
    (port,) = dockerfile.final.last("EXPOSE").args.split()
    check = dockerfile.final.last("HEALTHCHECK")
    assert check is not None
    assert f"http://127.0.0.1:{port}/healthz" in check.args


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
    built_in_place = "consumer/decoding/_prescan_loop.cpython-312-x86_64-linux-gnu.so"
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

