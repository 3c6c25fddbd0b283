"""``crawl-decoder ingest`` as an operator runs it: standard input, the tally, exit codes, and real runs
interrupted (Ctrl-C, SIGKILL) then run again: every response on the landing topic exactly once."""

from __future__ import annotations

import json
import signal
import subprocess
import uuid
from collections import Counter

import pytest

from consumer.kafka import make_consumer

from ingest_helpers import REPO, ingest_command, wait_for
from warc_samples import WarcBuilder, broken_warc_header, many_pages

PAGES = 20_000
#: Small transactions, so that a run is stopped between many commits.
BATCH = ["--batch-records", "100"]


def test_standard_input_and_the_closing_tally(run_ingest, landing):
    builder = WarcBuilder(gzip=True)
    builder.warcinfo(isPartOf="piped")
    builder.page("https://example.com/a", b"<p>a</p>")
    builder.request("https://example.com/b")
    bad = builder.raw("malformed", broken_warc_header(True))
    builder.page("https://example.com/b", b"<p>b</p>")

    done = run_ingest("-", stdin=builder.getvalue())

    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    assert "written to the landing topic: 2 responses" in out
    assert "skipped: request 1, warcinfo 1" in out
    assert f"- at offset {bad}:" in out, out
    assert sorted((r["url"], r["crawl_id"]) for r in landing()) == [
        ("https://example.com/a", "piped"),
        ("https://example.com/b", "piped"),
    ]
    # Its stderr is not a terminal: the logs are JSON, and the tally is one of their lines too.
    lines = [json.loads(line) for line in done.stderr.decode().splitlines() if line.startswith("{")]
    [finished] = [line for line in lines if line["event"] == "ingest finished"]
    assert (finished["written"], finished["malformed"], finished["files_done"]) == (2, 1, 1)
    assert finished["skipped"] == {"request": 1, "warcinfo": 1}


def test_stop_on_malformed_exits_1(tmp_path, run_ingest):
    builder = WarcBuilder()
    builder.raw("malformed", broken_warc_header(False))
    (tmp_path / "bad.warc").write_bytes(builder.getvalue())
    done = run_ingest("--stop-on-malformed", str(tmp_path / "bad.warc"))
    assert done.returncode == 1 and "stopped at a malformed record" in done.stdout.decode()


def test_a_missing_landing_topic_is_a_configuration_error(tmp_path, run_ingest):
    (tmp_path / "a.warc").write_bytes(b"WARC/1.1\r\n")
    done = run_ingest("--topic", f"missing-{uuid.uuid4().hex}", str(tmp_path / "a.warc"))
    assert done.returncode == 2 and "does not exist" in done.stderr.decode()


