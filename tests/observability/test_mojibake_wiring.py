"""A running processor makes suspected mojibake visible: counted on /metrics, the host named on /alarms.

The mojibake here is UTF-8 text that someone upstream decoded once too often (the page's own bytes are
valid UTF-8 and say "CafÃ©"): published clean, since the bytes decode without an error under every
reading, and flagged ``mojibake_suspected``.
"""

from __future__ import annotations

import json
import time

from consumer.kafka import make_producer
from consumer.serialization.avro import AvroSerializer

from .scrape import http_get, scrape, wait_for

FRENCH = "<p>Café crème brûlée, déjà vu à la carte, naïve façade {i}</p>"
DOUBLE = "double.example.fr"
FINE = "fine.example.fr"


def raw(url: str, body: bytes) -> dict:
    return {"url": url, "fetched_at": int(time.time() * 1000), "status": 200, "body": body,
            "headers": [{"name": "Content-Type", "value": "text/html; charset=utf-8"}]}


def test_mojibake_suspected_clean_records_are_counted_and_their_host_named(
    settings_for, topics, kafka_connection, store, running_app
):
    serialize = AvroSerializer(store, "RawResponse")
    producer = make_producer(kafka_connection)
    for i in range(30):
        text = FRENCH.format(i=i)
        # 30 pages double-encoded upstream, and 30 right ones of another host.
        double = text.encode("utf-8").decode("cp1252").encode("utf-8")
        producer.produce(topics["landing"], serialize(raw(f"https://{DOUBLE}/{i}", double)), f"d{i}".encode())
        producer.produce(topics["landing"], serialize(raw(f"https://{FINE}/{i}", text.encode())), f"f{i}".encode())
    assert producer.flush(60) == 0
    app = running_app(settings_for(batch_size=20))

    def counted() -> float:
        return sum(v for (name, _), v in scrape(app.http.port).items() if name == "crawl_decoder_records_total")

    wait_for(lambda: counted() == 60, "the 60 records counted")
    found = scrape(app.http.port)
    mojibake = {dict(labels)["source"]: v for (name, labels), v in found.items()
                if name == "crawl_decoder_mojibake_suspected_total"}
    assert mojibake == {"http-header": 30}
    assert found[("crawl_decoder_mojibake_host_alarms_total", frozenset())] == 1
    assert found[("crawl_decoder_mojibake_hosts", frozenset())] == 1
    status, body = http_get(app.http.port, "/alarms")
    assert status == 200
    hosts = {h["host"]: h for h in json.loads(body)["mojibake"]["hosts"]}
    assert (hosts[DOUBLE]["records"], hosts[DOUBLE]["mojibake"], hosts[DOUBLE]["alarmed"]) == (30, 30, True)
    assert (hosts[FINE]["mojibake"], hosts[FINE]["alarmed"]) == (0, False)
