"""``ensure_topics`` waits for its topics in metadata until its deadline, through a metadata request that times
out: a broker that stops answering for a few seconds (starved of CPU, a long GC pause) must not fail a
processor's start, or a test, that a second request would have let through.

The pause is real: a broker of this module's own, its process stopped (SIGSTOP) for longer than one metadata
request waits, then continued.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from consumer.devbroker import LocalBroker
from consumer.kafka import KafkaConnection, KafkaUnavailableError, ensure_topics, make_admin
from consumer.kafka.clients import _wait_visible

#: Longer than one metadata request waits (5 s) in _wait_visible.
PAUSE_S = 7.0


@pytest.fixture(scope="module")
def broker():
    with LocalBroker() as started:
        yield started


def _paused(broker: LocalBroker, seconds: float) -> threading.Thread:
    assert broker.pid is not None
    os.kill(broker.pid, signal.SIGSTOP)
    resume = threading.Timer(seconds, os.kill, (broker.pid, signal.SIGCONT))
    resume.start()
    _wait_all_threads_stopped(broker.pid)
    return resume


def _wait_all_threads_stopped(pid: int) -> None:
    """Until every thread of *pid* is stopped: SIGSTOP reaches a JVM's threads one by one, and on a
    loaded machine a network thread still running could answer the request the test sends next (seen
    once in a full run: the request answered, nothing raised)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        states = []
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{task}/stat") as stat:
                    states.append(stat.read().rsplit(")", 1)[1].split()[0])
            except FileNotFoundError:  # a thread that ended meanwhile
                continue
        if states and all(state in ("T", "t") for state in states):
            return
        time.sleep(0.01)  # polling /proc: no event says a thread has stopped
    raise AssertionError(f"broker {pid} not stopped 10 s after SIGSTOP")


def test_a_metadata_request_that_times_out_is_asked_again_until_the_deadline(broker):
    admin = make_admin(KafkaConnection(broker.bootstrap_servers))
    ensure_topics(admin, ["paused"])
    resume = _paused(broker, PAUSE_S)
    try:
        _wait_visible(admin, ["paused"], deadline=time.monotonic() + 30)
    finally:
        resume.join()


def test_a_broker_that_never_answers_before_the_deadline_is_unavailable(broker):
    admin = make_admin(KafkaConnection(broker.bootstrap_servers))
    ensure_topics(admin, ["paused-long"])
    resume = _paused(broker, PAUSE_S)
    try:
        with pytest.raises(KafkaUnavailableError, match="cannot read cluster metadata"):
            _wait_visible(admin, ["paused-long"], deadline=time.monotonic() + 3)
    finally:
        resume.join()
