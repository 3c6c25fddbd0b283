"""Remote inputs: ``http(s)://`` and ``s3://`` read with Range requests against real loopback servers (an
HTTP server that drops connections mid-file, moto's S3 server enforcing signatures), a Common Crawl style
manifest, and a killed run resumed by a Range request at its checkpoint."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import random
import subprocess

import pytest

from consumer.ingest.checkpoint import CheckpointStore
from consumer.ingest.manifest import join
from consumer.ingest.remote import S3Credentials, s3_location, sign_v4
from consumer.ingest.source import IDENTITY_BYTES, open_source

from ingest_helpers import REPO, ingest_command
from range_server import serve_files
from test_ingest_command import BATCH, PAGES, assert_each_page_once, start_and_wait_for_commits
from warc_samples import WarcBuilder, many_pages

pytestmark = pytest.mark.xdist_group("remote")


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """A gzip-per-record WARC of 3000 pages: (bytes, urls)."""
    path = tmp_path_factory.mktemp("remote") / "pages.warc.gz"
    urls = many_pages(path, 3000)
    return path.read_bytes(), urls


def test_signature_v4_matches_the_aws_documentation_example():
    # "Example: GET Object" of the S3 API reference's "Authenticating Requests (AWS Signature Version 4)".
    credentials = S3Credentials("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    headers = sign_v4(
        "https://examplebucket.s3.amazonaws.com/test.txt", {"Range": "bytes=0-9"}, credentials, "us-east-1",
        now=dt.datetime(2013, 5, 24, tzinfo=dt.UTC),
    )  # fmt: skip
    assert headers["authorization"] == (
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
    )
    assert "wJalr" not in repr(credentials)


def test_s3_urls_virtual_hosted_on_aws_and_path_style_on_a_configured_endpoint():
    aws = s3_location("s3://commoncrawl/crawl-data/a b.warc.gz", {"AWS_REGION": "us-east-1"})
    assert aws.url == "https://commoncrawl.s3.us-east-1.amazonaws.com/crawl-data/a%20b.warc.gz"
    assert aws.credentials is None  # no key in the environment: unsigned, as a public bucket takes them
    local = s3_location("s3://b/k", {"AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9/", "AWS_ACCESS_KEY_ID": "a",
                                      "AWS_SECRET_ACCESS_KEY": "s", "AWS_DEFAULT_REGION": "eu-west-1"})  # fmt: skip
    assert (local.url, local.region, local.credentials.access_key) == ("http://127.0.0.1:9/b/k", "eu-west-1", "a")


def test_manifest_lines_join_the_base_url():
    assert join("https://data.commoncrawl.org/", "/crawl-data/x.warc.gz") == "https://data.commoncrawl.org/crawl-data/x.warc.gz"
    assert join("s3://commoncrawl", "crawl-data/x.warc.gz") == "s3://commoncrawl/crawl-data/x.warc.gz"
    assert join("s3://commoncrawl", "https://elsewhere/y.warc.gz") == "https://elsewhere/y.warc.gz"


def test_a_remote_input_has_the_identity_of_the_same_file_on_disk(tmp_path, archive):
    data, _ = archive
    (tmp_path / "a.warc.gz").write_bytes(data)
    with serve_files({"/a.warc.gz": data}) as server:
        remote = open_source(f"{server.url}/a.warc.gz")
        local = open_source(str(tmp_path / "a.warc.gz"))
        try:
            assert (remote.identity, remote.size) == (local.identity, local.size)
            assert server.log[0].range == f"bytes=0-{IDENTITY_BYTES - 1}", "the identity costs one small request"
        finally:
            remote.close()
            local.close()


@pytest.mark.parametrize("ignore_range", [False, True], ids=["range", "server-without-range"])
def test_a_connection_dropped_mid_file_is_resumed_and_every_page_lands_once(ingest, landing, archive, ignore_range):
    data, urls = archive
    drop = len(data) * 2 // 5
    with serve_files({"/x.warc.gz": data}, drop_after={"/x.warc.gz": drop}, ignore_range=ignore_range) as server:
        ingester = ingest([f"{server.url}/x.warc.gz"], batch_records=500)
        served = server.requests("/x.warc.gz")

    assert ingester.tally.files_done == 1 and ingester.tally.files_failed == 0
    assert_each_page_once(landing(), urls)
    assert [s.dropped for s in served].count(True) == 1, served
    after_drop = served[[s.dropped for s in served].index(True) + 1]
    if ignore_range:  # the whole file again, the bytes before the drop read and dropped
        assert after_drop.status == 200
    else:  # only the rest: a Range request from where the connection was lost
        assert after_drop.status == 206 and after_drop.start == drop == served[-1].start, served
        assert sum(s.sent for s in served) < len(data) + 2 * IDENTITY_BYTES + 1024 * 1024


def test_a_killed_remote_ingest_resumes_with_a_range_request_at_its_checkpoint(
    tmp_path, ingest_env, checkpoint_topic, kafka_connection, topics, landing, run_ingest
):
    path = tmp_path / "big.warc.gz"
    urls = many_pages(path, PAGES)
    data = path.read_bytes()
    with serve_files({"/big.warc.gz": data}) as server:
        url = f"{server.url}/big.warc.gz"
        process = start_and_wait_for_commits(
            ingest_command(*BATCH, url, checkpoint_topic=checkpoint_topic), ingest_env, subprocess.DEVNULL,
            kafka_connection, topics["landing"],
        )  # fmt: skip
        process.kill()
        process.wait(30)
        store = CheckpointStore(kafka_connection, checkpoint_topic)
        try:
            store.refresh()
            (checkpoint,) = store._latest.values()
        finally:
            store.close()
        assert 0 < checkpoint.offset < len(data) and checkpoint.name == url
        first_run = len(server.log)

        rerun = run_ingest(*BATCH, url)
        rerun_requests = server.log[first_run:]

    assert rerun.returncode == 0, rerun.stderr.decode()[-3000:]
    assert "1 resumed" in rerun.stdout.decode()
    assert_each_page_once(landing(), urls)
    # The identity's 64 KiB, then the rest from the checkpoint: nothing before it is fetched again.
    assert [(s.range, s.start) for s in rerun_requests] == [
        (f"bytes=0-{IDENTITY_BYTES - 1}", 0), (f"bytes={checkpoint.offset}-", checkpoint.offset),
    ]


@pytest.mark.parametrize("first_body", [100, 200_000], ids=["small-first-record", "first-record-past-the-head"])
def test_a_warc_gzipped_as_one_stream_is_read_remotely(ingest, landing, first_body):
    # Judged from the identity's first 64 KiB, or when the first record goes past them, from the input read
    # again from its start: one request more.
    builder, urls = WarcBuilder(), []
    for n in range(300):
        urls.append(f"https://example.com/one-stream/{n}")
        body = (random.Random(n).randbytes(first_body if n == 0 else 800).hex()).encode()
        builder.page(urls[-1], body)
    data = gzip.compress(builder.getvalue())
    with serve_files({"/one.warc.gz": data}) as server:
        ingester = ingest([f"{server.url}/one.warc.gz"], batch_records=100)
        served = server.requests("/one.warc.gz")

    assert (ingester.tally.files_done, ingester.tally.files_one_gzip_stream) == (1, 1)
    assert_each_page_once(landing(), urls)
    ranges = [s.range for s in served]
    assert ranges[:2] == [f"bytes=0-{IDENTITY_BYTES - 1}", "bytes=0-"] and set(ranges[2:]) <= {"bytes=0-"}, ranges
    if first_body < 1000:
        assert len(ranges) == 2, "the first member's second record is in the identity's bytes: no second look"


@pytest.fixture(scope="module")
def s3(archive):
    from s3_server import moto_s3

    data, _ = archive
    with moto_s3("crawl", {"crawl-data/one.warc.gz": data}) as server:
        yield server


def json_lines(stderr: bytes) -> list[dict]:
    return [json.loads(line) for line in stderr.decode().splitlines() if line.startswith("{")]


def run_with(env: dict[str, str], checkpoint_topic: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(ingest_command(*args, checkpoint_topic=checkpoint_topic), cwd=REPO, env=env,
                          capture_output=True, timeout=300)  # fmt: skip


def test_an_s3_object_read_with_a_signed_range_request(s3, ingest_env, checkpoint_topic, landing, archive):
    _, urls = archive
    done = run_with({**ingest_env, **s3.env()}, checkpoint_topic, "s3://crawl/crawl-data/one.warc.gz")

    assert done.returncode == 0, done.stderr.decode()[-3000:]
    assert "1 done" in done.stdout.decode()
    assert_each_page_once(landing(), urls)


@pytest.mark.parametrize(
    ("uri", "secret", "expected"),
    [
        ("s3://crawl/crawl-data/one.warc.gz", "not-the-secret", "HTTP 403 Forbidden: SignatureDoesNotMatch"),
        ("s3://crawl/crawl-data/missing.warc.gz", None, "HTTP 404 Not Found: NoSuchKey"),
    ],
    ids=["wrong-secret", "missing-key"],
)
def test_a_wrong_credential_or_a_missing_key_names_the_input(
    s3, ingest_env, checkpoint_topic, landing, uri, secret, expected
):
    failed = run_with({**ingest_env, **s3.env(secret=secret)}, checkpoint_topic, uri)

    assert failed.returncode == 1
    (line,) = [line for line in json_lines(failed.stderr) if line.get("event") == "input not ingested to its end"]
    assert line["file"] == uri and line["level"] == "error"
    assert line["error"].lower().startswith(f"{uri}: {expected}".lower()), line["error"]
    assert "1 failed" in failed.stdout.decode()
    assert landing() == []


def test_a_manifest_with_a_base_url_ingests_each_input_once_over_two_jobs(tmp_path, run_ingest, landing):
    names, everything, files = ["crawl-data/a.warc.gz", "crawl-data/b.warc.gz"], [], {}
    for name in names:
        builder = WarcBuilder(gzip=True)
        builder.warcinfo(isPartOf=name)
        for n in range(200):
            everything.append(f"https://example.com/{name}/{n}")
            builder.page(everything[-1], f"<p>{n}</p>".encode())
        files[f"/{name}"] = builder.getvalue()
    files["/crawl-data/warc.paths.gz"] = gzip.compress(("\n".join(names) + "\n").encode())
    with serve_files(files) as server:
        manifest = f"{server.url}/crawl-data/warc.paths.gz"
        first = run_ingest("--jobs", "2", "--manifest", manifest, "--base-url", f"{server.url}/")
        again = run_ingest("--manifest", manifest, "--base-url", server.url)

    assert first.returncode == 0, first.stderr.decode()[-3000:]
    # One process per input, each with its own tally.
    assert first.stdout.decode().count("files: 1 done, 0 resumed, 0 already done, 0 failed") == 2
    assert again.returncode == 0 and "2 already done" in again.stdout.decode()
    assert_each_page_once(landing(), everything)
