"""ACLs enforced: each command works with exactly the ACLs docs/kafka.md lists, and with one fewer it stops at
start naming the missing permission.

The module's own broker authenticates SCRAM users on a SASL_PLAINTEXT listener and enforces ACLs with KRaft's
StandardAuthorizer (``ScramSecurity``).  The admin (a super user) creates the topics, writes the inputs and grants
the ACLs; the commands run as ``app``, who may do only what the ACLs allow.  ``ACLS`` below is docs/kafka.md's
list, command by command, with this test's names for the topics, groups and transactional ids.
"""

from __future__ import annotations

import io
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest
import yaml
from confluent_kafka import TopicPartition
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    ResourcePatternType,
    ResourceType,
)
from warcio.warcwriter import WARCWriter

from consumer.app import App
from consumer.cli import main
from consumer.devbroker import LocalBroker, ScramSecurity
from consumer.kafka import ensure_topics, make_admin, make_consumer, make_producer
from consumer.kafka.permissions import MissingPermissions
from consumer.observability.logging import configure_logging
from consumer.processor.records import Origin, quarantine_record
from consumer.serialization.avro import AvroSerializer
from consumer.settings import Settings

ADMIN, USER = "admin", "app"
SECURITY = ScramSecurity({ADMIN: "admin-secret", USER: "app-secret"})
PAGE = "<html><head><meta charset=utf-8></head><body>Grüße</body></html>".encode()


@dataclass(frozen=True)
class Acl:
    """One ACL for ``app``: an operation on a topic, group or transactional id, literal or by prefix."""

    kind: str
    name: str
    operation: str
    prefixed: bool = False

    def binding(self) -> AclBinding:
        return AclBinding(
            _TYPES[self.kind], self.name,
            ResourcePatternType.PREFIXED if self.prefixed else ResourcePatternType.LITERAL,
            f"User:{USER}", "*", AclOperation[self.operation.upper()], AclPermissionType.ALLOW,
        )  # fmt: skip

    @property
    def named(self) -> str:
        """How the command's message names the permission (a prefix ACL: the start of the name)."""
        what = {"topic": "topic", "group": "group", "txn": "transactional id"}[self.kind]
        return f"{self.operation} on {what} {self.name!r}" if not self.prefixed else f"{self.operation} on {what} '{self.name}"


_TYPES = {"topic": ResourceType.TOPIC, "group": ResourceType.GROUP, "txn": ResourceType.TRANSACTIONAL_ID}


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalBroker]:
    broker = LocalBroker(data_dir=tmp_path_factory.mktemp("secured-kafka"), security=SECURITY)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


class Grants:
    """The ACLs ``app`` holds, changed by the admin; each change is awaited until the authorizer shows it."""

    def __init__(self, broker: LocalBroker) -> None:
        self.admin = make_admin(broker.connection())

    def grant(self, acls: list[Acl]) -> None:
        for future in self.admin.create_acls([a.binding() for a in acls]).values():
            future.result()
        self._wait(lambda held: all(a.binding() in held for a in acls))

    def revoke(self, acl: Acl) -> None:
        found = acl.binding()
        target = AclBindingFilter(found.restype, found.name, found.resource_pattern_type, found.principal,
                                  found.host, found.operation, found.permission_type)
        for future in self.admin.delete_acls([target]).values():
            future.result()
        self._wait(lambda held: found not in held)

    def revoke_all(self) -> None:
        everything = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, f"User:{USER}", None,
                                      AclOperation.ANY, AclPermissionType.ANY)
        for future in self.admin.delete_acls([everything]).values():
            future.result()
        self._wait(lambda held: not held)

    def _wait(self, done) -> None:
        deadline = time.monotonic() + 30
        everything = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, f"User:{USER}", None,
                                      AclOperation.ANY, AclPermissionType.ANY)
        while not done(set(self.admin.describe_acls(everything).result())):
            assert time.monotonic() < deadline, "the ACL change did not show within 30 s"
            time.sleep(0.1)  # the change goes through the metadata log; polled until it shows


