"""A Confluent-compatible Schema Registry, reached lazily and asked each question once.

Wraps ``confluent_kafka.schema_registry.SchemaRegistryClient`` (REST API:
https://docs.confluent.io/platform/current/schema-registry/develop/api.html).
The client is created on first use, so constructing this makes no network call;
a ``mock://`` URL gives confluent-kafka's in-memory registry (tests, demos).
Writer schemas fetched by id are cached by the ``SchemaStore`` they are
registered in; ids of our own schemas are cached here per subject.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import urlsplit, urlunsplit

from ..exceptions import ConfigError
from .exceptions import RegistryError, SchemaDefinitionError, UnknownSchemaError
from .schemas import SchemaStore, StoredSchema

if TYPE_CHECKING:
    from confluent_kafka.schema_registry import Schema, SchemaRegistryClient

# confluent_kafka.schema_registry is imported where it is first used, not here: it brings an HTTP client and its
# dependencies, 0.3 s of CPU at the start of every command (each `ingest --jobs` worker's), most of which never
# talk to a registry.

_SCHEMES = ("http", "https", "mock")
_NOT_FOUND = 404
_T = TypeVar("_T")


def client_config(*, username: str = "", password: str = "", ca_location: str = "") -> dict[str, str]:
    """``SchemaRegistryClient`` settings for basic auth and a private CA; empty ones are left out."""
    config: dict[str, str] = {}
    if username or password:
        config["basic.auth.user.info"] = f"{username}:{password}"
    if ca_location:
        config["ssl.ca.location"] = ca_location
    return config


class RegistrySettings(Protocol):
    """The settings that say which registry to use and how to reach it (``consumer.settings.Settings`` has them)."""

    # Read-only properties: a frozen dataclass has no settable attributes, which plain members would require.
    @property
    def schema_registry_url(self) -> str: ...
    @property
    def schema_registry_username(self) -> str: ...
    @property
    def schema_registry_password(self) -> str: ...
    @property
    def schema_registry_ca_location(self) -> str: ...


def registry_from_settings(settings: RegistrySettings) -> SchemaRegistry | None:
    """The registry the settings name, with their basic auth and CA; None when no URL is set.

    The one place the settings become a registry client, so every writer (the processor, replay,
    ``crawl-decoder ingest``) reaches it with the same credentials.
    """
    if not settings.schema_registry_url:
        return None
    config = client_config(
        username=settings.schema_registry_username,
        password=settings.schema_registry_password,
        ca_location=settings.schema_registry_ca_location,
    )
    return SchemaRegistry(settings.schema_registry_url, config)


def value_subject(topic: str) -> str:
    """The subject of a topic's values under the default TopicNameStrategy: ``<topic>-value``."""
    return f"{topic}-value"


