"""Memory of decoding a body: tracemalloc's peak over ``decode`` and ``.text``, per body byte (issue 30).

    .venv/bin/python bench/memory.py [--mib 16]

For each body of tests/decoding/test_decode_memory.py (those whose last character is beyond the
BMP, and bodies of errors), at --mib MiB: the peak divided by the body's size, beside the floor
measured in the same run, the size of the text the decode returns divided by the body's size (no
decoder can peak below its own answer). Issue 30 wants the peak at most 6x the body for any input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.decoding import test_decode_memory as cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=16)
    args = parser.parse_args()
    cases.SIZE = args.mib << 20
    print(f"peak / body at {args.mib} MiB (wanted <= 6x); floor: the returned str / body")
    print(f"{'body':38} {'peak':>6} {'floor':>6}")
    from consumer.decoding import decode

    for name, (charset, prefix, tail) in cases.SHAPES.items():
        body = cases.body_of(prefix, tail)
        floor = sys.getsizeof(decode(body, f"text/html; charset={charset}").text) / len(body)
        print(f"{name:38} {cases.peak_ratio(body, charset):5.2f}x {floor:5.2f}x")


if __name__ == "__main__":
    main()
