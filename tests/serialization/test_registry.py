"""The Confluent path against confluent-kafka's in-memory Schema Registry.

No real registry runs here (no Docker; Apicurio publishes no runnable jar to
Maven Central and Karapace needs Kafka), so these use ``MockSchemaRegistryClient``,
the client confluent-kafka itself returns for ``mock://`` URLs: same API, same
errors (404 / 40400 for an unknown id), schemas kept in memory.
"""

from __future__ import annotations

import json
import socket
from collections import Counter
from io import BytesIO

import pytest
from confluent_kafka.schema_registry import Schema, SchemaReference
from confluent_kafka.schema_registry._sync.mock_schema_registry_client import MockSchemaRegistryClient
from fastavro import parse_schema, schemaless_writer

from consumer.exceptions import ConfigError
from consumer.serialization import (
    AvroDeserializer,
    AvroSerializer,
    RegistryError,
    SchemaRegistry,
    UnknownSchemaError,
    value_subject,
)
from consumer.serialization.framing import confluent_header

from serialization_samples import load_avsc, raw_record


class CountingClient(MockSchemaRegistryClient):
    """The in-memory registry, counting the calls that would cross the network."""

    def __init__(self) -> None:
        super().__init__({"url": "mock://counting"})
        self.calls: Counter[str] = Counter()

    def register_schema(self, *args, **kwargs):
        self.calls["register_schema"] += 1
        return super().register_schema(*args, **kwargs)

    def lookup_schema(self, *args, **kwargs):
        self.calls["lookup_schema"] += 1
        return super().lookup_schema(*args, **kwargs)

    def get_schema(self, *args, **kwargs):
        self.calls["get_schema"] += 1
        return super().get_schema(*args, **kwargs)


@pytest.fixture
def counting() -> CountingClient:
    return CountingClient()


def _newer_raw_schema() -> dict:
    """RawResponse as a newer crawler might write it: one more field, with a default."""
    schema = load_avsc("raw_response")
    schema["fields"].append({"name": "http_version", "type": "string", "default": "1.1", "doc": "HTTP version."})
    return schema


def _confluent_message(schema_id: int, schema: dict, record: dict) -> bytes:
    out = BytesIO()
    out.write(confluent_header(schema_id))
    schemaless_writer(out, parse_schema(schema), record)
    return out.getvalue()


def test_value_subject():
    assert value_subject("crawl.clean") == "crawl.clean-value"


def test_serializer_registers_once_under_the_subject(store, counting):
    registry = SchemaRegistry("mock://counting", client=counting)
    serializer = AvroSerializer(store, "DecodedResponse", registry, value_subject("crawl.clean"))
    assert counting.calls["register_schema"] == 0  # lazily, on first message
    first = serializer(_decoded())
    second = serializer(_decoded())
    assert counting.calls["register_schema"] == 1
    registered = counting.get_latest_version("crawl.clean-value")
    assert first[:5] == second[:5] == confluent_header(registered.schema_id)
    # What is registered is the self-contained schema, Header inlined.
    assert json.loads(registered.schema.schema_str) == store.reader("DecodedResponse").standalone


def test_lookup_only_when_auto_registration_is_off(store, counting):
    registry = SchemaRegistry("mock://counting", auto_register=False, client=counting)
    serializer = AvroSerializer(store, "RawResponse", registry, "crawl.raw-value")
    with pytest.raises(ConfigError, match=r"not registered under subject 'crawl\.raw-value'"):
        serializer(raw_record())
    # The mock matches schema strings exactly (a real registry compares them parsed),
    # so register the compact JSON the lookup sends.
    compact = json.dumps(store.reader("RawResponse").standalone, separators=(",", ":"))
    schema_id = counting.register_schema("crawl.raw-value", Schema(compact, "AVRO"))
    data = serializer(raw_record())
    assert data[:5] == confluent_header(schema_id)
    assert counting.calls["register_schema"] == 1  # only ours, above


def test_reads_a_schema_id_the_store_never_saw(store, counting):
    registry = SchemaRegistry("mock://counting", client=counting)
    newer = _newer_raw_schema()
    schema_id = counting.register_schema("crawl.raw-value", Schema(json.dumps(newer), "AVRO"))
    record = raw_record(http_version="2")
    data = _confluent_message(schema_id, newer, record)
    assert store.by_registry_id(schema_id) is None

    deserializer = AvroDeserializer(store, "RawResponse", registry)
    read = deserializer(data)
    del record["http_version"]
    assert read == record  # the newer field is dropped: our reader does not know it
    assert deserializer(data) == record
    assert counting.calls["get_schema"] == 1  # fetched once, then cached
    assert store.by_registry_id(schema_id).fingerprint != store.reader("RawResponse").fingerprint
    # A second deserializer on the same store needs no registry call either.
    AvroDeserializer(store, "RawResponse", registry)(data)
    assert counting.calls["get_schema"] == 1


