"""LocalBroker: a real Kafka process that keeps its address and data across restarts."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from consumer.devbroker import DevBrokerError, LocalBroker, bootstrap_from_env_or_start, free_ports, random_cluster_id
from consumer.devbroker.broker import LISTEN_PORTS_FROM
from consumer.devbroker.properties import server_properties
from consumer.kafka import (
    MESSAGE_LIMIT_BYTES,
    KafkaConnection,
    KafkaUnavailableError,
    ensure_topics,
    make_admin,
    make_consumer,
    make_producer,
    wait_until_ready,
)

#: Written to topic ``seed`` when the module's broker starts; every test checks it is still there.
SEED = [b"seed-%d" % i for i in range(5)]


@pytest.fixture(scope="module")
def seeded_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalBroker]:
    """This module's own broker on a kept data dir, holding ``SEED``.

    Tests here stop and restart it, so each begins with ``start()`` (a no-op
    when it is running) and none depends on another's order.
    """
    broker = LocalBroker(data_dir=tmp_path_factory.mktemp("kafka-data"))
    conn = KafkaConnection(broker.start())
    try:
        ensure_topics(make_admin(conn), ["seed"])
        producer = make_producer(conn)
        for value in SEED:
            producer.produce("seed", value=value)
        assert producer.flush(60) == 0
        yield broker
    finally:
        broker.stop()


def _values(bootstrap: str, topic: str, count: int, consume) -> list[bytes]:
    consumer = make_consumer(KafkaConnection(bootstrap), f"check-{uuid.uuid4().hex}")
    consumer.subscribe([topic])
    try:
        return [m.value() for m in consume(consumer, lambda got: len(got) >= count)]
    finally:
        consumer.close()


def test_free_ports_are_distinct_bindable_and_never_ephemeral():
    # An ephemeral port may be handed to any outgoing connection before the JVM binds it.
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    ports = free_ports(2)
    assert len(set(ports)) == 2
    assert all(LISTEN_PORTS_FROM <= port < low for port in ports)
    for port in ports:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", port))


def test_constructor_starts_nothing(tmp_path):
    broker = LocalBroker(data_dir=tmp_path / "unused")
    assert not broker.is_running() and broker.pid is None
    assert not (tmp_path / "unused").exists()
    with pytest.raises(DevBrokerError, match="not been started"):
        broker.bootstrap_servers  # noqa: B018 - the property raises


def test_restart_keeps_address_topics_and_data_and_clients_carry_on(seeded_broker, consume):
    bootstrap = seeded_broker.start()  # a no-op unless another test left it stopped
    producer = make_producer(KafkaConnection(bootstrap))
    producer.produce("seed", value=b"before-restart")
    assert producer.flush(60) == 0
    old_pid = seeded_broker.pid

    assert seeded_broker.restart() == bootstrap
    assert seeded_broker.pid != old_pid

    # The producer created before the restart reconnects to the same address by itself.
    producer.produce("seed", value=b"after-restart")
    assert producer.flush(60) == 0
    values = _values(bootstrap, "seed", len(SEED) + 2, consume)
    assert values[: len(SEED)] == SEED
    assert values[len(SEED) :] == [b"before-restart", b"after-restart"]


def test_a_new_instance_on_the_same_data_dir_has_the_same_address_and_data(seeded_broker, consume):
    bootstrap = seeded_broker.start()  # a no-op unless another test left it stopped
    seeded_broker.stop()
    assert seeded_broker.data_dir.exists()  # a given data dir is kept
    with pytest.raises(KafkaUnavailableError):
        wait_until_ready(KafkaConnection(bootstrap), timeout=1)

    successor = LocalBroker(data_dir=seeded_broker.data_dir)
    try:
        assert successor.start() == bootstrap
        assert _values(bootstrap, "seed", len(SEED), consume)[: len(SEED)] == SEED
    finally:
        successor.stop()


def test_start_fails_fast_with_the_log_tail_and_cleans_up_when_the_port_is_taken():
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        broker = LocalBroker(port=port)
        with pytest.raises(DevBrokerError, match="exited with status") as caught:
            broker.start()
    assert "Address already in use" in str(caught.value) or "BindException" in str(caught.value)
    assert not broker.is_running()
    assert broker.data_dir is None  # the temporary directory is gone


def test_bootstrap_from_env_uses_the_external_cluster_and_starts_nothing():
    assert bootstrap_from_env_or_start({"KAFKA_BOOTSTRAP_SERVERS": "kafka.example:9092"}) == (
        "kafka.example:9092",
        None,
    )


def test_random_cluster_id_is_a_kafka_uuid():
    ids = {random_cluster_id() for _ in range(200)}
    assert len(ids) == 200
    for cluster_id in ids:
        # 16 bytes in URL-safe base64 without padding, never read as a CLI flag.
        assert len(cluster_id) == 22 and not cluster_id.startswith("-")
        assert set(cluster_id) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_server_properties_are_single_node_loopback_and_sized_for_large_bodies(tmp_path):
    properties = server_properties(port=19092, controller_port=19093, log_dir=tmp_path)
    assert properties["listeners"] == "PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093"
    assert properties["controller.quorum.bootstrap.servers"] == "127.0.0.1:19093"
    for key in (
        "offsets.topic.replication.factor",
        "transaction.state.log.replication.factor",
        "transaction.state.log.min.isr",
        "offsets.topic.num.partitions",
        "transaction.state.log.num.partitions",
    ):
        assert properties[key] == "1", key
    assert properties["auto.create.topics.enable"] == "false"
    assert int(properties["message.max.bytes"]) >= MESSAGE_LIMIT_BYTES > 16 * 1024 * 1024
    assert int(properties["replica.fetch.max.bytes"]) >= MESSAGE_LIMIT_BYTES
    assert int(properties["socket.request.max.bytes"]) >= MESSAGE_LIMIT_BYTES
