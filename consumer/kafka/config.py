"""How to reach a Kafka cluster: typed, validated once, immutable, secrets hidden.

Modelled on quix-streams' ``ConnectionConfig``: the settings every client of
this process shares (address and security), separate from what is specific
to a consumer or a producer (see ``consumer.kafka.clients``).  Property names
are librdkafka's (``CONFIGURATION.md``); ``as_librdkafka_dict`` spells them out.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .exceptions import KafkaConfigError

#: librdkafka's ``security.protocol`` values.
SECURITY_PROTOCOLS = frozenset({"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"})

#: librdkafka's ``sasl.mechanism`` values.  GSSAPI and OAUTHBEARER take their
#: credentials from elsewhere (Kerberos keytab, token callback), the others
#: need a username and a password.
SASL_MECHANISMS = frozenset({"GSSAPI", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"})
_PASSWORD_MECHANISMS = frozenset({"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"})

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
    }
)

_HIDDEN = "***"


@dataclass(frozen=True)
class KafkaConnection:
    """Address and security settings shared by all clients of one cluster.

    ``extra`` holds further librdkafka properties (e.g. ``client.id``) and is
    applied last; it may not repeat a property that has its own field.
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
    extra: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Freeze ``extra`` too: a frozen dataclass with a mutable dict inside is not immutable.
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))
        self._validate()

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> KafkaConnection:
        """Build from the ``KAFKA_*`` variables in ``ENV_VARS``; empty values count as unset."""
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
        return cls(**values)

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
        }
        conf: dict[str, str] = {key: value for key, value in given.items() if value is not None}
        conf.update(self.extra)
        return conf

    def __hash__(self) -> int:
        # The generated hash would fail on the mapping proxy; hash ``extra`` by its items instead.
        return hash((*(getattr(self, name) for name in _SCALAR_FIELDS), frozenset(self.extra.items())))

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
        shadowed = sorted(set(self.extra) & set(_FIELD_PROPERTIES))
        if shadowed:
            raise KafkaConfigError(f"extra repeats properties that have their own field: {', '.join(shadowed)}")

    def _validate_sasl(self) -> None:
        uses_sasl = self.security_protocol.startswith("SASL_")
        has_credentials = self.sasl_username is not None or self.sasl_password is not None
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

_FIELD_PROPERTIES = (
    "bootstrap.servers",
    "security.protocol",
    "sasl.mechanism",
    "sasl.username",
    "sasl.password",
    "ssl.ca.location",
    "ssl.certificate.location",
    "ssl.key.location",
    "ssl.key.password",
)
