"""A command's Kafka permissions, checked at its start: each one missing is named before anything is read or written.

Without the check a missing ACL shows late and vaguely: a consumer that reads nothing, a transaction
aborted at its first batch, an error code in a log line.  ``check_permissions`` asks the broker
what this client's principal may do on each topic and group the command uses (the authorized
operations of KIP-430: ``describe_topics`` and ``describe_consumer_groups`` with
``include_authorized_operations``) and raises ``MissingPermissions`` naming every permission
missing, the resource, and what the command needs it for.

- A broker without an authorizer omits the authorized operations: nothing to check, nothing raised.
- Without Describe a topic or group is not even visible (``TOPIC_AUTHORIZATION_FAILED``,
  ``GROUP_AUTHORIZATION_FAILED``): every permission asked on it is missing.  A topic that does
  not exist is left to the command, which says so itself.
- A group need not exist: the broker answers for the name (a prefixed ACL covers a throwaway
  group such as ``crawl-decoder-reader-<uuid>``; the check asks for the name the command uses).
- A question the broker does not answer (a timeout, a coordinator not available) is no answer:
  the command starts and meets the problem itself, as it would without the check.
- Transactional ids have no such question in the Admin API of confluent-kafka: *transactional_id*
  is checked by starting a producer with it (``init_transactions``), which the command would do
  first anyway; a producer of that id still open elsewhere is fenced, as the command's own would be.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from confluent_kafka import KafkaError, KafkaException, TopicCollection
from confluent_kafka.admin import AclOperation, AdminClient

from .clients import make_admin, make_producer
from .config import KafkaConnection
from .exceptions import KafkaConfigError

TOPIC = "topic"
GROUP = "group"
TRANSACTIONAL_ID = "transactional id"

#: The group coordinator may be loading or moving: asked again until the deadline.
_RETRIABLE_GROUP_ERRORS = {
    KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
    KafkaError.COORDINATOR_NOT_AVAILABLE,
    KafkaError.NOT_COORDINATOR,
}


@dataclass(frozen=True, slots=True)
class Permission:
    """An operation (``Read``, ``Write``, ``Describe``) on one topic, group or transactional id, and why."""

    resource: str
    name: str
    operation: str
    purpose: str

    def __str__(self) -> str:
        return f"{self.operation} on {self.resource} {self.name!r} ({self.purpose})"


class MissingPermissions(KafkaConfigError):
    """The principal lacks permissions the command needs (an ACL to add); ``missing`` lists them."""

    def __init__(self, missing: Sequence[Permission], principal: str | None) -> None:
        self.missing = tuple(missing)
        who = f"user {principal!r}" if principal else "this client"
        listed = "; ".join(str(p) for p in self.missing)
        super().__init__(f"Kafka permission missing for {who}: {listed} (an ACL to add; see docs/kafka.md, ACLs)")


def check_permissions(
    connection: KafkaConnection,
    needed: Iterable[Permission],
    *,
    transactional_id: Permission | None = None,
    timeout_s: float = 30.0,
) -> None:
    """Raise ``MissingPermissions`` naming every permission of *needed* (and *transactional_id*) missing."""
    needed = list(needed)
    admin = make_admin(connection, role="permissions")
    try:
        admin.list_topics(timeout=timeout_s)
    except KafkaException:
        # The cluster does not answer: the command meets that itself.  Describing now would time the requests
        # out, and librdkafka aborts the process on a timed-out DescribeGroups (librdkafka issue 4605).
        return
    allowed = _on_topics(admin, {p.name for p in needed if p.resource == TOPIC}, timeout_s)
    allowed.update(_on_groups(admin, {p.name for p in needed if p.resource == GROUP}, timeout_s))
    missing = [p for p in needed if (ops := allowed[(p.resource, p.name)]) is not None and p.operation not in ops]
    # The probe costs a transactional producer's start: skipped where the broker said it has no authorizer.
    enforced = not allowed or any(ops is not None for ops in allowed.values())
    if transactional_id and enforced and not _may_use_transactional_id(connection, transactional_id.name, timeout_s):
        missing.append(transactional_id)
    if missing:
        raise MissingPermissions(missing, connection.sasl_username)


def _on_topics(admin: AdminClient, names: set[str], timeout_s: float) -> dict[tuple[str, str], set[str] | None]:
    """(TOPIC, name) -> the operations allowed; None: no authorizer, or no such topic (the command says so)."""
    if not names:
        return {}
    futures = admin.describe_topics(
        TopicCollection(sorted(names)), include_authorized_operations=True, request_timeout=timeout_s
    )
    allowed: dict[tuple[str, str], set[str] | None] = {}
    for name, future in futures.items():
        try:
            allowed[(TOPIC, name)] = _operations(future.result().authorized_operations)
        except KafkaException as exc:
            code = exc.args[0].code()
            if code == KafkaError.TOPIC_AUTHORIZATION_FAILED:
                allowed[(TOPIC, name)] = set()
            else:
                allowed[(TOPIC, name)] = None  # no such topic (the command says so), or no answer
    return allowed


def _on_groups(admin: AdminClient, wanted: set[str], timeout_s: float) -> dict[tuple[str, str], set[str] | None]:
    """(GROUP, name) -> the operations allowed; None: no authorizer."""
    names = sorted(wanted)
    allowed: dict[tuple[str, str], set[str] | None] = {}
    deadline = time.monotonic() + timeout_s
    while names:
        futures = admin.describe_consumer_groups(
            names, include_authorized_operations=True, request_timeout=timeout_s
        )
        again = []
        for name, future in futures.items():
            try:
                allowed[(GROUP, name)] = _operations(future.result().authorized_operations)
            except KafkaException as exc:
                code = exc.args[0].code()
                if code == KafkaError.GROUP_AUTHORIZATION_FAILED:
                    allowed[(GROUP, name)] = set()
                elif code in _RETRIABLE_GROUP_ERRORS and time.monotonic() < deadline:
                    again.append(name)
                else:
                    allowed[(GROUP, name)] = None  # no answer
        names = again
        if names:
            time.sleep(0.2)  # the coordinator is loading: a moment, then ask again
    return allowed


def _may_use_transactional_id(connection: KafkaConnection, transactional_id: str, timeout_s: float) -> bool:
    producer = make_producer(
        connection, transactional_id=transactional_id, extra={"log_level": 0}, role="permissions"
    )
    try:
        producer.init_transactions(timeout_s)
    except KafkaException as exc:
        # Anything else (a coordinator that does not answer yet): the command's own start meets it.
        return bool(exc.args[0].code() != KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    return True  # the producer produced nothing: dropping it sends nothing


def _operations(authorized: list[AclOperation] | None) -> set[str] | None:
    """``{"Read", "Describe", ...}``; None when the broker has no authorizer (it omits them)."""
    if authorized is None:
        return None
    return {op.name.replace("_", " ").title().replace(" ", "") for op in authorized}
