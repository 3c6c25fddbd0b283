"""The App's view of overrides past their review date (no broker needed: constructors are offline)."""

from __future__ import annotations

import datetime as dt

import pytest

from consumer.app import App
from consumer.kafka import KafkaConnection
from consumer.settings import Settings

ENTRY = """
settings:
  expired: {policy}
overrides:
  - host: old.example.com
    encoding: shift_jis
    mode: force
    reason: legacy pages without declarations
    review_by: 2026-01-31
    owner: crawl-quality
"""


@pytest.mark.parametrize("policy, applies", [("apply", True), ("ignore", False)])
def test_overdue_overrides_are_flagged_and_the_policy_decides(tmp_path, policy, applies):
    path = tmp_path / "overrides.yaml"
    path.write_text(ENTRY.format(policy=policy))
    settings = Settings(http_port=0, overrides_path=str(path), transactional_id="t")
    app = App(settings, KafkaConnection("127.0.0.1:9"), today=lambda: dt.date(2026, 2, 1))
    metrics = app.metrics.render()[0].decode()
    assert "crawl_decoder_overrides_overdue 1.0" in metrics
    assert "crawl_decoder_overrides_loaded 1.0" in metrics, "the start-up file counts as loaded"
    assert (app._table.lookup("old.example.com") is not None) is applies


def test_not_yet_due_is_not_overdue(tmp_path):
    path = tmp_path / "overrides.yaml"
    path.write_text(ENTRY.format(policy="ignore"))
    settings = Settings(http_port=0, overrides_path=str(path), transactional_id="t")
    app = App(settings, KafkaConnection("127.0.0.1:9"), today=lambda: dt.date(2026, 1, 31))
    assert "crawl_decoder_overrides_overdue 0.0" in app.metrics.render()[0].decode()
    assert app._table.lookup("old.example.com") is not None
