"""The processor's settings: typed, validated once at start, immutable afterwards.

Sources, later ones winning: the defaults below, a YAML file (``CRAWL_DECODER_CONFIG``
or ``--config``), then environment variables ``CRAWL_DECODER_<NAME>``.  The Kafka
connection itself (bootstrap servers, SASL, TLS) comes from ``KAFKA_*`` variables,
see ``consumer.kafka.config.KafkaConnection``.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import socket
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import yaml

from .exceptions import ConfigError

ENV_PREFIX = "CRAWL_DECODER_"
CONFIG_ENV = ENV_PREFIX + "CONFIG"
#: ``CRAWL_DECODER_KAFKA_CONFIG_SESSION_TIMEOUT_MS=45000`` sets ``session.timeout.ms`` in ``kafka_config``
#: (``kafka_config_property``: lower case, ``_`` -> ``.``, ``__`` -> ``_``).
KAFKA_CONFIG_ENV_PREFIX = ENV_PREFIX + "KAFKA_CONFIG_"
DEFAULT_CONFIG_PATH = "/etc/crawl-decoder/config.yaml"
MIB = 1024 * 1024


class ProcessingMode(str, enum.Enum):
    EXACTLY_ONCE = "exactly-once"
    AT_LEAST_ONCE = "at-least-once"


class NonText(str, enum.Enum):
    """What becomes of a response that is not text (an image, a PDF: ``decoding.mime_sniff``)."""

    #: Written nowhere, counted in ``crawl_decoder_skipped_total``; its offset commits with its batch.
    SKIP = "skip"
    #: Quarantined with reason ``not-text``, the raw record kept.
    QUARANTINE = "quarantine"


class Alarms(str, enum.Enum):
    """Where ``/alarms`` (the hosts behind a quarantine spike: crawled host names) is served."""

    #: On ``http_port`` with ``/metrics``: whoever can scrape reads it.
    SHARED = "shared"
    #: On ``alarms_host``:``alarms_port`` alone (the chart: the pod's loopback, reached by port-forward).
    SEPARATE = "separate"
    #: Nowhere (the "host quarantine rate high" log lines still name the hosts).
    OFF = "off"


@dataclasses.dataclass(frozen=True, slots=True)
class Settings:
    landing_topic: str = "crawl.raw"
    clean_topic: str = "crawl.clean"
    quarantine_topic: str = "crawl.quarantine"
    group_id: str = "crawl-decoder"
    processing_mode: ProcessingMode = ProcessingMode.EXACTLY_ONCE
    #: Stable per instance so a restarted instance fences its predecessor (docs/kafka.md, exactly-once).
    transactional_id: str = dataclasses.field(default_factory=lambda: f"crawl-decoder-{socket.gethostname()}")
    #: Static group membership (``group.instance.id``; empty: dynamic).  Stable per instance (the pod
    #: name in the chart): a restarted instance takes its partitions back at once instead of waiting
    #: out the session timeout of its dead predecessor; one that stops for good holds them that long.
    group_instance_id: str = ""
    max_body_bytes: int = 16 * MIB
    batch_size: int = 500
    #: A batch closes at this many bytes of records (keys and values) as well as at ``batch_size``:
    #: what bounds memory with large pages (docs/memory.md); the consumer's fetch queues are sized
    #: with it (``consumer.kafka.clients.fetch_sizes``).  A single larger record is a batch of its own.
    batch_max_bytes: int = 16 * MIB
    batch_timeout_ms: int = 200
    #: The address /metrics, /healthz and /readyz listen on: 0.0.0.0 (every IPv4 address), :: (every IPv6
    #: address, and IPv4 too on a dual-stack host), or one address.
    http_host: str = "0.0.0.0"
    http_port: int = 9102
    alarms: Alarms = Alarms.SHARED
    #: Where /alarms listens when ``alarms`` is separate (port 0 picks a free one).
    alarms_host: str = "127.0.0.1"
    alarms_port: int = 9103
    overrides_path: str = "/etc/crawl-decoder/overrides.yaml"
    schemas_dir: str = ""
    #: Extra ``*.avsc`` known only as writer schemas (a crawler's newer RawResponse), never as our readers.
    writer_schemas_dir: str = ""
    schema_registry_url: str = ""
    #: Basic auth to the registry, kept out of the URL (which the chart writes to a ConfigMap): from the
    #: environment (``CRAWL_DECODER_SCHEMA_REGISTRY_USERNAME``/``_PASSWORD``, a Secret in the chart).
    schema_registry_username: str = ""
    schema_registry_password: str = ""
    #: PEM file of the CA the registry's certificate is checked against; empty: the system's CAs.
    schema_registry_ca_location: str = ""
    shutdown_timeout_s: float = 30.0
    #: ``/readyz`` fails once Kafka has been unreachable, or the group has left this instance no partition,
    #: for this long (docs/observability.md, "Readiness"); shorter problems (a broker restart) do not flap it.
    not_ready_after_s: float = 45.0
    #: ``/healthz`` fails once the processor's loop has neither come round nor reported waiting on
    #: Kafka for this long: it is wedged (docs/delivery.md, "Kafka outages").  Waiting on Kafka,
    #: however long, is not.
    liveness_window_s: float = 60.0
    #: The producer's ``transaction.timeout.ms``: how long the broker keeps a transaction open before
    #: it aborts it (a crashed instance's open transaction blocks read_committed readers that long,
    #: unless its successor fences it first).  At most the broker's ``transaction.max.timeout.ms``.
    transaction_timeout_ms: int = 60_000
    #: Decodes with at most this many U+FFFD are accepted as clean (0: any is lossy).
    replacement_threshold: int = 0
    #: A response that is not text is skipped (counted) or quarantined (reason not-text).
    non_text: NonText = NonText.SKIP
    log_level: str = "info"
    #: librdkafka properties for every Kafka client (docs/kafka.md, "Client settings"); the ones the
    #: engine owns are refused at start by ``consumer.kafka.config.KafkaConnection``.
    kafka_config: Mapping[str, str] = dataclasses.field(default_factory=dict)
    #: "quarantined" log lines per host and minute; the rest are counted into one summary line.
    quarantine_log_per_host_per_minute: int = 10

    def __post_init__(self) -> None:
        for name in _ENUM_FIELDS:
            if not isinstance(getattr(self, name), _ENUM_FIELDS[name]):
                object.__setattr__(self, name, _coerce(name, getattr(self, name)))
        # A copy, so that the caller's dict cannot change it later; a plain dict still (not a mapping
        # proxy), so that dataclasses.asdict and YAML take it.  The clients read the connection's own
        # frozen copy (KafkaConnection.extra).
        object.__setattr__(self, "kafka_config", _kafka_config(self.kafka_config))
        problems = list(self._problems())
        if problems:
            raise ConfigError("invalid settings: " + "; ".join(problems))

    def _problems(self) -> Iterator[str]:
        for name in ("landing_topic", "clean_topic", "quarantine_topic", "group_id", "transactional_id"):
            if not getattr(self, name):
                yield f"{name} must not be empty"
        if len({self.landing_topic, self.clean_topic, self.quarantine_topic}) != 3:
            yield "landing_topic, clean_topic and quarantine_topic must be three different topics"
        for name in ("max_body_bytes", "batch_size", "batch_timeout_ms"):
            if getattr(self, name) <= 0:
                yield f"{name} must be positive"
        for name in ("http_port", "alarms_port"):
            if not 0 <= getattr(self, name) < 65536:
                yield f"{name} must be a TCP port (0 picks a free one)"
        for name in ("http_host", "alarms_host"):
            if not getattr(self, name):
                yield f"{name} must not be empty (0.0.0.0 or :: for every address)"
        if (
            self.alarms is Alarms.SEPARATE
            and self.alarms_port == self.http_port != 0
            and self.alarms_host == self.http_host
        ):
            yield "alarms_port must differ from http_port when alarms is separate"
        if self.shutdown_timeout_s <= 0:
            yield "shutdown_timeout_s must be positive"
        if self.not_ready_after_s <= 0:
            yield "not_ready_after_s must be positive"
        if self.liveness_window_s <= 0:
            yield "liveness_window_s must be positive"
        # The fetch sizes derived from it must stay within librdkafka's ranges (the prefetch queue,
        # as large as it, at most 2 GiB); below 1 MiB a batch of 30 KB pages would be a few records.
        if not MIB <= self.batch_max_bytes <= 2048 * MIB:
            yield "batch_max_bytes must be between 1 MiB (1048576) and 2 GiB (2147483648)"
        # librdkafka's floor is 1 s; the broker refuses more than its transaction.max.timeout.ms (15 min by default).
        if not 1000 <= self.transaction_timeout_ms <= 900_000:
            yield "transaction_timeout_ms must be between 1000 and 900000 (the broker's transaction.max.timeout.ms)"
        if self.replacement_threshold < 0:
            yield "replacement_threshold must not be negative"
        if self.quarantine_log_per_host_per_minute < 0:
            yield "quarantine_log_per_host_per_minute must not be negative"
        if self.log_level.lower() not in ("debug", "info", "warning", "error"):
            yield "log_level must be one of debug, info, warning, error"
        if bool(self.schema_registry_username) != bool(self.schema_registry_password):
            yield "schema_registry_username and schema_registry_password go together: set both or neither"
        if ":" in self.schema_registry_username:
            yield "schema_registry_username must not contain ':' (HTTP basic auth cannot carry it)"
        if self.schema_registry_username and _without_userinfo(self.schema_registry_url) != self.schema_registry_url:
            yield (
                "schema registry credentials are both in schema_registry_url and in schema_registry_username:"
                " keep one"
            )

    def __repr__(self) -> str:
        # The registry URL may carry user:password@ (basic auth); a repr ends up in logs and tracebacks.
        shown = {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}
        shown["schema_registry_url"] = _without_userinfo(self.schema_registry_url)
        if self.schema_registry_password:
            shown["schema_registry_password"] = "***"
        # A librdkafka property may carry a secret (ssl.keystore.password...): its name only.
        shown["kafka_config"] = dict.fromkeys(self.kafka_config, "***")
        return f"{type(self).__name__}(" + ", ".join(f"{k}={v!r}" for k, v in shown.items()) + ")"

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None, environ: Mapping[str, str] = os.environ) -> Settings:
        """Defaults, then the YAML file, then ``CRAWL_DECODER_*`` variables."""
        values: dict[str, Any] = {}
        path = path or environ.get(CONFIG_ENV)
        if path:
            values.update(_read_file(Path(path)))
        elif Path(DEFAULT_CONFIG_PATH).is_file():
            values.update(_read_file(Path(DEFAULT_CONFIG_PATH)))
        for field in dataclasses.fields(cls):
            raw = environ.get(ENV_PREFIX + field.name.upper())
            if raw is not None:
                values[field.name] = raw
        from_env = {
            kafka_config_property(name[len(KAFKA_CONFIG_ENV_PREFIX):]): value
            for name, value in environ.items()
            if name.startswith(KAFKA_CONFIG_ENV_PREFIX) and len(name) > len(KAFKA_CONFIG_ENV_PREFIX)
        }
        if from_env:
            values["kafka_config"] = {**_kafka_config(values.get("kafka_config", {})), **from_env}
        return cls(**{name: _coerce(name, value) for name, value in values.items()})


def kafka_config_property(suffix: str) -> str:
    """The librdkafka property a ``CRAWL_DECODER_KAFKA_CONFIG_<SUFFIX>`` variable sets.

    librdkafka's names are lower case with dots, so ``_`` reads ``.``
    (``SESSION_TIMEOUT_MS`` -> ``session.timeout.ms``); ``__`` reads ``_`` for a name
    that has one (none of librdkafka 2.x's settable string properties does).
    """
    return "_".join(part.replace("_", ".") for part in suffix.lower().split("__"))


def _kafka_config(value: Any) -> dict[str, str]:
    """``kafka_config`` as property -> string: YAML's numbers and booleans spelt the way librdkafka reads them."""
    if not isinstance(value, Mapping):
        raise ConfigError(f"setting kafka_config: {value!r} is not a mapping of librdkafka property: value")
    config = {}
    for key, item in value.items():
        if isinstance(item, (Mapping, list)) or item is None:
            raise ConfigError(f"setting kafka_config: {key} must be a string or a number, got {item!r}")
        config[str(key)] = str(item).lower() if isinstance(item, bool) else str(item)
    return config


def _without_userinfo(url: str) -> str:
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2]))


