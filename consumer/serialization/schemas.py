"""Avro schemas, parsed once: our reader schemas and every writer schema seen.

Writer schemas are identified the two ways messages name them: by the
CRC-64-AVRO (Rabin) fingerprint of their Parsing Canonical Form, which the
single-object encoding carries (https://avro.apache.org/docs/1.11.1/specification/#schema-fingerprints),
and by the id a Schema Registry gave them, which the Confluent wire format carries.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastavro import parse_schema
from fastavro.schema import SchemaParseException, UnknownType, fingerprint, to_parsing_canonical_form

from ..packaged import packaged_path
from .exceptions import SchemaDefinitionError, UnknownSchemaError

#: Environment variable naming the directory of our ``*.avsc`` files.
SCHEMAS_DIR_ENV = "CRAWL_DECODER_SCHEMAS_DIR"

_NAMED_KINDS = ("record", "error", "enum", "fixed")


def schemas_dir(configured: str | os.PathLike[str] | None = None, environ: Mapping[str, str] = os.environ) -> Path:
    """The directory of our schemas: *configured* if given, else ``$CRAWL_DECODER_SCHEMAS_DIR``, else the
    copy an installed package carries (``consumer/schemas``, put there by the build: setup.py), else the
    source tree's ``schemas/`` (an editable install or a checkout on ``sys.path``)."""
    chosen = configured or environ.get(SCHEMAS_DIR_ENV)
    if chosen:
        return Path(chosen)
    return packaged_path("schemas")


@dataclass(frozen=True, slots=True, eq=False)
class StoredSchema:
    """One schema, parsed and fingerprinted once.

    ``standalone`` is the schema as self-contained JSON (named types from other
    files inlined at their first use, full names everywhere): what we register
    with a Schema Registry and what the fingerprint is computed from.
    """

    name: str
    parsed: Any
    standalone: Any
    canonical: str
    fingerprint: int

    @property
    def fingerprint_hex(self) -> str:
        """The fingerprint as 16 hex digits, most significant first (the wire order is the reverse)."""
        return f"{self.fingerprint:016x}"


