"""``crawl-decoder demo`` on a normal run prints its table and nothing else (issue 19: librdkafka's raw
stderr lines and its transient warnings used to land in the middle of it)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from consumer.demo import trap_samples
from consumer.samples import binary_samples, samples

REPO = Path(__file__).resolve().parents[2]
BROKER_NOTE = "starting a local Kafka broker (the first run downloads its jars from Maven Central)..."


def test_a_normal_run_prints_the_table_and_nothing_else():
    # As the README's first command runs it: no KAFKA_BOOTSTRAP_SERVERS, so the demo starts its own,
    # fresh broker (whose group coordinator is still loading when the first clients arrive).
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAFKA_", "CRAWL_DECODER_"))}
    result = subprocess.run(
        [sys.executable, "-m", "consumer.cli", "demo"],
        cwd=REPO, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stderr.splitlines() == [BROKER_NOTE]
    lines = result.stdout.splitlines()
    records = len(samples()) + len(binary_samples()) + len(trap_samples()) + 1  # and the poison record
    assert len(lines) == 2 + records + 2, result.stdout
    assert lines[0].split() == ["page", "encoding", "source", "destination", "detail"]
    assert set(lines[1].replace(" ", "")) == {"-"}
    names = {sample.name for sample in samples() + binary_samples() + trap_samples()} | {"poison-record"}
    assert {line.split()[0] for line in lines[2:2 + records]} == names
    assert lines[-2] == ""
    assert re.fullmatch(rf"{records} records: \d+ clean, \d+ quarantined, \d+ skipped \(not text\)", lines[-1])
