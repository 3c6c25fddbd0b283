"""Framing: header bytes of both formats, and reading them back, as tables."""

from __future__ import annotations

import pytest

from consumer.serialization import CorruptRecordError
from consumer.serialization.framing import Framing, confluent_header, read_header, single_object_header

SINGLE_OBJECT_HEADERS = [
    (0, bytes.fromhex("c301 0000000000000000")),
    (1, bytes.fromhex("c301 0100000000000000")),
    (0x0102030405060708, bytes.fromhex("c301 0807060504030201")),  # little-endian
    (0xFFFFFFFFFFFFFFFF, bytes.fromhex("c301 ffffffffffffffff")),
    # The spec's fingerprint of "null", 7195948357588979594 = 0x63dd24e7cc258f8a.
    (7195948357588979594, bytes.fromhex("c301 8a8f25cce724dd63")),
]

CONFLUENT_HEADERS = [
    (0, bytes.fromhex("00 00000000")),
    (1, bytes.fromhex("00 00000001")),
    (0x01020304, bytes.fromhex("00 01020304")),  # big-endian
    (2**31 - 1, bytes.fromhex("00 7fffffff")),
]


@pytest.mark.parametrize(("fingerprint", "expected"), SINGLE_OBJECT_HEADERS)
def test_single_object_header(fingerprint, expected):
    assert single_object_header(fingerprint) == expected
    assert read_header(expected + b"\x02a") == (Framing.SINGLE_OBJECT, fingerprint, 10)


@pytest.mark.parametrize(("schema_id", "expected"), CONFLUENT_HEADERS)
def test_confluent_header(schema_id, expected):
    assert confluent_header(schema_id) == expected
    assert read_header(expected + b"\x02a") == (Framing.CONFLUENT, schema_id, 5)


def test_read_header_accepts_memoryview_and_empty_payload():
    data = memoryview(single_object_header(5))
    assert read_header(data) == (Framing.SINGLE_OBJECT, 5, 10)
    assert read_header(confluent_header(9)) == (Framing.CONFLUENT, 9, 5)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"\x01", "unknown magic byte 0x01"),
        (b"\xff\x00\x00\x00\x00\x00", "unknown magic byte 0xff"),
        (b"{", "unknown magic byte 0x7b"),  # JSON sent to an Avro topic
        (b"\xc3", "truncated single-object header: 1 of 10"),
        (bytes.fromhex("c301 00000000000000"), "truncated single-object header: 9 of 10"),
        (bytes.fromhex("c302 0000000000000000"), "format version 0x02"),
        (b"\x00\x00\x00\x01", "truncated Confluent header: 4 of 5"),
        (b"\x00", "truncated Confluent header: 1 of 5"),
    ],
)
def test_read_header_rejects(data, message):
    with pytest.raises(CorruptRecordError, match=message) as caught:
        read_header(data)
    assert caught.value.reason == "unreadable-record"