@pytest.fixture
def grants(secured) -> Iterator[Grants]:
    found = Grants(secured)
    found.revoke_all()
    yield found
    found.revoke_all()


@pytest.fixture
def names(secured) -> dict[str, str]:
    suffix = uuid.uuid4().hex[:12]
    found = {
        "landing": f"landing-{suffix}", "clean": f"clean-{suffix}", "quarantine": f"quarantine-{suffix}",
        "group": f"crawl-decoder-{suffix}", "txn": f"crawl-decoder-{suffix}-0",
    }  # fmt: skip
    ensure_topics(make_admin(secured.connection()), [found["landing"], found["clean"], found["quarantine"]])
    return found


@pytest.fixture
def settings(names, tmp_path) -> Settings:
    return Settings(
        landing_topic=names["landing"], clean_topic=names["clean"], quarantine_topic=names["quarantine"],
        group_id=names["group"], transactional_id=names["txn"], http_port=0,
        overrides_path=str(tmp_path / "overrides.yaml"), batch_size=50, batch_timeout_ms=100, shutdown_timeout_s=15,
    )  # fmt: skip


@pytest.fixture
def as_user(secured, settings, tmp_path, monkeypatch, capsys):
    """``as_user(*argv) -> (status, stdout, stderr)``: ``crawl-decoder *argv`` as ``app``, with ``{config}``
    replaced by the settings file."""
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({k: getattr(v, "value", v) for k, v in asdict(settings).items()}))
    user = secured.connection(USER)
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", user.bootstrap_servers)
    monkeypatch.setenv("KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT")
    monkeypatch.setenv("KAFKA_SASL_MECHANISM", SECURITY.mechanism)
    monkeypatch.setenv("KAFKA_SASL_USERNAME", USER)
    monkeypatch.setenv("KAFKA_SASL_PASSWORD", SECURITY.users[USER])

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            status = main([str(config) if a == "{config}" else a for a in argv])
        finally:
            configure_logging("info", stream=__import__("sys").__stderr__)
        out, err = capsys.readouterr()
        return status, out, err

    return run


def one_fewer(grants: Grants, acls: list[Acl], attempt) -> None:
    """With each ACL of *acls* taken away in turn, *attempt()* must fail at start naming it."""
    for acl in acls:
        grants.revoke(acl)
        try:
            message = attempt()
            assert acl.named in message, f"without {acl} the message names it: {message}"
            assert "permission missing" in message
        finally:
            grants.grant([acl])


def wait_for_records(broker: LocalBroker, topic: str, count: int) -> None:
    """Until *topic* ends at or past *count* committed offsets (the commit markers are written after the commit
    returns: the end moves a moment later)."""
    deadline = time.monotonic() + 60
    while end_offset(broker, topic) < count:
        assert time.monotonic() < deadline, f"{topic} has fewer than {count} records after 60 s"
        time.sleep(0.2)  # polling the topic's end


def end_offset(broker: LocalBroker, topic: str) -> int:
    consumer = make_consumer(broker.connection(), f"probe-{uuid.uuid4().hex}")
    try:
        partitions = consumer.list_topics(topic, timeout=30).topics[topic].partitions
        return sum(
            consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=30, cached=False)[1] for p in partitions
        )
    finally:
        consumer.close()


def produce(broker: LocalBroker, topic: str, values: list[bytes]) -> None:
    producer = make_producer(broker.connection())
    for i, value in enumerate(values):
        producer.produce(topic, value, f"k{i}".encode())
    assert producer.flush(30) == 0


# -- run ---------------------------------------------------------------------------------------------------


def run_acls(names: dict[str, str]) -> list[Acl]:
    return [
        Acl("topic", names["landing"], "Read"),
        Acl("topic", names["clean"], "Write"),
        Acl("topic", names["quarantine"], "Write"),
        Acl("group", names["group"], "Read"),
        Acl("txn", names["group"] + "-", "Write", prefixed=True),  # the chart's pod-name prefix
    ]


