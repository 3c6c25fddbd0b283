"""Avro serialization of the landing, clean and quarantine records.

Schemas are parsed once (``SchemaStore``); ``AvroSerializer`` and
``AvroDeserializer`` are small callables over them; ``framing`` holds the two
wire framings (Avro single-object, Confluent); ``SchemaRegistry`` is the lazy
registry client; ``build_serde`` makes the pipeline's five of them from the
settings.  Errors carry the quarantine ``reason`` (``exceptions``).
"""

from __future__ import annotations

from .avro import AvroDeserializer, AvroSerializer
from .exceptions import (
    CorruptRecordError,
    IncompatibleSchemaError,
    InvalidRecordError,
    RegistryError,
    SchemaDefinitionError,
    SerializationError,
    UnknownSchemaError,
)
from .framing import Framing
from .registry import SchemaRegistry, value_subject
from .schemas import SCHEMAS_DIR_ENV, SchemaStore, StoredSchema, schemas_dir
from .serde import Serde, SerdeSettings, build_serde

__all__ = [
    "SCHEMAS_DIR_ENV",
    "AvroDeserializer",
    "AvroSerializer",
    "CorruptRecordError",
    "Framing",
    "IncompatibleSchemaError",
    "InvalidRecordError",
    "RegistryError",
    "SchemaDefinitionError",
    "SchemaRegistry",
    "SchemaStore",
    "Serde",
    "SerdeSettings",
    "SerializationError",
    "StoredSchema",
    "UnknownSchemaError",
    "build_serde",
    "schemas_dir",
    "value_subject",
]
