"""A real single-node Kafka for development, tests and the demo.

``LocalBroker`` runs Apache Kafka from its Maven Central jars (Java 17 and
Maven needed, no Docker).  ``bootstrap_from_env_or_start`` is what tools call:
an external cluster when ``KAFKA_BOOTSTRAP_SERVERS`` is set, else a
container when a Docker engine answers, else a ``LocalBroker``.
"""

from __future__ import annotations

from .broker import LocalBroker, free_ports, random_cluster_id
from .exceptions import DevBrokerError
from .jars import DEFAULT_KAFKA_VERSION, kafka_classpath
from .properties import STANDARD_AUTHORIZER, ScramSecurity
from .provider import DevBroker, bootstrap_from_env_or_start, start_dev_broker

__all__ = [
    "STANDARD_AUTHORIZER",
    "ScramSecurity",
    "DEFAULT_KAFKA_VERSION",
    "DevBroker",
    "DevBrokerError",
    "LocalBroker",
    "bootstrap_from_env_or_start",
    "free_ports",
    "kafka_classpath",
    "random_cluster_id",
    "start_dev_broker",
]
