"""build_serde: the pipeline's serializers from the settings, framed as the settings say."""

from __future__ import annotations

import uuid

import pytest

from consumer.serialization import Framing, build_serde
from consumer.settings import Settings

from serialization_samples import REPO_SCHEMAS, decoded_record, quarantined_record


@pytest.mark.parametrize(
    ("registry_url", "framing"),
    [("", Framing.SINGLE_OBJECT), (f"mock://{uuid.uuid4().hex}", Framing.CONFLUENT)],
    ids=["single-object", "confluent"],  # the same ids in every xdist worker (the url is random)
)
def test_clean_and_quarantine_records_are_framed_as_configured_and_read_back(registry_url, framing):
    serde = build_serde(Settings(schemas_dir=str(REPO_SCHEMAS), schema_registry_url=registry_url))
    assert serde.serialize_clean.framing is serde.serialize_quarantine.framing is framing
    clean = decoded_record()
    assert serde.deserialize_clean(serde.serialize_clean(clean))["text"] == clean["text"]
    quarantined = quarantined_record()
    assert serde.deserialize_quarantine(serde.serialize_quarantine(quarantined))["reason"] == quarantined["reason"]
