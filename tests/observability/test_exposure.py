"""Where the HTTP endpoints listen: the address settings (IPv4, IPv6, dual-stack) and ``/alarms`` shared, on a
port of its own, or off.  Real sockets; the App is built offline (constructors make no network calls) and only
its servers are started."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from consumer.app import App
from consumer.exceptions import ConfigError
from consumer.kafka import KafkaConnection
from consumer.observability.exceptions import HealthServerError
from consumer.observability.health import RouteServer
from consumer.settings import Alarms, Settings


def _ok() -> tuple[int, str, bytes]:
    return 200, "text/plain", b"ok\n"


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        with error:
            return int(error.code)


def _has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
        return True
    except OSError:
        return False


ipv6 = pytest.mark.skipif(not _has_ipv6_loopback(), reason="this host has no IPv6 loopback")


@pytest.fixture
def served() -> Iterator[list[RouteServer]]:
    servers: list[RouteServer] = []
    yield servers
    for server in servers:
        server.stop()


def _start(served: list[RouteServer], host: str) -> RouteServer:
    server = RouteServer(host, 0, {"/ping": _ok})
    server.start()
    served.append(server)
    return server


def test_an_ipv4_address_serves_ipv4(served):
    server = _start(served, "127.0.0.1")
    assert _status(f"http://127.0.0.1:{server.port}/ping") == 200


@ipv6
def test_an_ipv6_address_serves_ipv6(served):
    server = _start(served, "::1")
    assert _status(f"http://[::1]:{server.port}/ping") == 200
    with pytest.raises(urllib.error.URLError):  # ::1 alone, not the IPv4 loopback
        _status(f"http://127.0.0.1:{server.port}/ping")


@ipv6
def test_the_ipv6_any_address_serves_both(served):
    server = _start(served, "::")
    assert _status(f"http://[::1]:{server.port}/ping") == 200
    assert _status(f"http://127.0.0.1:{server.port}/ping") == 200


def test_an_address_the_host_does_not_have_fails_naming_it():
    server = RouteServer("192.0.2.1", 0, {"/ping": _ok})  # TEST-NET-1: on no interface
    with pytest.raises(HealthServerError, match=r"cannot listen on 192\.0\.2\.1:0"):
        server.start()


def _app(tmp_path, **values) -> App:
    overrides = tmp_path / "overrides.yaml"
    overrides.write_text("overrides: []\n")
    settings = Settings(http_port=0, overrides_path=str(overrides), transactional_id="t", **values)
    return App(settings, KafkaConnection("127.0.0.1:9"))


@pytest.fixture
def app_servers(tmp_path) -> Iterator:
    started: list[App] = []

    def start(**values) -> App:
        app = _app(tmp_path, **values)
        app.http.start()
        if app.alarms_http is not None:
            app.alarms_http.start()
        started.append(app)
        return app

    yield start
    for app in started:
        if app.alarms_http is not None:
            app.alarms_http.stop()
        app.http.stop()


def test_alarms_shared_with_the_metrics(app_servers):
    app = app_servers(alarms="shared")
    assert app.alarms_http is None
    assert _status(f"http://127.0.0.1:{app.http.port}/alarms") == 200


def test_alarms_on_a_port_of_their_own(app_servers):
    app = app_servers(alarms="separate", alarms_host="127.0.0.1", alarms_port=0)
    assert app.alarms_http is not None
    assert _status(f"http://127.0.0.1:{app.http.port}/alarms") == 404
    assert _status(f"http://127.0.0.1:{app.alarms_http.port}/alarms") == 200
    # The alarms port serves nothing else.
    assert _status(f"http://127.0.0.1:{app.alarms_http.port}/metrics") == 404
    assert _status(f"http://127.0.0.1:{app.http.port}/metrics") == 200


def test_alarms_off(app_servers):
    app = app_servers(alarms="off")
    assert app.alarms_http is None
    assert _status(f"http://127.0.0.1:{app.http.port}/alarms") == 404


@ipv6
def test_the_metrics_on_ipv6(app_servers):
    app = app_servers(http_host="::1", alarms="off")
    assert _status(f"http://[::1]:{app.http.port}/healthz") == 200


def test_the_settings_refuse_what_cannot_listen():
    with pytest.raises(ConfigError, match="alarms_port must differ from http_port"):
        Settings(http_port=9102, alarms="separate", alarms_host="0.0.0.0", alarms_port=9102, transactional_id="t")
    with pytest.raises(ConfigError, match="http_host must not be empty"):
        Settings(http_host="", transactional_id="t")
    with pytest.raises(ConfigError, match="alarms_port must be a TCP port"):
        Settings(alarms_port=70000, transactional_id="t")
    with pytest.raises(ConfigError, match=r"alarms: 'public' is not a valid Alarms \(one of shared, separate, off\)"):
        Settings.load(environ={"CRAWL_DECODER_ALARMS": "public"})
    assert Settings.load(environ={"CRAWL_DECODER_ALARMS": "OFF"}).alarms is Alarms.OFF
