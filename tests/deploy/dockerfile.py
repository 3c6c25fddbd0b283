"""A small static reader of Dockerfiles, enough for the image tests.

It follows the Dockerfile reference's parsing rules that matter here: parser
directives and comment lines are dropped, a trailing backslash continues the
instruction, ``ARG`` values declared before the first ``FROM`` substitute into
``FROM``, exec-form arguments are JSON arrays, and ``ENV`` takes ``k=v`` pairs.
No Docker engine is needed (there is none on the project's machines).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Instruction:
    keyword: str  # upper case: FROM, RUN, COPY...
    args: str  # the rest of the logical line, continuations joined

    def exec_form(self) -> list[str] | None:
        """The JSON-array form of RUN/CMD/ENTRYPOINT, or None for shell form."""
        text = self.args.strip()
        if not text.startswith("["):
            return None
        return json.loads(text)

    def flags_and_args(self) -> tuple[dict[str, str], list[str]]:
        """``--from=builder src dst`` -> ({"from": "builder"}, ["src", "dst"])."""
        flags: dict[str, str] = {}
        words = shlex.split(self.args)
        while words and words[0].startswith("--"):
            name, _, value = words.pop(0)[2:].partition("=")
            flags[name] = value
        return flags, words


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]

    def last(self, keyword: str) -> Instruction | None:
        found = self.all(keyword)
        return found[-1] if found else None

    def env(self) -> dict[str, str]:
        """Variables the stage's ENV instructions set (``k=v`` form)."""
        result: dict[str, str] = {}
        for instruction in self.all("ENV"):
            for word in shlex.split(instruction.args):
                name, sep, value = word.partition("=")
                if not sep:
                    raise ValueError(f"ENV without '=' is the legacy form, not used here: {instruction.args!r}")
                result[name] = value.replace("$PATH", result.get("PATH", "$PATH"))
        return result


@dataclass
class Dockerfile:
    global_args: dict[str, str]
    stages: list[Stage]

    @property
    def final(self) -> Stage:
        return self.stages[-1]

    def stage(self, name: str) -> Stage:
        return next(s for s in self.stages if s.name == name)


def logical_lines(text: str) -> list[str]:
    """Instructions with continuations joined; comments and blank lines dropped."""
    lines: list[str] = []
    current = ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if stripped.startswith("#") or (not stripped and not current):
            continue  # comment lines vanish even inside a continuation
        if stripped.endswith("\\"):
            current += stripped[:-1].rstrip() + " "
            continue
        current += stripped
        if current.strip():
            lines.append(current.strip())
        current = ""
    if current.strip():
        lines.append(current.strip())
    return lines


def _substitute(value: str, args: dict[str, str]) -> str:
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: args.get(m.group(1) or m.group(2), m.group(0)), value)


def parse(text: str) -> Dockerfile:
    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for line in logical_lines(text):
        keyword, _, args = line.partition(" ")
        instruction = Instruction(keyword.upper(), args.strip())
        if instruction.keyword == "FROM":
            words = instruction.flags_and_args()[1]
            base = _substitute(words[0], global_args)
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            stages.append(Stage(base=base, name=name))
        elif not stages:
            if instruction.keyword != "ARG":
                raise ValueError(f"only ARG may come before the first FROM, not {line!r}")
            name, _, default = instruction.args.partition("=")
            global_args[name.strip()] = default.strip()
        else:
            stages[-1].instructions.append(instruction)
    return Dockerfile(global_args=global_args, stages=stages)


def parse_file(path: Path) -> Dockerfile:
    return parse(path.read_text(encoding="utf-8"))
