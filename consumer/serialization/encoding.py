"""Avro binary encoding, compiled from a schema into one small function per type.

fastavro's writer walks the schema for every record and, for each union,
tries its branches one by one: ~19 us for a clean record's twenty metadata
fields.  The schemas are fixed, so the walk can be done once:
``compile_writer`` turns a schema into nested closures that append each
value's encoding to a list (~12 us for the same fields).  For a UTF-8 page,
whose text is written from its bytes, it also spares the two extra calls and
copies of writing the fields around the text separately.

The encoding is the specification's
(https://avro.apache.org/docs/1.11.1/specification/#binary-encoding):

- int and long: zigzag, then 7 bits a byte, least significant first;
- double: IEEE 754, little-endian; boolean: one byte;
- bytes and string: a long length, then the bytes (the string's UTF-8);
- record: its fields in order; union: a long branch index, then the value;
- array: one block (a long count, then the items), then a zero count; an
  empty one is the zero count alone.

It must give fastavro's bytes exactly: the tests compare the two on
generated records.  So a compiled writer takes only the values whose
encoding is certain and raises ``Unencodable`` for anything else (a bool
for an int, a naive datetime, a field missing without a default, an unknown
field):
``AvroSerializer`` then hands that record to fastavro, which writes it or
raises its own error, as before.
"""

from __future__ import annotations

import datetime
import struct
from collections.abc import Callable
from typing import Any

#: Appends one value's encoding to the list.
Write = Callable[[Any, list[bytes]], None]

_PRIMITIVE = frozenset({"null", "boolean", "int", "long", "double", "bytes", "string"})
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_EPOCH_DAY = datetime.date(1970, 1, 1).toordinal()
_INT_RANGE = range(-(2**31), 2**31)
_LONG_RANGE = range(-(2**63), 2**63)
#: Encodings of the longs 0-63 (zigzag 0-127: one byte), which lengths, counts and indexes mostly are.
_SMALL = [bytes([n << 1]) for n in range(64)]
_DOUBLE = struct.Struct("<d").pack
_TRUE, _FALSE, _ZERO = b"\x01", b"\x00", b"\x00"
_NULL_BRANCH, _VALUE_BRANCH = b"\x00", b"\x02"  # union indexes 0 and 1


class Unencodable(Exception):
    """A value the compiled writer does not encode itself (fastavro decides)."""


def encode_long(value: int) -> bytes:
    """An Avro long (or int): zigzag-encoded, then 7 bits a byte, least significant first."""
    if 0 <= value < 64:
        return _SMALL[value]
    value = (value << 1) ^ (value >> 63)
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def compile_writer(schema: Any) -> Write | None:
    """A writer for *schema* (self-contained JSON, named types defined inline), or None when the
    schema uses what none of ours does (unions other than ["null", T], maps, float, enums, fixed,
    logical types other than timestamp-millis and date): fastavro writes those."""
    try:
        return _Compiler().compile(schema)
    except _NotCompiled:
        return None


class _NotCompiled(Exception):
    pass


class _Compiler:
    def __init__(self) -> None:
        #: Named types, compiled once; a reference reaches its writer through the cell.
        self.named: dict[str, list[Write]] = {}

    def compile(self, schema: Any) -> Write:
        if isinstance(schema, str):
            if schema in _PRIMITIVE:
                return _primitive(schema)
            if schema not in self.named:
                raise _NotCompiled(f"unknown named type {schema}")
            cell = self.named[schema]
            return lambda value, out: cell[0](value, out)
        if isinstance(schema, list):
            return self.union(schema)
        kind = schema["type"]
        logical = schema.get("logicalType")
        if logical is not None:
            return _logical(kind, logical)
        if kind == "record":
            return self.record(schema)
        if kind == "array":
            return _array(self.compile(schema["items"]))
        if kind in _PRIMITIVE:
            return _primitive(kind)
        raise _NotCompiled(f"type {kind}")

    def union(self, branches: list[Any]) -> Write:
        if len(branches) != 2 or branches[0] != "null":
            raise _NotCompiled("a union other than null and one type")
        return _nullable(self.compile(branches[1]))

    def record(self, schema: dict[str, Any]) -> Write:
        cell: list[Write] = []
        self.named[schema["name"]] = cell
        fields = tuple((field["name"], self.compile(field["type"])) for field in schema["fields"])
        defaults = {
            field["name"]: _default(write, field) for field, (_, write) in zip(schema["fields"], fields, strict=True)
        }
        cell.append(_record(fields, {name: encoded for name, encoded in defaults.items() if encoded is not None}))
        return cell[0]


