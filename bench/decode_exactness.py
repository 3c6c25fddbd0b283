"""Whether ``decode`` answers as a former revision's does, every field, on a large varied set of responses.

    .venv/bin/python bench/decode_exactness.py [--against main] [--quick]

A change made only for speed must not move a single answer.  This exports *REV* (``git archive``) to a temporary
folder, builds its extensions there (``pip wheel``, the .so files copied beside their sources), and runs itself in
a child process with that tree first on ``sys.path``, then in this one on the working tree: each decodes the same
generated responses with ``lazy_text`` off and on and writes every field of each ``Decoded`` (the text, ``utf8``,
``declared`` as a dict); the two lists are compared one by one.  Prints how many decodes were compared and every
difference (exits 1 on any).

The responses, all seeded:

* bench/decode.py's corpus (two seeds), each page with its Content-Type, with none, with ``text/html`` and under
  ``charset=utf-8``;
* tests/decoding/resolve_samples.py's prefixes (BOMs, XML declarations, an escape), heads and Content-Types around
  texts in several scripts, encoded in UTF-8 and in legacy encodings;
* a text in every encoding of the Encoding Standard that can write it (Faker's locales, bench/real_text.py's
  catalogues where the machine has them), at several lengths, declared in the header, in a ``<meta>``, by a false
  sibling label, or not at all, from a .com and a ccTLD URL;
* UTF-8, windows-1252 and Shift_JIS pages with C3, E2 80 99, the mojibake signature, ESC and ``ESC $ B``, a BOM,
  ``<meta`` tags, stray and NUL bytes inserted around the windows the decode reads (1 KiB, 4 KiB, 16 KiB, 64 KiB)
  and at random places;
* legacy texts with lead characters (U+00C2-U+00F4) and continuation characters put side by side around the
  mojibake check's 16 KiB window;
* random bodies weighted toward ASCII, the UTF-8 lead bytes and ESC;
* a few hosts under force and fallback overrides.
"""

from __future__ import annotations

import argparse
import functools
import pickle
import random
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"

Request = tuple[bytes, "str | None", "str | None", str]  # body, Content-Type, URL, overrides ("" or a name)


def _faker_texts() -> list[str]:
    from faker import Faker

    texts = []
    for index, locale in enumerate(
        ("fr_FR", "de_DE", "pl_PL", "cs_CZ", "ru_RU", "uk_UA", "el_GR", "tr_TR", "he_IL", "ar_AA", "lt_LT", "th_TH",
         "ja_JP", "ko_KR", "zh_CN", "zh_TW", "vi_VN", "hu_HU", "en_US", "pt_BR")
    ):  # fmt: skip
        fake = Faker(locale)
        fake.seed_instance(index)
        texts.append(" ".join(fake.paragraph(nb_sentences=12) for _ in range(40)))
    return texts


def _encoded(text: str, encoding: str) -> bytes | None:
    """*text* written in *encoding*, or None when it cannot be (through bench/real_text.py's writer)."""
    sys.path.insert(0, str(BENCH))
    import real_text

    if encoding == "UTF-8":
        return text.encode("utf-8")
    if encoding in ("UTF-16LE", "UTF-16BE"):
        return text.encode(encoding.lower())
    try:
        return real_text.encodable(text, encoding)
    except KeyError:  # an encoding real_text has no writer for
        return None


@functools.cache
def _writable_characters(text: str, encoding: str) -> str:
    """*text* without the characters *encoding* cannot write (each distinct character tried once)."""
    writable = {char for char in set(text) if _encoded(char, encoding) is not None}
    return "".join(char for char in text if char in writable)


def _writable(text: str, encoding: str) -> bytes | None:
    """*text* in *encoding*, else its characters *encoding* can write (at least 64), else None."""
    data = _encoded(text, encoding)
    if data is not None:
        return data
    kept = _writable_characters(text, encoding)
    return _encoded(kept, encoding) if len(kept) >= 64 else None


def _page(text: str, head: str = "") -> str:
    return f"<!DOCTYPE html><html><head>{head}<title>t</title></head><body><p>{text}</p></body></html>"


