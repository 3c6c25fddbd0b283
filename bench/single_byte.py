"""Benchmark of the single-byte decoders and of the error paths: compiled against the reference, and encoding_rs.

    .venv/bin/python bench/single_byte.py [--kb 55] [--repeat 20] [--error-mib 16] [--no-yardstick]

Table 1, every single-byte encoding on a realistic page (HTML markup around Faker prose in a
locale of the encoding's script, --kb KB, mostly ASCII as crawled pages are; characters the
encoding lacks dropped): MB/s of input, best of --repeat, of ``decode_bytes`` (the compiled
decoder when built), of the reference (``codecs.charmap_decode`` over the same table, what runs
without a compiler) measured in the same run, and of encoding_rs (bench/encoding_rs_yardstick,
the faster of its UTF-16 and UTF-8 outputs), with the ratios.

Table 2, the error paths at --error-mib MiB: a single-byte body full of unmapped bytes under a
declared charset (windows-1253's 0xAA, ISO-8859-8's 0xFF, with ASCII between), and UTF-16 full of
lone surrogates: seconds and MB/s of ``decode_bytes`` against the reference (Python's codec with
an error handler per bad byte) and encoding_rs's rate on the same bytes.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from consumer.decoding.codecs import decode_bytes, single_byte, utf16


def _codecs_bench() -> ModuleType:
    """bench/codecs.py (its yardstick helpers), by path: its name is the standard library's."""
    spec = importlib.util.spec_from_file_location("bench_codecs", Path(__file__).with_name("codecs.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_BENCH = _codecs_bench()
best_seconds, build_yardstick, measure_encoding_rs = (
    _BENCH.best_seconds, _BENCH.build_yardstick, _BENCH.measure_encoding_rs)
DEFAULT_TARGET = _BENCH.DEFAULT_TARGET

# The script of each encoding, as a Faker locale; Latin encodings default to French/Polish-like prose.
LOCALES = {
    "IBM866": "ru_RU", "ISO-8859-2": "pl_PL", "ISO-8859-3": "it_IT", "ISO-8859-4": "lt_LT",
    "ISO-8859-5": "ru_RU", "ISO-8859-6": "ar_AA", "ISO-8859-7": "el_GR", "ISO-8859-8": "he_IL",
    "ISO-8859-8-I": "he_IL", "ISO-8859-10": "da_DK", "ISO-8859-13": "lt_LT", "ISO-8859-14": "ga_IE",
    "ISO-8859-15": "fr_FR", "ISO-8859-16": "ro_RO", "KOI8-R": "ru_RU", "KOI8-U": "uk_UA",
    "macintosh": "fr_FR", "windows-874": "th_TH", "windows-1250": "cs_CZ", "windows-1251": "ru_RU",
    "windows-1252": "fr_FR", "windows-1253": "el_GR", "windows-1254": "tr_TR", "windows-1255": "he_IL",
    "windows-1256": "ar_AA", "windows-1257": "lv_LV", "windows-1258": "vi_VN", "x-mac-cyrillic": "ru_RU",
    "x-user-defined": "en_US",
}


def page(encoding: str, kilobytes: int) -> bytes:
    """Faker prose in HTML, encoded by the standard's table (characters it lacks dropped)."""
    from faker import Faker

    fake = Faker(LOCALES[encoding])
    fake.seed_instance(1)
    table = single_byte.TABLES[encoding]
    encode = {char: byte for byte, char in enumerate(table) if char != "\ufffe"}
    out = bytearray()
    while len(out) < kilobytes * 1024:
        paragraph = f"{fake.paragraph(nb_sentences=4)} {fake.name()} {fake.address()} {fake.company()}"
        html = f'<p class="text">{paragraph}</p>\n'
        out += bytes(encode[c] for c in html if c in encode)
    return bytes(out)


def reference(encoding: str, data: bytes) -> tuple[str, int]:
    return single_byte.reference_decode(single_byte.TABLES[encoding], data)


def speed_table(args: argparse.Namespace, program: Path | None) -> None:
    samples = {encoding: page(encoding, args.kb) for encoding in single_byte.TABLES}
    rust = measure_encoding_rs(program, samples, args.repeat) if program else {}
    print(f"Table 1: MB/s of input, {args.kb} KB pages, best of {args.repeat}; "
          f"compiled: {single_byte.COMPILED}")
    print(f"{'encoding':15} {'non-ASCII':>9} {'ours':>7} {'ref':>7} {'rs':>7}  {'ours/ref':>8} {'ours/rs':>8}")
    worst = float("inf")
    for encoding, data in samples.items():
        assert decode_bytes(encoding, data) == reference(encoding, data)
        mb = len(data) / 1e6
        ours = mb / best_seconds(lambda: decode_bytes(encoding, data), args.repeat)
        ref = mb / best_seconds(lambda: reference(encoding, data), args.repeat)
        rs = max(rust.get(encoding, (float("nan"), float("nan"))))
        share = sum(b >= 0x80 for b in data) / len(data)
        worst = min(worst, ours / rs) if rust else worst
        print(f"{encoding:15} {share:9.1%} {ours:7.0f} {ref:7.0f} {rs:7.0f}  {ours / ref:7.2f}x {ours / rs:7.2f}x")
    if rust:
        print(f"lowest ours/encoding_rs: {worst:.2f}x (wanted >= 0.5x)")


def error_bodies(mib: int) -> dict[str, tuple[str, bytes]]:
    size = mib << 20
    lone = b"".join(unit.to_bytes(2, "little") for unit in (0xD800, 0x0041, 0xDC00, 0xDBFF))
    return {
        "windows-1253 0xAA": ("windows-1253", (b"\xaa" * 3 + b"a")[:4] * (size // 4)),
        "ISO-8859-8 0xFF": ("ISO-8859-8", b"\xff" * size),
        "UTF-16LE lone": ("UTF-16LE", lone * (size // len(lone))),
    }


def error_table(args: argparse.Namespace, program: Path | None) -> None:
    bodies = error_bodies(args.error_mib)
    rust = measure_encoding_rs(program, {name.split()[0]: data for name, (_, data) in bodies.items()}, 3) if program else {}
    print(f"\nTable 2: error paths at {args.error_mib} MiB, best of 3; seconds and MB/s")
    print(f"{'body':20} {'ours s':>7} {'ref s':>7} {'ours':>7} {'ref':>7} {'rs':>7}  {'ours/ref':>8}")
    for name, (encoding, data) in bodies.items():
        if encoding == "UTF-16LE":
            baseline = lambda: utf16.reference_decode("utf-16-le", data)  # noqa: E731
        else:
            baseline = lambda: reference(encoding, data)  # noqa: E731
        assert decode_bytes(encoding, data) == baseline()
        ours = best_seconds(lambda: decode_bytes(encoding, data), 3)
        ref = best_seconds(baseline, 3)
        mb = len(data) / 1e6
        rs = max(rust.get(encoding, (float("nan"), float("nan"))))
        print(f"{name:20} {ours:7.3f} {ref:7.3f} {mb / ours:7.0f} {mb / ref:7.0f} {rs:7.0f}  {ref / ours:7.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=int, default=55)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--error-mib", type=int, default=16)
    parser.add_argument("--cargo-target-dir", type=Path, default=DEFAULT_TARGET)
    parser.add_argument("--no-yardstick", action="store_true")
    args = parser.parse_args()
    program = None if args.no_yardstick else build_yardstick(args.cargo_target_dir)
    speed_table(args, program)
    error_table(args, program)


if __name__ == "__main__":
    main()
