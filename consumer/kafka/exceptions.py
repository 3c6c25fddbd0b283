"""Errors of the Kafka layer.

Every error raised on purpose by ``consumer.kafka`` derives from
``KafkaLayerError``; a ``confluent_kafka.KafkaException`` that reaches our code
is re-raised as one of these with ``raise ... from exc`` so that callers catch
one root and still see the librdkafka error as ``__cause__``.
"""

from __future__ import annotations

from ..exceptions import ConfigError, CrawlDecoderError


class KafkaLayerError(CrawlDecoderError):
    """Base class of the Kafka layer's errors."""


class KafkaConfigError(KafkaLayerError, ConfigError):
    """The Kafka connection settings are missing, malformed or inconsistent."""


class KafkaUnavailableError(KafkaLayerError):
    """The cluster did not answer before a deadline."""


class TopicCreationError(KafkaLayerError):
    """A topic could not be created (other than because it already exists)."""