def test_resolves_schema_references(store, registry):
    # A writer schema using a named type that only a referenced subject defines.
    tls = {"type": "record", "name": "TlsInfo", "namespace": "org.crawler",
           "fields": [{"name": "version", "type": "string"}]}
    registry.client.register_schema("org.crawler.TlsInfo", Schema(json.dumps(tls), "AVRO"))
    writer = load_avsc("raw_response")
    writer["fields"].append({"name": "tls", "type": ["null", "org.crawler.TlsInfo"], "default": None})
    schema_id = registry.client.register_schema(
        "crawl.raw-value",
        Schema(json.dumps(writer), "AVRO", [SchemaReference("org.crawler.TlsInfo", "org.crawler.TlsInfo", 1)]),
    )
    named: dict = {}
    parse_schema(tls, named)
    out = BytesIO()
    out.write(confluent_header(schema_id))
    schemaless_writer(out, parse_schema(writer, named), raw_record(tls={"version": "TLSv1.3"}))
    assert AvroDeserializer(store, "RawResponse", registry)(out.getvalue()) == raw_record()


def test_unknown_schema_id(store, registry):
    data = confluent_header(4242) + b"\x00"
    with pytest.raises(UnknownSchemaError, match="no schema id 4242") as caught:
        AvroDeserializer(store, "RawResponse", registry)(data)
    assert caught.value.reason == "unknown-schema"
    assert caught.value.schema_id == 4242


def test_non_avro_schema_id(store, registry):
    schema_id = registry.client.register_schema("json-value", Schema('{"type": "object"}', "JSON"))
    with pytest.raises(UnknownSchemaError, match="JSON schema, not Avro"):
        AvroDeserializer(store, "RawResponse", registry)(confluent_header(schema_id) + b"\x00")


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_unreachable_registry_is_not_a_quarantine_reason(store):
    registry = SchemaRegistry(f"http://127.0.0.1:{_closed_port()}", {"max.retries": 0})
    with pytest.raises(RegistryError) as caught:
        AvroDeserializer(store, "RawResponse", registry)(confluent_header(1) + b"\x00")
    assert caught.value.reason is None  # retry or stop; never quarantine for this
    with pytest.raises(RegistryError):
        AvroSerializer(store, "RawResponse", registry, "crawl.raw-value")(raw_record())


def test_registry_settings_validated():
    with pytest.raises(ConfigError, match="http"):
        SchemaRegistry("ftp://registry:8081")
    with pytest.raises(ConfigError, match="rejected"):
        SchemaRegistry("http://127.0.0.1:1", {"no.such.setting": "x"}).client  # noqa: B018 - the property raises


def test_repr_hides_credentials():
    registry = SchemaRegistry(
        "https://user:s3cret@registry.example:8081", {"basic.auth.user.info": "user:s3cret"}
    )
    assert "s3cret" not in repr(registry)
    assert "registry.example:8081" in repr(registry)


def _decoded():
    from serialization_samples import decoded_record

    return decoded_record()


def test_invalid_writer_schema_in_the_registry_is_unknown(store, registry):
    # A type name defined nowhere; the in-memory registry does not check, fastavro does.
    bad = {"type": "record", "name": "Bad", "fields": [{"name": "a", "type": "NoSuchType"}]}
    schema_id = registry.client.register_schema("bad-value", Schema(json.dumps(bad), "AVRO"))
    with pytest.raises(UnknownSchemaError, match=f"schema id {schema_id} is not a usable Avro schema"):
        AvroDeserializer(store, "RawResponse", registry)(confluent_header(schema_id) + b"\x00")


def test_missing_reference_is_unknown(store, registry):
    writer = load_avsc("raw_response")
    writer["fields"].append({"name": "tls", "type": ["null", "org.crawler.TlsInfo"], "default": None})
    schema_id = registry.client.register_schema(
        "crawl.raw-value",
        Schema(json.dumps(writer), "AVRO", [SchemaReference("org.crawler.TlsInfo", "org.crawler.TlsInfo", 3)]),
    )
    with pytest.raises(UnknownSchemaError, match=r"references org\.crawler\.TlsInfo version 3"):
        AvroDeserializer(store, "RawResponse", registry)(confluent_header(schema_id) + b"\x00")
