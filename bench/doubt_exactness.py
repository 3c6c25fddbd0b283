"""Whether ``contradiction.doubted`` answers as a former revision's does, on bench/false_declared.py's real text.

    .venv/bin/python bench/doubt_exactness.py [--against REV] [--samples 5]

A change made only for speed must not move a single doubt: this runs the working tree's ``doubted`` and the one of
*REV* (``git show``; default ``HEAD``), with *REV*'s ``consumer/decoding/detection`` beside it (as
bench/detection_exactness.py loads it), side by side in one process.  The bodies: bench/real_text.py's segments of
both halves, every encoding and length (N non-ASCII characters, N in 4 ... 1024), each wrapped in
bench/false_declared.py's page, in its own encoding and in UTF-8; each asked about under every label the detection
model has languages for (the true one, its false sibling, every other), with no TLD and with the language's ccTLD.
Prints how many calls were compared, how many doubted, how many the current revision settled without ``scores``
(``detection.may_be_beaten``), every difference (exits 1 on any), and the mean time of a call of each revision,
interleaved call by call, apart for the true label (what nearly every declared page asks), the false labels and
the UTF-8 bodies.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent
sys.path[:0] = [str(ROOT.parent), str(ROOT)]

import real_text  # noqa: E402
from detection_exactness import _git, former  # noqa: E402
from false_declared import page  # noqa: E402

from consumer.decoding import contradiction, detection  # noqa: E402


def former_contradiction(revision: str) -> ModuleType:
    """contradiction.py as it was at *revision*, its ``detection`` the one of *revision* too."""
    name = "consumer.decoding._former_contradiction"
    source = _git("show", f"{revision}:consumer/decoding/contradiction.py")
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "consumer.decoding"
    sys.modules[name] = module
    exec(compile(source, f"{revision}:contradiction.py", "exec"), module.__dict__)  # our own file, from git
    module.detection = former(revision)  # looked up at each call: the former module's functions use it
    return module


def bodies(samples: int) -> list[tuple[bytes, str, str]]:
    """(body, ccTLD, true encoding) triples: each segment's page in its encoding and in UTF-8."""
    found = []
    for encoding, (_, tld) in real_text.ENCODINGS.items():
        for which in ("tune", "test"):
            for length in real_text.LENGTHS:
                for _, text in real_text.segments(encoding, length, samples, which):
                    legacy = real_text.encodable(page(text), encoding)
                    assert legacy is not None
                    found += [(legacy, tld, encoding), (page(text).encode("utf-8"), tld, "UTF-8")]
    return found


#: How the calls are timed apart: the question ``doubted`` is asked on nearly every declared page, and the others.
KINDS = ("true label", "false label", "UTF-8 body")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="HEAD", help="the git revision whose doubted() is the reference")
    parser.add_argument("--samples", type=int, default=5, help="segments per encoding, length and half")
    args = parser.parse_args()
    before = former_contradiction(args.against)
    labels = list(detection.LANGUAGES)
    compared = doubts = settled = differences = 0
    seconds = {kind: [0.0, 0.0, 0] for kind in KINDS}  # before, now, calls
    for body, tld, truth in bodies(args.samples):
        for label in labels:
            kind = KINDS[2] if truth == "UTF-8" else KINDS[0] if label == truth else KINDS[1]
            for host_tld in (None, tld):
                start = time.perf_counter()
                old = before.doubted(body, label, host_tld)
                middle = time.perf_counter()
                new = contradiction.doubted(body, label, host_tld)
                tally = seconds[kind]
                tally[0] += middle - start
                tally[1] += time.perf_counter() - middle
                tally[2] += 1
                compared += 1
                doubts += new is not None
                # The answer is (favoured, nats, apart); a later Doubt also carries the bytes it read.
                if (old and tuple(old)[:3]) != (new and tuple(new)[:3]):
                    differences += 1
                    print(f"differs ({len(body)} bytes, {label}, tld {host_tld}): {args.against} {old}, now {new}")
            settled += not detection.may_be_beaten(
                body,
                label,
                contradiction.DOUBT_NATS,
                contradiction.CASE_NATS,
                **contradiction.doubt_scope(label),
            )
    print(
        f"{compared} doubted() calls compared against {args.against}: {differences} differ; {doubts} doubts; "
        f"{settled} of {compared // 2} (body, label) pairs settled without scores"
    )
    print(f"{'mean us a call (interleaved)':<30}{'calls':>8}{'before':>9}{'now':>9}{'now/before':>12}")
    for kind, (old_seconds, new_seconds, calls) in seconds.items():
        if calls:
            print(
                f"{kind:<30}{calls:>8}{1e6 * old_seconds / calls:>9.1f}{1e6 * new_seconds / calls:>9.1f}"
                f"{new_seconds / old_seconds:>11.2f}x"
            )
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
