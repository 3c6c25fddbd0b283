"""Topics of one test on a broker of its own: the processor's three, named for the test alone."""

from __future__ import annotations

import uuid

from consumer.kafka import KafkaConnection, ensure_topics, make_admin


def fresh_topics(connection: KafkaConnection, partitions: int = 3) -> tuple[dict[str, str], str]:
    """Landing, clean and quarantine topics created on *connection*'s cluster, and the suffix naming them
    (for the test's group and transactional id: ``group-<suffix>``, ``txn-<suffix>``)."""
    suffix = uuid.uuid4().hex
    topics = {name: f"{name}-{suffix}" for name in ("landing", "clean", "quarantine")}
    ensure_topics(make_admin(connection), list(topics.values()), partitions=partitions)
    return topics, suffix
