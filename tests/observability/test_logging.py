"""``configure_logging``/``get_logger``: one JSON object per line, bound keys, secrets never written."""

from __future__ import annotations

import datetime as dt
import io
import json
import logging
import threading

import pytest
import structlog

from consumer.exceptions import ConfigError
from consumer.observability.logging import REDACTED, configure_logging, get_logger

SECRET = "hunter2-s3cr3t"


@pytest.fixture(autouse=True)
def _restore_logging():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    structlog.reset_defaults()
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture
def out() -> io.StringIO:
    stream = io.StringIO()
    configure_logging("info", stream=stream)
    return stream


def lines(stream: io.StringIO) -> list[dict]:
    """Every line written, each parsed as one JSON object (fails if a line is not one)."""
    return [json.loads(line) for line in stream.getvalue().splitlines()]


class TestJsonLines:
    def test_one_object_per_line_with_the_standard_keys(self, out):
        get_logger().info("batch committed", records=500)
        get_logger().warning("slow batch")
        first, second = lines(out)
        assert first["event"] == "batch committed"
        assert first["level"] == "info"
        assert first["records"] == 500
        assert second["level"] == "warning"

    def test_timestamp_is_iso_utc(self, out):
        get_logger().info("tick")
        (line,) = lines(out)
        stamp = dt.datetime.fromisoformat(line["timestamp"])
        assert stamp.utcoffset() == dt.timedelta(0)
        assert abs(dt.datetime.now(dt.UTC) - stamp) < dt.timedelta(minutes=5)

    def test_bound_keys_are_on_every_line(self, out):
        log = get_logger(component="processor", partition=3)
        log.info("first")
        log.bind(batch=7).info("second")
        first, second = lines(out)
        assert (first["component"], first["partition"]) == ("processor", 3)
        assert (second["component"], second["batch"]) == ("processor", 7)

    def test_level_filters(self):
        stream = io.StringIO()
        configure_logging("warning", stream=stream)
        log = get_logger()
        log.debug("no")
        log.info("no")
        log.error("yes")
        assert [line["event"] for line in lines(stream)] == ["yes"]

    def test_an_exception_stays_on_one_line(self, out):
        try:
            raise RuntimeError("broker gone")
        except RuntimeError:
            get_logger().exception("commit failed")
        (line,) = lines(out)
        assert line["level"] == "error"
        assert "RuntimeError: broker gone" in line["exception"]

    def test_library_logs_through_the_stdlib_come_out_as_json(self, out):
        logging.getLogger("confluent_kafka").warning("rebalance in %s", "progress")
        (line,) = lines(out)
        assert line["event"] == "rebalance in progress"
        assert line["logger"] == "confluent_kafka"
        assert line["level"] == "warning"
        assert "timestamp" in line

    def test_lines_from_many_threads_never_interleave(self, out):
        def write(worker: int) -> None:
            log = get_logger(worker=worker)
            for i in range(200):
                log.info("record", i=i, padding="x" * 500)
                logging.getLogger("lib").info("stdlib %d", i)

        threads = [threading.Thread(target=write, args=(worker,)) for worker in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(lines(out)) == 4 * 200 * 2


class TestConfiguration:
    def test_configuring_twice_writes_each_line_once(self):
        first, second = io.StringIO(), io.StringIO()
        configure_logging("info", stream=first)
        configure_logging("info", stream=second)
        get_logger().info("structlog")
        logging.getLogger("lib").info("stdlib")
        assert first.getvalue() == ""
        assert [line["event"] for line in lines(second)] == ["structlog", "stdlib"]

    def test_a_logger_made_before_configuration_follows_it(self):
        early = get_logger(module="early")
        stream = io.StringIO()
        configure_logging("info", stream=stream)
        early.info("after")
        assert lines(stream)[0]["module"] == "early"

    def test_console_rendering_for_terminals(self):
        stream = io.StringIO()
        configure_logging("info", json=False, stream=stream)
        get_logger().info("batch committed", records=500, sasl_password=SECRET)
        text = stream.getvalue()
        assert "batch committed" in text
        assert "records=500" in text
        assert SECRET not in text
        with pytest.raises(json.JSONDecodeError):
            json.loads(text.splitlines()[0])

    def test_an_unknown_level_is_a_configuration_error(self):
        with pytest.raises(ConfigError):
            configure_logging("verbose", stream=io.StringIO())


class TestRedaction:
    @pytest.mark.parametrize(
        "key", ["password", "secret", "token", "sasl_password", "ssl_key_password", "SASL_PASSWORD", "api_token"]
    )
    def test_top_level_secret_keys(self, out, key):
        get_logger().info("connect", **{key: SECRET})
        assert SECRET not in out.getvalue()
        assert lines(out)[0][key] == REDACTED

    def test_librdkafka_configuration_dicts(self, out):
        config = {
            "bootstrap.servers": "kafka:9093",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.username": "decoder",
            "sasl.password": SECRET,
            "ssl.key.password": SECRET,
            "sasl.oauthbearer.client.secret": SECRET,
        }
        get_logger().info("kafka client", config=config)
        assert SECRET not in out.getvalue()
        logged = lines(out)[0]["config"]
        assert logged["bootstrap.servers"] == "kafka:9093"
        assert logged["sasl.username"] == "decoder"
        assert logged["sasl.password"] == logged["ssl.key.password"] == REDACTED

    def test_every_value_of_a_dict_under_a_secret_key(self, out):
        get_logger().info("loaded", secrets={"kafka": SECRET, "registry": {"basic_auth": SECRET}})
        assert SECRET not in out.getvalue()
        assert lines(out)[0]["secrets"] == {"kafka": REDACTED, "registry": {"basic_auth": REDACTED}}

    def test_secrets_inside_lists(self, out):
        get_logger().info("clients", clients=[{"name": "a", "token": SECRET}], tokens=[SECRET, SECRET])
        assert SECRET not in out.getvalue()
        logged = lines(out)[0]
        assert logged["clients"] == [{"name": "a", "token": REDACTED}]
        assert logged["tokens"] == [REDACTED, REDACTED]

    def test_an_unset_secret_is_shown_as_unset(self, out):
        get_logger().info("connect", sasl_password=None)
        assert lines(out)[0]["sasl_password"] is None

    def test_other_keys_are_untouched(self, out):
        get_logger().info("decoded", encoding="Shift_JIS", replacements=2, declared={"meta": "EUC-JP"})
        logged = lines(out)[0]
        assert (logged["encoding"], logged["replacements"], logged["declared"]) == ("Shift_JIS", 2, {"meta": "EUC-JP"})

    def test_bound_secrets_are_redacted_too(self, out):
        get_logger(password=SECRET).info("start")
        assert SECRET not in out.getvalue()