@pytest.fixture(scope="module")
def big_archive(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "many.warc.gz"
    return path, many_pages(path, PAGES)


def committed_landing_count(kafka_connection, topic: str):
    """A read_committed reader of *topic*; calling it returns how many records it has seen so far."""
    consumer = make_consumer(kafka_connection, f"watch-{uuid.uuid4().hex}")
    consumer.subscribe([topic])
    seen = 0

    def count() -> int:
        nonlocal seen
        for message in consumer.consume(500, 0.2):
            seen += message.error() is None
        return seen

    count.close = consumer.close
    return count


def start_and_wait_for_commits(command, env, stdin, kafka_connection, topic, at_least: int = 300):
    process = subprocess.Popen(command, cwd=REPO, env=env, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    count = committed_landing_count(kafka_connection, topic)
    try:
        wait_for(lambda: count() >= at_least or process.poll() is not None, "first batches committed", timeout=180)
    finally:
        count.close()
    if process.poll() is not None:
        pytest.fail(
            f"the ingest ended before it could be interrupted (exit {process.returncode}): make the archive bigger"
        )
    return process


def assert_each_page_once(records, urls):
    counts = Counter(record["url"] for record in records)
    twice = [url for url, n in counts.items() if n > 1]
    assert not twice, f"{len(twice)} pages written twice, e.g. {twice[:3]}"
    missing = set(urls) - set(counts)
    assert not missing, f"{len(missing)} pages missing, e.g. {sorted(missing)[:3]}"
    assert len(records) == len(urls)


def test_sigkill_mid_run_then_a_rerun_writes_every_page_exactly_once(
    big_archive, ingest_env, checkpoint_topic, kafka_connection, topics, landing, run_ingest
):
    path, urls = big_archive
    # Piped, as `zcat | ...` or `aws s3 cp ... -` would: the rerun must skip what was written by reading.
    cat = subprocess.Popen(["cat", str(path)], stdout=subprocess.PIPE)
    try:
        process = start_and_wait_for_commits(
            ingest_command(*BATCH, "-", checkpoint_topic=checkpoint_topic), ingest_env, cat.stdout,
            kafka_connection, topics["landing"],
        )  # fmt: skip
        process.kill()  # an open transaction is left behind: the rerun must fence and abort it
        process.wait(30)
    finally:
        cat.kill()
        cat.wait(30)
    written_before = len(landing())
    assert 0 < written_before < PAGES

    rerun = run_ingest(*BATCH, "-", stdin=path.read_bytes())

    assert rerun.returncode == 0, rerun.stderr.decode()[-3000:]
    assert "1 resumed" in rerun.stdout.decode()
    assert f"written to the landing topic: {PAGES - written_before} responses" in rerun.stdout.decode()
    assert_each_page_once(landing(), urls)


def test_ctrl_c_commits_the_batch_in_hand_and_a_rerun_finishes_exactly_once(
    big_archive, ingest_env, checkpoint_topic, kafka_connection, topics, landing, run_ingest
):
    path, urls = big_archive
    process = start_and_wait_for_commits(
        ingest_command(*BATCH, str(path), checkpoint_topic=checkpoint_topic), ingest_env, subprocess.DEVNULL,
        kafka_connection, topics["landing"],
    )  # fmt: skip
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 1, err.decode()[-3000:]
    assert "interrupted" in out.decode()
    written = int(out.decode().split("written to the landing topic: ")[1].split()[0])
    assert len(landing()) == written, "what the tally says was written is what a read_committed reader sees"

    rerun = run_ingest(*BATCH, str(path))

    assert rerun.returncode == 0, rerun.stderr.decode()[-3000:]
    assert_each_page_once(landing(), urls)
    again = run_ingest(str(path))
    assert "1 already done" in again.stdout.decode() and len(landing()) == PAGES


def test_an_unknown_settings_variable_is_reported_at_start(run_ingest, ingest_env, landing):
    # The landing topic, the registry and the schemas come from the settings: a misspelt one is said.
    builder = WarcBuilder(gzip=True)
    builder.page("https://example.com/a", b"<p>a</p>")
    ingest_env["CRAWL_DECODER_LANDING_TOPC"] = "crawl.raw"
    done = run_ingest("-", stdin=builder.getvalue())
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    events = [json.loads(line) for line in done.stderr.decode().splitlines() if line.startswith("{")]
    warned = [(e["variable"], e.get("did_you_mean")) for e in events if e["event"] == "unknown settings variable ignored"]
    assert warned == [("CRAWL_DECODER_LANDING_TOPC", "CRAWL_DECODER_LANDING_TOPIC")]
    assert [r["url"] for r in landing()] == ["https://example.com/a"]


@pytest.mark.parametrize("attempt", range(3))
def test_sigterm_at_the_tally_does_not_change_the_exit_status(attempt, ingest_env, checkpoint_topic):
    """A SIGTERM that arrives once the work is done (the tally printed, the interpreter shutting down) ends
    nothing early: the status is the documented 0, not death by the signal (143)."""
    builder = WarcBuilder(gzip=True)
    builder.page("https://example.com/a", b"<p>a</p>")
    env = {**ingest_env, "PYTHONUNBUFFERED": "1"}  # the tally reaches the pipe when it is printed
    process = subprocess.Popen(
        ingest_command("-", checkpoint_topic=checkpoint_topic), cwd=REPO, env=env,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    process.stdin.write(builder.getvalue())
    process.stdin.close()
    for line in process.stdout:
        if line.startswith(b"written to the landing topic:"):
            process.send_signal(signal.SIGTERM)
            break
    process.stdout.read()
    assert process.wait(60) == 0, process.stderr.read().decode()[-3000:]
