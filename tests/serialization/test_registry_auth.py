"""Basic auth and a private CA for the Schema Registry, from the settings (the chart's Secrets).

A small HTTPS server on 127.0.0.1 plays the registry (``registry_server``): its
certificate is signed by a CA made here, and it answers only requests with the
right basic-auth header. The processor's own path is used: ``Settings`` ->
``build_serde`` -> the first serialized record registers its schema. (The
landing writers' path: tests/ingest/test_ingest_registry_auth.py.)
"""

from __future__ import annotations

import pytest

from consumer.exceptions import ConfigError
from consumer.serialization import RegistryError, build_serde
from consumer.serialization.framing import confluent_header
from consumer.serialization.registry import client_config
from consumer.settings import Settings

from registry_server import PASSWORD, SCHEMA_ID, USER, serve_https_registry
from serialization_samples import REPO_SCHEMAS, decoded_record


@pytest.fixture(scope="module")
def https_registry(tmp_path_factory):
    """(url, CA file, recorded requests) of a registry that wants basic auth over TLS."""
    with serve_https_registry(tmp_path_factory.mktemp("registry-tls")) as registry:
        yield registry.url, registry.ca_file, registry.requests


def _settings(url: str, **registry) -> Settings:
    return Settings(schemas_dir=str(REPO_SCHEMAS), schema_registry_url=url, **registry)


def test_credentials_and_ca_from_the_settings_reach_the_registry(https_registry):
    url, ca_file, requests = https_registry
    serde = build_serde(_settings(
        url, schema_registry_username=USER, schema_registry_password=PASSWORD, schema_registry_ca_location=ca_file,
    ))
    framed = serde.serialize_clean(decoded_record())
    assert framed.startswith(confluent_header(SCHEMA_ID))
    method, path, auth = requests[-1]
    assert method == "POST" and path.startswith("/subjects/crawl.clean-value/versions")
    assert auth is not None and auth.startswith("Basic ")


def test_without_credentials_the_registry_refuses(https_registry):
    url, ca_file, _ = https_registry
    serde = build_serde(_settings(url, schema_registry_ca_location=ca_file))
    with pytest.raises(RegistryError, match=r"401|Unauthorized"):
        serde.serialize_clean(decoded_record())


def test_without_the_ca_the_registrys_certificate_is_not_trusted(https_registry):
    url, _, _ = https_registry
    serde = build_serde(_settings(url, schema_registry_username=USER, schema_registry_password=PASSWORD))
    with pytest.raises(RegistryError, match=r"(?i)certificate"):
        serde.serialize_clean(decoded_record())


def test_client_config_leaves_out_what_is_not_set():
    assert client_config() == {}
    assert client_config(username="u", password="p:w") == {"basic.auth.user.info": "u:p:w"}
    assert client_config(ca_location="/etc/schema-registry/tls/ca.crt") == {
        "ssl.ca.location": "/etc/schema-registry/tls/ca.crt"
    }


def test_the_password_never_shows_in_the_settings_repr():
    settings = Settings.load(environ={
        "CRAWL_DECODER_SCHEMA_REGISTRY_URL": "https://registry.example:8081",
        "CRAWL_DECODER_SCHEMA_REGISTRY_USERNAME": USER,
        "CRAWL_DECODER_SCHEMA_REGISTRY_PASSWORD": PASSWORD,
        "CRAWL_DECODER_SCHEMA_REGISTRY_CA_LOCATION": "/etc/schema-registry/tls/ca.crt",
    })
    assert settings.schema_registry_password == PASSWORD
    assert PASSWORD not in repr(settings)
    assert USER in repr(settings) and "/etc/schema-registry/tls/ca.crt" in repr(settings)


@pytest.mark.parametrize(("registry", "problem"), [
    ({"schema_registry_username": USER}, "go together"),
    ({"schema_registry_password": PASSWORD}, "go together"),
    ({"schema_registry_username": "a:b", "schema_registry_password": PASSWORD}, "must not contain ':'"),
    ({"schema_registry_url": "https://u:p@registry.example", "schema_registry_username": USER,
      "schema_registry_password": PASSWORD}, "keep one"),
], ids=["username alone", "password alone", "colon in username", "credentials twice"])
def test_inconsistent_registry_credentials_are_refused(registry, problem):
    with pytest.raises(ConfigError, match=problem):
        Settings(**registry)
