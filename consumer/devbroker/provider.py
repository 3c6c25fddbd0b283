"""Pick the development broker: an external cluster, a container, or ``LocalBroker``.

Order: ``KAFKA_BOOTSTRAP_SERVERS`` names a cluster someone else runs (start
nothing); else testcontainers' ``KafkaContainer`` when a Docker engine
answers; else Kafka from its jars (``LocalBroker``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from ..kafka.clients import MESSAGE_LIMIT_BYTES, wait_until_ready
from ..kafka.config import KafkaConnection
from .broker import LocalBroker
from .jars import DEFAULT_KAFKA_VERSION

if TYPE_CHECKING:
    from testcontainers.community.kafka import KafkaContainer

#: testcontainers sets single-node offsets settings itself but not these (docs/kafka.md, "A single-node KRaft broker").
CONTAINER_ENV: Mapping[str, str] = {
    "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR": "1",
    "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR": "1",
    "KAFKA_TRANSACTION_STATE_LOG_NUM_PARTITIONS": "1",
    "KAFKA_AUTO_CREATE_TOPICS_ENABLE": "false",
    "KAFKA_MESSAGE_MAX_BYTES": str(MESSAGE_LIMIT_BYTES),
    "KAFKA_REPLICA_FETCH_MAX_BYTES": str(MESSAGE_LIMIT_BYTES),
}


class DevBroker(Protocol):
    """What callers of ``start_dev_broker`` may rely on."""

    def start(self) -> str: ...

    def stop(self) -> None: ...


class ContainerBroker:
    """testcontainers' ``KafkaContainer`` in KRaft mode with the transaction-log settings."""

    def __init__(self) -> None:
        self._container: KafkaContainer | None = None

    def start(self) -> str:
        from testcontainers.community.kafka import KafkaContainer  # a dev dependency, imported only here

        container = KafkaContainer().with_kraft()
        for key, value in CONTAINER_ENV.items():
            container.with_env(key, value)
        self._container = container.start()
        bootstrap: str = self._container.get_bootstrap_server()
        wait_until_ready(KafkaConnection(bootstrap), timeout=60.0)
        return bootstrap

    def stop(self) -> None:
        container, self._container = self._container, None
        if container is not None:
            container.stop()


def docker_available() -> bool:
    """True when a Docker engine answers a ping (the ``docker`` client alone is not enough)."""
    try:
        import docker

        return bool(docker.from_env(timeout=3).ping())
    except Exception:  # noqa: BLE001 - no package, no socket, no permission: all mean "no engine"
        return False


def start_dev_broker(
    *, kafka_version: str = DEFAULT_KAFKA_VERSION, data_dir: str | os.PathLike[str] | None = None
) -> tuple[str, DevBroker]:
    """Start a container (Docker engine, no ``data_dir``) or a ``LocalBroker``; returns (bootstrap, broker)."""
    broker: DevBroker
    if data_dir is None and docker_available():
        broker = ContainerBroker()
    else:
        broker = LocalBroker(kafka_version=kafka_version, data_dir=data_dir)
    return broker.start(), broker


def bootstrap_from_env_or_start(
    environ: Mapping[str, str] = os.environ, *, kafka_version: str = DEFAULT_KAFKA_VERSION
) -> tuple[str, DevBroker | None]:
    """``KAFKA_BOOTSTRAP_SERVERS`` and no broker when set; else start one (the caller stops it)."""
    external = environ.get("KAFKA_BOOTSTRAP_SERVERS", "").strip()
    if external:
        return external, None
    return start_dev_broker(kafka_version=kafka_version)
