"""Schema evolution end to end: newer writer schemas are read with our reader schema; unknown ones are quarantined.

How the processor learns of a newer writer schema:

- Single-object framing: the fingerprint must be known.  ``settings.writer_schemas_dir`` holds
  writer-only schemas (a crawler's newer RawResponse).  Putting it in ``schemas_dir`` instead does
  not work: the newer RawResponse becomes the reader and is embedded in QuarantinedResponse,
  whose fingerprint then changes (checked below).
- Confluent framing: the writer schema is fetched from the registry by the id in the message.
  confluent-kafka's ``mock://`` client keeps its schemas per client object, not per URL, so a
  test cannot register through a second client: it registers through the App's own registry.
"""

from __future__ import annotations

import io
import json
import shutil
import threading
import time
import uuid

import pytest
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError
from fastavro import schemaless_writer

from consumer.app import App
from consumer.kafka import make_consumer, make_producer
from consumer.serialization.avro import AvroDeserializer
from consumer.serialization.framing import confluent_header, single_object_header
from consumer.serialization.schemas import SchemaStore, schemas_dir

PAGE = "<!DOCTYPE html><html><head><meta charset=utf-8><title>t</title></head><body>Grüße, 東京</body></html>"


def newer_raw_schema() -> dict:
    """Our RawResponse plus a field a newer crawler writes (with a default, as the schema's doc asks)."""
    schema = json.loads((schemas_dir() / "raw_response.avsc").read_text())
    schema["fields"].append({"name": "render_ms", "type": "long", "default": 0, "doc": "Time to render."})
    return schema


def newer_record(raw) -> dict:
    return {**raw("https://evolved.example/", PAGE.encode(), "text/html"), "render_ms": 1234}


def avro_bytes(parsed_schema, record: dict) -> bytes:
    out = io.BytesIO()
    schemaless_writer(out, parsed_schema, record)
    return out.getvalue()


def produce_bytes(connection, topic: str, items: list[tuple[bytes, bytes]]) -> None:
    producer = make_producer(connection)
    for key, value in items:
        producer.produce(topic, value, key)
    assert producer.flush(30) == 0


def read_all(connection, topics, clean: AvroDeserializer, quarantined: AvroDeserializer, expected: int) -> dict:
    """key -> (destination, record), read_committed, until *expected* records (then 2 s for duplicates)."""
    consumer = make_consumer(connection, f"reader-{uuid.uuid4().hex}")
    consumer.subscribe([topics["clean"], topics["quarantine"]])
    found: dict[bytes, tuple[str, dict]] = {}
    deadline, quiet_until = time.monotonic() + 120, None
    try:
        while time.monotonic() < deadline and (quiet_until is None or time.monotonic() < quiet_until):
            message = consumer.poll(0.2)
            if message is None:
                continue
            assert message.error() is None, message.error()
            assert message.key() not in found, f"{message.key()!r} written twice"
            is_clean = message.topic() == topics["clean"]
            found[message.key()] = ("clean" if is_clean else "quarantine", (clean if is_clean else quarantined)(message.value()))
            if len(found) >= expected and quiet_until is None:
                quiet_until = time.monotonic() + 2
    finally:
        consumer.close()
    assert len(found) == expected, f"found {len(found)} of {expected}"
    return found


@pytest.fixture
def run_app(kafka_connection):
    started = []

    def start(settings) -> App:
        app = App(settings, kafka_connection)
        thread = threading.Thread(target=app.run, daemon=True)
        thread.start()
        started.append((app, thread))
        return app

    yield start
    for app, thread in started:
        app.stop()
        thread.join(60)
        assert not thread.is_alive()


