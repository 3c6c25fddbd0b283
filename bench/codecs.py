"""Micro-benchmark of ``consumer.decoding.codecs``: MB/s per encoding against encoding_rs, and linearity.

    .venv/bin/python bench/codecs.py [--kb 1024] [--repeat 10] [--sizes 1,4,16] [--fallback]

Table 1, speed.  For each encoding, a page-like text (HTML markup around Faker
prose in a fitting locale, --kb KB) is encoded with Python's codec, then decoded
with ``decode_strict`` (the resolver's hot path), ``decode_bytes`` on the same
valid bytes, and ``decode_bytes`` on the bytes with one damaged byte per KB.
Printed: MB/s of input bytes, best of --repeat, and encoding_rs 0.8's MB/s on the
same bytes in the same run (Mozilla's implementation, in Firefox), measured by
bench/encoding_rs_yardstick (our Rust program; built here with ``cargo build
--release`` into --cargo-target-dir, outside the repository, when cargo is on the
PATH) decoding to UTF-16 (Firefox's path; a CJK Python str is UTF-16 too) and to
UTF-8 (``decode_without_bom_handling``, a Rust String), and the ratio of our
``decode_bytes`` to the faster of the two.  For UTF-8, encoding_rs's String
output is the input itself, validated and borrowed, no decode at all; the row
"UTF-8 is_valid" sets our equivalent against it: ``utf8.is_valid``, which the
processor runs to write a valid UTF-8 body as its own text.

Table 2, linearity.  For each CJK encoding, the per-MiB cost of ``decode_bytes``
at each of --sizes MiB on valid text (table 1's text repeated) and worst-case
bytes: random, an error at every position, a lead byte and an ASCII trail
alternating (each lead an error, each trail decoded afresh), and for
ISO-2022-JP escape storms (ESC $ B over and over, no text between: each an
error).  Linear time shows as a flat row.  With --fallback, the same table for
the Python path that runs where the compiled decoders were not built.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from consumer.decoding.codecs import (
    big5,
    decode_bytes,
    decode_strict,
    euc_jp,
    euc_kr,
    gb18030,
    iso_2022_jp,
    multibyte,
    shift_jis,
    utf8,
)

YARDSTICK = Path(__file__).resolve().parent / "encoding_rs_yardstick"
DEFAULT_TARGET = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "crawl-decoder" / "encoding_rs_yardstick"

# (WHATWG encoding, Python codec to make the bytes, Faker locale).  The single-byte encodings all
# run one code path (charmap_decode over the index); a few scripts of them are measured.
ENCODINGS = [
    ("windows-1252", "cp1252", "fr_FR"),
    ("windows-1251", "cp1251", "ru_RU"),
    ("windows-1250", "cp1250", "pl_PL"),
    ("ISO-8859-7", "iso8859_7", "el_GR"),
    ("windows-874", "cp874", "th_TH"),
    ("KOI8-R", "koi8_r", "ru_RU"),
    ("UTF-8", "utf-8", "ja_JP"),
    ("UTF-16LE", "utf-16-le", "ja_JP"),
    ("UTF-16BE", "utf-16-be", "zh_CN"),
    ("Shift_JIS", "cp932", "ja_JP"),
    ("EUC-JP", "euc_jp", "ja_JP"),
    ("ISO-2022-JP", "iso2022_jp", "ja_JP"),
    ("EUC-KR", "cp949", "ko_KR"),
    ("Big5", "big5", "zh_TW"),
    ("GBK", "gbk", "zh_CN"),
    ("gb18030", "gb18030", "zh_CN"),
]
CJK = ["Shift_JIS", "EUC-JP", "ISO-2022-JP", "EUC-KR", "Big5", "GBK", "gb18030"]
REFERENCES = {"Shift_JIS": shift_jis, "EUC-JP": euc_jp, "ISO-2022-JP": iso_2022_jp, "EUC-KR": euc_kr,
              "Big5": big5, "GBK": gb18030, "gb18030": gb18030}
# A lead byte of each encoding: followed by an ASCII byte, an error, and the ASCII decoded afresh.
LEADS = {"Shift_JIS": 0x81, "EUC-JP": 0xA4, "EUC-KR": 0xB0, "Big5": 0xA4, "GBK": 0x81, "gb18030": 0x81}


def page_text(locale: str, kilobytes: int, codec: str) -> str:
    from faker import Faker

    fake = Faker(locale)
    fake.seed_instance(1)
    parts: list[str] = []
    size = 0
    while size < kilobytes * 1024:
        # Names and addresses are in the local script even where prose is Latin lorem ipsum.
        paragraph = f"{fake.paragraph(nb_sentences=4)} {fake.name()} {fake.address()} {fake.company()}"
        parts.append(f'<p class="text">{paragraph}</p>\n')
        size += len(parts[-1].encode(codec, "ignore"))
    # Keep only what the codec can encode (Faker prose may hold rare characters).
    return "".join(parts).encode(codec, "ignore").decode(codec)


def best_seconds(function: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def damaged(data: bytes) -> bytes:
    out = bytearray(data)
    for position in range(512, len(out), 1024):
        out[position] = 0xFF
    return bytes(out)


def build_yardstick(target_dir: Path) -> Path | None:
    """The encoding_rs program, built (or found up to date) by cargo; None without cargo."""
    cargo = shutil.which("cargo")
    if cargo is None:
        print("(no cargo on the PATH: the encoding_rs columns are left out)")
        return None
    command = [cargo, "build", "--release", "--quiet", "--manifest-path", str(YARDSTICK / "Cargo.toml"),
               "--target-dir", str(target_dir)]
    try:
        subprocess.run(command, check=True)
    except subprocess.CalledProcessError as exc:
        print(f"(cargo build failed, exit {exc.returncode}: the encoding_rs columns are left out)")
        return None
    return target_dir / "release" / "encoding_rs_yardstick"


def measure_encoding_rs(program: Path, samples: dict[str, bytes], repeat: int) -> dict[str, tuple[float, float]]:
    """encoding -> (MB/s to UTF-16, MB/s to UTF-8), encoding_rs decoding *samples*' bytes."""
    with tempfile.TemporaryDirectory() as directory:
        arguments = [str(program), str(repeat)]
        for encoding, data in samples.items():
            path = Path(directory) / encoding
            path.write_bytes(data)
            arguments += [encoding, str(path)]
        output = subprocess.run(arguments, check=True, capture_output=True, text=True).stdout
    speeds = {}
    for line in output.splitlines():
        label, to_utf8, to_utf16 = line.split()
        speeds[label] = (float(to_utf16), float(to_utf8))
    return speeds


