"""``crawl-decoder broker``: prints an address that answers, stops cleanly on SIGTERM."""

from __future__ import annotations

import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from consumer.kafka import KafkaConnection, KafkaUnavailableError, make_admin, wait_until_ready

REPOSITORY = Path(__file__).resolve().parents[2]


def _read_line(process: subprocess.Popen[str], timeout: float) -> str:
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while process.poll() is None and time.monotonic() < deadline:
            if selector.select(timeout=1.0):
                line = process.stdout.readline()
                if line:
                    return line.strip()
                break  # stdout closed: the command ended without an address
    process.wait(timeout=60)
    pytest.fail(f"no address within {timeout:g} s (exit status {process.poll()}): {process.stderr.read()}")


def test_broker_command_prints_a_live_address_and_exits_zero_on_sigterm(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "consumer.cli", "broker", "--data-dir", str(tmp_path / "data")],
        cwd=REPOSITORY,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        bootstrap = _read_line(process, timeout=240)
        assert bootstrap.startswith("127.0.0.1:")
        conn = KafkaConnection(bootstrap)
        assert make_admin(conn).list_topics(timeout=30).brokers  # it answers
    finally:
        process.send_signal(signal.SIGTERM)
        status = process.wait(timeout=120)
    assert status == 0, process.stderr.read()
    assert process.stdout.read() == ""  # the address was the only line
    with pytest.raises(KafkaUnavailableError):
        wait_until_ready(conn, timeout=1)  # the broker went down with the command
    assert (tmp_path / "data" / "kafka-logs" / "meta.properties").exists()  # --data-dir was used and kept