def requests(quick: bool) -> Iterator[Request]:
    """Every response decoded, in a fixed order."""
    rng = random.Random(37)
    sys.path.insert(0, str(BENCH))
    sys.path.insert(0, str(ROOT / "tests" / "decoding"))
    from decode import build_corpus  # bench/decode.py

    from consumer.decoding.codecs import SUPPORTED

    from resolve_samples import CONTENT_TYPES, HEADS, PREFIXES

    for seed in (1,) if quick else (1, 2):
        for body, content_type, _ in build_corpus(400 if seed == 1 else 200, seed):
            for served in (content_type, None, "text/html", "text/html; charset=utf-8"):
                yield body, served, None, ""

    texts = _faker_texts()
    samples = ["", "plain ASCII text", "Caf\u00e9 cr\u00e8me", "CafÃ© crÃ¨me br\u00c3\u00bbl\u00c3\u00a9e",
               "\u65e5\u672c\u8a9e\u306e\u6587\u7ae0", "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440",
               "it\u2019s \u00ab\u00a0l\u00e0\u00a0\u00bb", "\x1b$B$3$s$K$A$O\x1b(B", texts[0][:300]]  # fmt: skip
    for text in samples:
        for encoding in ("UTF-8", "windows-1252", "Shift_JIS", "windows-1251", "GBK"):
            for head in HEADS:
                encoded = _encoded(_page(text, head), encoding)
                if encoded is None:
                    continue
                for prefix in PREFIXES:
                    for content_type in CONTENT_TYPES:
                        yield prefix + encoded, content_type, None, ""

    lengths = (40, 700, 3000, 5000, 17000, 70000)
    for encoding in sorted(SUPPORTED - {"replacement"}):
        for text in texts:
            kept = _writable_characters(text, encoding)
            if len(kept) < 64:
                continue
            for length in lengths[:3] if quick else lengths:
                body_text = (kept * (1 + length // len(kept)))[:length]
                for where, head in (("header", ""), ("meta", f'<meta charset="{encoding}">'), ("none", "")):
                    data = _encoded(_page(body_text, head), encoding)
                    if data is None:
                        continue
                    content_type = f"text/html; charset={encoding}" if where == "header" else "text/html"
                    for url in ("https://www.example.com/", "https://www.example.ru/", "https://www.example.jp/"):
                        yield data, content_type, url, ""
                    yield data, "text/html; charset=windows-1252", None, ""
                    yield data, "text/html; charset=utf-8", None, ""
    yield from _real_text(quick)

    bases = [_page(texts[0] * 3).encode(), _page(texts[12] * 2).encode(), _page(texts[18] * 3).encode()]
    legacy_bases = [b for b in (_writable(_page(texts[0] * 3), "windows-1252"),
                                _writable(_page(texts[12] * 2), "Shift_JIS")) if b is not None]  # fmt: skip
    inserts = [b"\xc3", b"\xc3\xa9", b"\xe2\x80\x99", "Ã©â€™".encode(), "Ã©".encode(), b"\x1b", b"\x1b$B", b"\x1b(B",
               b"\xef\xbb\xbf", b"<meta charset=gbk>", b"<meta charset=utf-8>", b"<meta charset=no-such-label>",
               b"<META http-equiv=content-type content='text/html; charset=windows-1251'>", b"\x80", b"\xff",
               b"\x00", b"<m", b"<meta", b"\xe2\x80", b"\xf0\x9f\x98\x80"]  # fmt: skip
    boundaries = (0, 1, 1021, 1024, 1027, 4093, 4096, 4099, 16381, 16384, 16387, 65533, 65536, 65539)
    for base in bases + legacy_bases:
        for insert in inserts:
            spots = list(boundaries) + [rng.randrange(len(base)) for _ in range(2 if quick else 6)]
            for spot in spots:
                if spot > len(base):
                    continue
                body = base[:spot] + insert + base[spot:]
                for content_type in ("text/html", "text/html; charset=utf-8", "text/html; charset=windows-1252",
                                     "text/html; charset=shift_jis", None):  # fmt: skip
                    yield body, content_type, None, ""

    # Lead and continuation characters side by side around the mojibake check's window (16 KiB of UTF-8).
    for encoding in ("windows-1252", "ISO-8859-2", "windows-1250", "GBK", "gb18030", "EUC-JP", "windows-1254"):
        for pair in ("\u00c3\u00a9", "\u00c3\u2019", "\u00e2\u20ac\u2122", "\u00c2\u00a0", "\u00f0\u0178\u02dc\u20ac",
                     "\u00e9\u00bb", "\u00c3\u201d", "\u00c3x", "\u00c3\u00c3\u00a9", "\u00c3"):  # fmt: skip
            for filler in ("a", "\u00e9", "\u4e2d", "\u00e9a"):
                for at in (0, 5461, 8190, 8192, 16380, 16382, 16383, 16384, 16385, 16390):
                    text = (filler * 17000)[:at] + pair + (filler * 200)
                    data = _encoded(text, encoding)
                    if data is None:
                        continue
                    yield data, f"text/html; charset={encoding}", None, ""
                    yield data, "text/html", None, ""

    weights = [4] * 128 + [1] * 128
    for byte in (0xC3, 0xC2, 0xE2, 0x80, 0x99, 0x1B, 0xEF, 0xBB, 0xBF, ord("<"), ord("m"), ord("M")):
        weights[byte] += 30
    for _ in range(500 if quick else 3000):
        length = rng.choice((0, 1, 3, 10, 100, 1000, 4100, 17000))
        body = bytes(rng.choices(range(256), weights, k=length))
        yield body, rng.choice(("text/html", None, "text/html; charset=utf-8", "text/plain")), None, ""

    for body in bases[:2] + legacy_bases:
        for host in ("forced.example", "fallback.example", "other.example"):
            for content_type in ("text/html", "text/html; charset=utf-8", "text/html; charset=windows-1251"):
                yield body, content_type, f"https://{host}/", "overrides"


def _real_text(quick: bool) -> Iterator[Request]:
    """bench/real_text.py's segments (both halves) in their encoding and in UTF-8, under the seven ways
    bench/false_declared.py serves them."""
    import real_text
    from false_declared import served

    for encoding, (_, tld) in real_text.ENCODINGS.items():
        for which in ("tune",) if quick else ("tune", "test"):
            for length in real_text.LENGTHS:
                for _, text in real_text.segments(encoding, length, 1, which):
                    for _, body, content_type, url, _ in served(encoding, text, tld):
                        yield body, content_type, url, ""


def _overrides():  # -> OverrideTable
    import datetime as dt

    from consumer.decoding import Override, OverrideMode, OverrideTable

    review = dt.date(2100, 1, 1)
    return OverrideTable([
        Override("forced.example", "windows-1251", OverrideMode.FORCE, "test", review),
        Override("fallback.example", "Shift_JIS", OverrideMode.FALLBACK, "test", review),
    ])  # fmt: skip


def dump(path: Path, quick: bool) -> None:
    """Every request decoded both ways, each ``Decoded`` as a plain tuple, pickled to *path*."""
    from consumer.decoding import _native, decode

    print(f"decoding with {Path(_native.__file__).parent.parent.parent.parent}, "
          f"compiled: {', '.join(_native.compiled())}", file=sys.stderr)  # fmt: skip
    tables = {"": None, "overrides": _overrides()}
    rows = []
    for body, content_type, url, overrides in requests(quick):
        for lazy_text in (False, True):
            decoded = decode(body, content_type, url, tables[overrides], lazy_text=lazy_text)
            fields = list(decoded)
            fields[4] = dict(decoded.declared)
            rows.append((decoded.text, *fields))
    with open(path, "wb") as file:
        pickle.dump(rows, file)


def _build(revision: str, folder: Path) -> Path:
    """*revision*'s tree in *folder*/tree, its extensions built in place."""
    tree = folder / "tree"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    wheels = folder / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(tree)], check=True)
    with zipfile.ZipFile(next(wheels.glob("*.whl"))) as wheel:
        for name in wheel.namelist():
            if name.startswith("consumer/decoding/_native/") and name.endswith(".so"):
                with wheel.open(name) as source, open(tree / name, "wb") as target:
                    shutil.copyfileobj(source, target)
    return tree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="main", help="the git revision whose decode() is the reference")
    parser.add_argument("--quick", action="store_true", help="fewer responses: a first check in a minute")
    parser.add_argument("--dump", type=Path, help=argparse.SUPPRESS)  # the child's part: decode, write, exit
    parser.add_argument("--tree", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.dump is not None:
        if args.tree is not None:
            sys.path.insert(0, str(args.tree))
        else:
            sys.path.insert(0, str(ROOT))
        dump(args.dump, args.quick)
        return
    quick = ["--quick"] if args.quick else []
    with tempfile.TemporaryDirectory() as folder:
        before_tree = _build(args.against, Path(folder))
        before, now = Path(folder) / "before.pickle", Path(folder) / "now.pickle"
        for tree, out in ((before_tree, before), (None, now)):
            tree_args = ["--tree", str(tree)] if tree is not None else []
            subprocess.run([sys.executable, __file__, "--dump", str(out), *tree_args, *quick], check=True, cwd=folder)
        old, new = pickle.loads(before.read_bytes()), pickle.loads(now.read_bytes())
    differences = 0
    kinds: Counter[str] = Counter()  # which fields differ: a change of confidence alone is not one of text
    sys.path.insert(0, str(ROOT))
    from consumer.decoding.decoded import Decoded

    fields = ("text", *Decoded._fields)  # a dumped row: the text, then the Decoded's fields (built_text None if lazy)
    if len(old) != len(new):
        print(f"different numbers of decodes: {args.against} {len(old)}, now {len(new)}")
        differences += 1
    for index, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            differences += 1
            kinds[", ".join(name for name, x, y in zip(fields, a, b, strict=False) if x != y)] += 1
            if differences <= 20:
                print(f"decode {index} differs: {args.against} {str(a[1:])[:300]}, now {str(b[1:])[:300]}")
    print(f"{len(new)} decodes compared against {args.against} ({len(new) // 2} responses, lazy_text off and on): "
          f"{differences} differ")  # fmt: skip
    for kind, count in kinds.most_common():
        print(f"  {count:>7} differ in: {kind}")
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