def speed_table(args: argparse.Namespace, samples: dict[str, tuple[str, bytes]]) -> None:
    program = None if args.no_yardstick else build_yardstick(args.cargo_target_dir)
    rust = measure_encoding_rs(program, {e: d for e, (_, d) in samples.items()}, args.repeat) if program else {}
    print(f"\nTable 1: MB/s of input, {args.kb} KB pages, best of {args.repeat}; "
          f"CJK decoders {'compiled' if multibyte.COMPILED else 'in Python (no C compiler at install)'}")
    print(f"{'encoding':13} {'strict':>8} {'lossy':>8} {'damaged':>8} {'rs utf16':>9} {'rs utf8':>8}  lossy/rs (faster)")
    rows = [(encoding, data) for encoding, (_, data) in samples.items()]
    if "UTF-8" in samples:
        rows.insert([e for e, _ in rows].index("UTF-8") + 1, ("UTF-8 is_valid", samples["UTF-8"][1]))
    below = []
    for encoding, data in rows:
        mb = len(data) / 1e6
        if encoding == "UTF-8 is_valid":
            strict = lossy = mb / best_seconds(lambda: utf8.is_valid(data), args.repeat)
            worst = float("nan")
            to_utf16, to_utf8 = float("nan"), rust.get("UTF-8", (0.0, float("nan")))[1]
            yardstick = to_utf8
        else:
            broken = damaged(data)
            strict = mb / best_seconds(lambda: decode_strict(encoding, data), args.repeat)
            lossy = mb / best_seconds(lambda: decode_bytes(encoding, data), args.repeat)
            worst = len(broken) / 1e6 / best_seconds(lambda: decode_bytes(encoding, broken), args.repeat)
            to_utf16, to_utf8 = rust.get(encoding, (float("nan"), float("nan")))
            # The UTF-8 row's String output is the borrowed input (no decode): its yardstick is UTF-16.
            yardstick = to_utf16 if encoding == "UTF-8" else max(to_utf16, to_utf8)
        ratio = lossy / yardstick if rust else float("nan")
        if ratio < 0.5:
            below.append(encoding)
        print(f"{encoding:13} {strict:8.0f} {lossy:8.0f} {worst:8.0f} {to_utf16:9.0f} {to_utf8:8.0f}  "
              f"{ratio:5.2f}x{'  < 0.5x' if ratio < 0.5 else ''}")
    if rust:
        print(f"below 0.5x encoding_rs: {', '.join(below) or 'none'}")


