"""Decide where one landing record goes: clean, quarantine with a reason, or nowhere (skip).

A response that is not text (an image, a PDF: ``decoding.mime_sniff``) is never
published as text: under the ``skip`` policy it is written nowhere and counted
(its offset commits with its batch), under ``quarantine`` it is quarantined with
reason ``not-text``.

A record the ingest read from a WARC record whose digest did not match its bytes carries the Kafka
header ``warc-digest-mismatch`` (the sentence saying which digest): it is quarantined first, with
reason ``digest-mismatch``, never decoded as if it were whole.

Pure apart from the clock it is given: no Kafka here, so the stream processor
and quarantine replay route records the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..decoding import Decoded, OverrideTable, decode
from ..decoding.content_type import extract_mime_type
from ..decoding.decoded import binary_decoded
from ..decoding.hosts import host_of
from ..decoding.mime_sniff import declared_non_text
from . import content_encoding
from .records import Origin, Shadow, clean_record, header_value, quarantine_record

CLEAN = "clean"
QUARANTINE = "quarantine"
#: Written nowhere: the record has no output, its offset commits with its batch.
SKIP = "skip"
#: The reason of a skip, or of a quarantine under the quarantine policy.
NOT_TEXT = "not-text"
#: The ``non_text`` policies (``settings.NonText``): what becomes of a response that is not text.
NON_TEXT_POLICIES = (SKIP, QUARANTINE)
#: The reason of a record whose WARC record's digest did not match (the ingest marks it with the header below).
DIGEST_MISMATCH = "digest-mismatch"
#: The Kafka header ``crawl-decoder ingest`` sets on such a record: which digest, what the bytes gave.
DIGEST_MISMATCH_HEADER = "warc-digest-mismatch"


@dataclass(frozen=True, slots=True)
class Routed:
    destination: str
    #: The clean or quarantine record; None for a skip.
    record: dict[str, Any] | None
    reason: str | None = None
    decoded: Decoded | None = None
    host: str | None = None
    shadow: Shadow | None = None
    #: The clean record's text as UTF-8 when the decode already has it (``Decoded.utf8``); the
    #: record then has no "text", and the serializer must be given these bytes (``utf8_text=``).
    text_utf8: bytes | None = None
    #: The serialized clean record, once the loop has serialized it.
    value: bytes | None = None

    def with_value(self, value: bytes) -> Routed:
        """This result with its serialized record: every field above, in order (dataclasses.replace
        costs 2.3 us a record, this 1.0 us)."""
        return Routed(
            self.destination, self.record, self.reason, self.decoded, self.host, self.shadow, self.text_utf8, value
        )


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class Router:
    """Routes records under fixed limits; the overrides are passed per call (they reload).

    *non_text* is what becomes of a response that is not text: ``SKIP`` or
    ``QUARANTINE``.  Quarantine unless told: a router never drops a record
    its caller did not ask it to (replay keeps a binary record in quarantine).
    """

    def __init__(
        self,
        *,
        max_body_bytes: int,
        replacement_threshold: int = 0,
        non_text: str = QUARANTINE,
        clock_ms: Callable[[], int] = _now_ms,
    ) -> None:
        if non_text not in NON_TEXT_POLICIES:
            raise ValueError(f"non_text must be one of {', '.join(NON_TEXT_POLICIES)}, not {non_text!r}")
        self.max_body_bytes = max_body_bytes
        self.replacement_threshold = replacement_threshold
        self.non_text = non_text
        self.clock_ms = clock_ms

    def route(
        self,
        raw: Mapping[str, Any],
        origin: Origin,
        *,
        key: bytes | None = None,
        kafka_headers: Sequence[tuple[str, bytes | None]] = (),
        overrides: OverrideTable | None = None,
        replay_count: int = 0,
    ) -> Routed:
        host = host_of(raw.get("url"))
        quarantine = self._quarantiner(raw, origin, key, kafka_headers, host, replay_count)
        mismatch = _digest_mismatch(kafka_headers)
        if mismatch is not None:
            return quarantine(DIGEST_MISMATCH, error=mismatch)
        content_type = header_value(raw["headers"], "content-type")
        declared = declared_non_text(extract_mime_type(content_type))
        if declared is not None:
            # An image or a video is not text whatever its size or Content-Encoding: set aside unread
            # (a large video is a skip, not a too-large quarantine).
            return self._not_text(binary_decoded(declared), host, quarantine)
        encoding_header = (
            None if raw.get("content_encoding_removed") else header_value(raw["headers"], "content-encoding")
        )
        body = content_encoding.undo(raw["body"], encoding_header, self.max_body_bytes)
        if isinstance(body, content_encoding.Refusal):
            return quarantine(body.reason, error=body.detail)
        # The text of a valid UTF-8 page is never built: its bytes are written as it (Decoded.utf8).
        decoded = decode(body, content_type, raw["url"], overrides, lazy_text=True)
        if decoded.binary is not None:
            return self._not_text(decoded, host, quarantine)
        reason = quarantine_reason(decoded, self.replacement_threshold)
        if reason is not None:
            return quarantine(reason, decoded=decoded, error=_why(reason, decoded))
        shadow = _shadow(decoded, body, content_type, raw["url"])
        utf8 = decoded.utf8
        record = clean_record(
            raw,
            decoded,
            decoded_at_ms=self.clock_ms(),
            shadow=shadow,
            replacement_threshold=self.replacement_threshold,
            text_utf8=utf8,
        )
        return Routed(CLEAN, record, None, decoded, host, shadow, utf8)

    def _not_text(self, decoded: Decoded, host: str | None, quarantine: Callable[..., Routed]) -> Routed:
        if self.non_text == SKIP:
            return Routed(SKIP, None, reason=NOT_TEXT, decoded=decoded, host=host)
        # No attempt in the record: nothing was decoded (the schema's attempt is null then).
        return quarantine(NOT_TEXT, error=f"not text: {decoded.binary}")

    def unreadable(
        self,
        reason: str,
        error: str,
        origin: Origin,
        *,
        key: bytes | None,
        value: bytes | None,
        kafka_headers: Sequence[tuple[str, bytes | None]] = (),
    ) -> Routed:
        """A message whose value could not be read as a raw response."""
        record = quarantine_record(
            reason=reason,
            origin=origin,
            quarantined_at_ms=self.clock_ms(),
            key=key,
            value=value,
            kafka_headers=kafka_headers,
            error=error,
        )
        return Routed(QUARANTINE, record, reason=reason)

    def _quarantiner(
        self,
        raw: Mapping[str, Any],
        origin: Origin,
        key: bytes | None,
        kafka_headers: Sequence[tuple[str, bytes | None]],
        host: str | None,
        replay_count: int,
    ) -> Callable[..., Routed]:
        def quarantine(reason: str, *, error: str | None = None, decoded: Decoded | None = None) -> Routed:
            record = quarantine_record(
                reason=reason,
                origin=origin,
                quarantined_at_ms=self.clock_ms(),
                raw=raw,
                key=key,
                kafka_headers=kafka_headers,
                error=error,
                decoded=decoded,
                replay_count=replay_count,
            )
            return Routed(QUARANTINE, record, reason=reason, decoded=decoded, host=host)

        return quarantine


def _digest_mismatch(kafka_headers: Sequence[tuple[str, bytes | None]]) -> str | None:
    for name, value in kafka_headers:
        if name == DIGEST_MISMATCH_HEADER:
            return (value or b"").decode("utf-8", "replace") or "the WARC record's digest does not match"
    return None


#: A decode with more U+FFFD than the router allows.
LOSSY = "lossy"
#: A clean decode by a declared legacy encoding that the text itself contradicts (``Decoded.doubted``).
DECLARATION_DOUBTED = "declaration-doubted"


def quarantine_reason(decoded: Decoded, replacement_threshold: int = 0) -> str | None:
    """Why a decoded text is not published clean, or None: the one rule the processor, replay and benchmarks share.

    Lossy text (more U+FFFD than *replacement_threshold*) is quarantined, and so is a clean decode under a
    declaration the body contradicts (docs/decoding.md, "Declarations the body contradicts"): a browser would
    show it, but it is far likelier wrong than right, and wrong text is never published as clean.
    """
    if decoded.replacements > replacement_threshold:
        return LOSSY
    if decoded.doubted is not None:
        return DECLARATION_DOUBTED
    return None


def _why(reason: str, decoded: Decoded) -> str:
    if reason == LOSSY:
        return f"{decoded.replacements} replacement characters"
    declared = decoded.encoding
    return f"declared {declared} decodes cleanly, but the text reads far likelier as {decoded.doubted}"


def _shadow(decoded: Decoded, body: bytes, content_type: str | None, url: str) -> Shadow | None:
    """For a decode made under an override, would the normal path agree, losslessly?"""
    if decoded.override is None:
        return None
    normal = decode(body, content_type, url, None)
    return Shadow(encoding=normal.encoding, same_text=normal.text == decoded.text, lossless=not normal.lossy)
