"""``HealthServer`` over real HTTP on an ephemeral port, and ``Heartbeat`` on a fake clock."""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request

import pytest

from consumer.exceptions import ConfigError
from consumer.observability.exceptions import HealthServerError
from consumer.observability.health import HealthServer, Heartbeat
from consumer.observability.host_alarms import HostAlarms, MojibakeAlarms, alarms_route

from .scrape import parse


class Flag:
    """A probe answer a test can flip."""

    def __init__(self, value: bool) -> None:
        self.value = value

    def __call__(self) -> bool:
        return self.value


def get(server: HealthServer, path: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(f"http://127.0.0.1:{server.port}{path}", method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, dict(error.headers), error.read()


@pytest.fixture
def alive() -> Flag:
    return Flag(True)


@pytest.fixture
def ready() -> Flag:
    return Flag(False)


@pytest.fixture
def server(metrics, alive, ready):
    server = HealthServer(0, metrics, is_alive=alive, is_ready=ready, host="127.0.0.1")
    server.start()
    yield server
    server.stop()


class TestRoutes:
    def test_an_ephemeral_port_is_bound(self, server):
        assert 0 < server.port < 65536

    def test_metrics(self, server, metrics):
        metrics.record_routed("clean", "bom", "UTF-8")
        status, headers, body = get(server, "/metrics")
        assert status == 200
        assert headers["Content-Type"].startswith("text/plain; version=")
        scraped = parse(body.decode())
        labels = frozenset({"destination": "clean", "source": "bom", "encoding": "UTF-8"}.items())
        assert scraped[("crawl_decoder_records_total", labels)] == 1

    def test_liveness_follows_is_alive(self, server, alive):
        assert get(server, "/healthz")[::2] == (200, b"ok\n")
        alive.value = False
        assert get(server, "/healthz")[0] == 503
        alive.value = True
        assert get(server, "/healthz")[0] == 200

    def test_readiness_flips(self, server, ready):
        assert get(server, "/readyz")[0] == 503
        ready.value = True
        assert get(server, "/readyz")[::2] == (200, b"ok\n")

    def test_unknown_paths_are_404(self, server):
        assert get(server, "/")[0] == 404
        assert get(server, "/metrics/extra")[0] == 404

    def test_a_query_string_does_not_change_the_route(self, server):
        assert get(server, "/healthz?verbose=1")[0] == 200

    def test_head_has_no_body(self, server):
        status, headers, body = get(server, "/healthz", method="HEAD")
        assert (status, body) == (200, b"")
        assert headers["Content-Length"] == "3"

    def test_requests_are_not_logged_to_stderr(self, server, capfd):
        get(server, "/healthz")
        get(server, "/nowhere")
        assert capfd.readouterr().err == ""

    def test_a_failing_check_answers_500_and_the_server_keeps_serving(self, metrics):
        def broken() -> bool:
            raise RuntimeError("probe bug")

        server = HealthServer(0, metrics, is_alive=broken, is_ready=lambda: True, host="127.0.0.1")
        server.start()
        try:
            assert get(server, "/healthz")[0] == 500
            assert get(server, "/readyz")[0] == 200
        finally:
            server.stop()

    def test_concurrent_scrapes(self, server):
        statuses: list[int] = []

        def scrape() -> None:
            statuses.append(get(server, "/metrics")[0])

        threads = [threading.Thread(target=scrape) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert statuses == [200] * 8


class TestExtraRoutes:
    def test_alarms_route(self, metrics):
        alarms = HostAlarms(capacity=8, min_records=2, ratio=0.5)
        alarms.observe("bad.example.com", True, 4)
        alarms.observe("bad.example.com", True, 6)
        server = HealthServer(
            0, metrics, is_alive=lambda: True, is_ready=lambda: True, host="127.0.0.1",
            extra_routes={"/alarms": alarms_route(alarms)},
        )
        server.start()
        try:
            status, headers, body = get(server, "/alarms")
        finally:
            server.stop()
        assert status == 200
        assert headers["Content-Type"] == "application/json"
        document = json.loads(body)
        assert document["hosts"][0]["host"] == "bad.example.com"
        assert document["hosts"][0]["replacements"] == 10
        assert document["hosts"][0]["alarmed"] is True

    def test_alarms_route_with_mojibake_hosts(self, metrics):
        alarms = HostAlarms(capacity=8)
        mojibake = MojibakeAlarms(capacity=8, min_records=2, ratio=0.5, window_s=900)
        for suspected in (True, True, False):
            alarms.observe("shop.example.fr", False, 0)
            mojibake.observe("shop.example.fr", suspected)
        route = alarms_route(alarms, mojibake=mojibake)
        status, content_type, body = route()
        document = json.loads(body)
        assert (status, content_type) == (200, "application/json")
        assert document["hosts"][0]["lossy"] == 0
        assert {k: document["mojibake"][k] for k in ("min_records", "ratio", "window_s")} == {
            "min_records": 2, "ratio": 0.5, "window_s": 900}
        (host,) = document["mojibake"]["hosts"]
        assert (host["host"], host["records"], host["mojibake"], host["alarmed"]) == ("shop.example.fr", 3, 2, True)
        assert "mojibake" not in json.loads(alarms_route(alarms)()[2])

    def test_a_route_must_be_a_path(self, metrics):
        with pytest.raises(ConfigError):
            HealthServer(0, metrics, is_alive=lambda: True, is_ready=lambda: True, extra_routes={"alarms": None})


class TestLifecycle:
    def test_nothing_listens_before_start(self, metrics):
        server = HealthServer(0, metrics, is_alive=lambda: True, is_ready=lambda: True)
        assert server.port == 0
        server.stop()  # harmless before start

    def test_stop_releases_the_port(self, metrics):
        server = HealthServer(0, metrics, is_alive=lambda: True, is_ready=lambda: True, host="127.0.0.1")
        server.start()
        port = server.port
        server.stop()
        server.stop()
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
        again = HealthServer(port, metrics, is_alive=lambda: True, is_ready=lambda: True, host="127.0.0.1")
        again.start()
        try:
            assert get(again, "/healthz")[0] == 200
        finally:
            again.stop()

    def test_a_taken_port_is_a_health_server_error(self, server, metrics):
        clash = HealthServer(server.port, metrics, is_alive=lambda: True, is_ready=lambda: True, host="127.0.0.1")
        with pytest.raises(HealthServerError) as caught:
            clash.start()
        assert isinstance(caught.value.__cause__, OSError)

    def test_an_impossible_port_is_refused(self, metrics):
        with pytest.raises(ConfigError):
            HealthServer(70000, metrics, is_alive=lambda: True, is_ready=lambda: True)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class TestHeartbeat:
    def test_fresh_heartbeat_is_alive(self):
        assert Heartbeat(FakeClock()).alive(30)

    def test_a_loop_that_stops_beating_goes_stale(self):
        clock = FakeClock()
        heartbeat = Heartbeat(clock)
        clock.now += 30
        assert heartbeat.alive(30)
        clock.now += 0.5
        assert not heartbeat.alive(30)
        assert heartbeat.age() == pytest.approx(30.5)

    def test_beating_keeps_it_alive(self):
        clock = FakeClock()
        heartbeat = Heartbeat(clock)
        for _ in range(10):
            clock.now += 20
            heartbeat.beat()
            assert heartbeat.alive(30)

    def test_a_stuck_loop_fails_the_liveness_probe(self, metrics):
        clock = FakeClock()
        heartbeat = Heartbeat(clock)
        server = HealthServer(
            0, metrics, is_alive=lambda: heartbeat.alive(60), is_ready=lambda: True, host="127.0.0.1"
        )
        server.start()
        try:
            assert get(server, "/healthz")[0] == 200
            clock.now += 61
            assert get(server, "/healthz")[0] == 503
            heartbeat.beat()
            assert get(server, "/healthz")[0] == 200
        finally:
            server.stop()