def _default(write: Write, field: dict[str, Any]) -> bytes | None:
    """The encoding of *field*'s default, where its JSON value is also its Python value
    (a bytes default, JSON text, is not: a record without that field goes to fastavro)."""
    if "default" not in field:
        return None
    out: list[bytes] = []
    try:
        write(field["default"], out)
    except Unencodable:
        return None
    return b"".join(out)


def _record(fields: tuple[tuple[str, Write], ...], defaults: dict[str, bytes]) -> Write:
    count = len(fields)
    names = frozenset(name for name, _ in fields)

    def write(value: Any, out: list[bytes]) -> None:
        if type(value) is not dict:
            raise Unencodable("not a dict")
        if len(value) != count:
            return _with_defaults(value, out)
        try:  # every field present and no other: with the count equal, a missing one raises KeyError
            for name, write_field in fields:
                write_field(value[name], out)
        except KeyError as exc:
            raise Unencodable(f"field {exc} missing") from None

    def _with_defaults(value: Any, out: list[bytes]) -> None:
        """fastavro's strict_allow_default: a missing field takes its default, an unknown one is refused."""
        if not value.keys() <= names:
            raise Unencodable("a field the schema does not have")
        for name, write_field in fields:
            if name in value:
                write_field(value[name], out)
            elif name in defaults:
                out.append(defaults[name])
            else:
                raise Unencodable(f"field {name!r} missing")

    return write


def _nullable(write: Write) -> Write:
    def nullable(value: Any, out: list[bytes]) -> None:
        if value is None:
            out.append(_NULL_BRANCH)
        else:
            out.append(_VALUE_BRANCH)
            write(value, out)

    return nullable


def _array(write_item: Write) -> Write:
    def array(value: Any, out: list[bytes]) -> None:
        if type(value) is not list:
            raise Unencodable("not a list")
        if value:
            out.append(encode_long(len(value)))
            for item in value:
                write_item(item, out)
        out.append(_ZERO)

    return array


def _primitive(kind: str) -> Write:
    return {
        "null": _null, "boolean": _boolean, "int": _int, "long": _long, "double": _double, "bytes": _bytes,
        "string": _string,
    }[kind]  # fmt: skip


def _logical(kind: str, logical: str) -> Write:
    if (kind, logical) == ("long", "timestamp-millis"):
        return _timestamp_millis
    if (kind, logical) == ("int", "date"):
        return _date
    raise _NotCompiled(f"logical type {logical} on {kind}")


def _null(value: Any, out: list[bytes]) -> None:
    if value is not None:
        raise Unencodable("not None")


def _boolean(value: Any, out: list[bytes]) -> None:
    if value is True:
        out.append(_TRUE)
    elif value is False:
        out.append(_FALSE)
    else:
        raise Unencodable("not a bool")


def _int(value: Any, out: list[bytes]) -> None:
    if type(value) is not int or value not in _INT_RANGE:
        raise Unencodable("not an int in range")
    out.append(encode_long(value))


def _long(value: Any, out: list[bytes]) -> None:
    if type(value) is not int or value not in _LONG_RANGE:
        raise Unencodable("not an int in range")
    out.append(encode_long(value))


def _double(value: Any, out: list[bytes]) -> None:
    if type(value) is not float:
        raise Unencodable("not a float")
    out.append(_DOUBLE(value))


def _bytes(value: Any, out: list[bytes]) -> None:
    if type(value) is not bytes:
        raise Unencodable("not bytes")
    out.append(encode_long(len(value)))
    out.append(value)


def _string(value: Any, out: list[bytes]) -> None:
    if type(value) is not str:
        raise Unencodable("not a str")
    try:
        encoded = value.encode("utf-8")
    except UnicodeEncodeError:
        raise Unencodable("a lone surrogate") from None  # fastavro's own error, or its own handling
    out.append(encode_long(len(encoded)))
    out.append(encoded)


def _timestamp_millis(value: Any, out: list[bytes]) -> None:
    """An int, or an aware datetime by fastavro's arithmetic (naive ones depend on the local zone)."""
    if type(value) is datetime.datetime and value.tzinfo is not None:
        delta = value - _EPOCH
        value = (delta.days * 86400 + delta.seconds) * 1000 + int(delta.microseconds / 1000)
    _long(value, out)


def _date(value: Any, out: list[bytes]) -> None:
    if type(value) is datetime.date:
        value = value.toordinal() - _EPOCH_DAY
    _int(value, out)
