"""Readiness follows Kafka, and a broker or transaction coordinator that is not there is waited for.

On a broker of this module's own, stopped and started by the tests (the
session's is shared): a broker gone mid-run clears ``/readyz`` within
``not_ready_after_s``, with the reason, and its return restores it, every record
written exactly once; a broker absent at start is waited for, and processing
starts when it appears.  On a broker whose transaction log cannot be created
(replication factor 2 on one node: the transaction coordinator never answers),
the processor waits, not ready, saying why, and SIGTERM ends the wait with exit 0.
"""

from __future__ import annotations

import re
import signal
import time

import pytest
from fresh_topics import fresh_topics
from running_app import RunningApp, http_get

from consumer.app import App
from consumer.devbroker import LocalBroker
from consumer.kafka import KafkaConnection
from consumer.settings import Settings

#: Short, so the tests see readiness clear without waiting out the production default.
NOT_READY_AFTER_S = 5


def _settings(topics: dict[str, str], suffix: str, tmp_path, **extra) -> Settings:
    return Settings(
        landing_topic=topics["landing"],
        clean_topic=topics["clean"],
        quarantine_topic=topics["quarantine"],
        group_id=f"group-{suffix}",
        transactional_id=f"txn-{suffix}",
        http_port=0,
        overrides_path=str(tmp_path / "none.yaml"),
        batch_size=50,
        batch_timeout_ms=100,
        shutdown_timeout_s=10,
        not_ready_after_s=NOT_READY_AFTER_S,
        **extra,
    )


def test_a_broker_outage_clears_readiness_with_the_reason_and_its_end_restores_it(
    own_broker, store, mixed_corpus, tmp_path, helpers
):
    connection = KafkaConnection(own_broker.bootstrap_servers)
    topics, suffix = fresh_topics(connection, partitions=3)
    items = mixed_corpus(1500, seed=8)
    before, after = items[:1000], items[1000:]
    helpers.produce_records(connection, store, topics["landing"], before)
    running = RunningApp(App(_settings(topics, suffix, tmp_path), connection))
    try:
        helpers.wait_for(lambda: running.readyz()[0] == 200 or not running.thread.is_alive(), "ready", timeout=120)
        helpers.wait_for(lambda: helpers.output_offsets(connection, topics) >= 300, "output started")
        own_broker.stop()
        stopped = time.monotonic()
        helpers.wait_for(lambda: running.readyz()[0] == 503, "not ready while the broker is away", timeout=120)
        print(f"not ready {time.monotonic() - stopped:.1f} s after the broker stopped (setting {NOT_READY_AFTER_S} s)")
        _, body = running.readyz()
        unreachable = re.match(r"unavailable: kafka unreachable for (\d+) s: ", body)
        assert unreachable is not None, body
        assert int(unreachable[1]) >= NOT_READY_AFTER_S, "a shorter outage must not clear readiness"
        assert running.app.metrics.render()[0].decode().count("crawl_decoder_ready 0.0") == 1
        assert running.thread.is_alive(), f"the processor died with the broker away: {running.error!r}"

        own_broker.start()
        back = time.monotonic()
        helpers.wait_for(lambda: running.readyz()[0] == 200, "ready again once the broker is back", timeout=180)
        print(f"ready again {time.monotonic() - back:.1f} s after the broker answered")
        helpers.produce_records(connection, store, topics["landing"], after)  # written after the outage
        found = helpers.read_committed_outputs(connection, store, topics, len(items), timeout=300, settle=5)
        assert running.readyz()[0] == 200
    finally:
        if not own_broker.is_running():
            own_broker.start()
        running.stop()
    running.assert_stopped_cleanly()
    helpers.assert_exactly_once(found, items)


def test_a_broker_absent_at_start_is_waited_for_and_processing_starts_when_it_appears(
    own_broker, store, mixed_corpus, tmp_path, helpers
):
    connection = KafkaConnection(own_broker.bootstrap_servers)
    topics, suffix = fresh_topics(connection, partitions=2)
    items = mixed_corpus(300, seed=9)
    helpers.produce_records(connection, store, topics["landing"], items)
    own_broker.stop()
    running = RunningApp(App(_settings(topics, suffix, tmp_path), connection))
    try:
        helpers.wait_for(lambda: "does not answer" in running.readyz()[1], "/readyz says why")
        status, body = running.readyz()
        assert status == 503 and own_broker.bootstrap_servers in body, body
        assert not running.app.processor.started.is_set()
        own_broker.start()
        helpers.wait_for(lambda: running.readyz()[0] == 200, "ready once the broker appears", timeout=180)
        found = helpers.read_committed_outputs(connection, store, topics, len(items), timeout=300, settle=5)
    finally:
        if not own_broker.is_running():
            own_broker.start()
        running.stop()
    running.assert_stopped_cleanly()
    helpers.assert_exactly_once(found, items)


@pytest.fixture(scope="module")
def coordinatorless_broker(tmp_path_factory):
    """A broker that cannot create its transaction log: its transaction coordinator never answers."""
    broker = LocalBroker(properties={"transaction.state.log.replication.factor": "2"})
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


def test_a_transaction_coordinator_that_does_not_answer_is_waited_for_and_sigterm_exits_0(
    coordinatorless_broker, processor_env, spawn_processor, helpers
):
    connection = KafkaConnection(coordinatorless_broker.bootstrap_servers)
    topics, _ = fresh_topics(connection, partitions=1)
    env = processor_env(
        bootstrap=coordinatorless_broker.bootstrap_servers,
        landing_topic=topics["landing"],
        clean_topic=topics["clean"],
        quarantine_topic=topics["quarantine"],
        shutdown_timeout_s=5,
    )
    process = spawn_processor(env)
    starting = "processor starting"
    helpers.wait_for(
        lambda: any(e.get("event") == starting for e in process.events()) or process.popen.poll() is not None, starting
    )
    port = next(e["http_port"] for e in process.events() if e.get("event") == starting)
    helpers.wait_for(lambda: "transactions" in http_get(port, "/readyz")[1], "/readyz names the transactions")
    # Past one init_transactions patience (45 s): the first attempt given up, waited for again, not exited.
    helpers.wait_for(
        lambda: any(e.get("event") == "waiting for transactions" for e in process.events()) or process.popen.poll() is not None,
        "the first attempt given up",
        timeout=180,
    )
    assert process.popen.poll() is None, f"the processor exited:\n{process.log()[-3000:]}"
    status, body = http_get(port, "/readyz")
    assert status == 503 and "waiting for transactions: cannot initialise transactions" in body, body
    assert http_get(port, "/healthz")[0] == 200, "waiting for the coordinator is not a hung loop"
    assert not any(e.get("event") == "partitions assigned" for e in process.events()), "consumed without transactions"
    process.signal(signal.SIGTERM)
    assert process.wait(60) == 0, f"SIGTERM ends the wait with exit 0:\n{process.log()[-3000:]}"
