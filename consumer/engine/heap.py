"""Keeping the memory a committed batch frees, for the next batch.

The engine holds a whole batch (its messages' values, the parsed records, the
serialized outputs: ~100 KB for a 30 KB page) and frees it at once when the
batch is committed; the next batch then allocates as much again.  glibc's
malloc gives the freed top of its heap back to the kernel as soon as it
exceeds 128 KiB (``M_TRIM_THRESHOLD``), so every batch faulted its pages in
again: ~16 page faults a record, ~25 us of kernel time against ~80 us of
work (bench/RESULTS.md, "Issue 18: the heap kept").

``keep_freed_memory`` raises that threshold above what a batch frees.  The
process's memory then stays at its high-water mark instead of following each
batch down and up; it never grows past it.  Setting any threshold also stops
glibc adapting its mmap threshold, so it is set too: a block of 1 MiB or more
(a large body) keeps its own mapping, returned when freed, as before.
"""

from __future__ import annotations

import ctypes

MiB = 1024 * 1024
#: mallopt's parameters (glibc's malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
#: Free memory at the top of the heap kept rather than returned: more than a batch of 500
#: 30 KB pages frees (~50 MB), well under the processor's 500 MB memory budget.
KEEP_FREED_BYTES = 256 * MiB
#: Blocks from this size on are mapped on their own, as glibc's default starts out doing.
MAP_ALONE_FROM_BYTES = 1 * MiB


def keep_freed_memory() -> bool:
    """Have malloc keep freed memory for reuse (see above); False where the C library has no
    ``mallopt`` that accepts these (not glibc): nothing changes there."""
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own C library
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return mallopt(M_MMAP_THRESHOLD, MAP_ALONE_FROM_BYTES) == 1 and mallopt(M_TRIM_THRESHOLD, KEEP_FREED_BYTES) == 1
