"""The ``server.properties`` and log4j 2 configuration of a single-node KRaft broker.

Kafka's defaults assume three brokers; each setting below that differs from
them is there for a single node (see docs/kafka.md, "A single-node KRaft broker").
"""

from __future__ import annotations

from pathlib import Path

from ..kafka.clients import MESSAGE_LIMIT_BYTES


def server_properties(*, port: int, controller_port: int, log_dir: Path) -> dict[str, str]:
    """Properties for node 1 acting as broker and controller, on 127.0.0.1 only."""
    return {
        "process.roles": "broker,controller",
        "node.id": "1",
        # With --standalone at format time this node is the whole voter set.
        "controller.quorum.bootstrap.servers": f"127.0.0.1:{controller_port}",
        "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "log.dirs": str(log_dir),
        "num.partitions": "1",
        "default.replication.factor": "1",
        # Internal topics: one replica (there is one broker) and one partition (fast creation in tests).
        # Without the transaction-log settings init_transactions() times out.
        "offsets.topic.replication.factor": "1",
        "offsets.topic.num.partitions": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "transaction.state.log.num.partitions": "1",
        "share.coordinator.state.topic.replication.factor": "1",
        "share.coordinator.state.topic.min.isr": "1",
        "group.initial.rebalance.delay.ms": "0",
        # Topics are created on purpose (ensure_topics); a typo must not create one.
        "auto.create.topics.enable": "false",
        # 16 MiB bodies plus framing: one record/batch, its replication fetch, and the request carrying it.
        "message.max.bytes": str(MESSAGE_LIMIT_BYTES),
        "replica.fetch.max.bytes": str(MESSAGE_LIMIT_BYTES),
        "socket.request.max.bytes": str(100 * 1024 * 1024),
    }


def render_properties(properties: dict[str, str]) -> str:
    """Java ``.properties`` text; values here hold no characters that need escaping."""
    return "".join(f"{key}={value}\n" for key, value in properties.items())


def log4j2_properties(log_file: Path) -> str:
    """log4j 2 configuration (properties syntax) sending everything at INFO to ``log_file``."""
    return "\n".join(
        [
            "status = warn",
            "appender.file.type = File",
            "appender.file.name = FILE",
            f"appender.file.fileName = {log_file}",
            "appender.file.layout.type = PatternLayout",
            "appender.file.layout.pattern = [%d] %p %m (%c)%n",
            "rootLogger.level = INFO",
            "rootLogger.appenderRef.file.ref = FILE",
            # Per-request state changes are noise at INFO for a development broker.
            "logger.state.name = state.change.logger",
            "logger.state.level = WARN",
            "",
        ]
    )
