"""The observability shell: structured logs, Prometheus metrics, health probes, per-host alarms.

Nothing here decides how a body is decoded; the processor loop reports what
happened and these modules make it visible:

- ``logging``: JSON lines (or a console rendering) with secrets redacted.
- ``metrics``: ``Metrics``, one private registry of ``crawl_decoder_*`` series.
- ``health``: ``HealthServer`` (/metrics, /healthz, /readyz) and ``Heartbeat``.
- ``host_alarms``: ``HostAlarms``, lossy-host alarms in bounded memory (Space-Saving), and ``MojibakeAlarms``,
  hosts whose clean records turn to mojibake, over a window.
- ``lag``: ``LagMonitor``, the group's lag from the broker's committed and stable offsets.
- ``client_logs``: ``ClientLogs``, librdkafka's log lines and errors as structlog events.
"""

from .health import HealthServer, Heartbeat
from .host_alarms import Alarm, HostAlarms, HostStats, MojibakeAlarm, MojibakeAlarms, MojibakeStats, alarms_route
from .logging import configure_logging, get_logger, redact_secrets
from .metrics import Metrics

__all__ = [
    "Alarm",
    "HealthServer",
    "Heartbeat",
    "HostAlarms",
    "HostStats",
    "Metrics",
    "MojibakeAlarm",
    "MojibakeAlarms",
    "MojibakeStats",
    "alarms_route",
    "configure_logging",
    "get_logger",
    "redact_secrets",
]
