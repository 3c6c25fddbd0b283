"""The five serializers of the pipeline, built once from the schema settings.

The landing record is read (``deserialize_raw``), the clean and quarantine
records written (``serialize_clean``, ``serialize_quarantine``), and both read
back (replay reads quarantine, ``overrides recheck`` reads both).  Schemas are
parsed once; with a Schema Registry URL the values are framed the Confluent
way, otherwise as Avro single-object encoding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .avro import AvroDeserializer, AvroSerializer
from .registry import RegistrySettings, registry_from_settings, value_subject
from .schemas import SchemaStore


class SerdeSettings(RegistrySettings, Protocol):
    """What ``build_serde`` reads of the settings: the registry's and these (``consumer.settings.Settings`` has all)."""

    # Read-only properties: a frozen dataclass has no settable attributes, which plain members would require.
    @property
    def schemas_dir(self) -> str: ...
    @property
    def writer_schemas_dir(self) -> str: ...
    @property
    def clean_topic(self) -> str: ...
    @property
    def quarantine_topic(self) -> str: ...


@dataclass(frozen=True)
class Serde:
    deserialize_raw: AvroDeserializer
    serialize_clean: AvroSerializer
    serialize_quarantine: AvroSerializer
    deserialize_quarantine: AvroDeserializer
    deserialize_clean: AvroDeserializer


def build_serde(settings: SerdeSettings) -> Serde:
    """Schemas parsed once; Confluent framing when a registry is configured, else single-object."""
    store = SchemaStore(settings.schemas_dir or None)
    if settings.writer_schemas_dir:
        # Not in schemas_dir: a second RawResponse there would replace our reader and the copy of
        # RawResponse that QuarantinedResponse embeds.  load_directory keeps them apart.
        store.load_directory(settings.writer_schemas_dir)
    registry = registry_from_settings(settings)

    def serializer(name: str, topic: str) -> AvroSerializer:
        return AvroSerializer(store, name, registry, value_subject(topic) if registry else None)

    return Serde(
        deserialize_raw=AvroDeserializer(store, "RawResponse", registry),
        serialize_clean=serializer("DecodedResponse", settings.clean_topic),
        serialize_quarantine=serializer("QuarantinedResponse", settings.quarantine_topic),
        deserialize_quarantine=AvroDeserializer(store, "QuarantinedResponse", registry),
        deserialize_clean=AvroDeserializer(store, "DecodedResponse", registry),
    )
