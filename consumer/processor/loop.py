"""The processor loop: consume a batch, route each record, deliver the batch, repeat.

A skipped record (a response that is not text, ``route.SKIP``) has no output;
its offset commits with its batch all the same, since a batch commits the
consumer's positions, not its outputs' offsets (``delivery.positions``).

One thread, but for each batch's commit, which runs in a helper thread while
the loop reads and decodes the next batch (see ``delivery``); the batch's hooks
run once it is committed.  Between batches the loop beats the liveness heartbeat and checks
the overrides file; a stop request (SIGTERM) lets the current batch finish, then
the consumer leaves its group and the producer flushes, within
``shutdown_timeout_s``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from confluent_kafka import Consumer, KafkaError, Message

from ..serialization.avro import AvroSerializer
from ..serialization.exceptions import SerializationError
from .delivery import BatchAborted, Output
from .exceptions import ProcessorFatalError
from .records import Origin
from .route import CLEAN, SKIP, Routed, Router


@dataclass
class Hooks:
    """What the loop reports to; every hook is optional (tests and replay use few)."""

    routed: Callable[[Message, Routed], None] = lambda message, routed: None
    batch_done: Callable[[list[Message], float], None] = lambda messages, seconds: None
    between_batches: Callable[[], None] = lambda: None
    consumer_error: Callable[[KafkaError], None] = lambda error: None
    batch_aborted: Callable[[str], None] = lambda reason: None


class Processor:
    """Reads the landing topic; every record ends in exactly one of clean, quarantine or a counted skip."""

    def __init__(
        self,
        *,
        consumer_factory: Callable[[], Consumer],
        delivery_factory: Callable[[], object],
        deserialize: Callable[[bytes], dict],
        serialize_clean: AvroSerializer,
        serialize_quarantine: Callable[[dict], bytes],
        router: Router,
        overrides: Callable[[], object],
        landing_topic: str,
        clean_topic: str,
        quarantine_topic: str,
        batch_size: int,
        batch_timeout_s: float,
        shutdown_timeout_s: float,
        message_limit: int,
        hooks: Hooks | None = None,
        on_assign=None,
        on_revoke=None,
        on_lost=None,
    ) -> None:
        self._consumer_factory = consumer_factory
        self._delivery_factory = delivery_factory
        self._deserialize = deserialize
        self._serialize_clean = serialize_clean
        self._serialize_quarantine = serialize_quarantine
        self._router = router
        self._overrides = overrides
        self._landing = landing_topic
        self._clean_topic = clean_topic
        self._quarantine_topic = quarantine_topic
        self._batch_size = batch_size
        self._batch_timeout = batch_timeout_s
        self._shutdown_timeout = shutdown_timeout_s
        self._message_limit = message_limit
        self._hooks = hooks or Hooks()
        self._on_assign = on_assign
        self._on_revoke = on_revoke
        self._on_lost = on_lost
        self._stop = threading.Event()
        self.started = threading.Event()
        self.assigned = threading.Event()

    def stop(self) -> None:
        """Ask the loop to finish its batch and exit (safe from a signal handler)."""
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def run(self) -> None:
        consumer = self._consumer_factory()
        delivery = self._delivery = self._delivery_factory()
        try:
            delivery.start()
            consumer.subscribe([self._landing], on_assign=self._assigned, on_revoke=self._revoked, on_lost=self._lost)
            self.started.set()
            while not self._stop.is_set():
                self._hooks.between_batches()
                messages = consumer.consume(self._batch_size, self._batch_timeout)
                if messages:
                    self._process(consumer, delivery, messages)
                elif delivery.committing:
                    self._settle(consumer, delivery)  # nothing new: report the last batch once it is committed
        finally:
            self._close(consumer, delivery)

    def _process(self, consumer: Consumer, delivery, messages: list[Message]) -> None:
        started = time.monotonic()
        records = [m for m in messages if not self._is_error(m)]
        routed: list[Routed] = []

        def committed() -> None:
            for message, result in zip(records, routed):
                self._hooks.routed(message, result)
            self._hooks.batch_done(records, time.monotonic() - started)

        def outputs() -> Iterator[Output]:
            # Routed one by one as the delivery makes them: between two, it looks whether the
            # commit in flight has ended, to start the batch waiting behind it at once.
            for message in records:
                result = self._fit(message, self.route(message))
                routed.append(result)
                if result.destination != SKIP:
                    yield self._output(message, result)

        try:
            delivery.write(consumer, outputs(), committed)
        except BatchAborted as exc:
            self._hooks.batch_aborted(str(exc))

    def _settle(self, consumer: Consumer, delivery) -> None:
        try:
            delivery.settle(consumer)
        except BatchAborted as exc:
            self._hooks.batch_aborted(str(exc))

    def _is_error(self, message: Message) -> bool:
        error = message.error()
        if error is None:
            return False
        if error.fatal():
            raise ProcessorFatalError(f"fatal consumer error: {error.str()}")
        self._hooks.consumer_error(error)
        return True

    def route(self, message: Message) -> Routed:
        """Route one landing message; unreadable values are quarantined, never raised."""
        origin = _origin(message)
        headers = message.headers() or []
        value = message.value()
        try:
            raw = self._deserialize(value)
        except SerializationError as exc:
            if exc.reason is None:  # not the message's fault (registry down): stop, do not quarantine
                raise
            reason = exc.reason
            return self._router.unreadable(reason, str(exc), origin, key=message.key(), value=value, kafka_headers=headers)
        return self._router.route(raw, origin, key=message.key(), kafka_headers=headers, overrides=self._overrides())

    def _fit(self, message: Message, routed: Routed) -> Routed:
        """Serialize a clean record now; one too large for a message is quarantined instead."""
        if routed.destination != CLEAN:
            return routed
        # A UTF-8 page's bytes are its text's encoding: written as they are, not encoded again.
        value = self._serialize_clean(routed.record, utf8_text=routed.text_utf8)
        if len(value) <= self._message_limit:
            return routed.with_value(value)
        return self._router.unreadable(
            "too-large",
            f"the decoded record ({len(value)} bytes) exceeds the message limit ({self._message_limit})",
            _origin(message),
            key=message.key(),
            value=message.value(),
            kafka_headers=message.headers() or [],
        )

    def _output(self, message: Message, routed: Routed) -> Output:
        if routed.destination == CLEAN:
            return Output(self._clean_topic, message.key(), routed.value, message.headers())
        value = self._serialize_quarantine(routed.record)
        return Output(self._quarantine_topic, message.key(), value, message.headers())

    def _assigned(self, consumer, partitions) -> None:
        self.assigned.set()
        if self._on_assign:
            self._on_assign(partitions)

    def _revoked(self, consumer, partitions) -> None:
        self._delivery.revoked(consumer, partitions)  # what is written commits before the partitions move
        if self._on_revoke:
            self._on_revoke(partitions)

    def _lost(self, consumer, partitions) -> None:
        self._delivery.lost(consumer, partitions)
        if self._on_lost:
            self._on_lost(partitions)

    def _close(self, consumer: Consumer, delivery) -> None:
        try:
            try:
                self._settle(consumer, delivery)
            finally:
                consumer.close()  # leaves the group at once so partitions move without waiting for a timeout
        finally:
            delivery.close(self._shutdown_timeout)


def _origin(message: Message) -> Origin:
    return Origin(message.topic(), message.partition(), message.offset(), _timestamp_ms(message))


def _timestamp_ms(message: Message) -> int | None:
    kind, value = message.timestamp()
    return value if kind != 0 and value >= 0 else None  # 0 is TIMESTAMP_NOT_AVAILABLE
