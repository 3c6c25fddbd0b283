"""Schema evolution: records written with older or newer writer schemas, read into ours."""

from __future__ import annotations

import copy
import json
from io import BytesIO

import pytest
from confluent_kafka.schema_registry import Schema
from fastavro import parse_schema, schemaless_writer

from consumer.serialization import (
    AvroDeserializer,
    AvroSerializer,
    IncompatibleSchemaError,
    UnknownSchemaError,
)
from consumer.serialization.framing import confluent_header, single_object_header

from serialization_samples import decoded_record, load_avsc, raw_record

RAW_DEFAULTS = {"truncated": False, "content_encoding_removed": False, "crawl_id": None, "ip": None}


def _without(schema: dict, *names: str) -> dict:
    schema = copy.deepcopy(schema)
    schema["fields"] = [field for field in schema["fields"] if field["name"] not in names]
    return schema


def _with(schema: dict, *fields: dict) -> dict:
    schema = copy.deepcopy(schema)
    schema["fields"].extend(fields)
    return schema


def _payload(schema: dict, record: dict, named: dict | None = None) -> bytes:
    out = BytesIO()
    schemaless_writer(out, parse_schema(schema, named if named is not None else {}), record)
    return out.getvalue()


def _single_object(store, schema: dict, record: dict) -> bytes:
    writer = store.register_writer(schema)
    return single_object_header(writer.fingerprint) + _payload(schema, record)


def test_older_writer_missing_optional_fields_gets_defaults(store):
    # The first crawlers wrote only the five required fields.
    old = _without(load_avsc("raw_response"), *RAW_DEFAULTS)
    record = {key: value for key, value in raw_record().items() if key not in RAW_DEFAULTS}
    read = AvroDeserializer(store, "RawResponse")(_single_object(store, old, record))
    assert read == {**record, **RAW_DEFAULTS}


def test_newer_writer_with_extra_fields_is_read_without_them(store):
    newer = _with(
        load_avsc("raw_response"),
        {"name": "http_version", "type": "string", "default": "1.1"},
        {"name": "redirects", "type": {"type": "array", "items": "string"}, "default": []},
    )
    record = raw_record(http_version="2", redirects=["http://example.jp/", "https://example.jp/"])
    read = AvroDeserializer(store, "RawResponse")(_single_object(store, newer, record))
    assert read == raw_record()


def test_newer_writer_with_a_changed_nested_record(store):
    # Header grew a field; the named type is redefined inside the newer writer schema.
    newer = load_avsc("raw_response")
    header = newer["fields"][3]["type"]["items"]
    header["fields"].append({"name": "raw", "type": "bytes", "default": ""})
    record = raw_record()
    written = copy.deepcopy(record)
    for item in written["headers"]:
        item["raw"] = item["value"].encode("latin-1")
    assert AvroDeserializer(store, "RawResponse")(_single_object(store, newer, written)) == record


def test_writer_field_order_does_not_matter(store):
    reordered = load_avsc("raw_response")
    reordered["fields"].reverse()
    record = raw_record()
    assert AvroDeserializer(store, "RawResponse")(_single_object(store, reordered, record)) == record


def test_older_decoded_response_reads_with_defaults(store):
    # A clean record from before override, threshold and carried raw fields existed.
    dropped = ("override", "replacement_threshold", "truncated", "crawl_id", "ip", "confidence")
    old = _without(load_avsc("decoded_response"), *dropped)  # still uses Header by name
    record = {key: value for key, value in decoded_record().items() if key not in dropped}
    named: dict = {}
    parse_schema(load_avsc("raw_response"), named)
    data = single_object_header(store.register_writer(old).fingerprint) + _payload(old, record, named)
    read = AvroDeserializer(store, "DecodedResponse")(data)
    assert read == {
        **record, "override": None, "replacement_threshold": 0, "truncated": False,
        "crawl_id": None, "ip": None, "confidence": None,
    }


def test_newer_writer_through_the_registry(store, registry):
    newer = _with(load_avsc("raw_response"), {"name": "http_version", "type": "string", "default": "1.1"})
    schema_id = registry.client.register_schema("crawl.raw-value", Schema(json.dumps(newer), "AVRO"))
    data = confluent_header(schema_id) + _payload(newer, raw_record(http_version="3"))
    assert AvroDeserializer(store, "RawResponse", registry)(data) == raw_record()


def test_our_records_read_by_an_older_reader(store):
    # The other direction: consumers still on the first RawResponse read what we write.
    from fastavro import schemaless_reader

    old = parse_schema(_without(load_avsc("raw_response"), *RAW_DEFAULTS))
    data = AvroSerializer(store, "RawResponse")(raw_record())
    payload = BytesIO(data[10:])
    read = schemaless_reader(payload, store.reader("RawResponse").parsed, old)
    assert read == {key: value for key, value in raw_record().items() if key not in RAW_DEFAULTS}


def test_writer_missing_a_required_field_is_incompatible(store):
    broken = _without(load_avsc("raw_response"), "status")
    record = {key: value for key, value in raw_record().items() if key != "status"}
    expected = "cannot be resolved into io.crawldecoder.v1.RawResponse"
    with pytest.raises(IncompatibleSchemaError, match=expected) as caught:
        AvroDeserializer(store, "RawResponse")(_single_object(store, broken, record))
    assert caught.value.reason == "incompatible-schema"


def test_unregistered_newer_writer_is_unknown(store):
    newer = _with(load_avsc("raw_response"), {"name": "http_version", "type": "string", "default": "1.1"})
    fingerprint = store.register_writer(newer).fingerprint
    other_store = type(store)(store.directory)
    data = single_object_header(fingerprint) + _payload(newer, raw_record(http_version="2"))
    with pytest.raises(UnknownSchemaError):
        AvroDeserializer(other_store, "RawResponse")(data)
