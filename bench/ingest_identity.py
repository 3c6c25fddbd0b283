"""Check: what `crawl-decoder ingest` lands, as a digest to compare between two versions of the code.

    .venv/bin/python bench/ingest_identity.py [--records 400] [--seed 7]
    PYTHONPATH=/path/to/other/checkout .venv/bin/python bench/ingest_identity.py   # the same file, other code

Writes a WARC of ordinary pages and of every odd case the ingest treats apart (chunked and gzip
transfer codings, bodies empty, large and past the body limit, header bytes outside ASCII, folded
and colon-less header lines, dates of every form, digests matching and not in each encoding, a
payload digest alone, revisits, truncated records, a folded WARC header, a corrupt gzip member,
statuses that are not HTTP), gzip per record and uncompressed, both from the same seed, to a
fixed path; ingests each to a fresh landing topic; reads every committed landing record back
(read_committed) and prints, per file, the tally and a SHA-256 over every record's partition, key,
value bytes and Kafka headers in offset order (the checkpoint topic's values too, apart).

Two runs of the same seed on two versions of the code print the same digests exactly when they
land the same records byte for byte.  Uses KAFKA_BOOTSTRAP_SERVERS, or starts a LocalBroker.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import io
import random
import sys
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # PYTHONPATH, when given, is searched first: the other version's code
    sys.path.append(str(REPO))

from bench_broker import broker_for_bench  # noqa: E402
from confluent_kafka import OFFSET_BEGINNING, KafkaError, TopicPartition  # noqa: E402

import consumer  # noqa: E402
from consumer.ingest import Ingester, IngestOptions  # noqa: E402
from consumer.kafka import KafkaConnection, ensure_topics, make_admin, make_consumer  # noqa: E402
from consumer.observability.logging import configure_logging  # noqa: E402
from consumer.serialization.avro import AvroSerializer  # noqa: E402
from consumer.serialization.schemas import SchemaStore  # noqa: E402

BODY_LIMIT = 64 * 1024
WORDS = "the of und der le la 日本 東京 Straße größer café naïve привет мир".split()
HTTP = "application/http; msgtype=response"


def body(rng: random.Random, size: int) -> bytes:
    words, length = [], 0
    while length < size:
        words.append(rng.choice(WORDS))
        length += len(words[-1]) + 1
    return " ".join(words).encode()[:size]


def http(status: bytes, headers: list[bytes], content: bytes) -> bytes:
    return b"\r\n".join([b"HTTP/1.1 " + status, *headers]) + b"\r\n\r\n" + content


def chunked(content: bytes, size: int, extension: bytes = b"") -> bytes:
    out = b"".join(
        b"%x%s\r\n%s\r\n" % (len(content[i : i + size]), extension, content[i : i + size])
        for i in range(0, len(content), size)
    )
    return out + b"0\r\n\r\n"


def sha1_b32(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def odd_blocks(rng: random.Random) -> list[tuple[bytes, dict[str, str]]]:
    """(HTTP block, extra WARC fields) of every odd case, the digests written by warcio unless given."""
    page = body(rng, 3000)
    zipped = gzip.compress(page, mtime=0)
    cases: list[tuple[bytes, dict[str, str]]] = [
        (http(b"200 OK", [b"Content-Type: text/html", b"Transfer-Encoding: chunked"], chunked(page, 700)), {}),
        (http(b"200 OK", [b"Transfer-Encoding: chunked"], chunked(page, 100, b";ext=1")), {}),
        (http(b"200 OK", [b"Transfer-Encoding: chunked"], page), {}),  # said chunked, is not
        (http(b"200 OK", [b"Transfer-Encoding: chunked"], chunked(page, 500)[:-20]), {}),  # ends inside
        (http(b"200 OK", [b"Transfer-Encoding: gzip, chunked"], chunked(zipped, 300)), {}),
        (http(b"200 OK", [b"Transfer-Encoding: gzip"], b"not gzip"), {}),
        (http(b"200 OK", [b"Transfer-Encoding: br"], page), {}),
        (http(b"200 OK", [b"Content-Encoding: gzip"], zipped), {}),
        (http(b"200 OK", [b"Content-Length: 0"], b""), {}),
        (http(b"204 No Content", [], b""), {}),
        (http(b"200", [b"X: y"], page), {}),  # no reason phrase
        (b"HTTP/2 200\r\ncontent-type: text/html\r\n\r\n" + page, {}),
        (b"HTTP/1.0 200 OK\nContent-Type: text/plain\n\n" + page, {}),  # bare LF
        (
            http(
                b"200 OK", [b"X-Latin: caf\xe9", b"X-Utf8: \xe6\x97\xa5\xe6\x9c\xac", b"Content-Type: text/html"], page
            ),
            {},
        ),
        (
            http(
                b"200 OK", [b"X-Folded: one", b"  two", b"\tthree", b"no colon line", b"Empty:", b" Spaced : v "], page
            ),
            {},
        ),
        (http(b"200 OK", [b"Content-Type: text/html"] * 3 + [b"Set-Cookie: a=1", b"Set-Cookie: b=2"], page), {}),
        (http(b"099 Odd", [], page), {}),  # status below 100: malformed
        (b"not an HTTP response at all\r\n\r\n" + page, {}),
        (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n", {}),  # the head never ends
        (http(b"200 OK", [b"Content-Type: text/html"], body(rng, 200_000)), {}),  # past the body limit
        (http(b"200 OK", [b"Content-Type: text/html"], body(rng, 2_000_000)), {}),  # past the block limit too
        (http(b"200 OK", [], page), {"WARC-Date": "2008-10-294T05:21:46-0700"}),  # ClueWeb09
        (http(b"200 OK", [], page), {"WARC-Date": "2024-01-02 03:04:05"}),
        (http(b"200 OK", [], page), {"WARC-Date": "2024-01-02T03:04:05.678+02:00"}),
        (http(b"200 OK", [], page), {"WARC-Date": "20240102030405"}),
        (http(b"200 OK", [], page), {"WARC-Date": "yesterday"}),
        (http(b"200 OK", [], page), {"WARC-IP-Address": "192.0.2.7"}),
        (http(b"200 OK", [], page), {"WARC-IP-Address": "2001:db8::1"}),
        (http(b"200 OK", [], page), {"WARC-Truncated": "length"}),
        (http(b"200 OK", [], page), {"WARC-Block-Digest": "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}),  # mismatch
        (http(b"200 OK", [], page), {"WARC-Block-Digest": sha1_b32(b"other").lower()}),  # mismatch, lower case
        (http(b"200 OK", [], page), {"WARC-Block-Digest": "unknown:xyz"}),  # not checked
    ]
    block = http(b"200 OK", [b"Content-Type: text/html"], page)
    head_end = block.index(b"\r\n\r\n") + 4
    cases += [
        (block, {"WARC-Block-Digest": "sha1:" + hashlib.sha1(block).hexdigest()}),  # hex
        (block, {"WARC-Block-Digest": "sha-256:" + base64.b32encode(hashlib.sha256(block).digest()).decode()}),
        (block, {"WARC-Block-Digest": "sha256:" + base64.b64encode(hashlib.sha256(block).digest()).decode()}),
        (block, {"WARC-Block-Digest": base64.b32encode(hashlib.sha1(block).digest()).decode()}),  # no algorithm
        (block, {"WARC-Block-Digest": "", "WARC-Payload-Digest": sha1_b32(block[head_end:])}),
        (block, {"WARC-Block-Digest": "", "WARC-Payload-Digest": sha1_b32(b"wrong")}),
        (
            block,
            {"WARC-Block-Digest": "", "WARC-Payload-Digest": "sha256:" + hashlib.sha256(block[head_end:]).hexdigest()},
        ),
    ]
    chunked_block = http(b"200 OK", [b"Transfer-Encoding: chunked"], chunked(page, 400))
    cases.append((chunked_block, {"WARC-Block-Digest": "", "WARC-Payload-Digest": sha1_b32(page)}))  # de-chunked
    return cases


def record(kind: str, url: str, block: bytes, fields: dict[str, str], content_type: str, n: int) -> bytes:
    """One WARC record as bytes, its digests written as warcio writes them unless *fields* says otherwise."""
    head_end = block.find(b"\r\n\r\n")
    lines = {
        "WARC-Type": kind, "WARC-Record-ID": f"<urn:uuid:{uuid.UUID(int=n)}>", "WARC-Target-URI": url,
        "WARC-Date": "2024-05-06T07:08:09Z", "WARC-Block-Digest": sha1_b32(block),
        "WARC-Payload-Digest": sha1_b32(block[head_end + 4 :]) if head_end >= 0 else "",
        "Content-Type": content_type, **fields, "Content-Length": str(len(block)),
    }  # fmt: skip
    head = "".join(f"{name}: {value}\r\n" for name, value in lines.items() if value)
    return b"WARC/1.1\r\n" + head.encode() + b"\r\n" + block + b"\r\n\r\n"


def write_warc(path: Path, records: int, seed: int, *, compress: bool) -> None:
    rng = random.Random(seed)
    out = io.BytesIO()

    def write(data: bytes) -> None:
        out.write(gzip.compress(data, mtime=0) if compress else data)

    info = b"isPartOf: identity-crawl\r\nsoftware: bench/ingest_identity.py\r\n"
    write(record("warcinfo", "", info, {"WARC-Target-URI": ""}, "application/warc-fields", 0))
    odd = odd_blocks(rng)
    for n in range(records):
        url = f"https://example.com/{n}?q=é"
        if n % 10 == 3 and odd:
            block, fields = odd.pop(0)
        else:
            content = body(rng, rng.choice([0, 10, 3000, 30_000, 90_000]))
            block = http(b"200 OK", [b"Content-Type: text/html; charset=utf-8", b"Content-Length: %d" % len(content)],
                         content)  # fmt: skip
            fields = {}
        if n % 7 == 0:
            request = f"GET /{n} HTTP/1.1\r\nHost: example.com\r\n\r\n".encode()
            write(record("request", url, request, {}, "application/http; msgtype=request", 2 * n + 1))
        kind = "revisit" if n % 53 == 0 else "response"
        write(record(kind, url, block, fields, HTTP, 2 * n + 2))
        if n == records // 2:
            out.write(odd_member(compress))
    path.write_bytes(out.getvalue())


def odd_member(compress: bool) -> bytes:
    """A record with a folded WARC header line, then (gzip only) a member that does not inflate."""
    block = http(b"200 OK", [b"Content-Type: text/plain"], b"folded")
    record = (
        b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: https://example.com/folded\r\n"
        b"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\n"
        b"X-Long: one\r\n two\r\nContent-Type: application/http; msgtype=response\r\n"
        b"Content-Length: %d\r\n\r\n%s\r\n\r\n" % (len(block), block)
    )
    if not compress:
        return record
    corrupt = bytearray(gzip.compress(record, mtime=0))
    corrupt[20] ^= 0xFF
    return gzip.compress(record, mtime=0) + bytes(corrupt)


def landed(connection: KafkaConnection, topic: str) -> tuple[str, int]:
    """SHA-256 over every committed record of *topic* (partition, offset order), and how many there are."""
    reader = make_consumer(connection, f"identity-{uuid.uuid4().hex}", extra={"enable.partition.eof": True})
    try:
        partitions = sorted(reader.list_topics(topic, timeout=30).topics[topic].partitions)
        reader.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
        found: list[tuple[int, int, bytes]] = []
        at_end: set[int] = set()
        deadline = time.monotonic() + 120
        while len(at_end) < len(partitions) and time.monotonic() < deadline:
            message = reader.poll(0.5)
            if message is None:
                continue
            error = message.error()
            if error is None:
                headers = b"".join(b"%s=%s;" % (k.encode(), v) for k, v in message.headers() or [])
                item = b"\x00".join([message.key() or b"", message.value() or b"", headers])
                found.append((message.partition(), message.offset(), hashlib.sha256(item).digest()))
                at_end.discard(message.partition())
            elif error.code() == KafkaError._PARTITION_EOF:
                at_end.add(message.partition())
            else:
                raise RuntimeError(str(error))
        if len(at_end) < len(partitions):
            raise RuntimeError(f"{topic} not read to its end")
    finally:
        reader.close()
    total = hashlib.sha256()
    for partition, _offset, item in sorted(found):
        total.update(b"%d" % partition + item)
    return total.hexdigest(), len(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=400, help="response records in each file")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dir", default="/tmp/crawl-decoder-ingest-identity", help="where the WARC files are written")
    args = parser.parse_args()
    configure_logging("error", json=False)
    print(f"code: {Path(consumer.__file__).parent.parent}")
    workdir = Path(args.dir)
    workdir.mkdir(parents=True, exist_ok=True)
    bootstrap, stop_broker = broker_for_bench()
    try:
        connection = KafkaConnection(bootstrap)
        serializer = AvroSerializer(SchemaStore(), "RawResponse")
        for compress in (True, False):
            path = workdir / f"identity-{args.seed}-{args.records}.warc{'.gz' if compress else ''}"
            write_warc(path, args.records, args.seed, compress=compress)
            topic = f"identity-{uuid.uuid4().hex}"
            ensure_topics(make_admin(connection), [topic], partitions=3)
            options = IngestOptions(topic, transactional_id_prefix=f"identity-{uuid.uuid4().hex[:8]}",
                                    body_limit=BODY_LIMIT, batch_records=97)  # fmt: skip
            tally = Ingester(connection, options, serializer).run([str(path)])
            records, count = landed(connection, topic)
            checkpoints, _ = landed(connection, options.checkpoint_topic)
            file_digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
            print(f"{path.name} (sha256 {file_digest}): {count} landing records, sha256 {records}")
            print(f"  checkpoints sha256 {checkpoints}")
            print(f"  tally {tally.summary() if hasattr(tally, 'summary') else tally}")
    finally:
        stop_broker()
    return 0


if __name__ == "__main__":
    sys.exit(main())
