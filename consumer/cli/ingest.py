"""``crawl-decoder ingest``: WARC and ARC files (or standard input) to the landing topic, exactly once.

Each HTTP response record becomes one RawResponse keyed by its URL; revisit, request, metadata,
dns, warcinfo and resource records are counted and skipped; a malformed record is reported with
its offset and skipped (or, with --stop-on-malformed, ends the run).  Batches are Kafka
transactions that also write each input's checkpoint: Ctrl-C commits the batch in hand and stops,
a second Ctrl-C aborts it, and running the same command again resumes where the last committed
batch ended, writing nothing twice.  The design is in ``consumer.ingest.ingester``.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import threading
import time
from types import FrameType

from ..exceptions import ConfigError
from ..ingest import Ingester, IngestOptions, format_tally
from ..ingest.manifest import read_manifest
from ..ingest.progress import Progress
from ..ingest.tally import tally_fields
from ..kafka import MAX_BODY_BYTES
from ..kafka.config import KafkaConnection
from ..observability.logging import get_logger, logs_json
from ..serialization.avro import AvroSerializer
from ..serialization.registry import registry_from_settings, value_subject
from ..serialization.schemas import SchemaStore
from ..settings import Settings
from .environment import load_settings

EPILOG = """\
resuming:
  Every batch is one Kafka transaction holding its records and the input's
  checkpoint (topic <landing>.ingest-checkpoints, compacted; an input is known
  by the SHA-256 of its first 64 KiB, so a renamed or piped file is the same
  input).  Rerunning the same command skips inputs already done and resumes
  the others after their last committed batch: nothing is written twice, even
  after SIGKILL.  The landing topic must be read read_committed (the
  processor does).

exit status:
  0 every input ingested; 1 stopped before the end (Ctrl-C, SIGTERM, a
  malformed record with --stop-on-malformed, an input that failed): run the
  same command again to resume; 2 invalid settings or arguments; 130 a second
  Ctrl-C (the open batch is aborted, nothing of it is visible).
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "ingest",
        help="write WARC/ARC files to the landing topic, exactly once, resumable",
        description=__doc__.split("\n\n")[1].replace("\n", " "),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "files", nargs="*", metavar="INPUT",
        help="WARC or ARC files, gzip per record or not; - for stdin; http(s):// or s3://bucket/key URLs",
    )  # fmt: skip
    parser.add_argument(
        "--manifest", action="append", default=[], metavar="PATHS",
        help="a file or URL listing inputs one a line (gzip or not), as Common Crawl's warc.paths.gz; repeatable",
    )  # fmt: skip
    parser.add_argument(
        "--base-url", metavar="URL",
        help="prefix of the manifest's relative lines (e.g. https://data.commoncrawl.org/ or s3://commoncrawl/)",
    )  # fmt: skip
    parser.add_argument(
        "--config", help="settings YAML file (default: $CRAWL_DECODER_CONFIG): topic, schemas, registry"
    )
    parser.add_argument("--topic", help="landing topic (default: the landing_topic setting)")
    parser.add_argument("--checkpoint-topic", help="checkpoint topic (default: <landing topic>.ingest-checkpoints)")
    parser.add_argument("--crawl-id", help="crawl_id of every record (default: each WARC's warcinfo isPartOf)")
    parser.add_argument(
        "--stop-on-malformed",
        action="store_true",
        help="stop at the first malformed record (the records before it are committed)",
    )
    parser.add_argument(
        "--transactional-id-prefix",
        default="crawl-decoder-ingest",
        metavar="PREFIX",
        help="transactional.id of an input's producer is PREFIX-<input id> (default %(default)s)",
    )
    parser.add_argument(
        "--max-body-bytes",
        type=_positive,
        default=MAX_BODY_BYTES,
        metavar="N",
        help=f"cut longer bodies to N bytes, marked truncated (default and maximum {MAX_BODY_BYTES})",
    )
    parser.add_argument(
        "--batch-records",
        type=_positive,
        default=1000,
        metavar="N",
        help="WARC records per transaction (default %(default)s)",
    )
    parser.add_argument(
        "--batch-mb",
        type=_positive,
        default=64,
        metavar="MB",
        help="input megabytes per transaction (default %(default)s)",
    )
    parser.add_argument(
        "--jobs", type=_positive, default=1, metavar="N",
        help="ingest N inputs at a time, each in its own process (default %(default)s): one core each",
    )  # fmt: skip
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    settings = load_settings(args.config, stream=sys.stderr)
    inputs = list(args.files)
    for manifest in args.manifest:
        inputs += read_manifest(manifest, args.base_url)
    if not inputs:
        raise ConfigError("no input: give files, URLs or --manifest")
    if inputs.count("-") > 1:
        raise ConfigError("standard input (-) can be given once")
    if args.jobs > 1 and len(inputs) > 1:
        if "-" in inputs:
            raise ConfigError("--jobs cannot share standard input (-) between processes")
        return _run_jobs(args, inputs)
    topic = args.topic or settings.landing_topic
    options = IngestOptions(
        landing_topic=topic,
        checkpoint_topic=args.checkpoint_topic or "",
        transactional_id_prefix=args.transactional_id_prefix,
        crawl_id=args.crawl_id,
        stop_on_malformed=args.stop_on_malformed,
        body_limit=args.max_body_bytes,
        batch_records=args.batch_records,
        batch_bytes=args.batch_mb * 1024 * 1024,
    )
    connection = KafkaConnection.from_env(extra=settings.kafka_config)
    ingester = Ingester(connection, options, _serializer(settings, topic), progress=Progress())
    if threading.current_thread() is threading.main_thread():
        _stop_on_signals(ingester)
    started = time.monotonic()
    tally = ingester.run(inputs)
    # Read once, as the run ended: a signal from here on (the tally being printed) stops nothing and
    # must not turn a finished run into an "interrupted" one.
    interrupted, stopped_at_malformed = ingester.interrupted, ingester.stopped_at_malformed
    seconds = time.monotonic() - started
    print(format_tally(tally, seconds))
    if logs_json():  # the same figures for a log pipeline, beside the table for a person
        get_logger(component="ingest").info("ingest finished", interrupted=interrupted, **tally_fields(tally, seconds))
    if interrupted:
        print("interrupted: the batch in hand was committed; run the same command again to resume")
    if stopped_at_malformed:
        print("stopped at a malformed record (--stop-on-malformed); the records before it are committed")
    return 1 if interrupted or stopped_at_malformed or tally.files_failed else 0


