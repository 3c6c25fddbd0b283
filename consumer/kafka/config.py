"""How to reach a Kafka cluster: typed, validated once, immutable, secrets hidden.

Modelled on quix-streams' ``ConnectionConfig``: the settings every client of
this process shares (address and security), separate from what is specific
to a consumer or a producer (see ``consumer.kafka.clients``).  Property names
are librdkafka's (``CONFIGURATION.md``); ``as_librdkafka_dict`` spells them out.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .exceptions import KafkaConfigError

#: librdkafka's ``security.protocol`` values.
SECURITY_PROTOCOLS = frozenset({"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"})

#: librdkafka's ``sasl.mechanism`` values.  GSSAPI takes its credentials from
#: elsewhere (a Kerberos keytab), OAUTHBEARER from an OIDC token endpoint
#: (``sasl.oauthbearer.method=oidc``), the others need a username and a password.
SASL_MECHANISMS = frozenset({"GSSAPI", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"})
_PASSWORD_MECHANISMS = frozenset({"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"})

#: librdkafka's ``sasl.oauthbearer.method`` values: ``oidc`` fetches tokens from the
#: token endpoint with the client credentials grant; ``default`` is librdkafka's
#: unsecured test token (``sasl.oauthbearer.config``), for development only.
OAUTHBEARER_METHODS = frozenset({"default", "oidc"})

#: Environment variable -> field of ``KafkaConnection``.
ENV_VARS: Mapping[str, str] = MappingProxyType(
    {
        "KAFKA_BOOTSTRAP_SERVERS": "bootstrap_servers",
        "KAFKA_SECURITY_PROTOCOL": "security_protocol",
        "KAFKA_SASL_MECHANISM": "sasl_mechanism",
        "KAFKA_SASL_USERNAME": "sasl_username",
        "KAFKA_SASL_PASSWORD": "sasl_password",
        "KAFKA_SSL_CA_LOCATION": "ssl_ca_location",
        "KAFKA_SSL_CERTIFICATE_LOCATION": "ssl_certificate_location",
        "KAFKA_SSL_KEY_LOCATION": "ssl_key_location",
        "KAFKA_SSL_KEY_PASSWORD": "ssl_key_password",
        "KAFKA_SASL_OAUTHBEARER_METHOD": "sasl_oauthbearer_method",
        "KAFKA_SASL_OAUTHBEARER_CLIENT_ID": "sasl_oauthbearer_client_id",
        "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET": "sasl_oauthbearer_client_secret",
        "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL": "sasl_oauthbearer_token_endpoint_url",
        "KAFKA_SASL_OAUTHBEARER_SCOPE": "sasl_oauthbearer_scope",
    }
)

#: librdkafka properties the engine sets itself and a user's ``kafka_config`` may not,
#: with what to do instead.  Offsets, transactions and the group's assignment are what
#: exactly-once rests on (docs/kafka.md, "Client settings").
ENGINE_OWNED: Mapping[str, str] = MappingProxyType(
    {
        "group.id": "set the group_id setting",
        "group.instance.id": "set the group_instance_id setting",
        "transactional.id": "set the transactional_id setting",
        "transaction.timeout.ms": "the engine's fencing of a crashed instance is built on its value",
        "isolation.level": "the processor reads read_committed; exactly-once depends on it",
        "enable.auto.commit": "offsets move only with the output's transaction or flush",
        "enable.auto.offset.store": "offsets move only with the output's transaction or flush",
        "enable.idempotence": "transactions and ordered retries need an idempotent producer",
        "acks": "an idempotent producer writes with acks=all",
        "partition.assignment.strategy": "the engine's rebalance callbacks expect cooperative-sticky",
        "group.protocol": "the engine's rebalance callbacks expect the classic protocol with cooperative-sticky",
        "enable.partition.eof": "the topic readers decide it per client",
    }
)


_HIDDEN = "***"


@dataclass(frozen=True)
class KafkaConnection:
    """Address and security settings shared by all clients of one cluster.

    ``extra`` holds the user's further librdkafka properties (the ``kafka_config``
    setting: ``session.timeout.ms``, ``client.id``...); it may not repeat a property
    that has its own field, nor set one the engine owns (``ENGINE_OWNED``).
    ``instance`` names this process: every client's ``client.id`` is
    ``<instance>-<role>`` unless ``extra`` sets ``client.id`` (then used as given).
    """

    bootstrap_servers: str
    security_protocol: str = "PLAINTEXT"
    sasl_mechanism: str | None = None
    sasl_username: str | None = field(default=None, repr=False)
    sasl_password: str | None = field(default=None, repr=False)
    ssl_ca_location: str | None = None
    ssl_certificate_location: str | None = None
    ssl_key_location: str | None = None
    ssl_key_password: str | None = field(default=None, repr=False)
    sasl_oauthbearer_method: str | None = None
    sasl_oauthbearer_client_id: str | None = None
    sasl_oauthbearer_client_secret: str | None = field(default=None, repr=False)
    sasl_oauthbearer_token_endpoint_url: str | None = None
    sasl_oauthbearer_scope: str | None = None
    extra: Mapping[str, str] = field(default_factory=dict)
    #: Names this process in every ``client.id``: ``run`` passes its transactional id (the pod name in the
    #: chart); the default is that id's own default.
    instance: str = field(default_factory=lambda: f"crawl-decoder-{socket.gethostname()}")

    def __post_init__(self) -> None:
        # Freeze ``extra`` too: a frozen dataclass with a mutable dict inside is not immutable.
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))
        self._validate()

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] = os.environ,
        *,
        extra: Mapping[str, str] | None = None,
        instance: str | None = None,
    ) -> KafkaConnection:
        """Build from the ``KAFKA_*`` variables in ``ENV_VARS``; empty values count as unset.

        *extra* is the ``kafka_config`` setting, *instance* the name ``client.id`` starts with
        (the processor's transactional id).
        """
        # Any: each is one field of the class; the check below makes bootstrap_servers a str.
        values: dict[str, Any] = {name: environ.get(var, "").strip() or None for var, name in ENV_VARS.items()}
        if values["bootstrap_servers"] is None:
            raise KafkaConfigError("KAFKA_BOOTSTRAP_SERVERS is not set")
        if values["security_protocol"] is None:
            del values["security_protocol"]
        else:
            values["security_protocol"] = values["security_protocol"].upper()
        if values["sasl_mechanism"] is not None:
            values["sasl_mechanism"] = values["sasl_mechanism"].upper()
        if values["sasl_oauthbearer_method"] is not None:
            values["sasl_oauthbearer_method"] = values["sasl_oauthbearer_method"].lower()
        if instance:
            values["instance"] = instance
        return cls(**values, extra=extra or {})

    def client_id(self, role: str) -> str:
        """The ``client.id`` of this process's client in *role* (``consumer``, ``producer``, ``lag``...)."""
        return self.extra.get("client.id") or f"{self.instance}-{role}"

    def as_librdkafka_dict(self) -> dict[str, str]:
        """The librdkafka properties for these settings (secrets included: do not log)."""
        given = {
            "bootstrap.servers": self.bootstrap_servers,
            "security.protocol": self.security_protocol,
            "sasl.mechanism": self.sasl_mechanism,
            "sasl.username": self.sasl_username,
            "sasl.password": self.sasl_password,
            "ssl.ca.location": self.ssl_ca_location,
            "ssl.certificate.location": self.ssl_certificate_location,
            "ssl.key.location": self.ssl_key_location,
            "ssl.key.password": self.ssl_key_password,
            "sasl.oauthbearer.method": self.sasl_oauthbearer_method,
            "sasl.oauthbearer.client.id": self.sasl_oauthbearer_client_id,
            "sasl.oauthbearer.client.secret": self.sasl_oauthbearer_client_secret,
            "sasl.oauthbearer.token.endpoint.url": self.sasl_oauthbearer_token_endpoint_url,
            "sasl.oauthbearer.scope": self.sasl_oauthbearer_scope,
        }
        conf: dict[str, str] = {key: value for key, value in given.items() if value is not None}
        conf.update(self.extra)
        return conf

    def __hash__(self) -> int:
        # The generated hash would fail on the mapping proxy; hash ``extra`` by its items instead.
        scalars = (getattr(self, name) for name in _SCALAR_FIELDS)
        return hash((*scalars, self.instance, frozenset(self.extra.items())))

    def __repr__(self) -> str:
        shown = ", ".join(f"{key}={value!r}" for key, value in self._public_items())
        return f"{type(self).__name__}({shown})"

    def _public_items(self) -> list[tuple[str, object]]:
        items: list[tuple[str, object]] = [
            ("bootstrap_servers", self.bootstrap_servers),
            ("security_protocol", self.security_protocol),
            ("sasl_mechanism", self.sasl_mechanism),
            ("sasl_username", self.sasl_username),
            ("sasl_password", _HIDDEN if self.sasl_password else None),
            ("ssl_ca_location", self.ssl_ca_location),
            ("ssl_certificate_location", self.ssl_certificate_location),
            ("ssl_key_location", self.ssl_key_location),
            ("ssl_key_password", _HIDDEN if self.ssl_key_password else None),
            ("sasl_oauthbearer_method", self.sasl_oauthbearer_method),
            ("sasl_oauthbearer_client_id", self.sasl_oauthbearer_client_id),
            ("sasl_oauthbearer_client_secret", _HIDDEN if self.sasl_oauthbearer_client_secret else None),
            ("sasl_oauthbearer_token_endpoint_url", self.sasl_oauthbearer_token_endpoint_url),
            ("sasl_oauthbearer_scope", self.sasl_oauthbearer_scope),
            ("instance", self.instance),
        ]
        # A user-supplied property may carry a secret (``sasl.oauthbearer.client.secret``...):
        # show which keys are set, never their values.
        items.append(("extra", dict.fromkeys(self.extra, _HIDDEN)))
        return items

    def _validate(self) -> None:
        if not self.bootstrap_servers or not self.bootstrap_servers.strip():
            raise KafkaConfigError("bootstrap_servers is empty")
        if self.security_protocol not in SECURITY_PROTOCOLS:
            raise KafkaConfigError(
                f"unknown security protocol {self.security_protocol!r}; "
                f"expected one of {', '.join(sorted(SECURITY_PROTOCOLS))}"
            )
        self._validate_sasl()
        self._validate_ssl()
        self._validate_extra()

    def _validate_extra(self) -> None:
        """Refuse, naming it, a ``kafka_config`` property that has its own variable or that the engine owns."""
        for key in sorted(self.extra):
            if key in _FIELD_PROPERTIES:
                variable = _FIELD_PROPERTIES[key]
                raise KafkaConfigError(f"kafka_config sets {key}, which has its own variable: set {variable}")
            if key in ENGINE_OWNED:
                raise KafkaConfigError(f"kafka_config sets {key}, which the engine owns: {ENGINE_OWNED[key]}")
            if key.endswith("_cb") or key in ("logger", "opaque"):
                raise KafkaConfigError(f"kafka_config sets {key}, a callback: it cannot come from settings")
            if not isinstance(self.extra[key], str):
                raise KafkaConfigError(f"kafka_config {key}: value must be a string, got {self.extra[key]!r}")

    def _validate_sasl(self) -> None:
        uses_sasl = self.security_protocol.startswith("SASL_")
        has_credentials = any(
            value is not None
            for value in (self.sasl_username, self.sasl_password, self.sasl_oauthbearer_method,
                          self.sasl_oauthbearer_client_id, self.sasl_oauthbearer_client_secret)
        )
        if not uses_sasl:
            if self.sasl_mechanism is not None or has_credentials:
                raise KafkaConfigError(
                    f"SASL settings given but security protocol is {self.security_protocol}; "
                    "use SASL_SSL or SASL_PLAINTEXT"
                )
            return
        if self.sasl_mechanism is None:
            raise KafkaConfigError(f"security protocol {self.security_protocol} needs a SASL mechanism")
        if self.sasl_mechanism not in SASL_MECHANISMS:
            raise KafkaConfigError(
                f"unknown SASL mechanism {self.sasl_mechanism!r}; "
                f"expected one of {', '.join(sorted(SASL_MECHANISMS))}"
            )
        if self.sasl_mechanism in _PASSWORD_MECHANISMS and (not self.sasl_username or not self.sasl_password):
            raise KafkaConfigError(f"SASL mechanism {self.sasl_mechanism} needs both a username and a password")
        self._validate_oauthbearer()

    def _validate_oauthbearer(self) -> None:
        oidc_fields = {
            "sasl_oauthbearer_client_id": self.sasl_oauthbearer_client_id,
            "sasl_oauthbearer_client_secret": self.sasl_oauthbearer_client_secret,
            "sasl_oauthbearer_token_endpoint_url": self.sasl_oauthbearer_token_endpoint_url,
        }
        given = self.sasl_oauthbearer_method is not None or self.sasl_oauthbearer_scope is not None
        if self.sasl_mechanism != "OAUTHBEARER":
            if given or any(value is not None for value in oidc_fields.values()):
                raise KafkaConfigError(
                    f"SASL OAUTHBEARER settings given but the SASL mechanism is {self.sasl_mechanism}"
                )
            return
        method = self.sasl_oauthbearer_method or "default"
        if method not in OAUTHBEARER_METHODS:
            raise KafkaConfigError(
                f"unknown sasl.oauthbearer.method {method!r}; expected one of {', '.join(sorted(OAUTHBEARER_METHODS))}"
            )
        missing = [name for name, value in oidc_fields.items() if not value]
        if method == "oidc" and missing:
            raise KafkaConfigError(f"SASL OAUTHBEARER with method oidc needs {', '.join(missing)}")

    def _validate_ssl(self) -> None:
        ssl_fields = (self.ssl_ca_location, self.ssl_certificate_location, self.ssl_key_location, self.ssl_key_password)
        if not self.security_protocol.endswith("SSL") and any(value is not None for value in ssl_fields):
            raise KafkaConfigError(
                f"SSL settings given but security protocol is {self.security_protocol}; use SSL or SASL_SSL"
            )
        # A client certificate and its key only work as a pair.
        if (self.ssl_certificate_location is None) != (self.ssl_key_location is None):
            raise KafkaConfigError("ssl_certificate_location and ssl_key_location must be given together")


_SCALAR_FIELDS = tuple(ENV_VARS.values())

#: librdkafka property -> the variable that sets it (its own field of ``KafkaConnection``).
_FIELD_PROPERTIES: Mapping[str, str] = MappingProxyType(
    {var.removeprefix("KAFKA_").lower().replace("_", "."): var for var in ENV_VARS}
)
