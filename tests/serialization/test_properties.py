"""Properties: the deserializer fails only with SerializationError, whatever the bytes;
records of any shape the schema allows survive a round trip."""

from __future__ import annotations

import datetime as dt
import functools
import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from consumer.serialization import (
    AvroDeserializer,
    AvroSerializer,
    SchemaRegistry,
    SchemaStore,
    SerializationError,
)
from consumer.serialization.framing import confluent_header, single_object_header

from serialization_samples import REPO_SCHEMAS, SAMPLES, UTC

NAMES = sorted(SAMPLES)
PROPERTY = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@functools.cache
def _setup():
    """One store and registry with our three schemas registered as ids 1-3, and a
    deserializer per reader schema; valid messages of each schema in both framings."""
    store = SchemaStore(REPO_SCHEMAS)
    registry = SchemaRegistry(f"mock://{uuid.uuid4().hex}")
    valid = []
    for name in NAMES:
        for use_registry in (None, registry):
            serializer = AvroSerializer(store, name, use_registry, f"{name}-value")
            valid.append(serializer(SAMPLES[name]()))
    deserializers = [AvroDeserializer(store, name, registry) for name in NAMES]
    headers = [single_object_header(store.reader(name).fingerprint) for name in NAMES]
    headers += [confluent_header(schema_id) for schema_id in (1, 2, 3, 4)]
    return deserializers, headers, valid


def _read_all(data: bytes) -> None:
    for deserializer in _setup()[0]:
        try:
            record = deserializer(data)
        except SerializationError:
            continue
        assert isinstance(record, dict)


@PROPERTY
@given(st.binary(max_size=200))
def test_random_bytes(data):
    _read_all(data)


@PROPERTY
@given(st.integers(0, 6), st.binary(max_size=300))
def test_valid_header_then_random_payload(which, payload):
    _read_all(_setup()[1][which] + payload)


@PROPERTY
@given(st.data())
def test_mutated_valid_messages(data):
    message = bytearray(data.draw(st.sampled_from(_setup()[2])))
    for _ in range(data.draw(st.integers(1, 4))):
        kind = data.draw(st.sampled_from(["flip", "insert", "delete", "cut"]))
        at = data.draw(st.integers(0, max(len(message) - 1, 0)))
        if kind == "flip" and message:
            message[at] ^= data.draw(st.integers(1, 255))
        elif kind == "insert":
            message[at:at] = data.draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del message[at : at + data.draw(st.integers(1, 8))]
        else:
            del message[at:]
    _read_all(bytes(message))


# -- round trip of arbitrary RawResponse records ----------------------------------------------------

_MILLIS = st.integers(-(2**41), 2**42)  # years ~1900 to ~2109: what datetime can represent
_text = st.text(max_size=40)
_optional_text = st.none() | _text

RAW_RECORDS = st.fixed_dictionaries(
    {
        "url": _text,
        "fetched_at": _MILLIS,
        "status": st.integers(-(2**31), 2**31 - 1),
        "headers": st.lists(st.fixed_dictionaries({"name": _text, "value": _text}), max_size=6),
        "body": st.binary(max_size=300),
    },
    optional={
        "truncated": st.booleans(),
        "content_encoding_removed": st.booleans(),
        "crawl_id": _optional_text,
        "ip": _optional_text,
    },
)


@functools.cache
def _raw_pair():
    store = SchemaStore(REPO_SCHEMAS)
    return AvroSerializer(store, "RawResponse"), AvroDeserializer(store, "RawResponse")


@PROPERTY
@given(RAW_RECORDS)
def test_raw_records_round_trip(record):
    serialize, deserialize = _raw_pair()
    read = deserialize(serialize(record))
    expected = {"truncated": False, "content_encoding_removed": False, "crawl_id": None, "ip": None, **record}
    expected["fetched_at"] = dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(milliseconds=record["fetched_at"])
    assert read == expected
