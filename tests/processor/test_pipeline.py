"""End to end on the real broker: every landing record in exactly one of clean or quarantine."""

from __future__ import annotations

import gzip
import random

from consumer.samples import samples


def corpus(raw, n: int, seed: int = 7) -> list[tuple[bytes, dict | bytes]]:
    """*n* records: pages in many encodings, with a share of lossy and unreadable ones."""
    rng = random.Random(seed)
    pool = samples()
    items = []
    for i in range(n):
        key = f"rec-{i}".encode()
        roll = rng.random()
        if roll < 0.03:
            items.append((key, rng.randbytes(rng.randint(0, 64))))  # poison: not Avro
        else:
            sample = pool[i % len(pool)]
            items.append((key, raw(sample.url, sample.body, sample.content_type)))
    return items


def test_thousands_of_records_each_land_exactly_once(settings_for, produce, read_outputs, running_app, topics, raw):
    items = corpus(raw, 3000)
    produce(topics["landing"], items)
    running_app(settings_for())
    found = read_outputs(len(items))
    keys = found.keys()
    assert len(keys) == len(set(keys)) == len(items), "each record exactly once"
    assert set(keys) == {k for k, _ in items}
    poison = {k for k, v in items if isinstance(v, bytes)}
    assert {r["key"] for r in found.quarantine if r["reason"] in ("unreadable-record", "unknown-schema")} == poison


def test_clean_and_quarantine_records_carry_the_decision(settings_for, produce, read_outputs, running_app, topics, raw):
    pool = {s.name: s for s in samples()}
    items = [(name.encode(), raw(s.url, s.body, s.content_type)) for name, s in pool.items()]
    produce(topics["landing"], items)
    running_app(settings_for())
    found = read_outputs(len(items)).by_key()

    where, record = found[b"shift-jis-fullwidth-tilde"]
    assert where == "clean"
    assert "10\uff5e20" in record["text"]
    assert (record["encoding"], record["source"]) == ("Shift_JIS", "meta-prescan")
    assert record["declared"]["meta"] == "Shift_JIS"
    assert record["body_length"] == len(pool["shift-jis-fullwidth-tilde"].body)
    assert record["kafka_headers"] == [("trace", b"shift-jis-fullwidth-tilde")], "Kafka headers kept"

    where, record = found[b"lossy-utf8"]
    assert where == "quarantine" and record["reason"] == "lossy"
    assert record["raw"]["body"] == pool["lossy-utf8"].body, "raw bytes kept for replay"
    assert record["attempt"]["encoding"] == "UTF-8" and record["attempt"]["replacements"] > 0


def test_poison_oversize_and_bombs_are_quarantined_with_reasons(settings_for, produce, read_outputs, running_app, topics, raw):
    limit = 256 * 1024
    items = [
        (b"poison", b"\xc3\x01" + b"\x00" * 8 + b"garbage"),
        (b"not-avro", b"hello"),
        (b"oversize", raw("https://a.example/", b"x" * (limit + 1))),
        (b"bomb", raw("https://b.example/", gzip.compress(b"\0" * (32 * 1024 * 1024)), headers=[("Content-Encoding", "gzip")])),
        (b"gzip-ok", raw("https://c.example/", gzip.compress("Grüße".encode()), "text/plain; charset=utf-8", headers=[("Content-Encoding", "gzip")])),
        (b"zstd", raw("https://d.example/", b"\x28\xb5\x2f\xfd", headers=[("Content-Encoding", "zstd")])),
    ]
    produce(topics["landing"], items)
    running_app(settings_for(max_body_bytes=limit))
    found = read_outputs(len(items)).by_key()
    reasons = {key: record.get("reason") for key, (where, record) in found.items() if where == "quarantine"}
    assert reasons == {
        b"poison": "unknown-schema",
        b"not-avro": "unreadable-record",
        b"oversize": "too-large",
        b"bomb": "compression-bomb",
        b"zstd": "unsupported-content-encoding",
    }
    assert found[b"not-avro"][1]["raw_value"] == b"hello", "unreadable values are kept byte for byte"
    assert found[b"gzip-ok"][0] == "clean" and found[b"gzip-ok"][1]["text"] == "Grüße"


def test_at_least_once_mode_also_delivers_everything(settings_for, produce, read_outputs, running_app, topics, raw):
    items = corpus(raw, 500, seed=3)
    produce(topics["landing"], items)
    running_app(settings_for(processing_mode="at-least-once"))
    found = read_outputs(len(items))
    assert set(found.keys()) == {k for k, _ in items}
