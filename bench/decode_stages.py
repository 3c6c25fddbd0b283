"""Benchmark: where ``decode(...).text`` spends its time on bench/decode.py's corpus, stage by stage.

    .venv/bin/python bench/decode_stages.py [--pages 400] [--seed 1] [--repeat 15]

The corpus is bench/decode.py's, split by how a page declares its encoding: UTF-8 in the
Content-Type header, UTF-8 in a ``<meta charset>``, UTF-8 declaring nothing, and legacy pages
(declared in a ``<meta>``; four of the nineteen are Faker's ASCII filler).  Each row times one stage of the decode path alone over every page of
a group, the rows taking turns --repeat times, best time each, printed in µs a page: the whole
``decode`` against ``bytes.decode`` first, then the steps the UTF-8 pages pass through, then the
legacy pages' decode and mojibake check.  A stage timed alone does not see the cache state it
meets inside ``decode`` (the first pass over a body reads it from memory), so the stages do not
add up to the whole.  The second table times them in place: ``decode(...).text`` with one stage's
work replaced by its answer on these pages (a lookup, or the constant it gives them all; the texts
and decisions are checked equal to the real ones), the row saying what the decode saves without it.

Faker's text has no typographic apostrophe and no NBSP, the bytes that make the mojibake check run
its regular expression on accented text; the last row times the check on the same pages with
"'" made "’" and ". " made ".\\u00a0" (one in two), as French or German pages are written.
"""

from __future__ import annotations

import argparse
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from decode import build_corpus  # bench/decode.py

from consumer.decoding import decode
from consumer.decoding.codecs import decode_strict
from consumer.decoding.codecs.utf8 import is_valid
from consumer.decoding.late_meta import late_meta_labels
from consumer.decoding.mime_sniff import non_text_type
from consumer.decoding.mojibake import looks_double_encoded, utf8_looks_double_encoded
from consumer.decoding.prescan import may_declare_a_charset, prescan_meta
from consumer.decoding.resolve import undisputed_utf8
from consumer.decoding.response import BOMS_AND_XML_STARTS, content_type_facts, declared_by

Page = tuple[bytes, str, str]  # body, Content-Type, text
GROUPS = ("header", "meta", "none", "legacy")


def groups(corpus: list[tuple[bytes, str | None, str]]) -> dict[str, list[Page]]:
    """The corpus's pages by how they declare their encoding."""
    out: dict[str, list[Page]] = {name: [] for name in GROUPS}
    for body, content_type, text in corpus:
        assert content_type is not None  # bench/decode.py gives every page one
        meta = prescan_meta(body)
        if meta not in (None, "UTF-8"):
            out["legacy"].append((body, content_type, text))
        elif "charset" in content_type:
            out["header"].append((body, content_type, text))
        elif meta is not None:
            out["meta"].append((body, content_type, text))
        else:
            out["none"].append((body, content_type, text))
    return out


def _strict_utf8(body: bytes) -> str | None:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _typographic(body: bytes) -> bytes:
    """*body* with the apostrophes and half the sentence ends of real Latin-script text."""
    text = body.decode("utf-8").replace("'", "\u2019")
    sentences = text.split(". ")
    return "".join(s + (".\u00a0" if i % 2 else ". ") for i, s in enumerate(sentences[:-1])).encode() + sentences[
        -1
    ].encode()


#: Stage name -> (groups it runs on, the stage on one page).
STAGES: dict[str, tuple[tuple[str, ...], Callable[[Page], object]]] = {
    'bytes.decode("utf-8", "replace")': (GROUPS, lambda p: p[0].decode("utf-8", "replace")),
    "decode(...).text": (GROUPS, lambda p: decode(p[0], p[1]).text),
    "decode(..., lazy_text=True)": (GROUPS, lambda p: decode(p[0], p[1], lazy_text=True)),
    "bytes.decode strict": (GROUPS[:3], lambda p: _strict_utf8(p[0])),
    "utf8.is_valid (lazy_text)": (GROUPS[:3], lambda p: is_valid(p[0])),
    "content_type_facts": (GROUPS, lambda p: content_type_facts(p[1])),
    "non_text_type": (GROUPS, lambda p: non_text_type(p[0], content_type_facts(p[1]).mime)),
    "BOM/XML startswith": (GROUPS, lambda p: p[0].startswith(BOMS_AND_XML_STARTS)),
    "prescan_meta": (GROUPS, lambda p: prescan_meta(p[0])),
    "may_declare_a_charset": (("header", "none"), lambda p: may_declare_a_charset(p[0])),
    "declared_by (cached)": (GROUPS[:3], lambda p: declared_by(None, "UTF-8", None, None)),
    "late_meta_labels": (("none",), lambda p: late_meta_labels(p[0])),
    "ESC search (ISO-2022-JP step)": (("none",), lambda p: b"\x1b" in p[0]),
    "utf8_looks_double_encoded": (GROUPS[:3], lambda p: not p[0].isascii() and utf8_looks_double_encoded(p[0])),
    "undisputed_utf8 (whole fast path)": (GROUPS[:3], lambda p: undisputed_utf8(p[0], content_type_facts(p[1]))),
    "legacy: decode_strict": (("legacy",), lambda p: decode_strict(prescan_meta(p[0]) or "UTF-8", p[0])),
    "legacy: looks_double_encoded(text)": (("legacy",), lambda p: looks_double_encoded(p[2])),
}


