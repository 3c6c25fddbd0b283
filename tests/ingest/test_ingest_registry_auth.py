"""Every landing writer reaches a Schema Registry with the same basic auth and CA as the processor.

``crawl-decoder ingest`` reads them from the settings, ``LandingWriter`` takes them as
``schema_registry_config``, the Scrapy extension from its ``CRAWL_DECODER_SCHEMA_REGISTRY_*`` settings.
The registry (``registry_server``) answers over TLS with a CA made here, and only to the right
credentials; the records land on the real broker framed with the id it gave.
"""

from __future__ import annotations

import json

import pytest

from consumer.ingest import LandingWriter
from consumer.serialization.framing import confluent_header
from consumer.serialization.registry import client_config

from ingest_helpers import read_all
from registry_server import PASSWORD, SCHEMA_ID, USER, serve_https_registry
from warc_samples import many_pages


@pytest.fixture(scope="module")
def https_registry(tmp_path_factory):
    with serve_https_registry(tmp_path_factory.mktemp("registry-tls")) as registry:
        yield registry


def _registered_with_credentials(registry, topic: str) -> bool:
    """The landing topic's subject was registered by a request carrying basic auth (the server checks which)."""
    return any(
        method == "POST" and path.startswith(f"/subjects/{topic}-value/versions") and (auth or "").startswith("Basic ")
        for method, path, auth in registry.requests
    )


def _all_framed_with_the_registrys_id(kafka_connection, topic: str, expected: int) -> None:
    values = [message.value() for message in read_all(kafka_connection, topic)]
    assert len(values) == expected
    assert all(value.startswith(confluent_header(SCHEMA_ID)) for value in values)


def test_ingest_command_uses_the_registry_credentials_and_ca_of_the_settings(
    https_registry, run_ingest, ingest_env, kafka_connection, topics, tmp_path
):
    many_pages(tmp_path / "pages.warc.gz", 3)
    ingest_env.update(
        CRAWL_DECODER_SCHEMA_REGISTRY_URL=https_registry.url,
        CRAWL_DECODER_SCHEMA_REGISTRY_USERNAME=USER,
        CRAWL_DECODER_SCHEMA_REGISTRY_PASSWORD=PASSWORD,
        CRAWL_DECODER_SCHEMA_REGISTRY_CA_LOCATION=https_registry.ca_file,
    )
    done = run_ingest(str(tmp_path / "pages.warc.gz"))
    assert done.returncode == 0, done.stderr.decode()[-4000:]
    assert _registered_with_credentials(https_registry, topics["landing"])
    _all_framed_with_the_registrys_id(kafka_connection, topics["landing"], 3)


def test_ingest_command_without_the_credentials_writes_nothing_and_says_why(
    https_registry, run_ingest, ingest_env, kafka_connection, topics, tmp_path
):
    many_pages(tmp_path / "pages.warc.gz", 2)
    ingest_env.update(
        CRAWL_DECODER_SCHEMA_REGISTRY_URL=https_registry.url,
        CRAWL_DECODER_SCHEMA_REGISTRY_CA_LOCATION=https_registry.ca_file,
    )
    done = run_ingest(str(tmp_path / "pages.warc.gz"))
    assert done.returncode == 2, "a registry that refuses us is a settings problem: exit 2"
    # Its stderr is not a terminal, so the error is a JSON log line like the rest.
    [failed] = [json.loads(line) for line in done.stderr.splitlines() if b'"command failed"' in line]
    assert failed["level"] == "error" and "schema registry register_schema failed: Unauthorized" in failed["error"]
    assert read_all(kafka_connection, topics["landing"]) == []


def test_landing_writer_takes_the_registry_credentials_and_ca(https_registry, kafka_connection, topics):
    config = client_config(username=USER, password=PASSWORD, ca_location=https_registry.ca_file)
    with LandingWriter(
        topics["landing"], kafka_connection, schema_registry_url=https_registry.url, schema_registry_config=config
    ) as writer:
        writer.write("https://example.jp/", 200, [("Content-Type", "text/html")], b"<p>registry</p>")
    assert _registered_with_credentials(https_registry, topics["landing"])
    _all_framed_with_the_registrys_id(kafka_connection, topics["landing"], 1)


def test_scrapy_extension_reads_the_registry_credentials_from_its_settings(
    https_registry, kafka_bootstrap, kafka_connection, topics
):
    pytest.importorskip("scrapy", reason="Scrapy is an optional extra: pip install -e '.[scrapy]'")
    from scrapy.utils.test import get_crawler

    from consumer.integrations.scrapy import LandingExtension

    crawler = get_crawler(settings_dict={
        "CRAWL_DECODER_LANDING_TOPIC": topics["landing"],
        "CRAWL_DECODER_KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "CRAWL_DECODER_SCHEMA_REGISTRY_URL": https_registry.url,
        "CRAWL_DECODER_SCHEMA_REGISTRY_USERNAME": USER,
        "CRAWL_DECODER_SCHEMA_REGISTRY_PASSWORD": PASSWORD,
        "CRAWL_DECODER_SCHEMA_REGISTRY_CA_LOCATION": https_registry.ca_file,
    })  # fmt: skip
    extension = LandingExtension.from_crawler(crawler)
    with extension.writer as writer:
        writer.write("https://example.tw/", 200, [("Content-Type", "text/html")], b"<p>scrapy</p>")
    assert _registered_with_credentials(https_registry, topics["landing"])
    _all_framed_with_the_registrys_id(kafka_connection, topics["landing"], 1)
