"""The two ways a Kafka message value says which schema wrote its Avro payload.

- Avro single-object encoding (https://avro.apache.org/docs/1.11.1/specification/#single-object-encoding):
  ``C3 01``, the 8-byte little-endian CRC-64-AVRO fingerprint of the writer
  schema, then the Avro binary encoding.  Needs no registry.
- Confluent wire format (https://docs.confluent.io/platform/current/schema-registry/fundamentals/serdes-develop/index.html#wire-format):
  ``00``, the 4-byte big-endian Schema Registry id, then the Avro binary encoding.

The first byte tells them apart, so input accepts both, message by message.
"""

from __future__ import annotations

import enum
import struct

from .exceptions import CorruptRecordError

SINGLE_OBJECT_MAGIC = b"\xc3\x01"
CONFLUENT_MAGIC = b"\x00"

_FINGERPRINT = struct.Struct("<Q")
_SCHEMA_ID = struct.Struct(">I")
SINGLE_OBJECT_HEADER_SIZE = len(SINGLE_OBJECT_MAGIC) + _FINGERPRINT.size  # 10
CONFLUENT_HEADER_SIZE = len(CONFLUENT_MAGIC) + _SCHEMA_ID.size  # 5


class Framing(str, enum.Enum):
    SINGLE_OBJECT = "single-object"
    CONFLUENT = "confluent"


def single_object_header(fingerprint: int) -> bytes:
    """``C3 01`` + the fingerprint as 8 little-endian bytes."""
    return SINGLE_OBJECT_MAGIC + _FINGERPRINT.pack(fingerprint)


def confluent_header(schema_id: int) -> bytes:
    """``00`` + the registry id as 4 big-endian bytes."""
    return CONFLUENT_MAGIC + _SCHEMA_ID.pack(schema_id)


def read_header(data: bytes | bytearray | memoryview) -> tuple[Framing, int, int]:
    """Return ``(framing, fingerprint or schema id, offset of the Avro payload)``.

    Raises ``CorruptRecordError`` for an empty value, an unknown magic byte or a
    header cut short.
    """
    if not data:
        raise CorruptRecordError("empty message value: no Avro framing")
    first = data[0]
    if first == 0xC3:
        if len(data) < SINGLE_OBJECT_HEADER_SIZE:
            raise CorruptRecordError(
                f"truncated single-object header: {len(data)} of {SINGLE_OBJECT_HEADER_SIZE} bytes"
            )
        if data[1] != 0x01:
            raise CorruptRecordError(f"unknown single-object format version 0x{data[1]:02x} (expected C3 01)")
        return Framing.SINGLE_OBJECT, _FINGERPRINT.unpack_from(data, 2)[0], SINGLE_OBJECT_HEADER_SIZE
    if first == 0x00:
        if len(data) < CONFLUENT_HEADER_SIZE:
            raise CorruptRecordError(
                f"truncated Confluent header: {len(data)} of {CONFLUENT_HEADER_SIZE} bytes"
            )
        return Framing.CONFLUENT, _SCHEMA_ID.unpack_from(data, 1)[0], CONFLUENT_HEADER_SIZE
    raise CorruptRecordError(
        f"unknown magic byte 0x{first:02x}: neither Avro single-object (C3 01) nor Confluent (00) framing"
    )