def test_single_object_newer_writer_from_writer_schemas_dir_and_an_unknown_fingerprint(
    settings_for, run_app, kafka_connection, topics, raw, tmp_path
):
    writers = tmp_path / "writers"
    writers.mkdir()
    (writers / "raw_response_v2.avsc").write_text(json.dumps(newer_raw_schema()))
    ours = SchemaStore()
    current = ours.reader("RawResponse")
    newer = SchemaStore().register_writer(newer_raw_schema())

    evolved = single_object_header(newer.fingerprint) + avro_bytes(newer.parsed, newer_record(raw))
    current_bytes = single_object_header(current.fingerprint) + avro_bytes(current.parsed, raw("https://old.example/", PAGE.encode()))
    unknown = single_object_header(0x0123456789ABCDEF) + avro_bytes(newer.parsed, newer_record(raw))
    produce_bytes(kafka_connection, topics["landing"], [(b"evolved", evolved), (b"current", current_bytes), (b"unknown", unknown)])
    app = run_app(settings_for(writer_schemas_dir=str(writers)))
    assert app.serde.deserialize_raw.reader is app.serde.deserialize_raw.store.reader("RawResponse")
    assert app.serde.deserialize_raw.reader.fingerprint == current.fingerprint, "still our reader schema"

    found = read_all(
        kafka_connection, topics, AvroDeserializer(ours, "DecodedResponse"), AvroDeserializer(ours, "QuarantinedResponse"), 3
    )
    assert found[b"current"][0] == "clean", "records of our own schema still read"
    where, record = found[b"evolved"]
    assert where == "clean", record
    assert "Grüße, 東京" in record["text"] and record["encoding"] == "UTF-8"
    assert record["url"] == "https://evolved.example/"
    where, record = found[b"unknown"]
    assert (where, record["reason"]) == ("quarantine", "unknown-schema")
    assert record["raw_value"] == unknown, "the original bytes are kept for replay"
    assert record["raw"] is None
    assert "0123456789abcdef" in record["error"]


def test_the_mock_registry_is_per_client_not_per_url():
    """Why the registry test below registers through the App's own client."""
    url = f"mock://{uuid.uuid4().hex}"
    first, second = SchemaRegistryClient.new_client({"url": url}), SchemaRegistryClient.new_client({"url": url})
    schema_id = first.register_schema("s-value", Schema(json.dumps(newer_raw_schema()), "AVRO"))
    with pytest.raises(SchemaRegistryError, match="Schema Not Found"):
        second.get_schema(schema_id)


def test_confluent_framed_newer_writer_from_the_registry_and_an_unknown_id(
    settings_for, run_app, kafka_connection, topics, raw
):
    app = run_app(settings_for(schema_registry_url=f"mock://{uuid.uuid4().hex}"))
    registry = app.serde.deserialize_raw._registry  # the App's registry client (see the module docstring)
    newer = SchemaStore().register_writer(newer_raw_schema())
    schema_id = registry.client.register_schema(f"{topics['landing']}-value", Schema(json.dumps(newer.standalone), "AVRO"))

    evolved = confluent_header(schema_id) + avro_bytes(newer.parsed, newer_record(raw))
    unknown = confluent_header(999_999) + avro_bytes(newer.parsed, newer_record(raw))
    produce_bytes(kafka_connection, topics["landing"], [(b"evolved", evolved), (b"unknown", unknown)])

    store = SchemaStore()
    found = read_all(
        kafka_connection,
        topics,
        AvroDeserializer(store, "DecodedResponse", registry),
        AvroDeserializer(store, "QuarantinedResponse", registry),
        2,
    )
    where, record = found[b"evolved"]
    assert where == "clean", record
    assert "Grüße, 東京" in record["text"]
    where, record = found[b"unknown"]
    assert (where, record["reason"]) == ("quarantine", "unknown-schema")
    assert record["raw_value"] == unknown


def test_a_second_raw_response_in_schemas_dir_would_change_what_we_write(tmp_path):
    """Why writer versions go to writer_schemas_dir: in schemas_dir they replace our own types."""
    directory = tmp_path / "schemas"
    shutil.copytree(schemas_dir(), directory)
    (directory / "crawler_raw_response_v2.avsc").write_text(json.dumps(newer_raw_schema()))
    mixed, ours = SchemaStore(directory), SchemaStore()
    assert mixed.reader("QuarantinedResponse").fingerprint != ours.reader("QuarantinedResponse").fingerprint
