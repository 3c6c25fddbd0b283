"""Read and validate an overrides file (``config/overrides.yaml``) into an ``OverrideConfig``.

The YAML is composed, not loaded, so every node keeps its position and every
problem names its line.  Validation collects all problems before raising, so
an operator fixes a file in one round trip, not one per error.
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import os
import re
from dataclasses import dataclass, field

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..decoding.data.whatwg import LABELS
from ..decoding.hosts import parse_host_pattern
from ..decoding.labels import get_encoding
from ..decoding.overrides import Override, OverrideMode
from .config import ExpiredPolicy, OverrideConfig
from .exceptions import OverridesError, Problem

#: Keys of one entry of ``overrides:``.  ``owner`` or ``ticket`` (or both) is required.
ENTRY_KEYS = ("host", "encoding", "mode", "reason", "review_by", "owner", "ticket")
REQUIRED_KEYS = ("host", "encoding", "mode", "reason", "review_by")
TOP_KEYS = ("overrides", "settings")
SETTINGS_KEYS = ("expired",)

#: Said about a file without an ``overrides:`` list (empty, comments only, ``overrides:`` alone).
NO_LIST_NOTE = ("note: no 'overrides:' list (empty file, comments only, or 'overrides:' with nothing after it): "
                "no overrides at start, but a running processor refuses it and keeps the overrides in force; "
                "write 'overrides: []' to mean no overrides")

_NULL_TAG = "tag:yaml.org,2002:null"
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def load_overrides(path: str | os.PathLike[str]) -> OverrideConfig:
    """Read and validate the overrides file at *path*; raise ``OverridesError`` listing every problem."""
    source = os.fspath(path)
    try:
        with open(source, "rb") as file:
            data = file.read()
    except FileNotFoundError as exc:
        raise OverridesError(source, [Problem(None, "file not found")]) from exc
    except OSError as exc:
        raise OverridesError(source, [Problem(None, f"cannot read: {exc.strerror or exc}")]) from exc
    return parse_overrides(data, source)


def parse_overrides(text: str | bytes, source_name: str = "<overrides>") -> OverrideConfig:
    """Validate the text of an overrides file; *source_name* is what error lines start with.

    An empty file (or one holding only comments, or no ``overrides:`` list) is valid and
    means no overrides, with a note: a running processor refuses such a file (see
    ``OverrideConfig.has_list``); ``overrides: []`` is how a file says "no overrides".
    """
    data = text.encode("utf-8") if isinstance(text, str) else text
    digest = hashlib.sha256(data).hexdigest()
    root = _compose(_decode_utf8(data, source_name), source_name)
    check = _Check()
    overrides, expired = check.document(root)
    if check.problems:
        raise OverridesError(source_name, sorted(check.problems, key=_by_line))
    if not check.has_list:
        check.notes.append(Problem(None, NO_LIST_NOTE))
    return OverrideConfig(
        overrides=tuple(override for override, _ in overrides),
        expired=expired,
        digest=digest,
        source=source_name,
        notes=tuple(check.notes),
        lines={override.host: line for override, line in overrides},
        has_list=check.has_list,
    )


def _by_line(problem: Problem) -> int:
    return problem.line or 0


def _decode_utf8(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise OverridesError(source, [Problem(line, "the file is not UTF-8")]) from exc


def _compose(text: str, source: str) -> Node | None:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise OverridesError(source, [Problem(line, _yaml_message(exc))]) from exc
    except yaml.YAMLError as exc:  # ReaderError: a control character, no mark
        position = getattr(exc, "position", None)
        line = text[:position].count("\n") + 1 if position is not None else None
        raise OverridesError(source, [Problem(line, f"not valid YAML: {exc}")]) from exc


def _yaml_message(exc: yaml.MarkedYAMLError) -> str:
    message = "; ".join(part for part in (exc.context, exc.problem) if part)
    # An unquoted '*.example.jp' is a YAML alias, the one mistake everyone makes.
    if "alias" in message:
        message += " (quote host patterns: host: \"*.example.jp\")"
    return f"not valid YAML: {message}"


@dataclass
class _Check:
    """Walks the composed document, collecting problems and notes instead of stopping at the first."""

    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)
    has_list: bool = False  # a top-level 'overrides:' list, [] included

    def error(self, node: Node, message: str) -> None:
        self.problems.append(Problem(node.start_mark.line + 1, message))

    def document(self, root: Node | None) -> tuple[list[tuple[Override, int]], ExpiredPolicy]:
        if root is None or _is_null(root):
            return [], ExpiredPolicy.APPLY
        if not isinstance(root, MappingNode):
            self.error(root, "the file must be a mapping with an 'overrides:' list (and optional 'settings:')")
            return [], ExpiredPolicy.APPLY
        keys = self.keys(root, TOP_KEYS, "top-level key")
        expired = self.settings(keys["settings"]) if "settings" in keys else ExpiredPolicy.APPLY
        self.has_list = isinstance(keys.get("overrides"), SequenceNode)
        entries = self.entries(keys["overrides"]) if "overrides" in keys else []
        return self.unique(entries), expired

    def keys(self, mapping: MappingNode, allowed: tuple[str, ...], what: str) -> dict[str, Node]:
        """The values of *mapping* by key; unknown and repeated keys are problems."""
        found: dict[str, Node] = {}
        first_line: dict[str, int] = {}
        for key_node, value_node in mapping.value:
            if not isinstance(key_node, ScalarNode):
                self.error(key_node, f"a {what} must be a plain word")
                continue
            key = key_node.value
            if key in found:
                self.error(key_node, f"{key!r} given twice (first on line {first_line[key]})")
            elif key not in allowed:
                self.error(key_node, f"unknown {what} {key!r}{_suggest(key, allowed)}")
            else:
                found[key] = value_node
                first_line[key] = key_node.start_mark.line + 1
        return found

    def settings(self, node: Node) -> ExpiredPolicy:
        if _is_null(node):
            return ExpiredPolicy.APPLY
        if not isinstance(node, MappingNode):
            self.error(node, "'settings' must be a mapping, e.g. settings: {expired: apply}")
            return ExpiredPolicy.APPLY
        keys = self.keys(node, SETTINGS_KEYS, "setting")
        if "expired" not in keys:
            return ExpiredPolicy.APPLY
        value = self.text(keys["expired"], "settings.expired")
        choices = [policy.value for policy in ExpiredPolicy]
        if value not in choices:
            if value is not None:
                self.error(keys["expired"], f"settings.expired must be one of {choices}, not {value!r}")
            return ExpiredPolicy.APPLY
        return ExpiredPolicy(value)

    def entries(self, node: Node) -> list[_Entry]:
        if _is_null(node):
            return []
        if not isinstance(node, SequenceNode):
            self.error(node, "'overrides' must be a list of entries, each starting with '- host: ...'")
            return []
        return [entry for entry in map(self.entry, node.value) if entry is not None]

    def entry(self, node: Node) -> _Entry | None:
        """One entry; its host is kept even when other fields are wrong, so duplicates are still found."""
        if not isinstance(node, MappingNode):
            self.error(node, "an override must be a mapping with keys " + ", ".join(ENTRY_KEYS))
            return None
        keys = self.keys(node, ENTRY_KEYS, "key")
        for name in REQUIRED_KEYS:
            if name not in keys:
                self.error(node, f"missing {name!r}")
        host = self.host(keys["host"]) if "host" in keys else None
        encoding = self.encoding(keys["encoding"]) if "encoding" in keys else None
        mode = self.mode(keys["mode"]) if "mode" in keys else None
        reason = self.reason(keys["reason"]) if "reason" in keys else None
        review_by = self.review_by(keys["review_by"]) if "review_by" in keys else None
        owner = self.owner(node, keys)
        if host is None:
            return None
        if encoding is None or mode is None or reason is None or review_by is None or owner is None:
            return _Entry(host, node.start_mark.line + 1, None)
        return _Entry(host, node.start_mark.line + 1, Override(host, encoding, mode, reason, review_by, owner))

    def text(self, node: Node, name: str) -> str | None:
        """A scalar as stripped text ('' for null); None (with a problem) for a list or mapping."""
        if not isinstance(node, ScalarNode):
            self.error(node, f"{name} must be a single value, not a list or mapping")
            return None
        return "" if node.tag == _NULL_TAG else node.value.strip()

    def host(self, node: Node) -> str | None:
        value = self.text(node, "host")
        if value is None:
            return None
        try:
            return parse_host_pattern(value)
        except ValueError as exc:
            self.error(node, str(exc))
            return None

    def encoding(self, node: Node) -> str | None:
        label = self.text(node, "encoding")
        if label is None:
            return None
        name = get_encoding(label)
        if name is None:
            self.error(node, f"unknown encoding label {label!r}{_suggest(label.lower(), tuple(LABELS))}"
                       " (labels: https://encoding.spec.whatwg.org/#names-and-labels)")
            return None
        if name == "replacement":
            self.error(node, f"encoding label {label!r} names the 'replacement' encoding, which decodes"
                       " every page to U+FFFD; it cannot be an override")
            return None
        if _squash(label) != _squash(name):
            self.notes.append(Problem(node.start_mark.line + 1,
                                      f"note: encoding label {label!r} means {name} (Encoding Standard)"))
        return name

    def mode(self, node: Node) -> OverrideMode | None:
        value = self.text(node, "mode")
        choices = [mode.value for mode in OverrideMode]
        if value not in choices:
            if value is not None:
                self.error(node, f"mode must be one of {choices}, not {value!r}")
            return None
        return OverrideMode(value)

    def reason(self, node: Node) -> str | None:
        value = self.text(node, "reason")
        if value == "":
            self.error(node, "reason is empty; say why this host needs an override")
            return None
        return value

    def review_by(self, node: Node) -> dt.date | None:
        value = self.text(node, "review_by")
        if value is None:
            return None
        if not _ISO_DATE.match(value):
            self.error(node, f"review_by must be a date written YYYY-MM-DD, not {value!r}")
            return None
        try:
            return dt.date.fromisoformat(value)
        except ValueError as exc:
            self.error(node, f"review_by {value!r} is not a real date ({exc})")
            return None

    def owner(self, entry: Node, keys: dict[str, Node]) -> str | None:
        """``owner``, ``ticket``, or ``owner (ticket)``: the model has one field for who answers for it."""
        owner = self.text(keys["owner"], "owner") if "owner" in keys else ""
        ticket = self.text(keys["ticket"], "ticket") if "ticket" in keys else ""
        if owner is None or ticket is None:
            return None
        if not owner and not ticket:
            self.error(entry, "missing 'owner' or 'ticket': say who answers for this override")
            return None
        if owner and ticket:
            return f"{owner} ({ticket})"
        return owner or ticket

    def unique(self, entries: list[_Entry]) -> list[tuple[Override, int]]:
        """Refuse a host listed twice (after normalisation): the file would not say which one wins."""
        first: dict[str, _Entry] = {}
        for entry in entries:
            earlier = first.setdefault(entry.host, entry)
            if earlier is entry:
                continue
            if _conflict(earlier.override, entry.override):
                assert earlier.override is not None and entry.override is not None  # _conflict compared both
                self.problems.append(Problem(entry.line, (
                    f"conflicting entries for host {entry.host!r}: line {earlier.line} says"
                    f" {_what(earlier.override)}, this one {_what(entry.override)}")))
            else:
                self.problems.append(Problem(
                    entry.line, f"duplicate host {entry.host!r} (already on line {earlier.line})"))
        return [(entry.override, entry.line) for entry in first.values() if entry.override is not None]


@dataclass(frozen=True, slots=True)
class _Entry:
    host: str
    line: int
    override: Override | None  # None when a field other than the host was wrong


def _conflict(first: Override | None, second: Override | None) -> bool:
    if first is None or second is None:
        return False
    return (first.encoding, first.mode) != (second.encoding, second.mode)


def _what(override: Override) -> str:
    return f"{override.encoding} ({override.mode.value})"


def _is_null(node: Node) -> bool:
    return isinstance(node, ScalarNode) and node.tag == _NULL_TAG


def _squash(label: str) -> str:
    return re.sub(r"[^a-z0-9]", "", label.lower())


def _suggest(word: str, choices: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
