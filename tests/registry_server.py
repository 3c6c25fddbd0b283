"""A Schema Registry that wants basic auth over TLS, on 127.0.0.1, for the registry-credentials tests.

Its certificate is signed by a CA made here (the CA file is handed to the client as
``schema_registry_ca_location``); it answers a schema registration with ``SCHEMA_ID`` only when the
request carries ``USER:PASSWORD`` as basic auth, 401 otherwise, and records every request.
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

USER, PASSWORD = "svc-decoder", "registry-s3cret-pw"
SCHEMA_ID = 4242


@dataclass(frozen=True)
class HttpsRegistry:
    url: str
    ca_file: str
    #: (method, path, Authorization header) of every request, in order.
    requests: list[tuple[str, str, str | None]]


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


@contextmanager
def serve_https_registry(directory: Path) -> Iterator[HttpsRegistry]:
    """Serve the registry until the block ends; its CA, certificate and key are written to *directory*."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = _certificate("test registry CA", ca_key, None, ca_key, ca=True)
    server_key = ec.generate_private_key(ec.SECP256R1())
    server_cert = _certificate("127.0.0.1", server_key, ca_cert.subject, ca_key, ca=False)
    ca_file, cert_file, key_file = directory / "ca.crt", directory / "tls.crt", directory / "tls.key"
    ca_file.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    cert_file.write_bytes(server_cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(server_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))  # fmt: skip

    requests: list[tuple[str, str, str | None]] = []
    handler = type("Handler", (_Registry,), {"requests": requests})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield HttpsRegistry(f"https://127.0.0.1:{server.server_address[1]}", str(ca_file), requests)
    finally:
        server.shutdown()
        server.server_close()
