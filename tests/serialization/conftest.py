"""Fixtures of the serialization tests: the store and a fresh in-memory Schema
Registry (confluent-kafka's ``mock://`` client).  Sample records are in
serialization_samples.py."""

from __future__ import annotations

import uuid

import pytest

from consumer.serialization import SchemaRegistry, SchemaStore

from serialization_samples import REPO_SCHEMAS


@pytest.fixture
def store() -> SchemaStore:
    """A new store per test: stores learn writer schemas and registry ids as they read."""
    return SchemaStore(REPO_SCHEMAS)


@pytest.fixture
def registry() -> SchemaRegistry:
    """An empty in-memory registry; share the instance between serializer and deserializer."""
    return SchemaRegistry(f"mock://{uuid.uuid4().hex}")
