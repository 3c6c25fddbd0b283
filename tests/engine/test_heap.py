"""keep_freed_memory: the memory a batch frees serves the next batch without faulting pages in again.

Each run is a fresh interpreter (mallopt changes the whole process), counting the minor page faults
the second of two equal batches takes: pages, not time.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys

import pytest

from consumer.engine import keep_freed_memory

BATCHES = """
import json, resource, sys
from consumer.engine import keep_freed_memory
kept = keep_freed_memory() if sys.argv[1] == "keep" else False

def batch():
    # As a batch of 500 30 KB records: values, parsed bodies, serialized outputs.
    return [bytes(30_000) + bytes([i % 256]) for i in range(1500)]

first = batch()
del first
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
second = batch()
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(json.dumps({"kept": kept, "faults": faults}))
"""

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt's thresholds are glibc's")


def _second_batch(mode: str) -> dict:
    out = subprocess.run([sys.executable, "-c", BATCHES, mode], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_a_batch_reuses_the_memory_the_last_one_freed():
    kept = _second_batch("keep")
    assert kept["kept"] is True
    # 1500 x 30 KB is ~11,000 pages: kept memory is reused, nothing is faulted in again.
    assert kept["faults"] < 500, kept


def test_without_it_glibc_returns_a_freed_batch_and_faults_it_in_again():
    # What keep_freed_memory is for: glibc's default trims the freed heap top above 128 KiB.
    assert _second_batch("default")["faults"] > 5_000


def test_it_can_be_called_again():
    assert keep_freed_memory() is True
    assert keep_freed_memory() is True
