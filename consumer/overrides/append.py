"""Append entries to an overrides file: validated as a whole first, written atomically, or not at all.

The new entries go at the end of the file's ``overrides:`` list, indented as
its first entry is (``overrides: []`` becomes a block list; a file without the
list gets one at its end).  Everything else, comments included, is kept byte
for byte.  The result is validated by the loader itself before anything is
written (a host already in the file, an unknown label, a missing owner: the
file is left untouched and the problems are raised); it is then written to a
temporary file beside it and renamed over it, so a reader (the processor's hot
reload) sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .config import OverrideConfig
from .exceptions import OverridesError, Problem
from .loader import parse_overrides
from .suggest import entries_yaml


def append_entries(path: str | os.PathLike[str], entries: list[dict[str, Any]]) -> OverrideConfig:
    """Add *entries* to the overrides file at *path* (created when missing); the new file's config.

    Raises ``OverridesError`` (the file unchanged) when the file is invalid now or would be after.
    """
    target = Path(path)
    try:
        before = target.read_text(encoding="utf-8") if target.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise OverridesError(str(target), [Problem(None, f"cannot read: {exc}")]) from exc
    parse_overrides(before, str(target))  # an invalid file is fixed by a person first, not appended to
    after = _with_entries(before, entries)
    config = parse_overrides(after, f"{target} (with the suggested entries)")
    _write_atomically(target, after)
    return config


def _with_entries(text: str, entries: list[dict[str, Any]]) -> str:
    """*text* with *entries* appended to its ``overrides:`` list."""
    root = yaml.compose(text, Loader=yaml.SafeLoader) if text.strip() else None
    overrides = _overrides_node(root)
    if isinstance(overrides, SequenceNode) and overrides.value and not overrides.flow_style:
        last = overrides.value[-1]
        indent = max(0, overrides.value[0].start_mark.column - 2)  # "- " precedes the first key
        at = _line_after(text, last.end_mark.index)
        newline = "" if text[:at].endswith("\n") else "\n"  # the last entry ends the file without one
        return text[:at] + newline + entries_yaml(entries, indent) + text[at:]
    block = "overrides:\n" + entries_yaml(entries)
    if overrides is not None:  # "overrides: []" or "overrides:" alone: the list is written in its place
        assert isinstance(root, MappingNode)  # _overrides_node found the list in it
        key = _key_of(root, overrides)
        start = _line_start(text, key.start_mark.index)
        return text[:start] + block + text[_line_after(text, overrides.end_mark.index):]
    return text + ("" if not text or text.endswith("\n") else "\n") + block


def _overrides_node(root: Node | None) -> Node | None:
    if not isinstance(root, MappingNode):
        return None
    return next((value for key, value in root.value if isinstance(key, ScalarNode) and key.value == "overrides"),
                None)


def _key_of(root: MappingNode, value: Node) -> ScalarNode:
    key = next(key for key, found in root.value if found is value)
    assert isinstance(key, ScalarNode)  # _overrides_node matched a scalar key
    return key


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _line_after(text: str, index: int) -> int:
    """The start of the line after the one *index* is on (a node ending at a line's start: that line)."""
    if index > 0 and text[index - 1] == "\n":
        return index
    found = text.find("\n", index)
    return len(text) if found < 0 else found + 1


def _write_atomically(target: Path, text: str) -> None:
    mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