_FIELDS = {field.name: field for field in dataclasses.fields(Settings)}
#: Settings whose value is one of an enumeration's; a plain string is coerced (a bad one is a ConfigError).
_ENUM_FIELDS: dict[str, type[enum.Enum]] = {"processing_mode": ProcessingMode, "non_text": NonText, "alarms": Alarms}


def _read_file(path: Path) -> dict[str, Any]:
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read settings file {path}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"settings file {path} is not valid YAML: {exc}") from exc
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ConfigError(f"settings file {path} must be a mapping of setting: value")
    unknown = sorted(set(loaded) - set(_FIELDS))
    if unknown:
        raise ConfigError(f"settings file {path}: unknown settings {', '.join(unknown)}")
    return loaded


def _coerce(name: str, value: Any) -> Any:
    if name not in _FIELDS:
        raise ConfigError(f"unknown setting {name!r}")
    if name == "kafka_config":
        return _kafka_config(value)
    default = Settings.__dataclass_fields__[name]
    kind = type(default.default) if default.default is not dataclasses.MISSING else str
    try:
        if kind in _ENUM_FIELDS.values():
            return kind(str(value).lower())
        if kind in (int, float) and isinstance(value, bool):
            raise TypeError("a boolean is not a number")  # YAML `true` would otherwise pass as 1 or "True"
        if kind is int:
            if isinstance(value, float) and not value.is_integer():
                raise ValueError("not a whole number")  # int() would silently truncate 2.5 to 2
            return int(value)
        if kind is float:
            return float(value)
        return str(value)
    except (TypeError, ValueError) as exc:
        choices = ""
        enum_kind = _ENUM_FIELDS.get(name)
        if enum_kind is not None:
            choices = " (one of " + ", ".join(member.value for member in enum_kind) + ")"
        raise ConfigError(f"setting {name}: {value!r} is not a valid {kind.__name__}{choices}") from exc
