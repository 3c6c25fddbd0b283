"""KafkaConnection: environment, validation, librdkafka properties, secrets kept out of repr."""

from __future__ import annotations

import dataclasses

import pytest

from consumer.exceptions import ConfigError
from consumer.kafka import KafkaConfigError, KafkaConnection, KafkaLayerError

SASL_ENV = {
    "KAFKA_BOOTSTRAP_SERVERS": "kafka-1:9093,kafka-2:9093",
    "KAFKA_SECURITY_PROTOCOL": "sasl_ssl",
    "KAFKA_SASL_MECHANISM": "scram-sha-512",
    "KAFKA_SASL_USERNAME": "decoder",
    "KAFKA_SASL_PASSWORD": "s3cret-pw",
    "KAFKA_SSL_CA_LOCATION": "/etc/kafka/ca.pem",
}


def test_from_env_reads_every_variable():
    env = {
        **SASL_ENV,
        "KAFKA_SSL_CERTIFICATE_LOCATION": "/etc/kafka/client.pem",
        "KAFKA_SSL_KEY_LOCATION": "/etc/kafka/client.key",
        "KAFKA_SSL_KEY_PASSWORD": "key-pw",
    }
    conn = KafkaConnection.from_env(env)
    assert conn == KafkaConnection(
        bootstrap_servers="kafka-1:9093,kafka-2:9093",
        security_protocol="SASL_SSL",
        sasl_mechanism="SCRAM-SHA-512",
        sasl_username="decoder",
        sasl_password="s3cret-pw",
        ssl_ca_location="/etc/kafka/ca.pem",
        ssl_certificate_location="/etc/kafka/client.pem",
        ssl_key_location="/etc/kafka/client.key",
        ssl_key_password="key-pw",
    )


def test_from_env_defaults_to_plaintext_and_ignores_empty_values():
    conn = KafkaConnection.from_env({"KAFKA_BOOTSTRAP_SERVERS": "127.0.0.1:9092", "KAFKA_SASL_MECHANISM": " "})
    assert conn.security_protocol == "PLAINTEXT"
    assert conn.sasl_mechanism is None
    assert conn.as_librdkafka_dict() == {"bootstrap.servers": "127.0.0.1:9092", "security.protocol": "PLAINTEXT"}


def test_from_env_without_bootstrap_servers_is_a_config_error():
    with pytest.raises(KafkaConfigError, match="KAFKA_BOOTSTRAP_SERVERS"):
        KafkaConnection.from_env({})


def test_config_error_belongs_to_both_roots():
    assert issubclass(KafkaConfigError, ConfigError)
    assert issubclass(KafkaConfigError, KafkaLayerError)


def test_as_librdkafka_dict_names_librdkafka_properties_and_applies_extra():
    conn = dataclasses.replace(KafkaConnection.from_env(SASL_ENV), extra={"client.id": "decoder-0"})
    assert conn.as_librdkafka_dict() == {
        "bootstrap.servers": "kafka-1:9093,kafka-2:9093",
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": "decoder",
        "sasl.password": "s3cret-pw",
        "ssl.ca.location": "/etc/kafka/ca.pem",
        "client.id": "decoder-0",
    }


def test_repr_hides_passwords_and_extra_values():
    conn = KafkaConnection(
        bootstrap_servers="kafka:9093",
        security_protocol="SASL_SSL",
        sasl_mechanism="PLAIN",
        sasl_username="decoder",
        sasl_password="s3cret-pw",
        ssl_key_password="key-pw",
        ssl_certificate_location="/c.pem",
        ssl_key_location="/c.key",
        extra={"ssl.keystore.password": "oauth-secret"},
    )
    text = repr(conn)
    for secret in ("s3cret-pw", "key-pw", "oauth-secret"):
        assert secret not in text
        assert secret not in str(conn)
    assert "kafka:9093" in text and "decoder" in text and "ssl.keystore.password" in text


def test_equal_connections_hash_alike():
    assert hash(KafkaConnection("k:9092", extra={"client.id": "a"})) == hash(
        KafkaConnection("k:9092", extra={"client.id": "a"})
    )
    assert len({KafkaConnection("k:9092"), KafkaConnection("k:9092"), KafkaConnection("other:9092")}) == 2


def test_is_immutable_including_extra():
    conn = KafkaConnection("kafka:9092", extra={"client.id": "a"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        conn.bootstrap_servers = "other:9092"
    with pytest.raises(TypeError):
        conn.extra["client.id"] = "b"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"bootstrap_servers": " "}, "bootstrap_servers is empty"),
        ({"security_protocol": "TLS"}, "unknown security protocol 'TLS'"),
        ({"security_protocol": "SASL_SSL"}, "needs a SASL mechanism"),
        ({"security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-1"}, "unknown SASL mechanism"),
        ({"security_protocol": "SASL_SSL", "sasl_mechanism": "PLAIN"}, "needs both a username and a password"),
        (
            {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "SCRAM-SHA-256", "sasl_username": "u"},
            "needs both a username and a password",
        ),
        ({"sasl_mechanism": "PLAIN", "sasl_username": "u", "sasl_password": "p"}, "security protocol is PLAINTEXT"),
        ({"ssl_ca_location": "/ca.pem"}, "SSL settings given but security protocol is PLAINTEXT"),
        ({"security_protocol": "SSL", "ssl_certificate_location": "/c.pem"}, "must be given together"),
        ({"extra": {"bootstrap.servers": "elsewhere:9092"}}, "has its own variable: set KAFKA_BOOTSTRAP_SERVERS"),
    ],
)
def test_inconsistent_settings_are_rejected_with_a_clear_message(fields, message):
    with pytest.raises(KafkaConfigError, match=message):
        KafkaConnection(**{"bootstrap_servers": "kafka:9092", **fields})


def test_valid_combinations_are_accepted():
    KafkaConnection("kafka:9093", security_protocol="SSL", ssl_ca_location="/ca.pem")
    KafkaConnection("kafka:9093", security_protocol="SASL_SSL", sasl_mechanism="OAUTHBEARER")
    KafkaConnection("kafka:9093", security_protocol="SASL_PLAINTEXT", sasl_mechanism="GSSAPI")
