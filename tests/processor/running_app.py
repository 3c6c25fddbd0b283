"""An ``App`` run in a thread, for the tests that stop, restart or pause the broker under it."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request

from consumer.app import App


def http_get(port: int, path: str) -> tuple[int, str]:
    """The status and body of a GET of *path* on the app's HTTP port."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


class RunningApp:
    """An App in a thread, remembering how its run() ended."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.app.run()
        except BaseException as exc:  # noqa: BLE001 - reported by the test, not swallowed
            self.error = exc

    def readyz(self) -> tuple[int, str]:
        """``/readyz``'s status and body; (0, "") before the HTTP server has a port."""
        port = self.app.http.port
        return (0, "") if port == 0 else http_get(port, "/readyz")

    def stop(self, timeout: float = 60) -> None:
        self.app.stop()
        self.thread.join(timeout)

    def assert_stopped_cleanly(self) -> None:
        assert not self.thread.is_alive(), "the processor did not stop"
        assert self.error is None, f"the processor ended with {self.error!r}"
