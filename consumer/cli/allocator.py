"""glibc's malloc told to keep the memory a batch frees, for the next batch: every command sets it at start.

Each page's body, text and output record is a large block (over 512 bytes: CPython takes it from malloc), freed
when its batch is done. glibc gives memory back to the kernel as soon as it can: a block of 128 KiB or more is
mapped on its own and unmapped when freed, and the top of a heap is trimmed once 128 KiB there are free, until a
freed mapped block raises both thresholds to its size (glibc's dynamic threshold). Until then each batch takes
the same memory anew, a page fault for every 4 KiB, which the kernel zeroes: on the virtual machines this
project is measured on, a fault costs microseconds, a quarter of an undeclared legacy page's decode
(`bench/undeclared.py`) and half or more of a 1 MB page's (docs/memory.md, "glibc's allocator").

``keep_freed_memory`` sets both thresholds once to 32 MiB, the ceiling glibc's dynamic threshold reaches on a
64-bit machine (``DEFAULT_MMAP_THRESHOLD_MAX``): a block under it comes from a heap, and up to 32 MiB freed at a
heap's top stays there. A body at ``MAX_BODY_BYTES`` (16 MiB) is one such block. A processor frees large blocks
in its first batches and reaches much the same state by itself; a process that has not (a benchmark, a command
decoding files) gets it from the start. docs/memory.md has the peak RSS and speed measured both ways.

The environment decides first: ``CRAWL_DECODER_MALLOC=glibc`` leaves glibc's defaults, and so do glibc's own
settings (a ``MALLOC_*_`` variable, a ``glibc.malloc`` tunable in ``GLIBC_TUNABLES``), which an operator set on
purpose. Elsewhere than glibc (musl, macOS) nothing is changed: their allocators have no such thresholds.
"""

from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Mapping

from ..exceptions import ConfigError

#: The variable that chooses: "keep" (the default) or "glibc".
ENV = "CRAWL_DECODER_MALLOC"
CHOICES = ("keep", "glibc")
#: Both thresholds: glibc's own ceiling for its dynamic mmap threshold on 64-bit machines (malloc.c).
KEPT_BYTES = 32 * 1024 * 1024
#: mallopt's parameter numbers (malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
#: glibc's own environment variables for the same thresholds, and its tunables' prefix (an operator's tuning).
GLIBC_VARIABLES = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_")
GLIBC_TUNABLE_PREFIX = "glibc.malloc."


def keep_freed_memory(environ: Mapping[str, str] = os.environ) -> str:
    """Set glibc's trim and mmap thresholds to ``KEPT_BYTES`` unless the environment says otherwise; what was done.

    Returns what was done, in a few words: "kept" (set), or why not (the benchmarks print it). Raises
    ``ConfigError`` when ``CRAWL_DECODER_MALLOC`` names neither choice.
    """
    choice = environ.get(ENV, "keep").strip().lower()
    if choice not in CHOICES:
        raise ConfigError(f"{ENV}={environ[ENV]!r}: expected one of {', '.join(CHOICES)}")
    if choice == "glibc":
        return f"glibc's defaults ({ENV}=glibc)"
    tuned = _glibc_tuning(environ)
    if tuned is not None:
        return f"glibc's, as {tuned} sets them"
    if platform.libc_ver()[0] != "glibc":
        return "not glibc: unchanged"
    mallopt = ctypes.CDLL(None).mallopt
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # mallopt returns 1 on success; glibc refuses an mmap threshold above its ceiling, which 32 MiB is only on a
    # 32-bit machine (16 MiB there).
    if not (mallopt(M_MMAP_THRESHOLD, KEPT_BYTES) and mallopt(M_TRIM_THRESHOLD, KEPT_BYTES)):
        return "glibc refused: unchanged"
    return "kept"


def _glibc_tuning(environ: Mapping[str, str]) -> str | None:
    """The name of the operator's own malloc tuning in *environ*, or None."""
    for variable in GLIBC_VARIABLES:
        if variable in environ:
            return variable
    tunables = environ.get("GLIBC_TUNABLES", "")
    if any(part.strip().startswith(GLIBC_TUNABLE_PREFIX) for part in tunables.split(":")):
        return "GLIBC_TUNABLES"
    return None
