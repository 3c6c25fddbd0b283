"""Errors of the serialization layer.

Each carries ``reason``: the quarantine reason string (QuarantinedResponse.reason)
for a message that fails this way, or None when the fault is not the message's
and quarantining it would be wrong (the registry is down, our own record is
invalid): the processor must retry or stop instead.
"""

from __future__ import annotations

from ..exceptions import CrawlDecoderError


class SerializationError(CrawlDecoderError):
    """Root of the serialization layer's errors."""

    reason: str | None = None


class CorruptRecordError(SerializationError):
    """The bytes are not a readable Avro message: empty, unknown magic byte,
    truncated, trailing garbage, or a payload the writer schema cannot decode."""

    reason = "unreadable-record"


class UnknownSchemaError(SerializationError):
    """The message names a writer schema (fingerprint or registry id) we cannot find."""

    reason = "unknown-schema"

    def __init__(self, message: str, *, fingerprint: int | None = None, schema_id: int | None = None) -> None:
        super().__init__(message)
        self.fingerprint = fingerprint
        self.schema_id = schema_id


class SchemaDefinitionError(SerializationError):
    """A schema file or a registered writer schema is not valid Avro, or its named
    types cannot be resolved.  A configuration fault, raised at start-up."""


class InvalidRecordError(SerializationError):
    """A record we were asked to write does not match its schema: a bug of the
    caller, not of the message being processed."""


class RegistryError(SerializationError):
    """The Schema Registry could not be reached or answered with an error other
    than "not found".  Transient: retry, do not quarantine."""


class IncompatibleSchemaError(SerializationError):
    """The writer schema is known but cannot be resolved into our reader schema
    (e.g. it lacks a field our schema has no default for)."""

    reason = "incompatible-schema"
