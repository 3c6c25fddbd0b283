"""``LocalBroker``: one Apache Kafka process in KRaft mode, started from its jars.

For development, tests and the demo on machines without a Docker engine.
Only loopback addresses; only the process this object started is ever
signalled.  ``start()`` formats the storage (``kafka.tools.StorageTool``, as
``bin/kafka-storage.sh format --standalone`` does) and runs ``kafka.Kafka``
(as ``bin/kafka-server-start.sh`` does).
"""

from __future__ import annotations

import base64
import ctypes
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType

from confluent_kafka import KafkaException

from ..kafka.clients import make_admin
from ..kafka.config import KafkaConnection
from .exceptions import DevBrokerError
from .jars import DEFAULT_KAFKA_VERSION, kafka_classpath
from .properties import ScramSecurity, log4j2_properties, render_properties, server_properties

#: kafka-server-start.sh uses 1 GiB; plenty for a development broker.
JVM_OPTIONS = ("-Xms1g", "-Xmx1g", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-Djava.awt.headless=true")

_STATE_FILE = "devbroker.json"
_PR_SET_PDEATHSIG = 1


class LocalBroker:
    """A single-node Kafka broker process; the constructor starts nothing.

    ``data_dir`` keeps the broker's data (and its ports) across runs; without
    it a temporary directory is used and removed by ``stop()``.  ``port`` fixes
    the client port (default: a free one); *properties* replace server
    properties of the defaults.  ``restart()`` keeps ports and
    data, so clients reconnect to the same address.  With *security* the
    client listener takes SASL/SCRAM users and the authorizer enforces ACLs
    (``ScramSecurity``); ``connection(user)`` is how a user connects.
    """

    def __init__(
        self,
        *,
        kafka_version: str = DEFAULT_KAFKA_VERSION,
        data_dir: str | os.PathLike[str] | None = None,
        port: int | None = None,
        start_timeout: float = 180.0,
        stop_timeout: float = 30.0,
        properties: Mapping[str, str] | None = None,
        security: ScramSecurity | None = None,
    ) -> None:
        self.kafka_version = kafka_version
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self._data_dir = Path(data_dir) if data_dir is not None else None
        self._owns_dir = data_dir is None
        self._process: subprocess.Popen[bytes] | None = None
        self._requested_port = port
        #: Server properties over the defaults (a test's broker without a transaction coordinator).
        self._properties = dict(properties or {})
        self.security = security
        self._port: int | None = None
        self._controller_port: int | None = None
        self._cluster_id: str | None = None

    # -- public -------------------------------------------------------------

    @property
    def bootstrap_servers(self) -> str:
        """``127.0.0.1:<port>``; known once ``start()`` has chosen the port."""
        if self._port is None:
            raise DevBrokerError("the broker has not been started")
        return f"127.0.0.1:{self._port}"

    def connection(self, user: str | None = None) -> KafkaConnection:
        """How a client connects: plain, or as a SCRAM *user* (default: the admin) of a secured broker."""
        if self.security is None:
            if user is not None:
                raise DevBrokerError("this broker has no users: it was started without security")
            return KafkaConnection(self.bootstrap_servers)
        return self.security.connection(self.bootstrap_servers, user or self.security.admin)

    @property
    def data_dir(self) -> Path | None:
        return self._data_dir

    @property
    def log_file(self) -> Path:
        """The broker's log4j log (``server.log``) inside the data directory."""
        if self._data_dir is None:
            raise DevBrokerError("the broker has not been started")
        return self._data_dir / "logs" / "server.log"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None and self.is_running() else None

    def is_running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> str:
        """Start the broker, wait until it answers metadata requests, return its bootstrap address."""
        if self.is_running():
            return self.bootstrap_servers
        classpath = kafka_classpath(self.kafka_version)
        try:
            self._prepare_dir()
            self._load_or_create_state()
            self._write_config()
            self._format_storage(classpath)
            self._launch(classpath)
            self._wait_ready()
        except BaseException:
            self.stop()  # the error message carries the log tail; leave no process or temp dir behind
            raise
        return self.bootstrap_servers

    def stop(self) -> None:
        """Stop the broker process (SIGTERM, SIGKILL after ``stop_timeout``); remove a temporary data dir."""
        self._terminate()
        if self._owns_dir and self._data_dir is not None:
            shutil.rmtree(self._data_dir, ignore_errors=True)
            self._data_dir = None
            self._port = self._controller_port = self._cluster_id = None

    def restart(self) -> str:
        """Stop and start again on the same ports and data; returns the (unchanged) bootstrap address."""
        if self._data_dir is None or self._port is None:
            raise DevBrokerError("restart() needs a broker that was started")
        self._terminate()
        self._launch(kafka_classpath(self.kafka_version))
        self._wait_ready()
        return self.bootstrap_servers

    def log_tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of the broker's console output and log, for error messages."""
        if self._data_dir is None:
            return ""
        parts = []
        for path in (self._data_dir / "logs" / "console.out", self._data_dir / "logs" / "server.log"):
            if path.exists():
                text = path.read_text(errors="replace").splitlines()[-lines:]
                parts.append(f"--- {path.name} ---\n" + "\n".join(text))
        return "\n".join(parts)

    def __enter__(self) -> LocalBroker:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.bootstrap_servers if self._port is not None else "not started"
        return f"LocalBroker(kafka {self.kafka_version}, {where}, running={self.is_running()})"

    # -- steps of start() ---------------------------------------------------

    def _prepare_dir(self) -> None:
        if self._data_dir is None:
            self._data_dir = Path(tempfile.mkdtemp(prefix="crawl-decoder-kafka-"))
        (self._data_dir / "logs").mkdir(parents=True, exist_ok=True)

    def _load_or_create_state(self) -> None:
        """Reuse the cluster id and ports recorded in ``data_dir``, or choose new ones.

        The controller's own endpoint is part of the KRaft voter set written
        at format time, so a formatted data dir must keep its ports.
        """
        assert self._data_dir is not None  # _prepare_dir set it
        state_path = self._data_dir / _STATE_FILE
        if state_path.exists():
            state = json.loads(state_path.read_text())
            self._cluster_id, self._port, self._controller_port = (
                state["cluster_id"], state["port"], state["controller_port"],
            )  # fmt: skip
            if self._requested_port not in (None, self._port):
                raise DevBrokerError(
                    f"{self._data_dir} belongs to a broker on port {self._port}, not {self._requested_port}"
                )
            return
        self._cluster_id = random_cluster_id()
        if self._requested_port is None:
            self._port, self._controller_port = free_ports(2)
        else:
            self._port, [self._controller_port] = self._requested_port, free_ports(1)
        state = {"cluster_id": self._cluster_id, "port": self._port, "controller_port": self._controller_port}
        state_path.write_text(json.dumps(state) + "\n")

    def _write_config(self) -> None:
        # _prepare_dir and _load_or_create_state set them.
        assert self._data_dir is not None and self._port is not None and self._controller_port is not None
        properties = server_properties(
            port=self._port, controller_port=self._controller_port, log_dir=self._data_dir / "kafka-logs"
        )
        if self.security is not None:
            properties.update(self.security.properties(port=self._port, controller_port=self._controller_port))
        properties.update(self._properties)
        (self._data_dir / "server.properties").write_text(render_properties(properties))
        (self._data_dir / "log4j2.properties").write_text(log4j2_properties(self.log_file))

    def _format_storage(self, classpath: str) -> None:
        assert self._data_dir is not None and self._cluster_id is not None  # set by the steps before
        if (self._data_dir / "kafka-logs" / "meta.properties").exists():
            return  # formatted by an earlier run; formatting again would be a no-op costing a JVM start
        command = [
            *self._java(classpath), "kafka.tools.StorageTool", "format",
            "-t", self._cluster_id, "-c", str(self._data_dir / "server.properties"),
            "--standalone", "--ignore-formatted",
            *(self.security.scram_arguments() if self.security is not None else ()),
        ]  # fmt: skip
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise DevBrokerError(
                f"kafka.tools.StorageTool format failed (exit {result.returncode}):\n"
                f"{(result.stdout + result.stderr).strip()[-4000:]}"
            )

    def _launch(self, classpath: str) -> None:
        assert self._data_dir is not None  # start's first step, or restart's check
        command = [*self._java(classpath), "kafka.Kafka", str(self._data_dir / "server.properties")]
        with open(self._data_dir / "logs" / "console.out", "ab") as console:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=console,
                stderr=subprocess.STDOUT,
                # Own session: a Ctrl-C meant for the caller reaches the broker only through stop().
                start_new_session=True,
                preexec_fn=_die_with_parent() if threading.current_thread() is threading.main_thread() else None,
            )

    def _wait_ready(self) -> None:
        """Wait until an AdminClient gets a metadata answer; fail fast if the process exits."""
        admin = make_admin(self.connection(), extra={"log_level": 0})
        deadline = time.monotonic() + self.start_timeout
        assert self._process is not None  # _launch made it
        while True:
            if self._process.poll() is not None:
                raise DevBrokerError(
                    f"Kafka exited with status {self._process.returncode} while starting\n{self.log_tail()}"
                )
            try:
                admin.list_topics(timeout=1.0)
                return
            except KafkaException:
                if time.monotonic() >= deadline:
                    self._terminate()
                    raise DevBrokerError(
                        f"Kafka did not answer on {self.bootstrap_servers} within {self.start_timeout:g} s\n"
                        f"{self.log_tail()}"
                    ) from None

    def _terminate(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)  # kafka.Kafka's shutdown hook does a controlled shutdown
        try:
            process.wait(timeout=self.stop_timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def _java(self, classpath: str) -> list[str]:
        java = shutil.which("java")
        if java is None:
            raise DevBrokerError("Java 17+ is needed to run Kafka but `java` is not on PATH")
        assert self._data_dir is not None  # called from the steps of start(), after _prepare_dir
        return [
            java, *JVM_OPTIONS,
            f"-Dlog4j2.configurationFile={self._data_dir / 'log4j2.properties'}",
            "-cp", classpath,
        ]  # fmt: skip


def random_cluster_id() -> str:
    """A Kafka ``Uuid`` as ``kafka-storage.sh random-uuid`` prints it, without starting a JVM.

    Uuid.randomUuid() is 16 random bytes in URL-safe base64 without padding,
    redrawn when the text would start with '-' (it would read as a CLI flag).
    """
    while True:
        text = base64.urlsafe_b64encode(os.urandom(16)).rstrip(b"=").decode("ascii")
        if not text.startswith("-"):
            return text


#: Listening ports are drawn from here up to the start of the kernel's ephemeral range.
LISTEN_PORTS_FROM = 10000
_EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")


def free_ports(count: int) -> list[int]:
    """``count`` distinct TCP ports free on 127.0.0.1 now, below the kernel's ephemeral range.

    A port the kernel picks (bind to 0) is an ephemeral one: free now, but the kernel may hand it
    to any outgoing connection (Kafka clients open many) in the seconds before the JVM binds it,
    and the broker then dies of "Address already in use" (the likely end of a ``crawl-decoder
    broker`` start in a fresh-clone CI run, four test workers connecting; its log was not kept).
    Below that range only another listener can take it.  Falls back to the kernel's choice where the
    range is unknown or no port below it is free.
    """
    below_ephemeral = range(LISTEN_PORTS_FROM, _ephemeral_low())  # empty when the range is unknown
    found: list[int] = []
    for port in random.sample(below_ephemeral, k=min(len(below_ephemeral), 200 * count)):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue  # taken: try the next one
        found.append(port)
        if len(found) == count:
            return found
    return _kernel_ports(count)


def _ephemeral_low() -> int:
    """The first port of ``net.ipv4.ip_local_port_range`` (32768 by default); 0 when unknown."""
    try:
        return int(_EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def _kernel_ports(count: int) -> list[int]:
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` asking Linux to SIGTERM the broker when its parent dies.

    Without it a test run killed with SIGKILL leaves a 1 GiB JVM behind.  The
    signal fires when the *thread* that forked exits, hence main thread only.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None

    def set_death_signal() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)

    return set_death_signal
