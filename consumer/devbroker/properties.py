"""The ``server.properties`` and log4j 2 configuration of a single-node KRaft broker.

Kafka's defaults assume three brokers; each setting below that differs from
them is there for a single node (see docs/kafka.md, "A single-node KRaft broker").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..kafka.clients import MESSAGE_LIMIT_BYTES
from ..kafka.config import KafkaConnection

#: KRaft's authorizer (``kafka.security.authorizer.AclAuthorizer`` is ZooKeeper's, gone in Kafka 4).
STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"


@dataclass(frozen=True)
class ScramSecurity:
    """A SASL_PLAINTEXT client listener with SCRAM users and ACLs enforced by the StandardAuthorizer.

    *users*: name -> password, each given a SCRAM credential when the storage is formatted
    (``kafka-storage format --add-scram``); *admin* is one of them, a super user (the broker
    itself connects as it).  Everyone else may do only what an ACL allows
    (``allow.everyone.if.no.acl.found`` is false).  The controller listener stays PLAINTEXT on
    127.0.0.1; its principal, ANONYMOUS, is a super user too, as the broker's requests to its own
    controller need cluster actions.
    """

    users: Mapping[str, str] = field(repr=False)
    admin: str = "admin"
    mechanism: str = "SCRAM-SHA-512"

    def __post_init__(self) -> None:
        if self.admin not in self.users:
            raise ValueError(f"the admin user {self.admin!r} needs a password in users")

    def connection(self, bootstrap_servers: str, user: str) -> KafkaConnection:
        """How *user* connects to the broker."""
        return KafkaConnection(
            bootstrap_servers,
            security_protocol="SASL_PLAINTEXT",
            sasl_mechanism=self.mechanism,
            sasl_username=user,
            sasl_password=self.users[user],
        )

    def scram_arguments(self) -> list[str]:
        """``--add-scram`` arguments of ``kafka.tools.StorageTool format``."""
        found = []
        for name, password in self.users.items():
            if any(c in name + password for c in ",=[]\"\n"):
                raise ValueError(f"SCRAM user {name!r}: names and passwords here hold none of , = [ ] \" or newlines")
            found += ["--add-scram", f"{self.mechanism}=[name={name},password={password}]"]
        return found

    def properties(self, *, port: int, controller_port: int) -> dict[str, str]:
        """Server properties over ``server_properties``' for this listener and authorizer."""
        jaas = (
            "org.apache.kafka.common.security.scram.ScramLoginModule required "
            f'username="{self.admin}" password="{self.users[self.admin]}";'
        )
        return {
            "listeners": f"SASL_PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
            "advertised.listeners": f"SASL_PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
            "inter.broker.listener.name": "SASL_PLAINTEXT",
            "listener.security.protocol.map": "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
            "sasl.enabled.mechanisms": self.mechanism,
            "sasl.mechanism.inter.broker.protocol": self.mechanism,
            f"listener.name.sasl_plaintext.{self.mechanism.lower()}.sasl.jaas.config": jaas,
            "authorizer.class.name": STANDARD_AUTHORIZER,
            "super.users": f"User:{self.admin};User:ANONYMOUS",
            "allow.everyone.if.no.acl.found": "false",
        }


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
