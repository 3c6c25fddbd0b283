"""The processor's decision on one landing message: clean, quarantine with a reason, or a skip.

``Decider`` is what the batch engine (``consumer.engine``) asks for each
message: it reads the raw response (an unreadable value is quarantined, never
raised), routes it (``route.Router``), serializes a clean record (one too large
for a message is quarantined instead) and returns the ``Decision``: the output
record, none for a skip (its offset commits with its batch all the same), and
the ``Outcome`` the metrics read once the batch is committed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from confluent_kafka import Message

from ..decoding import Override, OverrideTable
from ..engine import Decision, Output
from ..serialization.avro import AvroSerializer
from ..serialization.exceptions import SerializationError
from .records import Origin, Shadow
from .route import CLEAN, QUARANTINE, SKIP, Routed, Router


class Outcome(NamedTuple):
    """What is counted of one decision once its batch commits: the note ``Decider`` gives the engine.

    Not the ``Routed`` itself: a batch's notes live until its commit, beside the next batch's, and a
    ``Routed`` holds the record, its serialized value and the text (a 16 MB page twice over), which
    the outputs already carry to the writer.
    """

    destination: str
    reason: str | None
    host: str | None
    #: The decode's source and encoding, "none" when nothing was decoded (an unreadable record).
    source: str
    encoding: str
    replacements: int
    override: Override | None
    shadow: Shadow | None
    #: A body that is not text: its media type (``Decoded.binary``).
    binary: str | None
    #: A quarantine record's error.
    error: str | None
    #: A clean record published with mojibake suspected (``Decoded.mojibake_suspected``).
    mojibake_suspected: bool = False


def outcome_of(routed: Routed) -> Outcome:
    decoded, record = routed.decoded, routed.record
    error = record.get("error") if routed.destination == QUARANTINE and record is not None else None
    if decoded is None:
        return Outcome(routed.destination, routed.reason, routed.host, "none", "none", 0, None, None, None, error)
    return Outcome(
        routed.destination, routed.reason, routed.host, decoded.source, decoded.encoding, decoded.replacements,
        decoded.override, routed.shadow, decoded.binary, error, decoded.mojibake_suspected,
    )  # fmt: skip


class Decider:
    """Where one landing message goes, under the current overrides."""

    def __init__(
        self,
        *,
        deserialize: Callable[[bytes], dict[str, Any]],
        serialize_clean: AvroSerializer,
        serialize_quarantine: Callable[[dict[str, Any]], bytes],
        router: Router,
        overrides: Callable[[], OverrideTable | None],
        clean_topic: str,
        quarantine_topic: str,
        message_limit: int,
    ) -> None:
        self._deserialize = deserialize
        self._serialize_clean = serialize_clean
        self._serialize_quarantine = serialize_quarantine
        self._router = router
        self._overrides = overrides
        self._clean_topic = clean_topic
        self._quarantine_topic = quarantine_topic
        self._message_limit = message_limit

    def __call__(self, message: Message) -> Decision[Outcome]:
        routed = self._fit(message, self.route(message))
        if routed.destination == SKIP:
            return Decision((), outcome_of(routed))
        return Decision((self._output(message, routed),), outcome_of(routed))

    def route(self, message: Message) -> Routed:
        """Route one landing message; unreadable values are quarantined, never raised."""
        origin = origin_of(message)
        # A consumed message's headers are a list of (str, bytes | None); the stub's type is also set_headers' dict.
        headers: list[tuple[str, bytes | None]] = message.headers() or []  # type: ignore[assignment]
        value = message.value()
        try:
            raw = self._deserialize(value or b"")  # a tombstone (None) is empty: CorruptRecordError, quarantined
        except SerializationError as exc:
            if exc.reason is None:  # not the message's fault (registry down): stop, do not quarantine
                raise
            reason = exc.reason
            return self._router.unreadable(
                reason, str(exc), origin, key=message.key(), value=value, kafka_headers=headers
            )
        return self._router.route(raw, origin, key=message.key(), kafka_headers=headers, overrides=self._overrides())

    def _fit(self, message: Message, routed: Routed) -> Routed:
        """Serialize a clean record now; one too large for a message is quarantined instead."""
        if routed.destination != CLEAN:
            return routed
        # A UTF-8 page's bytes are its text's encoding: written as they are, not encoded again.
        assert routed.record is not None  # a clean route has its record
        value = self._serialize_clean(routed.record, utf8_text=routed.text_utf8)
        if len(value) <= self._message_limit:
            return routed.with_value(value)
        return self._router.unreadable(
            "too-large",
            f"the decoded record ({len(value)} bytes) exceeds the message limit ({self._message_limit})",
            origin_of(message),
            key=message.key(),
            value=message.value(),
            kafka_headers=message.headers() or [],  # type: ignore[arg-type]  # a list, as in route
        )

    def _output(self, message: Message, routed: Routed) -> Output:
        # Headers: a list, as in route.
        if routed.destination == CLEAN:
            return Output(self._clean_topic, message.key(), routed.value, message.headers())  # type: ignore[arg-type]
        assert routed.record is not None  # not a skip: __call__ returned before
        value = self._serialize_quarantine(routed.record)
        return Output(self._quarantine_topic, message.key(), value, message.headers())  # type: ignore[arg-type]


def origin_of(message: Message) -> Origin:
    """Where a landing message came from: topic, partition, offset, its Kafka timestamp if it has one."""
    kind, stamp = message.timestamp()
    topic, partition, offset = message.topic(), message.partition(), message.offset()
    assert topic is not None and partition is not None and offset is not None  # a consumed message has them
    return Origin(topic, partition, offset, stamp if kind != 0 and stamp >= 0 else None)
