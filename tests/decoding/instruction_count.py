"""The instructions a compiled function executes on given bytes, counted by valgrind's callgrind.

Seconds depend on the load of the machine (these are shared); the instructions a function executes
on given bytes do not, so work can be asserted on exactly.  ``count_instructions`` runs this file
as a driver under ``valgrind --tool=callgrind``, once for a whole list of calls (Python starts in
seconds under valgrind, a call takes milliseconds):

* ``--collect-atstart=no`` and ``--toggle-collect=SYMBOL``: callgrind counts only while one of the
  named C functions runs, its callees included (the str it allocates, memcpy), so the interpreter's
  start, the imports and the Python code between calls run but are not counted;
* after each call the driver calls ``os.getppid()``, which nothing else in it calls, and
  ``--dump-after=getppid`` closes a dump there: one dump per call, in call order, each with the
  instructions of that call alone (a dump resets the counters);
* ``--combine-dumps=yes`` writes them to one file, where each dump's ``summary:`` line is its count.

Run as a script only by ``count_instructions``: ``python instruction_count.py CALLS.pickle``.
"""

from __future__ import annotations

import collections
import importlib
import os
import pickle
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

#: valgrind's path, or None where it is not installed.
VALGRIND = shutil.which("valgrind")


class Call(NamedTuple):
    """``module.function(*args)``, made by the driver; an iterator it returns is read to its end (a
    generator does its work as it is read)."""

    module: str
    function: str
    args: tuple[object, ...]


def count_instructions(calls: Sequence[Call], symbols: Iterable[str], workdir: Path) -> list[int]:
    """The instructions executed inside the C functions named *symbols* (their symbols in the
    extension's object: ``nm`` lists them) during each of *calls*, in one valgrind run."""
    assert VALGRIND is not None
    spec, out = workdir / "calls.pickle", workdir / "callgrind.out"
    # Plain tuples: the driver imports this file as a script, not as the module pickle would name.
    spec.write_bytes(pickle.dumps([tuple(call) for call in calls]))
    command = [
        VALGRIND, "--tool=callgrind", "--quiet", "--collect-atstart=no",
        *(f"--toggle-collect={symbol}" for symbol in symbols),
        "--dump-after=getppid", "--combine-dumps=yes", "--dump-line=no", f"--callgrind-out-file={out}",
        sys.executable, __file__, str(spec),
    ]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"the driver failed under callgrind (exit {run.returncode}):\n{run.stderr[-4000:]}")
    counts = [int(count) for count in re.findall(r"^summary: (\d+)$", out.read_text(), re.MULTILINE)]
    # One dump a call, then callgrind's own at exit, after the last call: nothing is counted there.
    if len(counts) != len(calls) + 1 or counts[-1] != 0:
        raise RuntimeError(f"{len(calls)} calls but dumps {counts[:5]}...{counts[-3:]} ({len(counts)}): "
                           "does something else call getppid, or a toggled function another?")
    return counts[:-1]


def _drive(spec: Path) -> None:
    for module, function, args in pickle.loads(spec.read_bytes()):
        result = getattr(importlib.import_module(module), function)(*args)
        if isinstance(result, Iterator):
            collections.deque(result, maxlen=0)
        os.getppid()  # closes this call's dump (--dump-after=getppid)


if __name__ == "__main__":
    _drive(Path(sys.argv[1]))