class SchemaRegistry:
    """Registry access for the serializers.

    *config* is passed to ``SchemaRegistryClient`` as is (``basic.auth.user.info``,
    ``ssl.ca.location``...); it is kept out of ``repr``.  With *auto_register*
    false, our schemas must already be registered under their subject (the usual
    production setting): we only look their id up.
    """

    def __init__(
        self,
        url: str,
        config: Mapping[str, Any] | None = None,
        *,
        auto_register: bool = True,
        client: SchemaRegistryClient | None = None,
    ) -> None:
        for part in url.split(","):
            if urlsplit(part.strip()).scheme not in _SCHEMES:
                raise ConfigError(f"schema registry URL must be http(s):// or mock://, got {_redacted(part)!r}")
        self.url = url
        self.auto_register = auto_register
        self._config = dict(config or {})
        self._client = client
        self._ids: dict[tuple[str, int], int] = {}

    def __repr__(self) -> str:
        return f"SchemaRegistry({_redacted(self.url)!r}, auto_register={self.auto_register})"

    @property
    def client(self) -> SchemaRegistryClient:
        if self._client is None:
            conf = {**self._config, "url": self.url}
            from confluent_kafka.schema_registry import SchemaRegistryClient

            try:
                # new_client() returns the in-memory mock for mock:// URLs.
                self._client = SchemaRegistryClient.new_client(conf)
            except (ValueError, TypeError) as exc:
                raise ConfigError(f"schema registry settings rejected: {exc}") from exc
        return self._client

    def schema_id(self, subject: str, schema: StoredSchema) -> int:
        """The id of *schema* under *subject*: registered if allowed, else looked up."""
        key = (subject, schema.fingerprint)
        found = self._ids.get(key)
        if found is None:
            from confluent_kafka.schema_registry import Schema

            request = Schema(_dumps(schema.standalone), "AVRO")
            if self.auto_register:
                found = self._call(self.client.register_schema, subject, request)
            else:
                found = self._lookup(subject, request, schema)
            self._ids[key] = found
        return found

    def _lookup(self, subject: str, request: Schema, schema: StoredSchema) -> int:
        try:
            found = self._call(self.client.lookup_schema, subject, request).schema_id
        except RegistryError as exc:
            if _not_found(exc.__cause__):
                raise ConfigError(
                    f"{schema.name} (fingerprint {schema.fingerprint_hex}) is not registered under subject"
                    f" {subject!r} and auto-registration is off: register it first"
                ) from exc
            raise
        assert found is not None  # a lookup's answer carries the id (the client types every field Optional)
        return found

    def writer_schema(self, schema_id: int, store: SchemaStore) -> StoredSchema:
        """Fetch the schema with *schema_id* (and the schemas it references) into *store*."""
        known = store.by_registry_id(schema_id)
        if known is not None:
            return known
        missing = f"schema registry has no schema id {schema_id}"
        fetched = self._call(self.client.get_schema, schema_id, missing=missing, schema_id=schema_id)
        if (fetched.schema_type or "AVRO") != "AVRO":
            raise UnknownSchemaError(
                f"schema id {schema_id} is a {fetched.schema_type} schema, not Avro", schema_id=schema_id
            )
        references = self._references(fetched, schema_id)
        assert fetched.schema_str is not None  # a fetched schema has its text (the client types it Optional)
        try:
            return store.register_writer(fetched.schema_str, registry_id=schema_id, references=references)
        except SchemaDefinitionError as exc:
            # Not our configuration's fault: this message's writer schema is unusable.
            raise UnknownSchemaError(
                f"schema id {schema_id} is not a usable Avro schema: {exc}", schema_id=schema_id
            ) from exc

    def _references(
        self, schema: Schema, schema_id: int, seen: set[tuple[str | None, int | None]] | None = None
    ) -> list[str]:
        """Schema strings *schema* references, dependencies first (each once)."""
        seen = set() if seen is None else seen
        out: list[str] = []
        for reference in schema.references or ():
            key = (reference.subject, reference.version)
            if key in seen:
                continue
            seen.add(key)
            missing = (
                f"schema id {schema_id} references {reference.subject} version {reference.version},"
                " which the registry does not have"
            )
            registered = self._call(
                self.client.get_version, reference.subject, reference.version, missing=missing, schema_id=schema_id
            )
            if registered is None:  # some client versions answer None rather than raise 404
                raise UnknownSchemaError(missing, schema_id=schema_id)
            out.extend(self._references(registered.schema, schema_id, seen))
            assert registered.schema.schema_str is not None  # as in writer_schema
            out.append(registered.schema.schema_str)
        return out

    @staticmethod
    def _call(method: Callable[..., _T], *args: Any, missing: str | None = None, schema_id: int | None = None) -> _T:
        """*method(*args)*; "not found" becomes UnknownSchemaError(*missing*) where
        that is the message's fault, any other failure RegistryError."""
        from confluent_kafka.schema_registry.error import SchemaRegistryError

        try:
            return method(*args)
        except SchemaRegistryError as exc:
            if exc.http_status_code == _NOT_FOUND and missing is not None:
                raise UnknownSchemaError(f"{missing}: {exc}", schema_id=schema_id) from exc
            raise RegistryError(f"schema registry {method.__name__} failed: {exc}") from exc
        except Exception as exc:  # the HTTP client's own errors (connect, timeout, TLS...) vary by version
            raise RegistryError(f"schema registry {method.__name__} failed: {exc!r}") from exc


def _dumps(schema: Any) -> str:
    return json.dumps(schema, separators=(",", ":"))


def _redacted(url: str) -> str:
    """*url* without user:password@."""
    parts = urlsplit(url.strip())
    if parts.username is None and parts.password is None:
        return url.strip()
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, "***@" + host, parts.path, parts.query, parts.fragment))


def _not_found(error: BaseException | None) -> bool:
    """Whether *error* is the registry's "not found" (404)."""
    from confluent_kafka.schema_registry.error import SchemaRegistryError

    return isinstance(error, SchemaRegistryError) and error.http_status_code == _NOT_FOUND
