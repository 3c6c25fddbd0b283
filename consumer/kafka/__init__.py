"""The Kafka layer: connection settings, client factories and their errors.

Nothing here knows about Avro or decoding; the processor ties them together.
"""

from __future__ import annotations

from .clients import (
    MAX_BODY_BYTES,
    MESSAGE_LIMIT_BYTES,
    TRANSACTION_TIMEOUT_MS,
    ensure_topics,
    make_admin,
    make_consumer,
    make_producer,
    wait_until_ready,
)
from .config import KafkaConnection
from .exceptions import KafkaConfigError, KafkaLayerError, KafkaUnavailableError, TopicCreationError

__all__ = [
    "MAX_BODY_BYTES",
    "MESSAGE_LIMIT_BYTES",
    "TRANSACTION_TIMEOUT_MS",
    "KafkaConfigError",
    "KafkaConnection",
    "KafkaLayerError",
    "KafkaUnavailableError",
    "TopicCreationError",
    "ensure_topics",
    "make_admin",
    "make_consumer",
    "make_producer",
    "wait_until_ready",
]