def _run_jobs(args: argparse.Namespace, inputs: list[str]) -> int:
    """*inputs* dealt round-robin to ``--jobs`` child processes of this command, each with its own list: every
    input goes to exactly one of them (and were one given twice, its transactional id fences the other run).
    SIGINT and SIGTERM are passed on; the exit status is the worst of theirs."""
    jobs = min(args.jobs, len(inputs))
    options = ["--max-body-bytes", str(args.max_body_bytes), "--batch-records", str(args.batch_records),
               "--batch-mb", str(args.batch_mb), "--transactional-id-prefix", args.transactional_id_prefix]  # fmt: skip
    for flag, value in (("--config", args.config), ("--topic", args.topic),
                        ("--checkpoint-topic", args.checkpoint_topic), ("--crawl-id", args.crawl_id)):  # fmt: skip
        if value:
            options += [flag, value]
    if args.stop_on_malformed:
        options.append("--stop-on-malformed")
    command = [sys.executable, "-m", "consumer.cli", "ingest", *options, "--"]
    children = [subprocess.Popen([*command, *inputs[n::jobs]]) for n in range(jobs)]

    def forward(signum: int, frame: FrameType | None) -> None:
        for child in children:
            if child.poll() is None:
                child.send_signal(signum)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, forward)
        signal.signal(signal.SIGTERM, forward)
    statuses = [child.wait() for child in children]
    get_logger(component="ingest").info("ingest jobs finished", jobs=jobs, exit_statuses=statuses)
    # A child ended by a signal (negative) counts as stopped early: run the same command again.
    return max((status if status > 0 else 1 for status in statuses if status != 0), default=0)


def _serializer(settings: Settings, topic: str) -> AvroSerializer:
    """RawResponse framing as the processor's settings say: the registry's (with its credentials and CA) when one
    is set, else single-object."""
    registry = registry_from_settings(settings)
    subject = value_subject(topic) if registry else None
    return AvroSerializer(SchemaStore(settings.schemas_dir or None), "RawResponse", registry, subject)


def _stop_on_signals(ingester: Ingester) -> None:
    """SIGTERM and a first Ctrl-C finish the batch in hand; a second Ctrl-C stops at once (the batch is aborted)."""

    def first_interrupt(signum: int, frame: FrameType | None) -> None:
        ingester.stop()
        signal.signal(signal.SIGINT, signal.default_int_handler)

    signal.signal(signal.SIGINT, first_interrupt)
    signal.signal(signal.SIGTERM, lambda signum, frame: ingester.stop())


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value
