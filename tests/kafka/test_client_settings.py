"""Any Kafka: the user's librdkafka settings (kafka_config), the properties the engine owns, client.id, OIDC."""

from __future__ import annotations

import json
import re
import sys

import pytest
from confluent_kafka import Producer

from consumer.cli.environment import unknown_env
from consumer.exceptions import ConfigError
from consumer.kafka import KafkaConfigError, KafkaConnection, make_admin, make_consumer, make_producer
from consumer.kafka.config import ENGINE_OWNED
from consumer.observability.logging import configure_logging
from consumer.settings import Settings, kafka_config_property

MIB = 1024 * 1024

OIDC_ENV = {
    "KAFKA_BOOTSTRAP_SERVERS": "broker.example:9093",
    "KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
    "KAFKA_SASL_MECHANISM": "OAUTHBEARER",
    "KAFKA_SASL_OAUTHBEARER_METHOD": "OIDC",
    "KAFKA_SASL_OAUTHBEARER_CLIENT_ID": "crawl-decoder",
    "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET": "oidc-s3cret",
    "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL": "https://idp.example/realms/kafka/protocol/openid-connect/token",
    "KAFKA_SASL_OAUTHBEARER_SCOPE": "kafka",
}


class TestEnvironmentMapping:
    @pytest.mark.parametrize(
        ("suffix", "prop"),
        [
            ("SESSION_TIMEOUT_MS", "session.timeout.ms"),
            ("CLIENT_ID", "client.id"),
            ("STATISTICS_INTERVAL_MS", "statistics.interval.ms"),
            ("SOCKET_KEEPALIVE_ENABLE", "socket.keepalive.enable"),
            ("A__B_C", "a_b.c"),  # a double underscore stands for an underscore
        ],
    )
    def test_a_variable_names_the_property_lower_case_with_dots(self, suffix, prop):
        assert kafka_config_property(suffix) == prop

    def test_the_yaml_map_and_the_variables_merge_variables_winning(self, tmp_path):
        path = tmp_path / "config.yaml"
        path.write_text("kafka_config:\n  session.timeout.ms: 30000\n  socket.keepalive.enable: true\n  client.id: a\n")
        environ = {"CRAWL_DECODER_KAFKA_CONFIG_SESSION_TIMEOUT_MS": "45000"}
        settings = Settings.load(path, environ=environ)
        # YAML numbers and booleans become the strings librdkafka reads.
        assert dict(settings.kafka_config) == {
            "session.timeout.ms": "45000", "socket.keepalive.enable": "true", "client.id": "a",
        }

    def test_the_variables_alone_make_the_map(self):
        settings = Settings.load(environ={"CRAWL_DECODER_KAFKA_CONFIG_FETCH_WAIT_MAX_MS": "100"})
        assert dict(settings.kafka_config) == {"fetch.wait.max.ms": "100"}

    @pytest.mark.parametrize("text", ["kafka_config: 5\n", "kafka_config:\n  a.b: [1]\n", "kafka_config:\n  a.b:\n"])
    def test_a_map_that_is_not_property_to_value_is_refused(self, tmp_path, text):
        path = tmp_path / "config.yaml"
        path.write_text(text)
        with pytest.raises(ConfigError, match="kafka_config"):
            Settings.load(path, environ={})

    def test_its_variables_are_not_reported_as_unknown_settings(self):
        environ = {"CRAWL_DECODER_KAFKA_CONFIG_SESSION_TIMEOUT_MS": "45000", "CRAWL_DECODER_BACH_SIZE": "1"}
        assert [variable for variable, _ in unknown_env(environ)] == ["CRAWL_DECODER_BACH_SIZE"]

    def test_the_settings_repr_names_the_properties_and_hides_their_values(self):
        settings = Settings(kafka_config={"ssl.keystore.password": "k3y-pw"})
        assert "ssl.keystore.password" in repr(settings) and "k3y-pw" not in repr(settings)