def worst_cases(encoding: str, size: int, valid: bytes) -> dict[str, bytes]:
    rng = random.Random(size)
    cases = {"valid text": (valid * (size // len(valid) + 1))[:size], "random bytes": rng.randbytes(size)}
    if encoding == "ISO-2022-JP":
        cases["error every byte"] = b"\x0e" * size  # SO: an error in every state
        cases["ESC $ B storm"] = (b"\x1b$B" * (size // 3 + 1))[:size]
    else:
        cases["error every byte"] = b"\xff" * size
        cases["lead, ASCII trail"] = bytes((LEADS[encoding], 0x20)) * (size // 2)
    return cases


def linearity_table(args: argparse.Namespace, samples: dict[str, tuple[str, bytes]], fallback: bool) -> None:
    sizes = [int(s) for s in args.sizes.split(",")]
    if fallback:
        decoders = {e: multibyte.decoders(e, compiled=False)[0] for e in CJK}
        title = "the readable decoders (what runs without a C compiler)"
    else:
        decoders = {e: (lambda data, e=e: decode_bytes(e, data)) for e in CJK}
        title = "decode_bytes, " + ("compiled" if multibyte.COMPILED else "Python: no C compiler at install")
    print(f"\nTable 2{'b' if fallback else ''}: ms per MiB at {', '.join(map(str, sizes))} MiB, {title}")
    print(f"{'encoding':12} {'input':18}" + "".join(f"{f'{s} MiB':>10}" for s in sizes) + f"{'last/first':>12}")
    for encoding in CJK:
        valid = samples[encoding][1]
        names = list(worst_cases(encoding, 1024, valid))
        for name in names:
            costs = []
            for mib in sizes:
                data = worst_cases(encoding, mib << 20, valid)[name]
                repeat = max(1, min(args.repeat, (3 if fallback else 8) // mib))
                costs.append(best_seconds(lambda: decoders[encoding](data), repeat) * 1000 / mib)
            print(f"{encoding:12} {name:18}" + "".join(f"{c:10.1f}" for c in costs) + f"{costs[-1] / costs[0]:11.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=int, default=1024, help="page size for table 1 (default about 1 MB)")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--sizes", default="1,4,16", help="MiB sizes for table 2")
    parser.add_argument("--cargo-target-dir", type=Path, default=DEFAULT_TARGET)
    parser.add_argument("--no-yardstick", action="store_true", help="skip encoding_rs")
    parser.add_argument("--fallback", action="store_true", help="also table 2 for the Python fallback (minutes)")
    parser.add_argument("--only", default="", help="comma-separated encodings for table 1 (default all)")
    args = parser.parse_args()
    chosen = [row for row in ENCODINGS if not args.only or row[0] in args.only.split(",") or row[0] in CJK]
    samples: dict[str, tuple[str, bytes]] = {}
    for encoding, codec, locale in chosen:
        text = page_text(locale, args.kb, codec)
        data = text.encode(codec)
        assert decode_strict(encoding, data) == text, encoding
        samples[encoding] = (text, data)
    speed_table(args, {e: s for e, s in samples.items() if not args.only or e in args.only.split(",")})
    linearity_table(args, samples, fallback=False)
    if args.fallback:
        linearity_table(args, samples, fallback=True)


if __name__ == "__main__":
    main()
