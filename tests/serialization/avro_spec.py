"""The Avro specification's fingerprint algorithms, written from the spec alone,
so tests can check the store's fingerprints against something that is not fastavro.

- Parsing Canonical Form: https://avro.apache.org/docs/1.11.1/specification/#parsing-canonical-form-for-schemas
- CRC-64-AVRO (Rabin): https://avro.apache.org/docs/1.11.1/specification/#schema-fingerprints
"""

from __future__ import annotations

import json
from typing import Any

PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}
NAMED = {"record", "error", "enum", "fixed"}

# The spec's EMPTY constant: the fingerprint of the empty byte string.
EMPTY = 0xC15D213AA4D7A795
MASK64 = (1 << 64) - 1


def _table() -> list[int]:
    table = []
    for i in range(256):
        fp = i
        for _ in range(8):
            # Java: fp = (fp >>> 1) ^ (EMPTY & -(fp & 1L))
            fp = (fp >> 1) ^ (EMPTY if fp & 1 else 0)
        table.append(fp)
    return table


_FP_TABLE = _table()


def rabin64(data: bytes) -> int:
    """CRC-64-AVRO of *data*, as an unsigned 64-bit integer."""
    fp = EMPTY
    for byte in data:
        fp = ((fp >> 8) ^ _FP_TABLE[(fp ^ byte) & 0xFF]) & MASK64
    return fp


def signed(value: int) -> int:
    """*value* as Java's long prints it (the spec's test vectors are signed)."""
    return value - (1 << 64) if value >= 1 << 63 else value


def canonical_form(schema: Any, definitions: dict[str, Any] | None = None) -> str:
    """Parsing Canonical Form of *schema* (parsed JSON).  *definitions* maps full
    names defined in other files to their JSON, inlined at first use."""
    return _pcf(schema, "", definitions or {}, set())


def _fullname(name: str, namespace: str) -> str:
    return name if "." in name or not namespace else f"{namespace}.{name}"


def _pcf(schema: Any, namespace: str, definitions: dict[str, Any], defined: set[str]) -> str:
    if isinstance(schema, list):
        return "[" + ",".join(_pcf(branch, namespace, definitions, defined) for branch in schema) + "]"
    if isinstance(schema, str):
        if schema in PRIMITIVES:
            return json.dumps(schema)
        full = _fullname(schema, namespace)
        if full not in defined and full in definitions:
            # A definition nested in another file takes the namespace of its full name.
            return _pcf(definitions[full], full.rpartition(".")[0], definitions, defined)
        return json.dumps(full)
    kind = schema["type"]
    if kind in PRIMITIVES:  # [PRIMITIVES] {"type": "long", "logicalType": ...} -> "long"
        return json.dumps(kind)
    if kind == "array":
        return '{"type":"array","items":' + _pcf(schema["items"], namespace, definitions, defined) + "}"
    if kind == "map":
        return '{"type":"map","values":' + _pcf(schema["values"], namespace, definitions, defined) + "}"
    if kind in NAMED:
        full = _fullname(schema["name"], schema.get("namespace", namespace))
        defined.add(full)
        inner = full.rpartition(".")[0]
        head = '{"name":' + json.dumps(full) + ',"type":'
        if kind == "enum":
            return head + '"enum","symbols":' + json.dumps(schema["symbols"], separators=(",", ":")) + "}"
        if kind == "fixed":
            return head + '"fixed","size":' + str(int(schema["size"])) + "}"
        fields = ",".join(
            '{"name":' + json.dumps(field["name"]) + ',"type":' + _pcf(field["type"], inner, definitions, defined) + "}"
            for field in schema["fields"]
        )
        return head + '"record","fields":[' + fields + "]}"
    return _pcf(kind, namespace, definitions, defined)
