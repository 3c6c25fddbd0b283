"""Kafka's jars: cached under the user's cache dir, resolved by Maven only when missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from consumer.devbroker import DevBrokerError, kafka_classpath
from consumer.devbroker.jars import cache_root


def test_cache_root_follows_xdg_cache_home():
    assert cache_root({"XDG_CACHE_HOME": "/var/cache/me"}) == Path("/var/cache/me/crawl-decoder")
    assert cache_root({}) == Path.home() / ".cache" / "crawl-decoder"


def test_a_completed_cache_is_reused_without_maven(tmp_path, monkeypatch):
    home = tmp_path / "kafka-4.0.2"
    (home / "libs").mkdir(parents=True)
    (home / "complete").write_text("kafka_2.13 4.0.2\n")
    monkeypatch.setenv("PATH", "")  # Maven (and everything else) unreachable: only the cache can answer

    assert kafka_classpath("4.0.2", cache=tmp_path) == f"{home / 'libs'}/*"


def test_a_version_maven_cannot_resolve_fails_with_mavens_output_and_marks_nothing(tmp_path):
    with pytest.raises(DevBrokerError, match=r"kafka_2\.13:0\.0\.0-no-such-release") as caught:
        kafka_classpath("0.0.0-no-such-release", cache=tmp_path)
    assert "0.0.0-no-such-release" in str(caught.value).split("\n", 1)[1]  # Maven's own words follow
    assert not (tmp_path / "kafka-0.0.0-no-such-release" / "complete").exists()