def test_run_works_with_the_listed_acls_and_stops_at_start_without_any_one(secured, grants, names, settings, store):
    acls = run_acls(names)
    grants.grant(acls)
    user = secured.connection(USER)
    raw = {"url": "https://a.example/", "fetched_at": int(time.time() * 1000), "status": 200,
           "headers": [{"name": "Content-Type", "value": "text/html"}], "body": PAGE}
    produce(secured, names["landing"], [AvroSerializer(store, "RawResponse")(raw)])
    app = App(settings, user)
    failure: list[BaseException] = []
    thread = threading.Thread(target=lambda: _catching(app.run, failure), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 120
        while end_offset(secured, names["clean"]) < 1:
            assert not failure, f"run failed: {failure}"
            assert time.monotonic() < deadline, "nothing decoded within 120 s"
            time.sleep(0.2)  # polling the clean topic's end
    finally:
        app.stop()
        thread.join(60)
    assert not failure and not thread.is_alive()

    def attempt() -> str:
        with pytest.raises(MissingPermissions) as caught:
            App(settings, user).run()
        return str(caught.value)

    one_fewer(grants, acls, attempt)


def _catching(call, failures: list[BaseException]) -> None:
    try:
        call()
    except BaseException as exc:  # noqa: BLE001 - reported by the test
        failures.append(exc)


# -- replay ------------------------------------------------------------------------------------------------


def replay_acls(names: dict[str, str]) -> list[Acl]:
    return [
        Acl("topic", names["quarantine"], "Read"),
        Acl("topic", names["clean"], "Write"),
        Acl("topic", names["quarantine"], "Write"),
        Acl("group", names["group"] + "-replay", "Read"),
        Acl("txn", names["group"] + "-", "Write", prefixed=True),
    ]


def quarantined(store, names: dict[str, str], n: int) -> list[bytes]:
    serialize = AvroSerializer(store, "QuarantinedResponse")
    raw = {"url": "https://a.example/", "fetched_at": int(time.time() * 1000), "status": 200,
           "headers": [{"name": "Content-Type", "value": "text/html"}], "body": PAGE}
    return [
        serialize(quarantine_record(reason="lossy", origin=Origin(names["landing"], 0, i, None),
                                    quarantined_at_ms=1, raw=raw, key=b"k%d" % i, kafka_headers=[]))
        for i in range(n)
    ]


def test_replay_works_with_the_listed_acls_and_stops_at_start_without_any_one(secured, grants, names, store, as_user):
    acls = replay_acls(names)
    grants.grant(acls)
    produce(secured, names["quarantine"], quarantined(store, names, 2))
    status, out, err = as_user("replay", "--config", "{config}")
    assert status == 0, err
    assert "released: 2" in out

    def attempt() -> str:
        status, out, err = as_user("replay", "--config", "{config}")
        assert status == 2 and "read:" not in out
        return err

    one_fewer(grants, acls, attempt)


def test_a_dry_run_and_a_rewind_work_with_their_listed_acls(secured, grants, names, store, as_user):
    produce(secured, names["quarantine"], quarantined(store, names, 1))
    dry = [
        Acl("topic", names["quarantine"], "Read"),
        Acl("group", names["group"] + "-replay", "Describe"),
        Acl("group", names["group"] + "-replay-dry-run-", "Describe", prefixed=True),
    ]
    grants.grant(dry)
    status, out, err = as_user("replay", "--config", "{config}", "--dry-run")
    assert status == 0 and "would be released: 1" in out, err

    def attempt() -> str:
        status, _, err = as_user("replay", "--config", "{config}", "--dry-run")
        assert status == 2
        return err

    one_fewer(grants, dry, attempt)
    grants.revoke_all()
    rewind = [
        *replay_acls(names),
        Acl("topic", names["clean"], "Read"),
        Acl("group", names["group"] + "-replay-rewind-", "Describe", prefixed=True),
    ]
    grants.grant(rewind)
    args = ("replay", "--config", "{config}", "--rewind-to", "0")
    status, out, err = as_user(*args)
    assert status == 0 and "released: 1" in out, err

    def rewinding() -> str:
        status, _, err = as_user(*args)
        assert status == 2
        return err

    one_fewer(grants, rewind[-2:], rewinding)


# -- ingest ------------------------------------------------------------------------------------------------


def test_ingest_works_with_the_listed_acls_and_stops_at_start_without_any_one(secured, grants, names, as_user,
                                                                               tmp_path):
    checkpoints = f"{names['landing']}.ingest-checkpoints"
    ensure_topics(make_admin(secured.connection()), [checkpoints], config={"cleanup.policy": "compact"})
    acls = [
        Acl("topic", names["landing"], "Write"),
        Acl("topic", checkpoints, "Read"),
        Acl("topic", checkpoints, "Write"),
        Acl("group", "crawl-decoder-ingest-checkpoints-", "Describe", prefixed=True),
        Acl("group", "crawl-decoder-ingest-watermarks-", "Describe", prefixed=True),
        Acl("txn", "crawl-decoder-ingest-", "Write", prefixed=True),
    ]
    grants.grant(acls)
    count = 0

    def warc() -> Path:
        nonlocal count
        count += 1  # a new input each time: a finished one is skipped by its checkpoint
        path = tmp_path / f"crawl-{count}.warc"
        buffer = io.BytesIO()
        writer = WARCWriter(buffer, gzip=False, warc_version="WARC/1.1")
        block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + PAGE + b"<!-- %d -->" % count
        writer.write_record(writer.create_warc_record(
            f"https://a.example/{count}", "response", payload=io.BytesIO(block), length=len(block),
            warc_content_type="application/http; msgtype=response"))
        path.write_bytes(buffer.getvalue())
        return path

    status, _, err = as_user("ingest", "--config", "{config}", str(warc()))
    assert status == 0, err
    wait_for_records(secured, names["landing"], 1)

    def attempt() -> str:
        status, _, err = as_user("ingest", "--config", "{config}", str(warc()))
        assert status == 2
        return err

    one_fewer(grants, acls, attempt)


# -- overrides report, recheck, suggest ----------------------------------------------------------------------


def reader_acls(*topics: str) -> list[Acl]:
    return [
        *(Acl("topic", topic, "Read") for topic in topics),
        Acl("group", "crawl-decoder-reader-", "Describe", prefixed=True),
    ]


@pytest.mark.parametrize("command", ["report", "recheck", "suggest"])
def test_overrides_readers_work_with_the_listed_acls_and_stop_at_start_without_any_one(
    secured, grants, names, store, as_user, tmp_path, command
):
    produce(secured, names["quarantine"], quarantined(store, names, 1))
    overrides = tmp_path / "overrides.yaml"
    overrides.write_text(yaml.safe_dump({"overrides": [{
        "host": "a.example", "encoding": "UTF-8", "mode": "force", "reason": "test", "review_by": "2099-01-01",
        "owner": "crawl-quality"}]}))  # fmt: skip
    argv, topics = {
        "report": (["overrides", "report", str(overrides), "--from-topic", "--config", "{config}"], ["clean"]),
        "recheck": (["overrides", "recheck", "a.example", "--config", "{config}"], ["clean", "quarantine"]),
        "suggest": (["overrides", "suggest", "--config", "{config}"], ["quarantine", "clean"]),
    }[command]
    acls = reader_acls(*(names[t] for t in topics))
    grants.grant(acls)
    status, _, err = as_user(*argv)
    assert status == 0, err

    def attempt() -> str:
        status, _, err = as_user(*argv)
        assert status == 2
        return err

    one_fewer(grants, acls, attempt)


def test_the_admin_is_a_super_user_and_app_holds_nothing_by_default(secured, grants, names):
    admin = make_admin(secured.connection())
    assert names["landing"] in admin.list_topics(timeout=30).topics
    user = make_admin(secured.connection(USER))
    assert names["landing"] not in user.list_topics(timeout=30).topics, "no ACL, no Describe: the topic is hidden"
