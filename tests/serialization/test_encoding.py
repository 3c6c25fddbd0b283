"""The compiled Avro writer (consumer/serialization/encoding.py) gives fastavro's bytes, exactly.

Records are generated from our three schemas themselves, so a field added to a
schema is covered without a change here.  Values it must encode itself are
compared byte for byte with fastavro; values it leaves to fastavro (a bool for
an int, a naive datetime, a tuple for an array, ...) must give what fastavro
alone gives: the same message or the same refusal.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from io import BytesIO

import pytest
from fastavro import schemaless_writer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from consumer.serialization import AvroSerializer, InvalidRecordError, SchemaStore
from consumer.serialization.encoding import compile_writer, encode_long
from consumer.serialization.framing import single_object_header

from serialization_samples import REPO_SCHEMAS, SAMPLES

NAMES = sorted(SAMPLES)
PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_ZONES = st.sampled_from([dt.UTC, dt.timezone(dt.timedelta(hours=9)), dt.timezone(dt.timedelta(hours=-5, minutes=-30))])


@functools.cache
def _store() -> SchemaStore:
    return SchemaStore(REPO_SCHEMAS)


def _fastavro(name: str, record) -> bytes:
    """The message fastavro alone writes: the reference."""
    schema = _store().reader(name)
    out = BytesIO()
    out.write(single_object_header(schema.fingerprint))
    schemaless_writer(out, schema.parsed, record, strict_allow_default=True)
    return out.getvalue()


def _compiled(name: str, record) -> bytes:
    out: list[bytes] = []
    compile_writer(_store().reader(name).standalone)(record, out)
    return single_object_header(_store().reader(name).fingerprint) + b"".join(out)


# -- values from a schema ---------------------------------------------------------------------------


def values(schema, named: dict, *, odd: bool = False) -> st.SearchStrategy:
    """Values of *schema* (self-contained JSON); with *odd*, also values of other Python types
    that fastavro may accept or refuse, which the compiled writer must leave to it."""
    strategy = _values(schema, named, odd)
    if not odd:
        return strategy
    return strategy | st.sampled_from([None, True, 0, 1.5, "x", b"x", bytearray(b"x"), (), [], {}])


def _values(schema, named, odd):
    if isinstance(schema, list):
        return st.one_of(*(values(branch, named, odd=odd) for branch in schema))
    if isinstance(schema, str):
        if schema in named:
            return st.deferred(lambda: values(named[schema], named, odd=odd))
        schema = {"type": schema}
    kind, logical = schema["type"], schema.get("logicalType")
    if kind == "record":
        named.setdefault(schema["name"], schema)
        return _records(schema, named, odd)
    if kind == "array":
        items = st.lists(values(schema["items"], named, odd=odd), max_size=4)
        return items | items.map(tuple) if odd else items
    if (kind, logical) == ("long", "timestamp-millis"):
        aware = st.datetimes(timezones=_ZONES, allow_imaginary=False)
        return st.integers(-(2**63), 2**63 - 1) | aware | (st.datetimes() if odd else st.nothing())
    if (kind, logical) == ("int", "date"):
        return st.integers(-(2**31), 2**31 - 1) | st.dates() | (st.datetimes() | st.dates().map(str) if odd else st.nothing())
    return _primitive(kind, odd)


def _primitive(kind, odd):
    extra = st.nothing()
    if kind in ("int", "long") and odd:
        extra = st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    if kind == "string" and odd:
        extra = st.text(alphabet=st.characters(categories=["Cs"]), min_size=1, max_size=3)
    return {
        "null": st.none(),
        "boolean": st.booleans(),
        "int": st.integers(-(2**31), 2**31 - 1),
        "long": st.integers(-(2**63), 2**63 - 1),
        "double": st.floats(),
        "bytes": st.binary(max_size=200) | (st.binary(max_size=5).map(bytearray) if odd else st.nothing()),
        "string": st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=200),
    }[kind] | extra


def _records(schema, named, odd):
    required, optional = {}, {}
    for field in schema["fields"]:
        (optional if "default" in field else required)[field["name"]] = values(field["type"], named, odd=odd)
    if odd:  # a required field missing, or one the schema does not have
        required = dict(required)
        optional = {**optional, **{name: required.pop(name) for name in list(required)[:1]}, "unknown": st.integers()}
    return st.fixed_dictionaries(required, optional=optional)


def records(name: str, *, odd: bool = False) -> st.SearchStrategy:
    return values(_store().reader(name).standalone, {}, odd=odd)


# -- the properties ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_our_schemas_compile(name):
    assert compile_writer(_store().reader(name).standalone) is not None


@pytest.mark.parametrize("name", NAMES)
@PROPERTY
@given(data=st.data())
def test_the_compiled_writer_gives_fastavros_bytes(name, data):
    record = data.draw(records(name))
    assert _compiled(name, record) == _fastavro(name, record)


@pytest.mark.parametrize("name", NAMES)
@PROPERTY
@given(data=st.data())
def test_whatever_the_values_the_serializer_behaves_as_fastavro_alone(name, data):
    record = data.draw(records(name, odd=True))
    try:
        expected = _fastavro(name, record)
    except Exception:  # noqa: BLE001 - whichever fastavro raises, ours must refuse too
        with pytest.raises(InvalidRecordError):
            AvroSerializer(_store(), name)(record)
        return
    assert AvroSerializer(_store(), name)(record) == expected


@pytest.mark.parametrize("name", NAMES)
def test_the_samples_are_written_by_the_compiled_writer(name):
    """The shapes the processor writes are compiled, not left to fastavro (that would be the slow path)."""
    assert _compiled(name, SAMPLES[name]()) == _fastavro(name, SAMPLES[name]())


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0, b"\x00"), (-1, b"\x01"), (1, b"\x02"), (63, b"\x7e"), (64, b"\x80\x01"), (-65, b"\x81\x01"),
     (2**63 - 1, b"\xfe" + b"\xff" * 8 + b"\x01"), (-(2**63), b"\xff" * 9 + b"\x01")],
)  # fmt: skip
def test_longs_are_zigzag_varints(value, expected):
    """The specification's examples (0, -1, 1, 64 -> 80 01 ...) and the ends of the range."""
    assert encode_long(value) == expected


def test_doubles_keep_their_bits():
    for value in (0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324):
        record = SAMPLES["DecodedResponse"]()
        record["confidence"] = value
        assert _compiled("DecodedResponse", record) == _fastavro("DecodedResponse", record)


@pytest.mark.parametrize(
    "schema",
    [
        ["string", "long"],  # two non-null branches: fastavro picks by value
        ["string", "null"],
        {"type": "map", "values": "string"},  # none of our schemas has these
        "float",
        {"type": "enum", "name": "E", "symbols": ["A"]},
        {"type": "fixed", "name": "F", "size": 2},
        {"type": "bytes", "logicalType": "decimal", "precision": 4},
    ],
)
def test_what_is_not_compiled_is_left_to_fastavro(schema):
    assert compile_writer({"type": "record", "name": "R", "fields": [{"name": "f", "type": schema}]}) is None
