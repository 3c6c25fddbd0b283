"""Every command tells glibc to keep freed memory for the next batch (consumer/cli/allocator.py).

What glibc does with a block of at least 4 MiB is read from ``mallinfo2`` in a fresh interpreter: kept, the block
comes from the heap and stays there once freed; with glibc's defaults, it is mapped on its own and unmapped when
freed (the page faults that cost a quarter of an undeclared page's decode).

The block is larger than all the heap's free bytes, so that no hole the imports left can hold it (glibc serves a
request from a free chunk that fits before it maps or grows anything): without ``.pyc`` files
(``PYTHONDONTWRITEBYTECODE``), compiling the package's generated tables leaves ~9 MiB free inside the heap.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from consumer.cli import allocator, main
from consumer.cli.environment import unknown_env

on_glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's thresholds only")

#: In a fresh interpreter: the command's call, then a block held and freed (4 MiB, or 1 MiB more than the heap's free
#: bytes); its size, mallinfo2's mapped bytes while it is held ("hblkhd") and the heap's releasable top after
#: ("keepcost").
PROBE = """
import ctypes, json, sys
from consumer.cli.allocator import keep_freed_memory
done = keep_freed_memory()

class Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

mallinfo2 = ctypes.CDLL(None).mallinfo2
mallinfo2.restype = Mallinfo2
size = max(4 << 20, mallinfo2().fordblks + (1 << 20))
block = bytearray(size)
held = mallinfo2()
del block
after = mallinfo2()
print(json.dumps({"done": done, "size": size, "mapped": held.hblkhd, "kept": after.keepcost}))
"""


def probe(**environment: str) -> dict[str, Any]:
    clean = {name: value for name, value in os.environ.items()
             if name != allocator.ENV and not name.startswith("MALLOC_") and name != "GLIBC_TUNABLES"}  # fmt: skip
    run = subprocess.run([sys.executable, "-c", PROBE], env={**clean, **environment}, capture_output=True, text=True,
                         check=True, timeout=60)  # fmt: skip
    return json.loads(run.stdout)


@on_glibc
def test_a_freed_block_is_kept_in_the_heap() -> None:
    result = probe()
    assert result["done"] == "kept"
    assert result["size"] < allocator.KEPT_BYTES  # under our threshold
    assert result["mapped"] < result["size"]  # from the heap, not a mapping of its own
    assert result["kept"] >= result["size"]  # still there for the next batch


@on_glibc
def test_glibc_choice_leaves_the_defaults() -> None:
    result = probe(CRAWL_DECODER_MALLOC="glibc")
    assert result["done"].startswith("glibc's defaults")
    assert result["mapped"] >= result["size"]  # glibc's own 128 KiB threshold: mapped, then unmapped
    assert result["kept"] < result["size"]


@on_glibc
@pytest.mark.parametrize(
    "environment",
    [
        {"MALLOC_MMAP_THRESHOLD_": "131072"},
        {"MALLOC_TRIM_THRESHOLD_": "131072"},
        {"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=131072"},
    ],
)
def test_an_operators_own_glibc_tuning_stands(environment: dict[str, str]) -> None:
    result = probe(**environment)
    assert result["done"].startswith("glibc's, as ")
    assert result["mapped"] >= result["size"]  # their 128 KiB threshold, not ours


def test_off_glibc_nothing_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    # Runs everywhere, unlike the probes above: off glibc (musl, macOS) mallopt is not called at all.
    monkeypatch.setattr(platform, "libc_ver", lambda: ("", ""))
    monkeypatch.setattr(allocator.ctypes, "CDLL", None)  # a call would raise TypeError
    assert allocator.keep_freed_memory({}) == "not glibc: unchanged"


def test_other_tunables_are_not_malloc_tuning() -> None:
    assert allocator._glibc_tuning({"GLIBC_TUNABLES": "glibc.rtld.nns=2"}) is None
    assert allocator._glibc_tuning({"GLIBC_TUNABLES": "glibc.rtld.nns=2:glibc.malloc.arena_max=2"}) == "GLIBC_TUNABLES"


def test_an_unknown_choice_stops_a_command_with_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    page = tmp_path / "page.html"
    page.write_bytes(b"<p>caf\xe9</p>")
    monkeypatch.setenv(allocator.ENV, "fast")
    assert main(["decode", str(page)]) == 2
    captured = capsys.readouterr()
    assert captured.err == "crawl-decoder: error: CRAWL_DECODER_MALLOC='fast': expected one of keep, glibc\n"
    assert captured.out == ""  # stopped before decoding anything


def test_the_variable_is_known_to_the_settings_check() -> None:
    assert unknown_env({allocator.ENV: "glibc"}) == []