class TestRefusals:
    @pytest.mark.parametrize("prop", sorted(ENGINE_OWNED))
    def test_a_property_the_engine_owns_is_refused_naming_it(self, prop):
        with pytest.raises(KafkaConfigError, match=f"kafka_config sets {prop}, which the engine owns"):
            KafkaConnection("k:9092", extra={prop: "x"})

    @pytest.mark.parametrize(
        ("prop", "variable"),
        [
            ("bootstrap.servers", "KAFKA_BOOTSTRAP_SERVERS"),
            ("sasl.password", "KAFKA_SASL_PASSWORD"),
            ("sasl.oauthbearer.client.secret", "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET"),
        ],
    )
    def test_a_property_with_its_own_variable_is_refused_naming_the_variable(self, prop, variable):
        with pytest.raises(KafkaConfigError, match=f"{prop}, which has its own variable: set {variable}"):
            KafkaConnection("k:9092", extra={prop: "x"})

    @pytest.mark.parametrize("prop", ["stats_cb", "logger"])
    def test_a_callback_cannot_come_from_settings(self, prop):
        with pytest.raises(KafkaConfigError, match="a callback"):
            KafkaConnection("k:9092", extra={prop: "x"})

    def test_the_run_command_refuses_at_start_in_json(self, monkeypatch, capsys, tmp_path):
        from consumer.cli import main

        monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9")
        monkeypatch.setenv("CRAWL_DECODER_KAFKA_CONFIG_ISOLATION_LEVEL", "read_uncommitted")
        monkeypatch.setenv("CRAWL_DECODER_OVERRIDES_PATH", str(tmp_path / "none.yaml"))
        config = tmp_path / "config.yaml"
        config.write_text("group_id: g\n")
        try:
            assert main(["run", "--config", str(config)]) == 2
        finally:
            # run configured logging on capsys's stdout, which closes with this test.
            configure_logging("info", stream=sys.__stderr__)
        # Every line JSON (output not a terminal), the refusal last, naming the property.
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert (lines[-1]["event"], lines[-1]["level"]) == ("cannot start", "error")
        assert "kafka_config sets isolation.level, which the engine owns" in lines[-1]["error"]


class TestClientId:
    def test_each_client_is_named_after_the_instance_and_its_role(self):
        conn = KafkaConnection("k:9092", instance="crawl-decoder-7")
        assert conn.client_id("consumer") == "crawl-decoder-7-consumer"
        assert conn.client_id("lag") == "crawl-decoder-7-lag"

    def test_a_client_id_in_kafka_config_is_used_as_given_by_every_client(self):
        conn = KafkaConnection("k:9092", extra={"client.id": "team-crawl"}, instance="crawl-decoder-7")
        assert {conn.client_id(role) for role in ("consumer", "producer", "admin")} == {"team-crawl"}

    def test_the_run_command_names_the_instance_after_the_transactional_id(self):
        settings = Settings(transactional_id="crawl-decoder-2")
        conn = KafkaConnection.from_env({"KAFKA_BOOTSTRAP_SERVERS": "k:9092"}, instance=settings.transactional_id)
        assert conn.client_id("producer") == "crawl-decoder-2-producer"


class TestOauthbearer:
    def test_oidc_settings_come_from_the_environment_as_librdkafka_properties(self):
        conf = KafkaConnection.from_env(OIDC_ENV).as_librdkafka_dict()
        assert {key: value for key, value in conf.items() if key.startswith("sasl.")} == {
            "sasl.mechanism": "OAUTHBEARER",
            "sasl.oauthbearer.method": "oidc",
            "sasl.oauthbearer.client.id": "crawl-decoder",
            "sasl.oauthbearer.client.secret": "oidc-s3cret",
            "sasl.oauthbearer.token.endpoint.url": OIDC_ENV["KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL"],
            "sasl.oauthbearer.scope": "kafka",
        }

    def test_the_client_secret_stays_out_of_repr(self):
        conn = KafkaConnection.from_env(OIDC_ENV)
        assert "oidc-s3cret" not in repr(conn) and "oidc-s3cret" not in str(conn)
        assert "sasl_oauthbearer_client_secret='***'" in repr(conn) and "crawl-decoder" in repr(conn)

    @pytest.mark.parametrize(
        "missing",
        ["KAFKA_SASL_OAUTHBEARER_CLIENT_ID", "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET",
         "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL"],
    )
    def test_oidc_needs_client_id_secret_and_token_endpoint(self, missing):
        environ = {key: value for key, value in OIDC_ENV.items() if key != missing}
        with pytest.raises(KafkaConfigError, match="method oidc needs " + missing.removeprefix("KAFKA_").lower()):
            KafkaConnection.from_env(environ)

    def test_an_unknown_method_is_refused(self):
        with pytest.raises(KafkaConfigError, match=re.escape("unknown sasl.oauthbearer.method 'saml'")):
            KafkaConnection.from_env({**OIDC_ENV, "KAFKA_SASL_OAUTHBEARER_METHOD": "saml"})

    def test_oidc_settings_without_the_oauthbearer_mechanism_are_refused(self):
        environ = {**OIDC_ENV, "KAFKA_SASL_MECHANISM": "PLAIN", "KAFKA_SASL_USERNAME": "u", "KAFKA_SASL_PASSWORD": "p"}
        with pytest.raises(KafkaConfigError, match="OAUTHBEARER settings given but the SASL mechanism is PLAIN"):
            KafkaConnection.from_env(environ)

    def test_librdkafka_accepts_the_oidc_configuration(self):
        # No OIDC server runs here (README, "What is not tested here"): this proves the properties are
        # librdkafka's and consistent (its constructor validates them offline); not a token fetched.
        conn = KafkaConnection.from_env(OIDC_ENV)
        for client in (make_producer(conn), make_consumer(conn, "g"), make_admin(conn)):
            assert client is not None
        with pytest.raises(Exception, match=re.escape("sasl.oauthbearer.method")):
            Producer({**conn.as_librdkafka_dict(), "sasl.oauthbearer.method": "nonsense"})


