"""Sample records of the three schemas and paths, shared by the serialization tests."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

REPO_SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
UTC = dt.UTC


def load_avsc(name: str) -> dict[str, Any]:
    return json.loads((REPO_SCHEMAS / f"{name}.avsc").read_text(encoding="utf-8"))


def raw_record(**changes: Any) -> dict[str, Any]:
    record = {
        "url": "https://www.example.jp/news/1.html",
        "fetched_at": dt.datetime(2026, 11, 30, 8, 15, 30, 250000, tzinfo=UTC),
        "status": 200,
        "headers": [
            {"name": "Content-Type", "value": "text/html; charset=Shift_JIS"},
            {"name": "Set-Cookie", "value": "a=1"},
            {"name": "Set-Cookie", "value": "b=2"},
            {"name": "X-Odd", "value": "caf\u00e9"},
        ],
        "body": "<p>\u65e5\u672c\u8a9e</p>".encode("shift_jis"),
        "truncated": False,
        "content_encoding_removed": True,
        "crawl_id": "crawl-2026-11-30",
        "ip": "2001:db8::1",
    }
    record.update(changes)
    return record


def decoded_record(**changes: Any) -> dict[str, Any]:
    raw = raw_record()
    record = {
        "url": raw["url"],
        "fetched_at": raw["fetched_at"],
        "status": raw["status"],
        "headers": raw["headers"],
        "text": "<p>\u65e5\u672c\u8a9e</p>",
        "encoding": "Shift_JIS",
        "source": "override",
        "confidence": None,
        "declared": {"bom": None, "header": "Shift_JIS", "meta": "EUC-JP", "xml": None},
        "conflicts": ["header says Shift_JIS, meta says EUC-JP"],
        "replacements": 0,
        "override": {
            "host": "*.example.jp",
            "encoding": "Shift_JIS",
            "mode": "force",
            "reason": "meta lies since the 2019 CMS migration",
            "review_by": dt.date(2027, 3, 31),
            "owner": "crawl-team",
            "shadow_encoding": "EUC-JP",
            "shadow_agrees": False,
        },
        "mojibake_suspected": False,
        "body_sha256": "9f" * 32,
        "body_length": len(raw["body"]),
        "decoder_version": "0.1.0",
        "decoded_at": dt.datetime(2026, 11, 30, 8, 15, 31, 0, tzinfo=UTC),
        "replacement_threshold": 2,
        "truncated": False,
        "crawl_id": raw["crawl_id"],
        "ip": raw["ip"],
    }
    record.update(changes)
    return record


def quarantined_record(**changes: Any) -> dict[str, Any]:
    record = {
        "raw": raw_record(),
        "raw_key": b"www.example.jp",
        "raw_value": b"\xc3\x01" + bytes(8) + b"payload",
        "raw_headers": [{"key": "traceparent", "value": b"00-abc-01"}, {"key": "empty", "value": None}],
        "reason": "lossy",
        "error": None,
        "attempt": {
            "encoding": "UTF-8",
            "source": "utf-8-valid",
            "replacements": 7,
            "declared": {"bom": None, "header": None, "meta": None, "xml": None},
            "conflicts": [],
        },
        "origin": {
            "topic": "crawl.raw",
            "partition": 3,
            "offset": 1234567890123,
            "timestamp": dt.datetime(2026, 11, 30, 8, 15, 30, 500000, tzinfo=UTC),
        },
        "quarantined_at": dt.datetime(2026, 11, 30, 8, 15, 32, 0, tzinfo=UTC),
        "replay_count": 1,
        "decoder_version": "0.1.0",
    }
    record.update(changes)
    return record


SAMPLES = {
    "RawResponse": raw_record,
    "DecodedResponse": decoded_record,
    "QuarantinedResponse": quarantined_record,
}
