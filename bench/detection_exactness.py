"""Whether ``detect`` and ``ranked`` answer as a former revision's do, on every page of the detection corpus.

    .venv/bin/python bench/detection_exactness.py [--against REV] [--per-encoding 12] [--seed 7]

A change made only for speed must not move a single answer: this runs the working tree's
``consumer/decoding/detection`` and the one of *REV* (``git show``; default ``HEAD``) side by side, in
one process, on the pages bench/detection.py measures accuracy on (1-50 KiB, short pages, the gettext
catalogs where the machine has them) and its speed pages cut to 50 and 55 KiB, each also behind a long
ASCII prefix (the examined bytes then start further in), cut in three (a character cut at the end),
plus random bytes of several lengths; every body with no TLD, its page's TLD and a few others (the
priors of every hint table). Prints the number of bodies compared and every difference; exits 1 on
any. Both revisions run the same compiled loops (the extension built from the working tree), so
the former one's must still be there with the same answers: test_compiled.py checks that.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "decoding" / "detection")]

from consumer.decoding import detection  # noqa: E402

from corpus import LOCALES, catalog_corpus, corpus, page  # noqa: E402

TLDS = (None, "com", "ru", "jp", "cn", "gr", "pl", "lt", "il", "sa", "ua")


def former(revision: str) -> ModuleType:
    """detection as it was at *revision*, imported beside the package (its relative imports work): the
    module detection.py up to issue 40, the package detection/ since (its files written to a temporary folder)."""
    name = "consumer.decoding._former_detection"
    files = _git("ls-tree", "-r", "--name-only", revision, "--", "consumer/decoding/detection").decode().split()
    if files:
        folder = Path(tempfile.mkdtemp(prefix="former-detection-"))
        for path in files:
            (folder / Path(path).name).write_bytes(_git("show", f"{revision}:{path}"))
        spec = importlib.util.spec_from_file_location(name, folder / "__init__.py", submodule_search_locations=[str(folder)])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    source = _git("show", f"{revision}:consumer/decoding/detection.py")
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "consumer.decoding"
    sys.modules[name] = module
    exec(compile(source, f"{revision}:detection.py", "exec"), module.__dict__)  # our own file, from git
    return module


def _git(*args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True).stdout


def bodies(per_encoding: int, seed: int) -> list[tuple[bytes, tuple[str | None, ...]]]:
    """Every body compared, with the TLDs it is asked with."""
    made = [*corpus(per_encoding, seed), *corpus(per_encoding, seed + 1, min_size=150, max_size=700)]
    made += catalog_corpus(per_encoding, seed + 2)
    pages = [(item.body, item.tld) for item in made]
    for locale, (_, encodings, tld) in LOCALES.items():
        for encoding in encodings:
            speed_page = page(locale, encoding, 3 * 55 * 1024, seed)
            if speed_page is not None:
                pages += [(speed_page.body[:size], tld) for size in (50 * 1024, 55 * 1024)]
    found: list[tuple[bytes, tuple[str | None, ...]]] = []
    for body, page_tld in pages:
        tlds = (None, page_tld, "com")
        found.append((body, tlds))
        found.append((body[: len(body) // 3], tlds))
        found.append((b"<script>" + b"x" * 40_000 + b"</script>" + body, tlds))  # examined from further in
    rng = random.Random(seed)
    for size in (1, 3, 10, 100, 500, 4096, 5000, 40_000, 70_000):
        for _ in range(8):
            found.append((rng.randbytes(size), TLDS))
    found.append((b"plain ASCII, " * 100, TLDS))
    found.append((b"\x1b$B$3$s$K$A$O\x1b(B", TLDS))  # ISO-2022-JP
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="HEAD", help="the git revision whose detection.py is the reference")
    parser.add_argument("--per-encoding", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    before = former(args.against)
    differences = compared = 0
    for body, tlds in bodies(args.per_encoding, args.seed):
        for tld in tlds:
            compared += 1
            old = (before.detect(body, tld), before.ranked(body, tld))
            new = (detection.detect(body, tld), detection.ranked(body, tld))
            if (old[0].encoding, old[0].confidence, old[1]) != (new[0].encoding, new[0].confidence, new[1]):
                differences += 1
                print(f"differs ({len(body)} bytes, tld {tld}): {args.against} {old}, now {new}")
    print(f"{compared} (body, TLD) pairs compared against {args.against}: {differences} differ")
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
