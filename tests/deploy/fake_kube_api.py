"""A Kubernetes API server that answers just enough for Helm's ``lookup`` of Secrets.

``helm template --dry-run=server`` renders against a cluster: its ``lookup``
function asks the API server for objects. There is no cluster on the
project's machines, so this answers the requests such a render makes for a
Secret (``/api/v1`` discovery, then ``GET .../secrets/NAME``) from a dict the
test fills, and 404 for everything else. It is an HTTP server on 127.0.0.1,
not a mock of Helm: Helm's own client code makes the requests.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlparse

_V1 = {
    "kind": "APIResourceList", "groupVersion": "v1",
    "resources": [{"name": "secrets", "singularName": "secret", "namespaced": True, "kind": "Secret",
                   "verbs": ["get", "list"]}],
}


class FakeKubeApi:
    """``secrets[(namespace, name)] = {key: base64 value}``; ``requests`` lists the paths asked for."""

    def __init__(self) -> None:
        self.secrets: dict[tuple[str, str], dict[str, str]] = {}
        self.requests: list[str] = []

    def kubeconfig(self, directory: Path, port: int) -> Path:
        path = directory / "kubeconfig"
        path.write_text(json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "fake",
            "clusters": [{"name": "fake", "cluster": {"server": f"http://127.0.0.1:{port}"}}],
            "users": [{"name": "fake", "user": {"token": "fake"}}],
            "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake"}}],
        }))
        return path

    def answer(self, path: str) -> tuple[int, dict]:
        self.requests.append(path)
        if path == "/api/v1":
            return 200, _V1
        parts = path.strip("/").split("/")
        if len(parts) == 6 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "secrets":
            data = self.secrets.get((parts[3], parts[5]))
            if data is not None:
                return 200, {"kind": "Secret", "apiVersion": "v1", "type": "Opaque", "data": data,
                             "metadata": {"name": parts[5], "namespace": parts[3]}}
        return 404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404}


@contextmanager
def fake_kube_api(directory: Path) -> Iterator[tuple[FakeKubeApi, Path]]:
    """A running fake API server and a kubeconfig for it, stopped on exit."""
    api = FakeKubeApi()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            code, body = api.answer(urlparse(self.path).path)
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield api, api.kubeconfig(directory, server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