class SchemaStore:
    """Our reader schemas by name, and writer schemas by fingerprint and by registry id.

    Loads every ``*.avsc`` of *directory* at construction (see ``schemas_dir``);
    a file may use named types another file defines.  Lookups afterwards are
    dictionary probes.  Registry ids are those of one registry: use one store
    per registry (and per processor; registration is not thread-safe).
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = schemas_dir(directory)
        self._named: dict[str, Any] = {}
        self._readers: dict[str, StoredSchema] = {}
        self._by_fingerprint: dict[int, StoredSchema] = {}
        self._by_registry_id: dict[int, StoredSchema] = {}
        for stored in self._load_files(_avsc_files(self.directory), self._named):
            self._readers[stored.name] = stored
            self._readers.setdefault(stored.name.rpartition(".")[2], stored)
            self._by_fingerprint[stored.fingerprint] = stored
        if not self._readers:
            raise SchemaDefinitionError(f"no *.avsc schema in {self.directory}")

    def __repr__(self) -> str:
        return f"SchemaStore({str(self.directory)!r}, readers={self.reader_names()!r})"

    def reader_names(self) -> list[str]:
        """Full names of our reader schemas."""
        return sorted({stored.name for stored in self._readers.values()})

    def reader(self, name: str) -> StoredSchema:
        """Our schema named *name* (full name, or the record name alone)."""
        try:
            return self._readers[name]
        except KeyError:
            known = ", ".join(self.reader_names())
            raise SchemaDefinitionError(f"no schema named {name!r} in {self.directory} (known: {known})") from None

    def by_fingerprint(self, value: int) -> StoredSchema:
        """The writer schema whose CRC-64-AVRO fingerprint is *value*."""
        try:
            return self._by_fingerprint[value]
        except KeyError:
            raise UnknownSchemaError(
                f"no known schema has fingerprint {value:016x}", fingerprint=value
            ) from None

    def by_registry_id(self, schema_id: int) -> StoredSchema | None:
        """The writer schema a registry gave id *schema_id*, if seen before."""
        return self._by_registry_id.get(schema_id)

    def register_writer(
        self,
        schema: Mapping[str, Any] | Sequence[Any] | str,
        *,
        registry_id: int | None = None,
        references: Iterable[Mapping[str, Any] | str] = (),
    ) -> StoredSchema:
        """Add a writer schema (a JSON string or its parsed JSON) and return it.

        Named types it uses but does not define are taken from *references*
        (schemas parsed before it, e.g. a registry's schema references), then
        from our own schemas.  Registering a schema already known (same
        fingerprint) returns the known one.
        """
        named = dict(self._named)
        for reference in references:
            _parse(_json(reference), named, "schema reference")
        stored = _stored(_parse(_json(schema), named, "writer schema"))
        stored = self._by_fingerprint.setdefault(stored.fingerprint, stored)
        if registry_id is not None:
            self._by_registry_id[registry_id] = stored
        return stored

    def load_directory(self, directory: str | os.PathLike[str]) -> list[StoredSchema]:
        """Register every ``*.avsc`` of *directory* as a writer schema (e.g. older versions)."""
        loaded = self._load_files(_avsc_files(Path(directory)), dict(self._named))
        return [self._by_fingerprint.setdefault(stored.fingerprint, stored) for stored in loaded]

    @staticmethod
    def _load_files(paths: list[Path], named: dict[str, Any]) -> list[StoredSchema]:
        """Parse *paths* so each file may use named types of the others.

        fastavro resolves a named reference only once its definition has been
        parsed into the shared *named* dictionary, so files are parsed in
        rounds: a file that names a type not yet known waits for the next round.
        """
        pending = {path: _read_json(path) for path in paths}
        stored: list[StoredSchema] = []
        while pending:
            missing: dict[Path, str] = {}
            progressed = False
            for path, schema in list(pending.items()):
                attempt = dict(named)
                try:
                    parsed = parse_schema(schema, attempt)
                except UnknownType as exc:
                    missing[path] = exc.name
                    continue
                except (SchemaParseException, ValueError, TypeError, KeyError) as exc:
                    raise SchemaDefinitionError(f"{path}: not a valid Avro schema: {exc}") from exc
                named.update(attempt)
                stored.append(_stored(parsed))
                del pending[path]
                progressed = True
            if not progressed:
                detail = "; ".join(f"{path.name} uses undefined type {name}" for path, name in missing.items())
                raise SchemaDefinitionError(f"unresolved named types: {detail}")
        return stored


def _avsc_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        raise SchemaDefinitionError(f"schema directory {directory} does not exist")
    return sorted(directory.glob("*.avsc"))


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SchemaDefinitionError(f"cannot read schema {path}: {exc}") from exc


def _json(schema: Mapping[str, Any] | Sequence[Any] | str) -> Any:
    if isinstance(schema, str):
        try:
            return json.loads(schema)
        except ValueError as exc:
            raise SchemaDefinitionError(f"schema is not JSON: {exc}") from exc
    return schema


def _parse(schema: Any, named: dict[str, Any], what: str) -> Any:
    try:
        return parse_schema(schema, named)
    except (SchemaParseException, ValueError, TypeError, KeyError) as exc:
        raise SchemaDefinitionError(f"{what} is not a valid Avro schema: {exc}") from exc


def _stored(parsed: Any) -> StoredSchema:
    standalone = _standalone(parsed)
    canonical = to_parsing_canonical_form(standalone)
    # fastavro prints the 8 fingerprint bytes in little-endian order, the order
    # the single-object encoding writes them; keep the integer value.
    value = int.from_bytes(bytes.fromhex(fingerprint(canonical, "CRC-64-AVRO")), "little")
    name = parsed.get("name", canonical) if isinstance(parsed, dict) else canonical
    return StoredSchema(
        name=name,
        parsed=parse_schema(standalone, {}),
        standalone=standalone,
        canonical=canonical,
        fingerprint=value,
    )


def _standalone(parsed: Any) -> Any:
    """*parsed* as self-contained JSON: each named type it uses by name is
    defined at its first use, as the Avro specification requires of a schema
    that stands alone (fastavro keeps definitions from other files in
    ``__named_schemas`` instead)."""
    named = parsed.get("__named_schemas", {}) if isinstance(parsed, dict) else {}
    defined: set[str] = set()

    def walk(node: Any) -> Any:
        if isinstance(node, str):
            if node in named and node not in defined:
                return walk(named[node])
            return node
        if isinstance(node, list):
            return [walk(branch) for branch in node]
        node = {key: value for key, value in node.items() if not key.startswith("__")}
        kind = node["type"]
        if kind in _NAMED_KINDS:
            defined.add(node["name"])  # before the fields: a record may refer to itself
        if kind in ("record", "error"):
            node["fields"] = [{**field, "type": walk(field["type"])} for field in node["fields"]]
        elif kind == "array":
            node["items"] = walk(node["items"])
        elif kind == "map":
            node["values"] = walk(node["values"])
        elif not isinstance(kind, str) or kind in named:
            node["type"] = walk(kind)
        return node

    return walk(parsed)