def _in_place(by_group: dict[str, list[Page]], repeat: int) -> None:
    """The second table: what ``decode(...).text`` saves, per page, without each stage's work."""
    from consumer.decoding import attempt, resolve

    pages = [p for name in GROUPS[:3] for p in by_group[name]]
    metas = {id(p[0]): prescan_meta(p[0]) for p in pages}
    stubs: dict[str, tuple[object, str, object]] = {
        "the <meta> prescan": (resolve, "prescan_meta", lambda body: metas[id(body)]),
        "may_declare_a_charset": (resolve, "may_declare_a_charset", lambda body: False),
        "the late <meta> scan": (resolve, "late_meta_labels", lambda body: (None, None)),
        "the ISO-2022-JP step": (resolve, "_iso_2022_jp_escapes", lambda response, declaration: None),
        "the mojibake check": (attempt, "utf8_looks_double_encoded", lambda utf8: False),
    }
    expected = {name: [decode(b, ct) for b, ct, _ in by_group[name]] for name in GROUPS[:3]}
    best: dict[tuple[str, str], float] = {}
    for _ in range(repeat):
        for stub_name in ("nothing", *stubs):
            module, attribute, stub = stubs.get(stub_name, (None, "", None))
            real = getattr(module, attribute) if module is not None else None
            if module is not None:
                setattr(module, attribute, stub)
            try:
                for name in GROUPS[:3]:
                    group = by_group[name]
                    start = timeit.default_timer()
                    got = [decode(b, ct) for b, ct, _ in group]
                    seconds = timeit.default_timer() - start
                    assert got == expected[name], (stub_name, name)
                    key = (stub_name, name)
                    best[key] = min(best.get(key, float("inf")), seconds / len(group) * 1e6)
            finally:
                if module is not None:
                    setattr(module, attribute, real)
    print(f"\nin place, µs a page saved without the stage, best of {repeat}")
    print(f"{'decode(...) as it is':44}" + "".join(f"{best['nothing', name]:9.2f}" for name in GROUPS[:3]))
    for stub_name in stubs:
        saved = "".join(f"{best['nothing', name] - best[stub_name, name]:9.2f}" for name in GROUPS[:3])
        print(f"{'  without ' + stub_name:44}{saved}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    by_group = groups(build_corpus(args.pages, args.seed))
    typographic = {name: [(_typographic(b), ct, t) for b, ct, t in by_group[name]] for name in GROUPS[:3]}
    stages = dict(STAGES)
    stages["utf8_looks_double_encoded, typographic text"] = (
        GROUPS[:3],
        lambda p: not p[0].isascii() and utf8_looks_double_encoded(p[0]),
    )
    best: dict[tuple[str, str], float] = {}
    for _ in range(args.repeat):
        for stage, (names, fn) in stages.items():
            for name in names:
                pages = typographic[name] if stage.endswith("typographic text") else by_group[name]
                seconds = timeit.timeit(lambda pages=pages, fn=fn: [fn(p) for p in pages], number=1)
                key = (stage, name)
                best[key] = min(best.get(key, float("inf")), seconds / len(pages) * 1e6)
    print(f"µs a page, best of {args.repeat}")
    print(f"{'stage':44}" + "".join(f"{name:>9}" for name in GROUPS))
    print(f"{'pages':44}" + "".join(f"{len(by_group[name]):9d}" for name in GROUPS))
    sizes = {name: sum(len(p[0]) for p in by_group[name]) / len(by_group[name]) / 1e3 for name in GROUPS}
    print(f"{'KB a page':44}" + "".join(f"{sizes[name]:9.1f}" for name in GROUPS))
    for stage in stages:
        cells = "".join(f"{best[stage, name]:9.2f}" if (stage, name) in best else f"{'':9}" for name in GROUPS)
        print(f"{stage:44}{cells}")
    _in_place(by_group, args.repeat)


if __name__ == "__main__":
    main()
