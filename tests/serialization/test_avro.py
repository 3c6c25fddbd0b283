"""AvroSerializer / AvroDeserializer: exact bytes, round trips, strictness, errors."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from consumer.exceptions import ConfigError
from consumer.serialization import (
    AvroDeserializer,
    AvroSerializer,
    CorruptRecordError,
    Framing,
    InvalidRecordError,
    SchemaRegistry,
    SchemaStore,
    SerializationError,
    UnknownSchemaError,
    value_subject,
)
from consumer.serialization.framing import confluent_header, single_object_header

from avro_spec import canonical_form, rabin64
from serialization_samples import REPO_SCHEMAS, SAMPLES, UTC, decoded_record, load_avsc, raw_record

# RawResponse value -> Avro binary payload, worked out by hand from the spec's
# binary encoding (zig-zag varints, length-prefixed strings/bytes, blocked
# arrays ending in 0, union branch index before the value).
RAW_PAYLOADS = [
    pytest.param(
        {"url": "a", "fetched_at": 0, "status": 200, "headers": [], "body": b""},
        # "a"   ts  200=zz(400)  []  b""  truncated  removed  crawl_id=null  ip=null
        "0261 00 9003 00 00 00 00 00 00",
        id="minimal, defaults filled",
    ),
    pytest.param(
        {
            "url": "a", "fetched_at": 1, "status": 404,
            "headers": [{"name": "A", "value": "b"}], "body": b"\xff",
            "truncated": True, "crawl_id": "c",
        },
        # "a"  ts=zz(1)  404=zz(808)  [1 item: "A" "b", end]  b"\xff"  true  false  branch1 "c"  null
        "0261 02 a806 02 0241 0262 00 02ff 01 00 02 0263 00",
        id="header, union branch, boolean",
    ),
    pytest.param(
        {"url": "", "fetched_at": -1, "status": -1, "headers": [], "body": b"", "ip": "\u00e9"},
        # ""  ts=zz(-1)  -1=zz(-1)  []  b""  false  false  null  branch1 "é" as 2 UTF-8 bytes
        "00 01 01 00 00 00 00 00 02 04c3a9",
        id="negatives, UTF-8 string",
    ),
]


def _spec_fingerprint(file: str) -> int:
    return rabin64(canonical_form(load_avsc(file)).encode())


@pytest.mark.parametrize(("record", "payload_hex"), RAW_PAYLOADS)
def test_single_object_bytes(store, record, payload_hex):
    # C3 01, then the fingerprint computed from the spec (not from fastavro), little-endian.
    expected = b"\xc3\x01" + _spec_fingerprint("raw_response").to_bytes(8, "little") + bytes.fromhex(payload_hex)
    assert AvroSerializer(store, "RawResponse")(record) == expected


@pytest.mark.parametrize(("record", "payload_hex"), RAW_PAYLOADS)
def test_confluent_bytes(store, registry, record, payload_hex):
    serializer = AvroSerializer(store, "RawResponse", registry, value_subject("crawl.raw"))
    data = serializer(record)
    schema_id = registry.client.get_latest_version("crawl.raw-value").schema_id
    assert data == b"\x00" + schema_id.to_bytes(4, "big") + bytes.fromhex(payload_hex)


@pytest.mark.parametrize(("record", "payload_hex"), RAW_PAYLOADS)
def test_payloads_read_back_with_defaults(store, record, payload_hex):
    data = single_object_header(store.reader("RawResponse").fingerprint) + bytes.fromhex(payload_hex)
    read = AvroDeserializer(store, "RawResponse")(data)
    defaults = {"truncated": False, "content_encoding_removed": False, "crawl_id": None, "ip": None}
    expected = {**defaults, **record, "fetched_at": dt.datetime.fromtimestamp(record["fetched_at"] / 1000, UTC)}
    assert read == expected


@pytest.mark.parametrize("name", sorted(SAMPLES))
@pytest.mark.parametrize("framing", list(Framing))
def test_round_trip(store, registry, name, framing):
    use_registry = registry if framing is Framing.CONFLUENT else None
    serializer = AvroSerializer(store, name, use_registry, subject=value_subject("topic"))
    deserializer = AvroDeserializer(store, name, use_registry)
    record = SAMPLES[name]()
    data = serializer(record)
    assert serializer.framing is framing
    assert data.startswith(serializer.header)
    assert deserializer(data) == record


def test_round_trip_quarantine_without_optional_parts(store):
    record = SAMPLES["QuarantinedResponse"](
        raw=None, raw_key=None, raw_value=b"\x7bnot avro", attempt=None, error="unknown magic byte 0x7b",
        reason="unreadable-record", raw_headers=[],
    )
    record["origin"]["timestamp"] = None
    data = AvroSerializer(store, "QuarantinedResponse")(record)
    assert AvroDeserializer(store, "QuarantinedResponse")(data) == record


def test_timestamps_accept_integers_and_read_as_utc_datetimes(store):
    millis = 1_764_000_000_123
    data = AvroSerializer(store, "RawResponse")(raw_record(fetched_at=millis))
    fetched_at = AvroDeserializer(store, "RawResponse")(data)["fetched_at"]
    assert fetched_at == dt.datetime(2025, 11, 24, 16, 0, 0, 123000, tzinfo=UTC)
    assert int(fetched_at.timestamp() * 1000) == millis


def test_deserializer_reads_both_framings_message_by_message(store, registry):
    record = raw_record()
    single = AvroSerializer(store, "RawResponse")(record)
    confluent = AvroSerializer(store, "RawResponse", registry, "crawl.raw-value")(record)
    deserializer = AvroDeserializer(store, "RawResponse", registry)
    assert [deserializer(data) for data in (single, confluent, single)] == [record] * 3


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"extra": 1}, id="unknown field"),
        pytest.param({"status": "200"}, id="wrong type"),
        pytest.param({"headers": [{"name": "A"}]}, id="nested required field missing"),
        pytest.param({"body": "text, not bytes"}, id="str for bytes"),
    ],
)
def test_serializer_rejects_records_not_matching_the_schema(store, change):
    with pytest.raises(InvalidRecordError) as caught:
        AvroSerializer(store, "RawResponse")(raw_record(**change))
    assert caught.value.reason is None  # our bug, not the message's: never quarantined


def test_serializer_rejects_missing_required_field(store):
    record = raw_record()
    del record["url"]
    with pytest.raises(InvalidRecordError, match="RawResponse"):
        AvroSerializer(store, "RawResponse")(record)


def test_registry_needs_a_subject(store, registry):
    with pytest.raises(ConfigError):
        AvroSerializer(store, "RawResponse", registry)


def test_construction_makes_no_registry_call(store):
    # Port 9 on loopback: nothing answers.  Constructing must not try.
    unreachable = SchemaRegistry("http://127.0.0.1:9", {"max.retries": 0})
    serializer = AvroSerializer(store, "DecodedResponse", unreachable, "crawl.clean-value")
    AvroDeserializer(store, "RawResponse", unreachable)
    assert serializer.framing is Framing.CONFLUENT


# -- errors -----------------------------------------------------------------------------------------


def _valid(store) -> bytes:
    # ip=None: the message ends with that union's branch index, 0.
    return AvroSerializer(store, "RawResponse")(raw_record(ip=None))


ERRORS = [
    # (id, bytes from a valid single-object message, error class)
    ("empty", lambda valid: b"", CorruptRecordError),
    ("unknown magic", lambda valid: b"\x01" + valid[1:], CorruptRecordError),
    ("JSON instead of Avro", lambda valid: b'{"url": "x"}', CorruptRecordError),
    ("truncated header", lambda valid: valid[:6], CorruptRecordError),
    ("header only", lambda valid: valid[:10], CorruptRecordError),
    ("truncated payload", lambda valid: valid[:-5], CorruptRecordError),
    ("one byte short", lambda valid: valid[:-1], CorruptRecordError),
    ("trailing bytes", lambda valid: valid + b"\x00", CorruptRecordError),
    ("negative string length", lambda valid: valid[:10] + b"\x05abc", CorruptRecordError),
    ("varint never ends", lambda valid: valid[:10] + b"\xff" * 12, CorruptRecordError),
    ("invalid UTF-8 in url", lambda valid: valid[:10] + b"\x02\xff" + valid[12:], CorruptRecordError),
    ("union index out of range", lambda valid: valid[:-1] + b"\x04", CorruptRecordError),
    ("unknown fingerprint", lambda valid: valid[:2] + bytes(8) + valid[10:], UnknownSchemaError),
    ("fingerprint one bit off", lambda valid: valid[:2] + bytes([valid[2] ^ 1]) + valid[3:], UnknownSchemaError),
    ("Confluent framing, no registry", lambda valid: confluent_header(1) + valid[10:], UnknownSchemaError),
]


REASONS = {CorruptRecordError: "unreadable-record", UnknownSchemaError: "unknown-schema"}


@pytest.mark.parametrize(("make", "error"), [row[1:] for row in ERRORS], ids=[row[0] for row in ERRORS])
def test_deserializer_errors(store, make, error):
    with pytest.raises(error) as caught:
        AvroDeserializer(store, "RawResponse")(make(_valid(store)))
    assert isinstance(caught.value, SerializationError)
    assert caught.value.reason == REASONS[error]


def test_corrupt_payload_keeps_the_fastavro_cause(store):
    with pytest.raises(CorruptRecordError) as caught:
        AvroDeserializer(store, "RawResponse")(_valid(store)[:-5])
    assert isinstance(caught.value.__cause__, EOFError)


def test_unknown_fingerprint_is_reported(store):
    data = single_object_header(0x1122334455667788) + b"\x00"
    with pytest.raises(UnknownSchemaError, match="1122334455667788") as caught:
        AvroDeserializer(store, "RawResponse")(data)
    assert caught.value.fingerprint == 0x1122334455667788
    assert caught.value.schema_id is None


def test_reading_with_a_different_reader_schema_name(store):
    # A DecodedResponse message read as RawResponse: the names differ, so resolution fails,
    # and the message is reported as not readable as RawResponse.
    data = AvroSerializer(store, "DecodedResponse")(SAMPLES["DecodedResponse"]())
    with pytest.raises(SerializationError) as caught:
        AvroDeserializer(store, "RawResponse")(data)
    assert caught.value.reason == "incompatible-schema"


def test_writer_schema_of_a_message(store, registry):
    deserializer = AvroDeserializer(store, "RawResponse", registry)
    single = AvroSerializer(store, "RawResponse")(raw_record())
    confluent = AvroSerializer(store, "DecodedResponse", registry, "crawl.clean-value")(SAMPLES["DecodedResponse"]())
    assert deserializer.writer_schema(single) is store.reader("RawResponse")
    assert deserializer.writer_schema(confluent) is store.reader("DecodedResponse")
    with pytest.raises(CorruptRecordError):
        deserializer.writer_schema(b"")


# -- a page's text written from its UTF-8 bytes -------------------------------------------


_TEXTS = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300)


@given(text=_TEXTS, headers=st.integers(0, 3), override=st.booleans(), conflicts=st.integers(0, 2))
def test_text_from_its_utf8_bytes_gives_the_same_message(text, headers, override, conflicts):
    store = SchemaStore(REPO_SCHEMAS)
    record = decoded_record(
        text=text,
        headers=[{"name": f"H{i}", "value": "v" * i} for i in range(headers)],
        conflicts=["c" * 70] * conflicts,
        **({} if override else {"override": None}),
    )
    serialize = AvroSerializer(store, "DecodedResponse")
    assert serialize(record, utf8_text=text.encode("utf-8")) == serialize(record)


def test_text_from_utf8_bytes_in_the_confluent_framing(store, registry):
    record = decoded_record(text="café " * 40_000)  # a length that takes a three-byte varint
    serialize = AvroSerializer(store, "DecodedResponse", registry, value_subject("crawl.clean"))
    message = serialize(record, utf8_text=record["text"].encode("utf-8"))
    assert message == serialize(record)
    assert AvroDeserializer(store, "DecodedResponse", registry)(message)["text"] == record["text"]


def test_text_from_utf8_bytes_fills_defaults_like_the_whole_record(store):
    record = decoded_record()
    del record["ip"], record["truncated"]  # both have defaults
    serialize = AvroSerializer(store, "DecodedResponse")
    assert serialize(record, utf8_text=record["text"].encode("utf-8")) == serialize(record)


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda record: record.update(extra=1), id="unknown field"),
        pytest.param(lambda record: record.pop("url"), id="required field missing"),
        pytest.param(lambda record: record.update(status="200"), id="wrong type"),
    ],
)
def test_text_from_utf8_bytes_is_as_strict_as_the_whole_record(store, change):
    record = decoded_record()
    change(record)
    with pytest.raises(InvalidRecordError):
        AvroSerializer(store, "DecodedResponse")(record, utf8_text=b"x")


def test_text_from_utf8_bytes_needs_a_text_field(store):
    with pytest.raises(ConfigError, match="text"):
        AvroSerializer(store, "RawResponse")(raw_record(), utf8_text=b"x")


@pytest.mark.parametrize("headers_as", [list, tuple], ids=["compiled", "fastavro"])
def test_text_from_utf8_bytes_takes_the_place_of_a_missing_text(store, headers_as):
    # What the router hands over for a valid UTF-8 page: no "text", its bytes beside.  A tuple of
    # headers is left by the compiled writer to fastavro, which must write the same message.
    record = decoded_record(text="Grüße, 東京")
    record["headers"] = headers_as(record["headers"])
    without_text = {name: value for name, value in record.items() if name != "text"}
    serialize = AvroSerializer(store, "DecodedResponse")
    assert serialize(without_text, utf8_text="Grüße, 東京".encode()) == serialize(record)
