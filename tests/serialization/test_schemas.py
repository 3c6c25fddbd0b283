"""The schema files and the SchemaStore: docs, defaults, names, fingerprints, loading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastavro import parse_schema

from consumer.serialization import (
    SCHEMAS_DIR_ENV,
    SchemaDefinitionError,
    SchemaStore,
    UnknownSchemaError,
    schemas_dir,
)

from avro_spec import canonical_form, rabin64
from serialization_samples import REPO_SCHEMAS, load_avsc

FILES = {
    "raw_response": "io.crawldecoder.v1.RawResponse",
    "decoded_response": "io.crawldecoder.v1.DecodedResponse",
    "quarantined_response": "io.crawldecoder.v1.QuarantinedResponse",
}


def _named_types(schema):
    """Every record/enum/fixed definition in a schema JSON, nested ones included."""
    if isinstance(schema, list):
        for branch in schema:
            yield from _named_types(branch)
    elif isinstance(schema, dict):
        if schema.get("type") in ("record", "enum", "fixed"):
            yield schema
        for key in ("type", "items", "values"):
            if key in schema:
                yield from _named_types(schema[key])
        for field in schema.get("fields", ()):
            yield from _named_types(field["type"])


def _fields(store, name):
    return {field["name"]: field for field in store.reader(name).standalone["fields"]}


def _record(store, full_name):
    for reader in store.reader_names():
        for named in _named_types(store.reader(reader).standalone):
            if named["name"] == full_name:
                return named
    raise AssertionError(f"{full_name} not found")


def test_store_has_the_three_schemas(store):
    assert store.reader_names() == sorted(FILES.values())
    for full in FILES.values():
        assert store.reader(full) is store.reader(full.rpartition(".")[2])


@pytest.mark.parametrize("file", sorted(FILES))
def test_every_record_and_field_has_a_doc(file):
    records = list(_named_types(load_avsc(file)))
    assert records
    for record in records:
        assert record.get("doc", "").strip(), f"{record['name']} has no doc"
        for field in record["fields"]:
            assert field.get("doc", "").strip(), f"{record['name']}.{field['name']} has no doc"


@pytest.mark.parametrize("file", sorted(FILES))
def test_top_level_namespace(file):
    schema = load_avsc(file)
    assert schema["namespace"] == "io.crawldecoder.v1"
    assert f"{schema['namespace']}.{schema['name']}" == FILES[file]


def test_every_optional_field_has_a_null_default(store):
    for name in store.reader_names():
        for record in _named_types(store.reader(name).standalone):
            for field in record["fields"]:
                if isinstance(field["type"], list) and field["type"][0] == "null":
                    assert "default" in field and field["default"] is None, f"{record['name']}.{field['name']}"


def test_raw_response_fields_crawlers_rely_on(store):
    fields = _fields(store, "RawResponse")
    assert list(fields)[:5] == ["url", "fetched_at", "status", "headers", "body"]
    assert fields["fetched_at"]["type"] == {"type": "long", "logicalType": "timestamp-millis"}
    assert fields["headers"]["type"]["items"]["name"] == "io.crawldecoder.v1.Header"
    assert [f["name"] for f in fields["headers"]["type"]["items"]["fields"]] == ["name", "value"]
    assert fields["body"]["type"] == "bytes"
    # What crawlers may leave out, and what the reader then fills in.
    assert {name: fields[name]["default"] for name in list(fields)[5:]} == {
        "truncated": False,
        "content_encoding_removed": False,
        "crawl_id": None,
        "ip": None,
    }


def test_decoded_response_header_is_the_raw_response_header(store):
    raw_header = _record(store, "io.crawldecoder.v1.Header")
    decoded_header = next(
        named for named in _named_types(store.reader("DecodedResponse").standalone)
        if named["name"] == "io.crawldecoder.v1.Header"
    )
    assert decoded_header == raw_header


def test_quarantine_reasons_documented(store):
    fields = _fields(store, "QuarantinedResponse")
    for reason in ("lossy", "unreadable-record", "unknown-schema", "incompatible-schema", "too-large",
                   "compression-bomb", "unsupported-content-encoding"):
        assert reason in fields["reason"]["doc"]
    assert fields["raw"]["type"][1]["name"] == "io.crawldecoder.v1.RawResponse"
    assert fields["replay_count"]["default"] == 0
    origin = {f["name"]: f["type"] for f in fields["origin"]["type"]["fields"]}
    assert origin["partition"] == "int" and origin["offset"] == "long"


@pytest.mark.parametrize("file", sorted(FILES))
def test_fingerprint_matches_the_spec_algorithm(store, file):
    # Independent of fastavro: the spec's canonical form and Rabin fingerprint,
    # with named types of other files inlined at first use.
    definitions = {}
    for other in FILES:
        for named in _named_types(load_avsc(other)):
            full = named["name"] if "." in named["name"] else f"io.crawldecoder.v1.{named['name']}"
            definitions.setdefault(full, named)
    expected_form = canonical_form(load_avsc(file), definitions)
    stored = store.reader(FILES[file])
    assert stored.canonical == expected_form
    assert stored.fingerprint == rabin64(expected_form.encode())


def test_standalone_schemas_parse_on_their_own(store):
    for name in store.reader_names():
        parse_schema(store.reader(name).standalone, {})


def test_by_fingerprint(store):
    raw = store.reader("RawResponse")
    assert store.by_fingerprint(raw.fingerprint) is raw
    with pytest.raises(UnknownSchemaError) as caught:
        store.by_fingerprint(raw.fingerprint ^ 1)
    assert caught.value.reason == "unknown-schema"
    assert caught.value.fingerprint == raw.fingerprint ^ 1


def test_unknown_reader_name(store):
    with pytest.raises(SchemaDefinitionError, match="RawResponses"):
        store.reader("RawResponses")


def test_register_writer_is_idempotent(store):
    ours = store.reader("RawResponse")
    assert store.register_writer(json.dumps(ours.standalone), registry_id=7) is ours
    assert store.by_registry_id(7) is ours
    assert store.by_registry_id(8) is None


def test_register_writer_resolves_our_named_types(store):
    # A writer schema may use our Header by name without defining it.
    schema = {
        "type": "record", "name": "Tiny", "namespace": "io.crawldecoder.v1",
        "fields": [{"name": "headers", "type": {"type": "array", "items": "io.crawldecoder.v1.Header"}}],
    }
    stored = store.register_writer(schema)
    assert '"io.crawldecoder.v1.Header","type":"record"' in stored.canonical
    assert store.by_fingerprint(stored.fingerprint) is stored


def test_register_writer_rejects_invalid(store):
    with pytest.raises(SchemaDefinitionError):
        store.register_writer("{not json")
    with pytest.raises(SchemaDefinitionError):
        store.register_writer({"type": "record", "name": "X", "fields": [{"name": "a", "type": "Nope"}]})


def test_schemas_dir_precedence(tmp_path):
    assert schemas_dir(environ={}) == REPO_SCHEMAS
    assert schemas_dir(environ={SCHEMAS_DIR_ENV: str(tmp_path)}) == tmp_path
    assert schemas_dir(tmp_path / "x", environ={SCHEMAS_DIR_ENV: str(tmp_path)}) == tmp_path / "x"
    assert schemas_dir("", environ={SCHEMAS_DIR_ENV: str(tmp_path)}) == tmp_path


def test_store_reads_the_env_directory(tmp_path, monkeypatch):
    (tmp_path / "raw_response.avsc").write_text((REPO_SCHEMAS / "raw_response.avsc").read_text())
    monkeypatch.setenv(SCHEMAS_DIR_ENV, str(tmp_path))
    assert SchemaStore().reader_names() == ["io.crawldecoder.v1.RawResponse"]


def test_store_errors(tmp_path):
    with pytest.raises(SchemaDefinitionError, match="does not exist"):
        SchemaStore(tmp_path / "missing")
    with pytest.raises(SchemaDefinitionError, match=r"no \*\.avsc"):
        SchemaStore(tmp_path)
    (tmp_path / "decoded_response.avsc").write_text((REPO_SCHEMAS / "decoded_response.avsc").read_text())
    with pytest.raises(SchemaDefinitionError, match=r"undefined type io\.crawldecoder\.v1\.Header"):
        SchemaStore(tmp_path)
    (tmp_path / "decoded_response.avsc").write_text("{oops")
    with pytest.raises(SchemaDefinitionError, match="cannot read schema"):
        SchemaStore(tmp_path)


def test_files_load_in_any_order(tmp_path):
    # Names sorted so the file defining Header comes last: rounds must still resolve it.
    targets = {"raw_response": "z.avsc", "decoded_response": "a.avsc", "quarantined_response": "b.avsc"}
    for file, target in targets.items():
        (tmp_path / target).write_text((REPO_SCHEMAS / f"{file}.avsc").read_text())
    loaded = SchemaStore(tmp_path)
    assert loaded.reader_names() == sorted(FILES.values())


def test_load_directory_adds_writers(store, tmp_path: Path):
    old = load_avsc("raw_response")
    old["fields"] = old["fields"][:5]
    (tmp_path / "raw_response_v0.avsc").write_text(json.dumps(old))
    [stored] = store.load_directory(tmp_path)
    assert stored.name == "io.crawldecoder.v1.RawResponse"
    assert store.by_fingerprint(stored.fingerprint) is stored
    # Our reader is still the current one.
    assert store.reader("RawResponse").fingerprint != stored.fingerprint