class TestKafkaConfigWinsOverOurTuning:
    """What ``kafka_config`` sets reaches the client unless the engine owns it: our own tuning (compression,
    batch and fetch sizes) is a default, never a silent override."""

    def test_the_producer_takes_a_compression_and_batch_size_given(self):
        from consumer.kafka.clients import producer_config

        conf = producer_config(KafkaConnection("k:9092", extra={"compression.type": "lz4", "linger.ms": "20"}),
                               transactional_id="t-1")
        assert (conf["compression.type"], conf["linger.ms"]) == ("lz4", "20")
        assert (conf["enable.idempotence"], conf["acks"], conf["transactional.id"]) == (True, "all", "t-1")

    def test_the_producer_keeps_its_tuning_when_nothing_is_given(self):
        from consumer.kafka.clients import producer_config

        conf = producer_config(KafkaConnection("k:9092"))
        assert (conf["compression.type"], conf["compression.level"]) == ("zstd", 1)

    @pytest.mark.parametrize("name", ["compression.type", "compression.codec"])
    def test_a_codec_given_comes_without_our_zstd_level(self, name):
        # Levels are codec-specific: zstd's 1 is not what an operator choosing gzip or lz4 asked for.
        from consumer.kafka.clients import producer_config

        conf = producer_config(KafkaConnection("k:9092", extra={name: "gzip"}))
        assert conf[name] == "gzip" and "compression.level" not in conf

    def test_a_level_given_alone_sets_our_codecs_level(self):
        from consumer.kafka.clients import producer_config

        conf = producer_config(KafkaConnection("k:9092", extra={"compression.level": "3"}))
        assert (conf["compression.type"], conf["compression.level"]) == ("zstd", "3")

    def test_the_consumer_takes_fetch_sizes_given(self):
        from consumer.kafka.clients import consumer_config

        conf = consumer_config(KafkaConnection("k:9092", extra={"fetch.max.bytes": "1048576"}), "g")
        assert conf["fetch.max.bytes"] == "1048576"
        assert (conf["isolation.level"], conf["enable.auto.commit"], conf["group.id"]) == ("read_committed", False, "g")

    def test_the_consumers_prefetch_follows_the_batch_byte_bound(self):
        """Issue 38: what the consumer buffers is sized with the batch (queue one batch, a fetch half of one,
        a partition's share a sixteenth); at the default 16 MiB, the sizes issue 31 measured."""
        from consumer.kafka.clients import BATCH_BYTES, consumer_config

        def sizes(**kwargs):
            conf = consumer_config(KafkaConnection("k:9092"), "g", **kwargs)
            return conf["queued.max.messages.kbytes"], conf["fetch.max.bytes"], conf["max.partition.fetch.bytes"]

        assert BATCH_BYTES == 16 * MIB and sizes() == (16 * 1024, 8 * MIB, MIB)
        assert sizes(batch_bytes=4 * MIB) == (4 * 1024, 2 * MIB, MIB // 4)
        assert sizes(batch_bytes=2048 * MIB)[0] == 2_097_151, "librdkafka's largest prefetch queue"

    @pytest.mark.parametrize("batch_bytes", [MIB, 2 * MIB, 16 * MIB, 2048 * MIB])
    def test_every_byte_bound_the_settings_take_makes_a_consumer(self, batch_bytes):
        """librdkafka refuses a fetch smaller than its message.max.bytes: at 1 MiB the processor did not start."""
        from consumer.kafka import make_consumer

        make_consumer(KafkaConnection("127.0.0.1:1"), "g", batch_bytes=batch_bytes).close()

    def test_the_transaction_timeout_is_the_settings(self):
        from consumer.kafka.clients import producer_config

        conf = producer_config(KafkaConnection("k:9092"), transactional_id="t", transaction_timeout_ms=10_000)
        assert conf["transaction.timeout.ms"] == 10_000

    def test_acks_is_the_engines(self):
        with pytest.raises(KafkaConfigError, match="acks"):
            KafkaConnection("k:9092", extra={"acks": "1"})
