"""Repository-wide Kafka fixtures: one broker per test session, fresh names per test.

Everything here is lazy: a test that requests none of these fixtures starts
no broker.  ``KAFKA_BOOTSTRAP_SERVERS`` set means "use that cluster"; then no
broker is started and topics created by ``topic_factory`` are deleted at the
end of the session (a local broker's data goes away with it anyway).
Tests that stop, restart or pause a broker must own one (the ``own_broker``
fixture: one per module) so they never disturb tests sharing this one.

Under pytest-xdist (pyproject's ``addopts`` runs the suite on several workers)
the broker is still one per session: the controller starts it once its workers
are spawned (they collect meanwhile) and hands them its address in a file; it
stops it at the end.  Tests that use a module- or class-scoped fixture (a
module's own broker, a built archive) are kept on one worker with their module
(``--dist loadgroup``), so such a fixture is set up once, as without xdist.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Message

from consumer.devbroker import LocalBroker
from consumer.kafka import KafkaConnection, ensure_topics, make_admin, wait_until_ready
from consumer.serialization.schemas import SchemaStore
from consumer.settings import Settings

# -- one broker for all xdist workers ------------------------------------------------

#: The ``workerinput`` key naming the directory where the controller's broker leaves its address.
_SHARED_BROKER_KEY = "crawl_decoder_shared_broker_dir"
_shared_broker = pytest.StashKey[tuple[Path, LocalBroker]]()


def _external_bootstrap() -> str:
    return os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "").strip()


def _is_xdist_controller(config: pytest.Config) -> bool:
    """True in the process that spawns xdist workers (not in a worker, not in a run without xdist)."""
    return (
        config.pluginmanager.hasplugin("xdist")
        and config.getoption("dist", "no") != "no"
        and bool(config.getoption("tx", None))
        and not config.getoption("collectonly")
        and not hasattr(config, "workerinput")
    )


def pytest_configure(config: pytest.Config) -> None:
    if _is_xdist_controller(config) and not _external_bootstrap():
        directory = Path(tempfile.mkdtemp(prefix="crawl-decoder-shared-broker-"))
        config.stash[_shared_broker] = (directory, LocalBroker())


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """(xdist hook, controller side) Tell each worker where the shared broker's address will be."""
    shared = node.config.stash.get(_shared_broker, None)
    if shared is not None:
        node.workerinput[_SHARED_BROKER_KEY] = str(shared[0])


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Controller: start the shared broker after xdist has spawned the workers (trylast), so its ~10 s
    overlap their start and collection; no test is handed out before this returns.  In the main
    thread, so the broker dies with this process (``LocalBroker``'s parent-death signal)."""
    shared = session.config.stash.get(_shared_broker, None)
    if shared is None:
        return
    directory, broker = shared
    try:
        address = broker.start()
    except Exception as exc:  # noqa: BLE001 - every test needing Kafka fails with this message instead
        (directory / "error").write_text(f"the shared broker did not start: {exc}")
        return
    (directory / "bootstrap.tmp").write_text(address)
    (directory / "bootstrap.tmp").replace(directory / "bootstrap")


def pytest_unconfigure(config: pytest.Config) -> None:
    shared = config.stash.get(_shared_broker, None)
    if shared is not None:
        directory, broker = shared
        broker.stop()
        shutil.rmtree(directory, ignore_errors=True)


def _shared_broker_dir(config: pytest.Config) -> Path | None:
    """In an xdist worker of a controller that runs the shared broker: the directory holding its address."""
    value = getattr(config, "workerinput", {}).get(_SHARED_BROKER_KEY)
    return Path(value) if value else None


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist, keep the tests of a module that share a module- or class-scoped fixture on one
    worker (``--dist loadgroup``): spread over workers, each would set the fixture up again (a module's
    own broker is a JVM start; test_crash_recovery's is restarted by its tests)."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        module = item.nodeid.split("::")[0]
        if module.rsplit("/", 1)[-1] in _ONE_AT_A_TIME:
            item.add_marker(pytest.mark.xdist_group("broker-restarts"))
            continue
        # _fixtureinfo: pytest has no public way to ask a test for the scopes of its fixtures.
        fixturedefs = getattr(item, "_fixtureinfo", None)
        if fixturedefs is None:
            continue
        scopes = {defs[-1].scope for defs in fixturedefs.name2fixturedefs.values() if defs}
        if scopes & {"module", "class", "package"}:
            item.add_marker(pytest.mark.xdist_group(module))


#: Modules that restart a broker of their own, or stall a member past its session, and then wait for
#: Kafka's recovery within bounds: they run one after another on one worker, as before xdist. Run side
#: by side (two broker JVMs restarting on two cores) a recovery once outlasted the test's five minutes.
_ONE_AT_A_TIME = frozenset(
    {"test_crash_recovery.py", "test_readiness_recovery.py", "test_replay_broker_restart.py", "test_replay_rebalance.py"}
)


# -- fixtures -----------------------------------------------------------------------


@pytest.fixture(scope="session")
def local_broker(request: pytest.FixtureRequest) -> Iterator[LocalBroker | None]:
    """The session's ``LocalBroker``, or None when another process runs the broker: ``KAFKA_BOOTSTRAP_SERVERS``
    names an external cluster, or this is an xdist worker using its controller's broker."""
    if _external_bootstrap() or _shared_broker_dir(request.config) is not None:
        yield None
        return
    broker = LocalBroker()
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture(scope="module")
def own_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalBroker]:
    """A broker for one test module alone, which its tests stop, restart or pause (the session's is shared).
    Its data directory is its own, so its port and data last across a stop and a start."""
    broker = LocalBroker(data_dir=tmp_path_factory.mktemp("own-broker"))
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture(scope="session")
def kafka_bootstrap(local_broker: LocalBroker | None, request: pytest.FixtureRequest) -> str:
    """Bootstrap address of the session's cluster, answering metadata requests."""
    if local_broker is not None:
        return local_broker.bootstrap_servers
    shared = _shared_broker_dir(request.config)
    if shared is not None:
        # The controller wrote one of the two before it handed out the first test.
        if (shared / "error").exists():
            pytest.fail((shared / "error").read_text(), pytrace=False)
        address = (shared / "bootstrap").read_text()
    else:
        address = _external_bootstrap()
    wait_until_ready(KafkaConnection(address), timeout=60.0)
    return address


@pytest.fixture(scope="session")
def kafka_connection(kafka_bootstrap: str) -> KafkaConnection:
    """A plain-text ``KafkaConnection`` to the session's cluster."""
    return KafkaConnection(bootstrap_servers=kafka_bootstrap)


@pytest.fixture(scope="session")
def _created_topics(kafka_connection: KafkaConnection) -> Iterator[list[str]]:
    names: list[str] = []
    yield names
    if _external_bootstrap() and names:
        # Best effort: an external cluster should not collect uuid topics from every test run.
        # Keep the admin referenced until the futures resolve: a destroyed handle cancels them.
        admin = make_admin(kafka_connection)
        for future in admin.delete_topics(names, operation_timeout=30).values():
            future.exception(timeout=60)


@pytest.fixture
def topic_factory(
    kafka_connection: KafkaConnection, _created_topics: list[str]
) -> Callable[..., str]:
    """``topic_factory(partitions=1, config=None) -> name``: a new, ready topic with a uuid name."""
    admin = make_admin(kafka_connection)

    def create(partitions: int = 1, config: Mapping[str, str] | None = None) -> str:
        name = f"test-{uuid.uuid4().hex}"
        ensure_topics(admin, [name], partitions=partitions, config=config)
        _created_topics.append(name)
        return name

    return create


@pytest.fixture(scope="session")
def store() -> SchemaStore:
    """Our Avro schemas, parsed once for the session."""
    return SchemaStore()


@pytest.fixture
def processor_values(topics, group_id, transactional_id, tmp_path) -> Callable[..., dict]:
    """``processor_values(**overrides) -> dict``: the settings (by field name) of a processor on this test's
    ``topics`` (each area defines ``topics`` with the partition counts it needs) and a fresh group and
    transactional id; ``settings_for`` makes them ``Settings``, processor/conftest's ``processor_env`` variables."""

    def make(**overrides) -> dict:
        return {
            "landing_topic": topics["landing"],
            "clean_topic": topics["clean"],
            "quarantine_topic": topics["quarantine"],
            "group_id": group_id,
            "transactional_id": transactional_id,
            "http_port": 0,
            "overrides_path": str(tmp_path / "overrides.yaml"),
            "batch_size": 200,
            "batch_timeout_ms": 100,
            "shutdown_timeout_s": 20,
            **overrides,
        }

    return make


@pytest.fixture
def settings_for(processor_values) -> Callable[..., Settings]:
    """``settings_for(**overrides) -> Settings``: ``processor_values`` as a processor's ``Settings``."""
    return lambda **overrides: Settings(**processor_values(**overrides))


@pytest.fixture
def group_id() -> str:
    """A consumer group id no other test uses."""
    return f"test-group-{uuid.uuid4().hex}"


@pytest.fixture
def transactional_id() -> str:
    """A producer transactional.id no other test uses."""
    return f"test-txn-{uuid.uuid4().hex}"


def consume_until(
    consumer: Consumer, done: Callable[[list[Message]], bool], *, timeout: float = 60.0
) -> list[Message]:
    """Poll ``consumer`` until ``done(messages)`` holds; fail the test at the deadline or on an error."""
    messages: list[Message] = []
    deadline = time.monotonic() + timeout
    while not done(messages):
        if time.monotonic() >= deadline:
            pytest.fail(f"condition not reached within {timeout:g} s; got {len(messages)} messages")
        message = consumer.poll(0.5)
        if message is None:
            continue
        if message.error() is not None:
            pytest.fail(f"consumer error: {message.error()}")
        messages.append(message)
    return messages


@pytest.fixture
def consume() -> Callable[..., list[Message]]:
    """``consume(consumer, done, timeout=60) -> messages``: poll until ``done(messages)``, with a deadline."""
    return consume_until
