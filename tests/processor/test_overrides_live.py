"""Overrides on the running processor: hot reload, refused edits, shadow verdicts, recheck."""

from __future__ import annotations

import os

from consumer.cli import main

STALE_HEADER = "text/html; charset=iso-8859-1"  # the CDN's lie: the bodies are UTF-8
#: A UTF-8 page the lie still garbles without an override: Armenian "yes", three multi-byte sequences whose
#: windows-1252 reading lacks the mojibake signature (a German page is read as UTF-8 without an override now,
#: source utf-8-over-declaration: tests/decoding/test_contradiction.py).
WORD = "Այո"
BODY = f"<html><head><title>t</title></head><body><p>{WORD}</p></body></html>".encode()
OVERRIDE = """
overrides:
  - host: static.cdn.example.com
    encoding: utf-8
    mode: force
    reason: CDN adds charset=iso-8859-1 since the UTF-8 migration
    review_by: 2099-01-01
    owner: crawl-quality
"""
INVALID = """
overrides:
  - host: static.cdn.example.com
    encoding: no-such-label
    mode: force
    reason: typo
    review_by: 2099-01-01
    owner: crawl-quality
"""


def replace_file(path, text: str) -> None:
    """Edit the file as Kubernetes updates a mounted ConfigMap: atomically, never truncated then written
    in place (the running processor could read it empty or half written in between)."""
    staged = path.with_name(path.name + ".new")
    staged.write_text(text)
    os.replace(staged, path)


def pages(raw, prefix: str, n: int, content_type: str = STALE_HEADER):
    return [(f"{prefix}-{i}".encode(), raw(f"https://static.cdn.example.com/{prefix}/{i}", BODY, content_type))
            for i in range(n)]


def test_an_edit_takes_effect_without_restart_and_a_bad_edit_is_refused(
    settings_for, produce, read_outputs, running_app, topics, raw, tmp_path, helpers
):
    overrides = tmp_path / "overrides.yaml"
    overrides.write_text("overrides: []\n")
    app = running_app(settings_for(overrides_path=str(overrides)))
    helpers.wait_for(app.processor.assigned.is_set, "partition assignment", timeout=60)

    produce(topics["landing"], pages(raw, "before", 20))
    assert len(read_outputs(20).clean) == 20

    replace_file(overrides, OVERRIDE)
    helpers.wait_for(lambda: len(app.overrides.current) == 1, "hot reload", timeout=30, every=0.05)
    produce(topics["landing"], pages(raw, "after", 20))

    replace_file(overrides, INVALID)
    helpers.wait_for(lambda: app.overrides.rejected, "refusal of the invalid file", timeout=30, every=0.05)
    produce(topics["landing"], pages(raw, "refused", 20))

    found = read_outputs(60)
    assert len(found.keys()) == len(set(found.keys())) == 60, "nothing lost, nothing twice"
    by_key = found.by_key()
    for i in range(20):
        before = by_key[f"before-{i}".encode()][1]
        assert (before["encoding"], before["override"]) == ("windows-1252", None)
        assert WORD not in before["text"]
        for phase in ("after", "refused"):  # the refused edit left the last good overrides in force
            after = by_key[f"{phase}-{i}".encode()][1]
            assert (after["encoding"], after["source"]) == ("UTF-8", "override")
            assert WORD in after["text"]
            assert after["override"]["reason"].startswith("CDN adds charset")
    metrics = app.metrics.render()[0].decode()
    assert 'crawl_decoder_overrides_reloads_total{result="applied"} 1.0' in metrics
    assert 'crawl_decoder_overrides_reloads_total{result="rejected"} 1.0' in metrics
    assert "crawl_decoder_overrides_config_valid 0.0" in metrics


def test_an_override_whose_problem_was_fixed_is_reported_no_longer_needed(
    settings_for, produce, read_outputs, running_app, topics, raw, tmp_path, kafka_bootstrap, monkeypatch, capsys
):
    overrides = tmp_path / "overrides.yaml"
    overrides.write_text(OVERRIDE + """
  - host: fixed.example.com
    encoding: utf-8
    mode: force
    reason: the site used to send charset=iso-8859-1
    review_by: 2099-01-01
    owner: crawl-quality
""")
    settings = settings_for(overrides_path=str(overrides))
    running_app(settings)
    fixed = [(f"fixed-{i}".encode(), raw(f"https://fixed.example.com/{i}", BODY, "text/html; charset=utf-8"))
             for i in range(12)]
    produce(topics["landing"], pages(raw, "stale", 12) + fixed)
    read_outputs(24)

    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", kafka_bootstrap)
    monkeypatch.setenv("CRAWL_DECODER_CLEAN_TOPIC", topics["clean"])
    monkeypatch.setenv("CRAWL_DECODER_QUARANTINE_TOPIC", topics["quarantine"])
    monkeypatch.setenv("CRAWL_DECODER_LANDING_TOPIC", topics["landing"])
    monkeypatch.setenv("CRAWL_DECODER_OVERRIDES_PATH", str(overrides))
    assert main(["overrides", "report", "--from-topic", "--min-hits", "10"]) == 0
    report = capsys.readouterr().out
    lines = {line.split()[0]: line for line in report.splitlines() if line.split()}
    assert "no longer needed" in lines["fixed.example.com"]
    assert "still needed" in lines["static.cdn.example.com"]

    # A misspelt variable is said once on stderr, as at the processor's start; the table is untouched.
    monkeypatch.setenv("CRAWL_DECODER_QUARANTINE_TOPC", "typo")
    assert main(["overrides", "recheck", "static.cdn.example.com"]) == 0
    out, err = capsys.readouterr()
    assert err.count("CRAWL_DECODER_QUARANTINE_TOPC names no setting") == 1 and "warning" not in out
    assert "windows-1252/http-header" in out
    assert "12 record(s) of static.cdn.example.com: 12 would change without overrides" in out


def test_a_refused_file_reverted_byte_for_byte_is_valid_again(settings_for, running_app, tmp_path, helpers):
    # A git revert or a helm rollback puts back exactly the content in force: nothing to reload, but the
    # refusal is over, and crawl_decoder_overrides_config_valid (and its alert) must say so.
    overrides = tmp_path / "overrides.yaml"
    overrides.write_text(OVERRIDE)
    app = running_app(settings_for(overrides_path=str(overrides)))
    helpers.wait_for(app.processor.assigned.is_set, "partition assignment", timeout=60)

    def valid() -> str:
        return next(
            line for line in app.metrics.render()[0].decode().splitlines()
            if line.startswith("crawl_decoder_overrides_config_valid ")
        ).split()[1]

    assert valid() == "1.0"
    replace_file(overrides, INVALID)
    helpers.wait_for(lambda: valid() == "0.0", "config_valid 0 on the refused file", timeout=30, every=0.05)
    replace_file(overrides, OVERRIDE)
    helpers.wait_for(lambda: valid() == "1.0", "config_valid 1 once reverted", timeout=30, every=0.05)
    metrics = app.metrics.render()[0].decode()
    assert 'crawl_decoder_overrides_reloads_total{result="applied"} 0.0' in metrics, "a revert is not a reload"
    assert len(app.overrides.current) == 1
