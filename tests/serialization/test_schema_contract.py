"""The clean record's schema describes the ``Decoded`` value and the ``Override`` model.

Kept apart from test_schemas.py because it imports ``consumer.decoding``.
"""

from __future__ import annotations

import json

from consumer.decoding.decoded import DECLARATION_PLACES, SOURCES
from consumer.decoding.overrides import OverrideMode


def _fields(store, name):
    return {field["name"]: field for field in store.reader(name).standalone["fields"]}


def test_decoded_response_describes_the_decoded_value(store):
    fields = _fields(store, "DecodedResponse")
    # Same Header type as the raw record, referenced, not copied.
    assert "io.crawldecoder.v1.Header" in json.dumps(fields["headers"]["type"])
    assert [f["name"] for f in fields["declared"]["type"]["fields"]] == list(DECLARATION_PLACES)
    for source in SOURCES:
        assert source in fields["source"]["doc"], f"source {source!r} missing from the doc"
    override = fields["override"]["type"][1]
    assert [f["name"] for f in override["fields"]] == [
        "host", "encoding", "mode", "reason", "review_by", "owner", "shadow_encoding", "shadow_agrees",
    ]
    mode_doc = next(f["doc"] for f in override["fields"] if f["name"] == "mode")
    assert all(mode.value in mode_doc for mode in OverrideMode)
    assert fields["replacement_threshold"]["default"] == 0
    assert fields["conflicts"]["default"] == []
