"""Micro-benchmark of ``consumer.decoding.codecs``: MB/s per codec family.

    .venv/bin/python bench/codecs.py [--kb 256] [--repeat 5]

For each family, a page-like text (HTML markup around Faker prose in a fitting
locale) is encoded with Python's codec, then decoded with ``decode_strict``
(the resolver's hot path), ``decode_bytes`` on the same valid bytes, and
``decode_bytes`` on the bytes with one damaged byte per KB (the lossy path).
Printed: MB/s (of input bytes, best of --repeat) and the ratio to
``bytes.decode("utf-8")`` of the same text's UTF-8 encoding, measured in this run.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from consumer.decoding.codecs import decode_bytes, decode_strict  # noqa: E402

# (family, WHATWG encoding, Python codec to make the bytes, Faker locale)
FAMILIES = [
    ("single-byte", "windows-1251", "cp1251", "ru_RU"),
    ("single-byte", "windows-1252", "cp1252", "fr_FR"),
    ("UTF-8", "UTF-8", "utf-8", "ja_JP"),
    ("UTF-16", "UTF-16LE", "utf-16-le", "ja_JP"),
    ("Shift_JIS", "Shift_JIS", "cp932", "ja_JP"),
    ("EUC-JP", "EUC-JP", "euc_jp", "ja_JP"),
    ("ISO-2022-JP", "ISO-2022-JP", "iso2022_jp", "ja_JP"),
    ("EUC-KR", "EUC-KR", "cp949", "ko_KR"),
    ("Big5", "Big5", "big5", "zh_TW"),
    ("gb18030", "GBK", "gbk", "zh_CN"),
    ("gb18030", "gb18030", "gb18030", "zh_CN"),
]


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'family':12} {'encoding':13} {'strict MB/s':>12} {'lossy MB/s':>11} {'damaged MB/s':>13} {'utf-8 MB/s':>11}  ratios to utf-8")
    for family, encoding, codec, locale in FAMILIES:
        text = page_text(locale, args.kb, codec)
        data = text.encode(codec)
        utf8 = text.encode("utf-8")
        broken = damaged(data)
        assert decode_strict(encoding, data) == text, encoding
        baseline = len(utf8) / best_seconds(lambda: utf8.decode("utf-8"), args.repeat) / 1e6
        strict = len(data) / best_seconds(lambda: decode_strict(encoding, data), args.repeat) / 1e6
        lossy = len(data) / best_seconds(lambda: decode_bytes(encoding, data), args.repeat) / 1e6
        worst = len(broken) / best_seconds(lambda: decode_bytes(encoding, broken), args.repeat) / 1e6
        print(
            f"{family:12} {encoding:13} {strict:12.1f} {lossy:11.1f} {worst:13.1f} {baseline:11.1f}"
            f"  {strict / baseline:.3f} {lossy / baseline:.3f} {worst / baseline:.3f}"
        )


if __name__ == "__main__":
    main()
