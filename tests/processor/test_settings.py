"""Settings: defaults, then the YAML file, then CRAWL_DECODER_* variables; validated once; secrets never logged."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from consumer.cli import main
from consumer.devbroker import free_ports
from consumer.exceptions import ConfigError
from consumer.observability.logging import configure_logging
from consumer.settings import ProcessingMode, Settings

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return path


class TestSources:
    def test_defaults_without_file_or_environment(self):
        settings = Settings.load(environ={})
        assert (settings.landing_topic, settings.clean_topic, settings.quarantine_topic) == (
            "crawl.raw", "crawl.clean", "crawl.quarantine",
        )  # fmt: skip
        assert settings.processing_mode is ProcessingMode.EXACTLY_ONCE
        assert settings.max_body_bytes == 16 * 1024 * 1024

    def test_file_values_are_typed(self, tmp_path):
        path = write(tmp_path, "landing_topic: in\nbatch_size: 25\nshutdown_timeout_s: 5\nprocessing_mode: at-least-once\n")
        settings = Settings.load(path, environ={})
        assert settings.landing_topic == "in"
        assert settings.batch_size == 25
        assert settings.shutdown_timeout_s == 5.0 and isinstance(settings.shutdown_timeout_s, float)
        assert settings.processing_mode is ProcessingMode.AT_LEAST_ONCE

    def test_environment_beats_the_file(self, tmp_path):
        path = write(tmp_path, "batch_size: 25\ngroup_id: from-file\n")
        settings = Settings.load(path, environ={"CRAWL_DECODER_BATCH_SIZE": "7"})
        assert settings.batch_size == 7, "environment wins"
        assert settings.group_id == "from-file", "the file still applies where the environment is silent"

    def test_the_file_can_be_named_by_the_environment(self, tmp_path):
        path = write(tmp_path, "clean_topic: out\n")
        assert Settings.load(environ={"CRAWL_DECODER_CONFIG": str(path)}).clean_topic == "out"

    def test_an_empty_file_means_defaults(self, tmp_path):
        assert Settings.load(write(tmp_path, ""), environ={}) == Settings.load(environ={})

    def test_settings_are_immutable(self):
        settings = Settings.load(environ={})
        with pytest.raises(dataclasses.FrozenInstanceError):
            settings.batch_size = 1  # type: ignore[misc]


class TestValidation:
    @pytest.mark.parametrize(
        ("env", "message"),
        [
            ({"CRAWL_DECODER_BATCH_SIZE": "many"}, "batch_size: 'many' is not a valid int"),
            ({"CRAWL_DECODER_PROCESSING_MODE": "twice"}, "one of exactly-once, at-least-once"),
            ({"CRAWL_DECODER_BATCH_SIZE": "0"}, "batch_size must be positive"),
            ({"CRAWL_DECODER_HTTP_PORT": "70000"}, "http_port must be a TCP port"),
            ({"CRAWL_DECODER_CLEAN_TOPIC": "crawl.raw"}, "three different topics"),
            ({"CRAWL_DECODER_GROUP_ID": ""}, "group_id must not be empty"),
            ({"CRAWL_DECODER_LOG_LEVEL": "loud"}, "log_level must be one of"),
            ({"CRAWL_DECODER_SHUTDOWN_TIMEOUT_S": "-1"}, "shutdown_timeout_s must be positive"),
            ({"CRAWL_DECODER_BATCH_MAX_BYTES": "1048575"}, "batch_max_bytes must be between 1 MiB"),
            ({"CRAWL_DECODER_BATCH_MAX_BYTES": str(2**31 + 1)}, "batch_max_bytes must be between 1 MiB"),
            ({"CRAWL_DECODER_LIVENESS_WINDOW_S": "0"}, "liveness_window_s must be positive"),
            ({"CRAWL_DECODER_TRANSACTION_TIMEOUT_MS": "999"}, "transaction_timeout_ms must be between 1000 and 900000"),
            ({"CRAWL_DECODER_TRANSACTION_TIMEOUT_MS": "900001"}, "transaction_timeout_ms must be between 1000"),
        ],
    )
    def test_bad_values_are_clear_configuration_errors(self, env, message):
        with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
            Settings.load(environ=env)

    def test_every_problem_is_reported_at_once(self):
        with pytest.raises(ConfigError) as caught:
            Settings.load(environ={"CRAWL_DECODER_BATCH_SIZE": "-1", "CRAWL_DECODER_MAX_BODY_BYTES": "0"})
        assert "batch_size must be positive" in str(caught.value)
        assert "max_body_bytes must be positive" in str(caught.value)

    def test_unknown_keys_in_the_file_are_named(self, tmp_path):
        with pytest.raises(ConfigError, match="unknown settings batchsize"):
            Settings.load(write(tmp_path, "batchsize: 10\n"), environ={})

    @pytest.mark.parametrize("text", ["landing_topic: [unclosed\n", "- a list\n- not a mapping\n"])
    def test_a_malformed_file_is_a_configuration_error(self, tmp_path, text):
        with pytest.raises(ConfigError, match=str(tmp_path / "config.yaml")):
            Settings.load(write(tmp_path, text), environ={})

    def test_a_missing_file_is_a_configuration_error(self, tmp_path):
        with pytest.raises(ConfigError, match="cannot read settings file"):
            Settings.load(tmp_path / "absent.yaml", environ={})

    @pytest.mark.parametrize("text", ["batch_size: true\n", "batch_size: 2.5\n", "http_port: 80.9\n"])
    def test_a_number_of_the_wrong_kind_is_refused_not_coerced(self, tmp_path, text):
        with pytest.raises(ConfigError, match="not a valid int"):
            Settings.load(write(tmp_path, text), environ={})

    def test_the_run_command_reports_invalid_settings_and_exits_2(self, tmp_path, monkeypatch, capsys):
        monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9")
        monkeypatch.setenv("CRAWL_DECODER_BATCH_SIZE", "zero")
        try:
            assert main(["run", "--config", str(write(tmp_path, "group_id: g\n"))]) == 2
        finally:
            # run configured logging on capsys's stdout, which closes with this test.
            configure_logging("info", stream=sys.__stderr__)
        # Output that is not a terminal gets JSON lines, the refusal included (run logs to stdout).
        [line] = capsys.readouterr().out.splitlines()
        refused = json.loads(line)
        assert (refused["event"], refused["level"], refused["command"]) == ("cannot start", "error", "run")
        assert "batch_size: 'zero' is not a valid int" in refused["error"]


class TestSecrets:
    def test_repr_hides_credentials_in_the_registry_url(self):
        settings = Settings.load(environ={"CRAWL_DECODER_SCHEMA_REGISTRY_URL": "https://reader:hunter2@registry.example:8081"})
        assert "hunter2" not in repr(settings)
        assert "registry.example:8081" in repr(settings)
        assert settings.schema_registry_url == "https://reader:hunter2@registry.example:8081", "the value itself is kept"

    def test_a_running_processor_never_logs_kafka_or_registry_secrets(self, tmp_path):
        """The real command against an address nobody listens on: it logs, waits for Kafka, ends on SIGTERM."""
        [port] = free_ports(1)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CRAWL_DECODER_", "KAFKA_"))}
        env.update(
            KAFKA_BOOTSTRAP_SERVERS=f"127.0.0.1:{port}",
            KAFKA_SECURITY_PROTOCOL="SASL_PLAINTEXT",
            KAFKA_SASL_MECHANISM="PLAIN",
            KAFKA_SASL_USERNAME="svc-decoder",
            KAFKA_SASL_PASSWORD="kafka-s3cret-pw",
            CRAWL_DECODER_SCHEMA_REGISTRY_URL="https://svc:registry-s3cret@registry.invalid",
            CRAWL_DECODER_HTTP_PORT="0",
            CRAWL_DECODER_OVERRIDES_PATH=str(tmp_path / "none.yaml"),
            CRAWL_DECODER_SHUTDOWN_TIMEOUT_S="3",
            CRAWL_DECODER_LOG_LEVEL="debug",
        )
        log = tmp_path / "run.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "consumer.cli", "run"],
                cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            )  # fmt: skip
            try:
                deadline = time.monotonic() + 60
                while '"event": "waiting for kafka"' not in log.read_text() and process.poll() is None:
                    assert time.monotonic() < deadline, log.read_text()[-2000:]
                    time.sleep(0.2)  # polling the log for a real event, bounded by the deadline
                time.sleep(3)  # a few more attempts, with whatever the clients log at debug level
                process.send_signal(signal.SIGTERM)
                assert process.wait(30) == 0
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait(30)
        output = log.read_text()
        assert '"event": "processor starting"' in output and "svc-decoder" in output, "the connection is logged"
        assert '"event": "waiting for kafka"' in output, "a clear reason, not a traceback"
        assert output.index('"event": "decoder tables ready"') < output.index("waiting for kafka"), (
            "the codecs' tables are built at start, before the processor touches Kafka"
        )
        from consumer.build_info import compiled

        assert f'"compiled": "{compiled()}"' in output, "which decoders run compiled is logged, as --version lists them"
        assert "Traceback" not in output
        assert "kafka-s3cret-pw" not in output
        assert "registry-s3cret" not in output
