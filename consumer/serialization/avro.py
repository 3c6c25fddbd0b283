"""Avro serializer and deserializer: small callables over pre-parsed schemas.

Output framing follows configuration: the Confluent wire format when a Schema
Registry is given, else the Avro single-object encoding.  Input accepts both,
message by message (see ``framing``).  Reading resolves the writer schema into
our reader schema as the Avro specification's schema resolution says
(https://avro.apache.org/docs/1.11.1/specification/#schema-resolution): fields
the writer added are skipped, fields it lacks take the reader's default.

Logical types follow fastavro: ``timestamp-millis`` reads as an aware UTC
``datetime``, ``date`` as a ``date``; writing accepts those or plain integers.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from io import BytesIO
from typing import Any

from fastavro import schemaless_reader, schemaless_writer
from fastavro.read import SchemaResolutionError

from ..exceptions import ConfigError
from .encoding import Unencodable, Write, compile_writer
from .exceptions import CorruptRecordError, IncompatibleSchemaError, InvalidRecordError, UnknownSchemaError
from .framing import Framing, confluent_header, read_header, single_object_header
from .registry import SchemaRegistry
from .schemas import SchemaStore, StoredSchema

# What fastavro raises on bytes its writer schema cannot decode: a length or
# union index past the data (EOFError, IndexError), invalid UTF-8 in a string
# (UnicodeDecodeError, a ValueError), varints too long (ValueError, OverflowError).
_READ_ERRORS = (ValueError, EOFError, IndexError, KeyError, TypeError, OverflowError, struct.error, MemoryError)
_WRITE_ERRORS = (ValueError, TypeError, KeyError, AttributeError, OverflowError, struct.error)

#: (writer schema, reader schema or None when they are the same) for schemaless_reader.
_Plan = tuple[Any, Any]


class AvroSerializer:
    """``(record: dict) -> bytes`` for our schema *schema_name*.

    With *registry*, writes the Confluent wire format with the id of our schema
    under *subject* (``value_subject(topic)``), registering or looking it up on
    first use; without, the single-object encoding.
    """

    __slots__ = ("schema", "_registry", "_subject", "_header", "_write", "_write_utf8_text")

    def __init__(
        self,
        store: SchemaStore,
        schema_name: str,
        registry: SchemaRegistry | None = None,
        subject: str | None = None,
    ) -> None:
        self.schema: StoredSchema = store.reader(schema_name)
        if registry is not None and not subject:
            raise ConfigError("a Schema Registry needs the subject to register the schema under")
        self._registry = registry
        self._subject = subject
        self._header = None if registry is not None else single_object_header(self.schema.fingerprint)
        self._write = compile_writer(self.schema.standalone)
        self._write_utf8_text = _utf8_text_writer(self.schema.standalone)

    def __repr__(self) -> str:
        return f"AvroSerializer({self.schema.name!r}, framing={self.framing.value!r}, subject={self._subject!r})"

    @property
    def framing(self) -> Framing:
        return Framing.SINGLE_OBJECT if self._registry is None else Framing.CONFLUENT

    @property
    def header(self) -> bytes:
        """The bytes every message starts with (asks the registry once, when there is one)."""
        if self._header is None:
            assert self._registry is not None and self._subject is not None  # no header of its own: a registry's
            self._header = confluent_header(self._registry.schema_id(self._subject, self.schema))
        return self._header

    def __call__(self, record: Mapping[str, Any], *, utf8_text: bytes | None = None) -> bytes:
        """The message for *record*.

        *utf8_text*, when given, is the record's "text" already encoded as UTF-8 (the body
        of a page that was valid UTF-8), in place of ``record["text"]``, which the record need
        not have: it is written as it is, which spares building and encoding the page's text
        and gives the same bytes.
        """
        header = self._header or self.header
        if utf8_text is not None:
            return self._write_with_utf8_text(header, record, utf8_text)
        if self._write is not None:
            out = [header]
            try:
                self._write(record, out)
                return b"".join(out)
            except Unencodable:
                pass  # a value the compiled writer leaves to fastavro, which writes it or says why not
        return self._write_by_fastavro(header, record)

    def _write_with_utf8_text(self, header: bytes, record: Mapping[str, Any], utf8_text: bytes) -> bytes:
        if self._write_utf8_text is not None:
            out = [header]
            try:
                self._write_utf8_text({**record, "text": utf8_text}, out)
                return b"".join(out)
            except Unencodable:
                pass
        elif not _has_string_text(self.schema.standalone):
            raise ConfigError(f"{self.schema.name} has no string field 'text' to write as UTF-8 bytes")
        # fastavro writes what the compiled writer does not (the same bytes, from the text).
        return self._write_by_fastavro(header, {**record, "text": utf8_text.decode("utf-8")})

    def _write_by_fastavro(self, header: bytes, record: Mapping[str, Any]) -> bytes:
        out = BytesIO()
        out.write(header)
        try:
            # strict_allow_default: a misspelt or missing field is an error, not silently dropped.
            schemaless_writer(out, self.schema.parsed, record, strict_allow_default=True)
        except _WRITE_ERRORS as exc:
            raise InvalidRecordError(f"record does not match {self.schema.name}: {exc}") from exc
        return out.getvalue()


def _utf8_text_writer(schema: Any) -> Write | None:
    """A compiled writer for *schema* with its string field "text" given as UTF-8 bytes.

    A string's encoding is its UTF-8 length, then those bytes: exactly the encoding of
    the bytes themselves (https://avro.apache.org/docs/1.11.1/specification/#binary-encoding),
    so the schema with "text" typed bytes writes the same message from the bytes.
    """
    if not _has_string_text(schema):
        return None
    as_bytes = [{**field, "type": "bytes"} if field["name"] == "text" else field for field in schema["fields"]]
    return compile_writer({**schema, "fields": as_bytes})


def _has_string_text(schema: Any) -> bool:
    fields = schema.get("fields", []) if isinstance(schema, dict) else []
    return any(field["name"] == "text" and field["type"] == "string" for field in fields)


class AvroDeserializer:
    """``(data: bytes) -> dict`` read into our schema *reader_schema_name*.

    The writer schema is found by the single-object fingerprint in the store, or
    by the Confluent schema id in the store, then in *registry*.  Each writer
    schema is resolved against the reader once and cached.
    """

    __slots__ = ("store", "reader", "_registry", "_by_fingerprint", "_by_id")

    def __init__(self, store: SchemaStore, reader_schema_name: str, registry: SchemaRegistry | None = None) -> None:
        self.store = store
        self.reader: StoredSchema = store.reader(reader_schema_name)
        self._registry = registry
        self._by_fingerprint: dict[int, _Plan] = {}
        self._by_id: dict[int, _Plan] = {}

    def __repr__(self) -> str:
        return f"AvroDeserializer({self.reader.name!r}, registry={self._registry!r})"

    def __call__(self, data: bytes) -> dict[str, Any]:
        framing, key, offset = read_header(data)
        if framing is Framing.SINGLE_OBJECT:
            plan = self._by_fingerprint.get(key) or self._plan_fingerprint(key)
        else:
            plan = self._by_id.get(key) or self._plan_schema_id(key)
        buffer = BytesIO(data)
        buffer.seek(offset)
        try:
            record = schemaless_reader(buffer, *plan)
        except SchemaResolutionError as exc:
            # fastavro's message prints both schemas whole; the cause keeps it.
            raise IncompatibleSchemaError(
                f"writer schema {_describe(framing, key)} cannot be resolved into {self.reader.name}"
            ) from exc
        except _READ_ERRORS as exc:
            raise CorruptRecordError(
                f"Avro payload does not decode with writer schema {_describe(framing, key)}: {exc!r}"
            ) from exc
        if buffer.tell() != len(data):
            raise CorruptRecordError(
                f"{len(data) - buffer.tell()} bytes left after the record (writer schema {_describe(framing, key)})"
            )
        assert isinstance(record, dict)  # the reader schema is a record
        return record

    def writer_schema(self, data: bytes) -> StoredSchema:
        """The writer schema *data* names (for inspection; raises like ``__call__``)."""
        framing, key, _ = read_header(data)
        if framing is Framing.SINGLE_OBJECT:
            return self.store.by_fingerprint(key)
        return self._writer_by_id(key)

    def _plan_fingerprint(self, fingerprint: int) -> _Plan:
        plan = self._by_fingerprint[fingerprint] = self._resolve(self.store.by_fingerprint(fingerprint))
        return plan

    def _plan_schema_id(self, schema_id: int) -> _Plan:
        plan = self._by_id[schema_id] = self._resolve(self._writer_by_id(schema_id))
        return plan

    def _writer_by_id(self, schema_id: int) -> StoredSchema:
        known = self.store.by_registry_id(schema_id)
        if known is not None:
            return known
        if self._registry is None:
            raise UnknownSchemaError(
                f"Confluent-framed message with schema id {schema_id}, but no Schema Registry is configured",
                schema_id=schema_id,
            )
        return self._registry.writer_schema(schema_id, self.store)

    def _resolve(self, writer: StoredSchema) -> _Plan:
        # The same schema needs no resolution; passing None also spares fastavro
        # comparing the two schemas on every message.
        if writer.fingerprint == self.reader.fingerprint:
            return (self.reader.parsed, None)
        return (writer.parsed, self.reader.parsed)


def _describe(framing: Framing, key: int) -> str:
    return f"fingerprint {key:016x}" if framing is Framing.SINGLE_OBJECT else f"id {key}"
