"""An unknown CRAWL_DECODER_* variable is reported at start, with the setting it probably meant (issue 19)."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from consumer.cli.environment import known_env, report_unknown_env, unknown_env, warn_unknown_env
from consumer.settings import Settings

REPO = Path(__file__).resolve().parents[2]


def test_a_misspelt_variable_is_found_with_the_setting_it_probably_meant():
    environ = {
        "CRAWL_DECODER_BATCH_SIZ": "5",
        "CRAWL_DECODER_TRANSACTION_ID": "pod-0",
        "CRAWL_DECODER_log_level": "debug",
        "CRAWL_DECODER_QUARANTINE": "q",
        "CRAWL_DECODER_FROBNICATE": "yes",
        "CRAWL_DECODER_BATCH_SIZE": "7",
        "HOME": "/root",
    }
    assert unknown_env(environ) == [
        ("CRAWL_DECODER_BATCH_SIZ", "CRAWL_DECODER_BATCH_SIZE"),
        ("CRAWL_DECODER_FROBNICATE", None),
        ("CRAWL_DECODER_QUARANTINE", "CRAWL_DECODER_QUARANTINE_TOPIC"),
        ("CRAWL_DECODER_TRANSACTION_ID", "CRAWL_DECODER_TRANSACTIONAL_ID"),
        ("CRAWL_DECODER_log_level", "CRAWL_DECODER_LOG_LEVEL"),
    ]
    # Still ignored, as before: reported, not applied, and not refused.
    settings = Settings.load(environ=environ)
    assert settings.batch_size == 7 and settings.log_level == "info"


def test_every_setting_the_config_path_and_the_allocator_choice_are_known():
    environ = {f"CRAWL_DECODER_{field.upper()}": "x" for field in Settings.__dataclass_fields__}
    environ["CRAWL_DECODER_CONFIG"] = "/etc/crawl-decoder/config.yaml"
    environ["CRAWL_DECODER_MALLOC"] = "glibc"  # read by every command before the settings (cli/allocator.py)
    assert unknown_env(environ) == []
    assert set(environ) == known_env()


def test_no_variable_the_chart_the_image_or_the_benchmarks_set_is_reported():
    sources = [*sorted((REPO / "helm").rglob("*.yaml")), *sorted((REPO / "helm").rglob("*.tpl")),
               REPO / "Dockerfile", REPO / "bench" / "pipeline.py", REPO / "tests" / "deploy" / "values-all-on.yaml"]
    named = set()
    for source in sources:
        named.update(re.findall(r"CRAWL_DECODER_[A-Z][A-Z_]*[A-Z]", source.read_text()))
    named.discard("CRAWL_DECODER_SETTING")  # values.yaml's comment: CRAWL_DECODER_<SETTING>
    assert {"CRAWL_DECODER_CONFIG", "CRAWL_DECODER_TRANSACTIONAL_ID", "CRAWL_DECODER_HTTP_PORT"} <= named
    assert unknown_env(dict.fromkeys(named, "x")) == []


def test_the_report_is_one_warning_per_variable():
    with capture_logs() as logs:
        count = report_unknown_env({"CRAWL_DECODER_BATCH_SIZ": "5", "CRAWL_DECODER_FROBNICATE": "1", "PATH": "/bin"})
    assert count == 2
    assert [(e["log_level"], e["variable"], e.get("did_you_mean")) for e in logs] == [
        ("warning", "CRAWL_DECODER_BATCH_SIZ", "CRAWL_DECODER_BATCH_SIZE"),
        ("warning", "CRAWL_DECODER_FROBNICATE", None),
    ]
    with capture_logs() as logs:
        assert report_unknown_env({"CRAWL_DECODER_BATCH_SIZE": "5", "CRAWL_DECODER_CONFIG": "/x"}) == 0
    assert logs == []


def test_commands_that_print_tables_warn_in_plain_lines_on_stderr(capsys):
    environ = {"CRAWL_DECODER_CLEAN_TOPC": "c", "CRAWL_DECODER_BATCH_SIZE": "5"}
    assert warn_unknown_env(environ) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "warning: CRAWL_DECODER_CLEAN_TOPC names no setting and is ignored (did you mean CRAWL_DECODER_CLEAN_TOPIC?)\n"
    )


@pytest.fixture
def topics(topic_factory) -> dict[str, str]:
    return {"landing": topic_factory(), "clean": topic_factory(), "quarantine": topic_factory()}


def test_crawl_decoder_run_warns_at_start_and_runs_on(processor_env, spawn_processor, helpers):
    env = processor_env()
    env["CRAWL_DECODER_BATCH_SIZ"] = "5"
    process = spawn_processor(env)
    helpers.wait_for(
        lambda: "partitions assigned" in process.log() or process.popen.poll() is not None, "partitions assigned"
    )
    assert process.popen.poll() is None, process.log()[-3000:]
    warnings = [e for e in process.events() if e.get("event") == "unknown settings variable ignored"]
    assert [(e["level"], e["variable"], e["did_you_mean"]) for e in warnings] == [
        ("warning", "CRAWL_DECODER_BATCH_SIZ", "CRAWL_DECODER_BATCH_SIZE")
    ]
    events = [e.get("event") for e in process.events()]
    assert events.index("unknown settings variable ignored") < events.index("partitions assigned"), "at start"
    process.signal(signal.SIGTERM)
    assert process.wait(40) == 0, process.log()[-3000:]
