"""Basic auth and a private CA for the Schema Registry, from the settings (the chart's Secrets).

A small HTTPS server on 127.0.0.1 plays the registry: its certificate is signed
by a CA made here, and it answers only requests with the right basic-auth
header. The processor's own path is used: ``Settings`` -> ``build_serde`` ->
the first serialized record registers its schema.
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import json
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from consumer.exceptions import ConfigError
from consumer.serialization import RegistryError, build_serde
from consumer.serialization.framing import confluent_header
from consumer.serialization.registry import client_config
from consumer.settings import Settings

from serialization_samples import REPO_SCHEMAS, decoded_record

USER, PASSWORD = "svc-decoder", "registry-s3cret-pw"
SCHEMA_ID = 4242


def _certificate(subject: str, key, issuer_name, issuer_key, *, ca: bool):
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(issuer_name or x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False
        )
    return builder.sign(issuer_key, hashes.SHA256())


class _Registry(BaseHTTPRequestHandler):
    requests: list[tuple[str, str, str | None]]

    def log_message(self, *args) -> None:  # keep pytest's output clean
        pass

    def do_POST(self) -> None:  # http.server's naming
        length = int(self.headers.get("Content-Length", 0))
        self.rfile.read(length)
        auth = self.headers.get("Authorization")
        self.requests.append(("POST", self.path, auth))
        expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        if auth != expected:
            self._answer(401, {"error_code": 40101, "message": "Unauthorized"})
        elif self.path.startswith("/subjects/") and "/versions" in self.path:
            self._answer(200, {"id": SCHEMA_ID})
        else:
            self._answer(404, {"error_code": 40400, "message": "not found"})

    def _answer(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def https_registry(tmp_path_factory):
    """(url, CA file, recorded requests) of a registry that wants basic auth over TLS."""
    directory = tmp_path_factory.mktemp("registry-tls")
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = _certificate("test registry CA", ca_key, None, ca_key, ca=True)
    server_key = ec.generate_private_key(ec.SECP256R1())
    server_cert = _certificate("127.0.0.1", server_key, ca_cert.subject, ca_key, ca=False)
    ca_file, cert_file, key_file = directory / "ca.crt", directory / "tls.crt", directory / "tls.key"
    ca_file.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    cert_file.write_bytes(server_cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(server_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))

    handler = type("Handler", (_Registry,), {"requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}", str(ca_file), handler.requests
    finally:
        server.shutdown()
        server.server_close()


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
