"""Build the clean and quarantine records (schemas/*.avsc) from a decode."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import __version__
from ..decoding import Decoded

DECODER_VERSION = f"crawl-decoder {__version__}"


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a landing message came from."""

    topic: str
    partition: int
    offset: int
    timestamp_ms: int | None

    def as_record(self) -> dict[str, Any]:
        return {"topic": self.topic, "partition": self.partition, "offset": self.offset, "timestamp": self.timestamp_ms}


@dataclass(frozen=True, slots=True)
class Shadow:
    """What the normal resolution, without the override, would have given."""

    encoding: str
    same_text: bool
    lossless: bool

    @property
    def agrees(self) -> bool:
        return self.same_text and self.lossless


def header_value(headers: Sequence[Mapping[str, str]], name: str) -> str | None:
    """The header's field value; repeated fields are combined with ", " (RFC 9110 §5.3)."""
    values = [h["value"] for h in headers if h["name"].lower() == name]
    return ", ".join(values) if values else None


def clean_record(
    raw: Mapping[str, Any],
    decoded: Decoded,
    *,
    decoded_at_ms: int,
    shadow: Shadow | None = None,
    replacement_threshold: int = 0,
    text_utf8: bytes | None = None,
) -> dict[str, Any]:
    """The clean record of *raw* decoded as *decoded*.

    With *text_utf8* (the text's UTF-8, which the decode already has: ``Decoded.utf8``) the
    record has no "text": the serializer is handed those bytes to write in its place (for a valid
    UTF-8 body, the text itself is never built).
    """
    body = raw["body"]
    record = {
        "url": raw["url"],
        "fetched_at": raw["fetched_at"],
        "status": raw["status"],
        "headers": raw["headers"],
        "encoding": decoded.encoding,
        "source": decoded.source,
        "confidence": decoded.confidence,
        "declared": dict(decoded.declared),
        "conflicts": list(decoded.conflicts),
        "replacements": decoded.replacements,
        "override": _applied_override(decoded, shadow),
        "mojibake_suspected": decoded.mojibake_suspected,
        "body_sha256": hashlib.sha256(body).hexdigest(),
        "body_length": len(body),
        "decoder_version": DECODER_VERSION,
        "decoded_at": decoded_at_ms,
        "replacement_threshold": replacement_threshold if decoded.replacements else 0,
        "truncated": raw.get("truncated", False),
        "crawl_id": raw.get("crawl_id"),
        "ip": raw.get("ip"),
    }
    if text_utf8 is None:
        record["text"] = decoded.text
    return record


def _applied_override(decoded: Decoded, shadow: Shadow | None) -> dict[str, Any] | None:
    override = decoded.override
    if override is None:
        return None
    return {
        "host": override.host,
        "encoding": override.encoding,
        "mode": override.mode.value,
        "reason": override.reason,
        "review_by": override.review_by,
        "owner": override.owner,
        "shadow_encoding": shadow.encoding if shadow else None,
        "shadow_agrees": shadow.agrees if shadow else None,
    }


def quarantine_record(
    *,
    reason: str,
    origin: Origin,
    quarantined_at_ms: int,
    raw: Mapping[str, Any] | None = None,
    key: bytes | None = None,
    value: bytes | None = None,
    kafka_headers: Sequence[tuple[str, bytes | None]] = (),
    error: str | None = None,
    decoded: Decoded | None = None,
    replay_count: int = 0,
) -> dict[str, Any]:
    """The whole input, so it can be replayed: the parsed record when it was readable,
    else the original value bytes (never both: that would double a 16 MB message)."""
    return {
        "raw": dict(raw) if raw is not None else None,
        "raw_key": key,
        "raw_value": None if raw is not None else value,
        "raw_headers": [{"key": k, "value": v} for k, v in kafka_headers],
        "reason": reason,
        "error": error,
        "attempt": _attempt(decoded),
        "origin": origin.as_record(),
        "quarantined_at": quarantined_at_ms,
        "replay_count": replay_count,
        "decoder_version": DECODER_VERSION,
    }


def _attempt(decoded: Decoded | None) -> dict[str, Any] | None:
    if decoded is None:
        return None
    return {
        "encoding": decoded.encoding,
        "source": decoded.source,
        "replacements": decoded.replacements,
        "declared": dict(decoded.declared),
        "conflicts": list(decoded.conflicts),
    }
