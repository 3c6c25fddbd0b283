"""The HTTP face of a processor: ``/metrics``, ``/healthz``, ``/readyz``.

Kubernetes restarts a pod whose liveness probe (``/healthz``) fails and stops
routing to one whose readiness probe (``/readyz``) fails; Prometheus scrapes
``/metrics``.  The server is the standard library's ``ThreadingHTTPServer`` in
a daemon thread: a scrape never waits for the processor loop, and the loop
never waits for a scrape.

``Heartbeat`` is how liveness notices a stuck loop: the loop calls ``beat()``
every iteration and ``is_alive`` checks ``heartbeat.alive(max_age_s)``.

``RouteServer`` is the server itself, on any address: an IPv4 one
(``0.0.0.0``: all of them), or an IPv6 one (``::``: all of them, and the IPv4
ones too where the host has both, as a dual-stack socket).  ``HealthServer`` is
a ``RouteServer`` with the three routes; ``/alarms`` can have a ``RouteServer``
of its own on another address and port (the ``alarms`` setting).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from .exceptions import HealthServerError, ObservabilityConfigError
from .logging import get_logger
from .metrics import Metrics

#: A route answers (status, content type, body).
Route = Callable[[], tuple[int, str, bytes]]

TEXT = "text/plain; charset=utf-8"

_log = get_logger(component="health")


class Heartbeat:
    """The time of the processor loop's last iteration, on a monotonic clock.

    Construction counts as a beat, so a process is alive during start-up for
    *max_age_s* and dies on the probe if its loop never starts.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last = clock()

    def beat(self) -> None:
        # A float assignment is atomic under the GIL; readers see the old or the new time.
        self._last = self._clock()

    def age(self) -> float:
        """Seconds since the last beat."""
        return self._clock() - self._last

    def alive(self, max_age_s: float) -> bool:
        return self.age() <= max_age_s


def _no_reason() -> str:
    return ""


def _probe(check: Callable[[], bool], why_not: Callable[[], str] = _no_reason) -> Route:
    """200 "ok", or 503 "unavailable" with *why_not*'s reason on the same line."""

    def route() -> tuple[int, str, bytes]:
        if check():
            return 200, TEXT, b"ok\n"
        reason = why_not()
        return 503, TEXT, (f"unavailable: {reason}\n" if reason else "unavailable\n").encode()

    return route


def _metrics_route(metrics: Metrics) -> Route:
    def route() -> tuple[int, str, bytes]:
        body, content_type = metrics.render()
        return 200, content_type, body

    return route


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "crawl-decoder"
    # A client that opens a connection and sends nothing must not hold a thread forever.
    timeout = 10

    def do_GET(self) -> None:
        self._answer(send_body=True)

    def do_HEAD(self) -> None:
        self._answer(send_body=False)

    def _answer(self, *, send_body: bool) -> None:
        route = self.server.routes.get(urlsplit(self.path).path)
        if route is None:
            status, content_type, body = 404, TEXT, b"not found\n"
        else:
            status, content_type, body = self._run(route)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def _run(self, route: Route) -> tuple[int, str, bytes]:
        try:
            return route()
        except Exception:  # noqa: BLE001
            # A failing check means "not healthy", never a dead server thread.
            _log.exception("health route failed", path=self.path)
            return 500, TEXT, b"internal error\n"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet: probes every few seconds would drown the processor's own logs."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    routes: Mapping[str, Route]

    def __init__(self, address: tuple[str, int], family: socket.AddressFamily) -> None:
        self.address_family = family  # read by the base class when it makes the socket
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        if self.address_family == socket.AF_INET6:
            # "::" takes IPv4 connections too (as ::ffff:a.b.c.d) where the host allows it; an IPv6-only host
            # refuses the option, and the socket stays IPv6 only.
            with contextlib.suppress(OSError):
                self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()


def address_family(host: str) -> socket.AddressFamily:
    """IPv6 for an IPv6 address (``::``, ``::1``, ``fd00::5``), else IPv4 (an address or a host name)."""
    return socket.AF_INET6 if ":" in host else socket.AF_INET


class RouteServer:
    """Serves *routes* (path -> ``Route``) over HTTP on *host*:*port* in a daemon thread.

    Nothing binds until ``start()``; *port* 0 picks a free port, read back from ``port``.
    """

    def __init__(self, host: str, port: int, routes: Mapping[str, Route], *, name: str = "http-server") -> None:
        if not 0 <= port < 65536:
            raise ObservabilityConfigError(f"port {port} is not a TCP port (0 picks a free one)")
        if not host:
            raise ObservabilityConfigError("the address to listen on must not be empty (0.0.0.0 or :: for all)")
        for path in routes:
            if not path.startswith("/"):
                raise ObservabilityConfigError(f"route {path!r} must start with '/'")
        self._address = (host, port)
        self._routes = dict(routes)
        self._name = name
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def host(self) -> str:
        return self._address[0]

    @property
    def port(self) -> int:
        """The bound port once started (the real one when 0 was asked), else the configured one."""
        if self._server is None:
            return self._address[1]
        return int(self._server.server_address[1])

    def start(self) -> None:
        if self._server is not None:
            return
        host, port = self._address
        try:
            server = _Server(self._address, address_family(host))
        except OSError as exc:
            shown = f"[{host}]" if ":" in host else host
            raise HealthServerError(f"cannot listen on {shown}:{port}: {exc}") from exc
        server.routes = self._routes
        self._server = server
        # A short poll interval only bounds how long stop() waits; the thread sleeps in select().
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.1}, name=self._name, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and close the socket; safe to call twice or before ``start``."""
        server, thread = self._server, self._thread
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if thread is not None:
            thread.join()
        self._server = self._thread = None


class HealthServer(RouteServer):
    """Serves ``/metrics``, ``/healthz``, ``/readyz`` and *extra_routes* over HTTP.

    Nothing binds until ``start()``; *port* 0 picks a free port, read back from
    ``port``.  *extra_routes* maps a path (``/alarms``) to a callable returning
    (status, content type, body).  ``crawl_decoder_ready`` in *metrics* follows
    *is_ready*, so an alert sees what the readiness probe sees; a 503 from
    ``/readyz`` says *why_not_ready* in its body.
    """

    def __init__(
        self,
        port: int,
        metrics: Metrics,
        *,
        is_alive: Callable[[], bool],
        is_ready: Callable[[], bool],
        why_not_ready: Callable[[], str] = _no_reason,
        host: str = "0.0.0.0",
        extra_routes: Mapping[str, Route] | None = None,
    ) -> None:
        routes: dict[str, Route] = {
            "/metrics": _metrics_route(metrics),
            "/healthz": _probe(is_alive),
            "/readyz": _probe(is_ready, why_not_ready),
        }
        routes.update(extra_routes or {})
        super().__init__(host, port, routes, name="health-server")
        metrics.track_readiness(is_ready)
