"""The compiled extensions do work linear in their input on worst-case bytes: counted in instructions.

The product's standard: any input is handled in time linear in its size (an attacker controls the
pages a crawler fetches).  The readable decoders' steps are counted in
tests/decoding/codecs/test_codecs_linear.py; here every entry point of the C extensions
in consumer/decoding/_native (prescan.c, mojibake.c, detection.c, multibyte.c, single_byte.c,
utf16.c, utf8.c, undisputed.c) runs on each worst-case input at n and 4n bytes under valgrind's
callgrind, which counts the instructions executed inside the C function alone
(instruction_count.py says how).

Why instructions, not seconds: a timed assertion fails when the machine is busy and passes when a
quadratic path is still small; the instructions a function executes on given bytes are the same on
a loaded machine as on an idle one, so the bound can be tight.  Two assertions per input:

* count(4n) <= 4 * count(n) * 1.25: linear work quadruples (the fixed cost of a call, a few hundred
  instructions, makes it slightly less); work that re-read the input after each error or each tag
  would multiply by 16;
* count(4n) <= K * 4n, with K per C function measured and given headroom below (``PER_BYTE``): the
  constant, documented, so that a change that makes every byte several times dearer shows too.

A quadratic loop planted in utf8.c or prescan.c (re-reading the input up to each error
or attribute) fails these at x16.  Three tests, the prescan's extension, the codecs' and the fast path's, each one
valgrind run over all its inputs, listing every input that fails.  Runs only where valgrind is (on
every development and CI machine of this project), and only for the extensions that were built.
"""

from __future__ import annotations

import functools
import importlib.util
import random
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from consumer.decoding.codecs import big5, euc_jp, euc_kr, gb18030, shift_jis
from consumer.decoding.response import content_type_facts
from tests.decoding.codecs.worst_case import escape_storms, worst_inputs
from tests.decoding.instruction_count import VALGRIND, Call, count_instructions

pytestmark = pytest.mark.skipif(VALGRIND is None, reason="valgrind is not installed: instructions cannot be counted")

SMALL = 16 * 1024
LARGE = 4 * SMALL
#: How much more than 4x the work at 4n may be: room for the allocator taking another path for a
#: larger str (measured: at most x4.04), far below the x16 of quadratic work.
SLACK = 1.25

Inputs = Callable[[int], dict[str, bytes]]


class Entry(NamedTuple):
    """A compiled entry point with some arguments: how to call it on *data*, the C functions counted
    (their symbols in the extension: ``nm`` lists them), its worst inputs."""

    name: str  #: the C function, PER_BYTE's key
    variant: str  #: the arguments besides the data, in the test's id
    module: str
    function: str
    symbols: tuple[str, ...]
    arguments: Callable[[bytes], tuple[object, ...]]
    inputs: Inputs

    @property
    def id(self) -> str:
        return f"{self.name}-{self.variant}" if self.variant else self.name


# -- worst-case inputs ----------------------------------------------------------------------------


def _repeat(unit: bytes, size: int) -> bytes:
    return unit * (size // len(unit))


def prescan_inputs(size: int) -> dict[str, bytes]:
    """Markup where the prescan's loop could go back over what it has read: constructs that run
    out of bytes, "<" runs, comments whose ">" is not after "--", attributes and values without
    end, quotes that pair across tags, <meta> tags that do not stop the loop or do not decide."""
    rng = random.Random(18)
    fragments = [b"<", b"<<", b">", b"/", b"=", b'"', b"'", b" ", b"\t", b"-", b"--", b"!", b"?", b"<!--", b"-->",
                 b"<!", b"</", b"<?", b"<meta", b"<meta ", b"<META/", b"<metax", b"</meta ", b"<p", b"<a ", b"x=",
                 b"charset=", b"=x", b"<meta charset=x>", b"<meta charset=bogus>", b'x="', b"x=''", b"\xff"]
    markup = b""
    while len(markup) < size:
        markup += rng.choice(fragments)
    return {
        "random bytes": rng.randbytes(size),
        "random markup": markup[:size],
        "'<' at every byte": b"<" * size,
        "'<m' at every other byte": _repeat(b"<m", size),
        "'<!--' repeated, never closed": _repeat(b"<!--", size),
        "a comment whose '>' never follows '--'": b"<!--" + _repeat(b"->", size),
        "'<a' repeated, no '>'": _repeat(b"<a", size),
        "attributes without end": b"<a" + _repeat(b" b=c", size),
        "attributes without values": b"<a" + _repeat(b" b", size),
        "'=' as attributes": b"<a" + _repeat(b" =", size),
        "'/' runs in a tag": b"<a" + b"/" * size,
        "spaces then '='": b"<a b" + b" " * size + b"=",
        "a quoted value never closed": b'<a b="' + b"x" * size,
        "a long quoted value": b'<a b="' + b"x" * size + b'">',
        "bogus markup '<!x>', '<?x>', '</ >'": _repeat(b"<!x><?x></ >", size),
        "end tags": _repeat(b"</a b=c>", size),
        "'<meta>' that does not stop the loop": _repeat(b"<meta>", size),
        "'<metax' near misses": _repeat(b"<metax ", size),
        "<meta charset> that fails": _repeat(b"<meta charset=nonsense>", size),
        "<meta http-equiv content> that fails": _repeat(
            b'<meta http-equiv="content-type" content="text/html; charset=bogus">', size),
        "<meta charset=\" quotes pairing across tags": _repeat(b'<meta charset="', size),
        "<meta> without end": b"<meta " + _repeat(b"a=b ", size),
    }  # fmt: skip


def utf8_inputs(size: int) -> dict[str, bytes]:
    rng = random.Random(18)
    return {
        "random bytes": rng.randbytes(size),
        "an error at every byte": b"\xff" * size,
        "ASCII, one invalid byte at the end": b"a" * (size - 1) + b"\xff",
        "ASCII, a sequence cut short at the end": b"a" * (size - 1) + b"\xe2",
        "2-, 3- and 4-byte sequences": _repeat("é€😀".encode(), size),
        "ASCII between 2-byte sequences": _repeat("aé".encode(), size),
        "leads then bad trails": _repeat(b"\xe0\x80", size),
        "lead then ASCII": _repeat(b"\xc3a", size),
        "4-byte prefixes cut short": _repeat(b"\xf0\x90\x80", size),
        "ESC at every other byte": _repeat(b"\x1ba", size),
    }


def single_byte_inputs(size: int) -> dict[str, bytes]:
    rng = random.Random(18)
    return {
        "random bytes": rng.randbytes(size),
        "an unmapped byte at every position": b"\x81" * size,  # windows-1252's 0x81 has no code point
        "high bytes only": b"\xe9" * size,
        "ASCII between high bytes": _repeat(b"a\xe9", size),
        "ASCII, one high byte at the end": b"a" * (size - 1) + b"\xe9",
        "ASCII, one unmapped byte at the end": b"a" * (size - 1) + b"\x81",
    }


def utf16_inputs(size: int) -> dict[str, bytes]:
    """UTF-16LE units (read big-endian too: byte-swapped, the same bytes are other worst cases)."""
    rng = random.Random(18)
    units = size // 2
    return {
        "random bytes": rng.randbytes(size),
        "BMP text": _repeat("中文é".encode("utf-16-le"), size),
        "Latin-1 units": _repeat("é".encode("utf-16-le"), size),
        "ASCII, a lone surrogate at the end": b"a\x00" * (units - 1) + b"\x00\xd8",
        "a lead surrogate at every unit": b"\x00\xd8" * units,
        "a trail surrogate at every unit": b"\x00\xdc" * units,
        "surrogate pairs": _repeat("😀".encode("utf-16-le"), size),
        "a lead then a non-trail": _repeat(b"\x00\xd8a\x00", size),
        "an odd byte at the end after a lead": b"a\x00" * (units - 1) + b"\x00\xd8" + b"x",
    }


def mojibake_inputs(size: int) -> dict[str, bytes]:
    """Where the scan stops at every C3 and reads on: accented letters, sequences that fail late or
    match without counting (a strong one counts and two end the scan, so none of those)."""
    rng = random.Random(18)
    return {
        "random bytes": rng.randbytes(size),
        "ASCII": b"a" * size,
        "C3 at every byte": b"\xc3" * size,
        "accented letters only": _repeat("é".encode(), size),
        "accented letters before NBSP": _repeat("é\u00a0".encode(), size),
        "a three-byte lead, one continuation, then ASCII": _repeat("à€x".encode(), size),
        "a four-byte lead, two continuations, then ASCII": _repeat("ðŸ˜x".encode(), size),
        "weak sequences (word-final punctuation)": _repeat("Ã”".encode(), size),
        "sequences that are not UTF-8 (a surrogate)": _repeat("í\xa0€".encode(), size),
        "C3 then a continuation's first byte cut short": _repeat(b"\xc3\xa9\xe2\x80", size),
    }


def lead_inputs(size: int) -> dict[str, bytes]:
    """Read as Latin-1 (a character a byte): texts with a lead character (U+00C2-U+00F4) at every or every other
    character and no continuation after any, where may_hold_a_sequence checks each lead and never stops."""
    return {
        "ASCII": b"a" * size,
        "leads only": b"\xc3" * size,
        "a lead then ASCII": _repeat(b"\xe9a", size),
        "a lead then a character just past the continuations": _repeat(b"\xe9\xc0", size),
    }


#: A first character that makes a text UCS-2 or UCS-4 (neither is a lead nor a continuation).
_KIND_PREFIX = {"ucs1": "", "ucs2": "\u0100", "ucs4": "\U0001f600"}


def detection_inputs(size: int) -> dict[str, bytes]:
    """Bytes for detection's counting loops: text-like mixtures, where no eight-byte word is ASCII,
    and near misses of gb18030's four-byte shape (a lead and a digit, then no second pair)."""
    rng = random.Random(18)
    return {
        "random bytes": rng.randbytes(size),
        "ASCII": b"a" * size,
        "ASCII, one high byte at the end": b"a" * (size - 1) + b"\xe9",
        "high bytes only": b"\xe9" * size,
        "an ASCII letter between high bytes": _repeat(b"a\xe9", size),
        "Cyrillic words between ASCII": _repeat("привет, world ".encode("cp1251"), size),
        "a lead and a digit, then ASCII": _repeat(b"\x811a", size),
        "a lead and a digit, then a lead and a letter": _repeat(b"\x811\x81a", size),
    }


def agreement_inputs(size: int) -> dict[str, bytes]:
    """``detection_inputs`` and CJK text: windows every candidate's agreement tables read through, one of them
    decoded by the standard's compiled decoder, and one with a cell a codec reads otherwise (the codec asked)."""
    return {
        **detection_inputs(size),
        "Big5 text": _repeat("中文網頁的內容，繁體字。".encode("big5"), size),
        "Shift_JIS text": _repeat("日本語のテキスト、abc".encode("shift_jis"), size),
        "Shift_JIS text, then 0xA0": _repeat("日本語のテキスト".encode("shift_jis"), size - 1) + b"\xa0",
    }


def score_inputs(size: int) -> dict[str, bytes]:
    """Scores for softmax_weights, minus each byte: all far below the best (none listed), all at it (all
    listed), and between."""
    rng = random.Random(18)
    return {"far below": b"\xff" * size, "at the best": bytes(size), "random": rng.randbytes(size)}


# Text each CJK decoder reads without an error (Python's codecs agree with the standard on it), and
# a supplementary code point, which makes Big5 and gb18030 decode again from the start into UCS-4.
_TEXT = {"shift_jis": ("日本語のテキスト、abc", "shift_jis"), "euc_jp": ("日本語のテキスト、abc", "euc_jp"),
         "iso_2022_jp": ("日本語のテキスト、abc", "iso2022_jp"), "euc_kr": ("한국어 텍스트", "euc_kr"),
         "big5": ("中文繁體字", "big5"), "gb18030": ("中文简体字", "gb18030")}
_SUPPLEMENTARY = {"big5": b"\x87\x45", "gb18030": "😀".encode("gb18030")}  # Big5's pointer 947 is U+27267


def fast_path_inputs(size: int) -> dict[str, bytes]:
    """For the fast path, which calls the prescan, the late <meta> scan, the decode and the mojibake check on one
    body: each one's worst markup or bytes (the late scan reads up to 64 KiB, LARGE)."""
    return {f"{area}: {name}": data
            for area, inputs in (("prescan", prescan_inputs), ("utf8", utf8_inputs), ("mojibake", mojibake_inputs))
            for name, data in inputs(size).items()}  # fmt: skip


def cjk_inputs(decoder: str, worst: Inputs) -> Inputs:
    """*worst* (worst_case.py's errors), and valid text: fatal mode reads it all, the errors stop it early."""
    text, codec = _TEXT[decoder]

    def inputs(size: int) -> dict[str, bytes]:
        valid = _repeat(text.encode(codec), size)
        found = {**worst(size), "valid text": valid, "valid text, an error at the end": valid + b"\xff"}
        if decoder in _SUPPLEMENTARY:
            found["valid text, a supplementary code point at the end"] = valid + _SUPPLEMENTARY[decoder]
        return found

    return inputs


# -- the entry points ---------------------------------------------------------------------------------

#: Instructions a byte at most, at 4n and on the worst input (the fixed cost of a call included), per
#: C function: twice what it measures on x86-64 with gcc 12 -O3 and Python 3.11, in the comment.  The
#: headroom is for another compiler or Python (instruction counts move by tens of percent between
#: them); the bound still fails on a path that loses its fast loop (is_valid's SSSE3 check measures
#: 2.7 a byte, the scalar loop 17) or does a second pass nobody meant.
PER_BYTE = {
    "find_meta": 75,  # 10.2 with AVX2 ("<m" at every other byte); 37.0 without SSE2 ("<" at every byte, a memchr each)
    "find_meta_sse2": 75,  # 11.0 ("<m" at every other byte)
    "next_meta": 70,  # 34.0: attributes without values, "get an attribute" on every other byte
    "tag_end": 70,  # 34.0: the same
    "prescan_loop": 75,  # 37.3: failing <meta charset=...>, two calls (next_meta, tag_end) of 23 bytes
    "mojibake_scan": 65,  # 33.3 with SSE2 alone: "é" + NBSP repeated, a candidate every 4 bytes, matched and rejected
    "mojibake_scan_sse2": 65,  # the same loop, never the AVX2 one
    "may_hold_a_sequence": 40,  # 19.9: a UCS-2 text of leads only, each one's follower checked alone
    "utf8_count": 50,  # 24.8: a table step a byte, every byte high (more_sequences' loop, never stopping)
    "utf8_more_sequences": 55,  # 26.1: valid sequences to the end, the lead pairs counted first
    "utf8_is_valid": 6,  # 2.7: 16 bytes a step with SSSE3
    "utf8_is_valid_scalar": 35,  # 17.0: ASCII between 2-byte sequences, no 8-byte ASCII step
    "utf8_validity": 6,  # is_valid's pass and an ESC test a step
    "utf8_validity_scalar": 35,  # is_valid_scalar's loop and an ESC test a byte or a word
    "utf16_bmp": 5,  # 2.1: BMP text, a scan and a memcpy
    "utf16_errors": 60,  # 30.0: a trail surrogate at every unit, measured then written
    "single_byte": 40,  # 18.0: high bytes, Latin-1 output, scanned then written
    "shift_jis": 70,  # 32.5: a lead then an ASCII trail, read again
    "euc_jp": 70,  # 34.5: the same
    "euc_kr": 70,  # 31.5: the same
    "big5": 70,  # 34.5: the same (32.0: text decoded again into UCS-4 for a supplementary code point at the end)
    "gb18030": 90,  # 43.5: four-byte sequences with a bad fourth byte: the first dropped, three read again
    "iso_2022_jp": 125,  # 62.5: ESC $ prepended back, each byte read up to three times
    "high_byte_counts": 7,  # 3.2: random bytes, a count a byte
    "squeeze": 36,  # 17.6: Cyrillic words between ASCII, every run of ASCII cut and copied
    "text_likelihood": 85,  # 42.3: every character high, counted, then summed from the memo (Latin-1 as Russian)
    "non_ascii_capitals": 60,  # 30.0: every character Cyrillic (cp1251), in range and looked up (Py_UNICODE_ISUPPER)
    "latin_after_non_ascii": 26,  # 13.0: every character high (a UCS-2 str), its neighbour tested
    "high_runs": 9,  # 4.3: a high byte every other, each a run start cleared from its word
    "high_bytes": 15,  # 7.2: every byte of a word holding a high one counted, a "seen" test each
    "high_byte_count": 3,  # 1.25: eight bytes a step
    "first_high_byte": 2,  # 0.88: eight bytes a step to the first high one
    "four_byte_gb18030": 30,  # 15.2: a lead and a digit every three bytes, every start tested
    "mixed_pairs": 17,  # 8.3: a byte at a time where words hold high bytes
    "pair_sum": 25,  # 12.2: high bytes only, a class and a weight looked up at every byte
    "best_dot_products": 2,  # 0.6 (random bytes: all 128 high bytes): bounded by the histogram, not the data
    "strict_decodes": 490,  # 245: ASCII, decoded by every multi-byte candidate's Python codec (6 of them)
    "agreed_decodes": 190,  # 92.5: 0xE9 pairs, read alike by four tables, then their compiled decoders (ASCII: 4.4)
    # 831: "<meta> without end" undeclared, the late <meta> scan (late_meta.py's regular expressions) over 64 KiB of
    # tags that never close; 21.5 the mojibake check on accented letters before NBSP; 3.4 lazy_text's validity check.
    "undisputed_utf8": 1700,
    "softmax_weights": 760,  # 381 a score (one a byte), every score listed: an int and a float each
}  # fmt: skip

NATIVE = "consumer.decoding._native."
PRESCAN, DETECTION, UTF8 = NATIVE + "prescan", NATIVE + "detection", NATIVE + "utf8"
UNDISPUTED = NATIVE + "undisputed"


def _whole(data: bytes) -> tuple[object, ...]:
    return (data, 0, len(data))


def _data(data: bytes) -> tuple[object, ...]:
    return (data,)


def _mode(fatal: bool) -> str:
    return "fatal" if fatal else "replacement"


def _single_byte_table(encoding: str) -> object:
    from consumer.decoding.codecs.single_byte import CODE_POINTS

    return CODE_POINTS[encoding]


def _mixing_classes() -> bytes:
    from consumer.decoding.detection import _MIXING_CLASSES

    return _MIXING_CLASSES["windows-1251"]


def _pair_tables() -> tuple[object, ...]:
    from consumer.decoding.detection import _PAIR_CLASSES, _PAIR_WEIGHTS

    return _PAIR_CLASSES["windows-1251"], _PAIR_WEIGHTS


def _multi_byte_decoders() -> tuple[object, ...]:
    from consumer.decoding.detection import _DECODER_CLASSES, _MULTI_BYTE

    return _DECODER_CLASSES[_MULTI_BYTE]


def _multi_byte_readers() -> tuple[object, ...]:
    from consumer.decoding.detection import _MULTI_BYTE, _READERS

    return _READERS[_MULTI_BYTE]


def _histogram_and_tables(data: bytes) -> tuple[object, ...]:
    from consumer.decoding.detection import _ALL_TABLES, _LANGUAGE_COUNTS
    from consumer.decoding.detection.reference import reference_high_bytes

    return (*reference_high_bytes(data), _ALL_TABLES, _LANGUAGE_COUNTS)


def _likelihood_of_russian(data: bytes) -> tuple[object, ...]:
    """text_likelihood's arguments for *data* read as Latin-1 (a character a byte, 128 distinct high
    ones), scored as Russian: most characters unseen, each looked up once, then from the memo."""
    from consumer.decoding.detection import _CHARACTER_LOGP, _UNSEEN, _memo

    return (data.decode("latin-1"), _CHARACTER_LOGP["ru"], _UNSEEN["ru"], _memo("ru"))


def _entries() -> list[Entry]:
    entries = [
        Entry("find_meta", "", PRESCAN, "find_meta", ("py_find_meta",), _whole, prescan_inputs),
        Entry("find_meta_sse2", "", PRESCAN, "find_meta_sse2", ("py_find_meta_sse2",), _whole, prescan_inputs),
        Entry("next_meta", "", PRESCAN, "next_meta", ("py_next_meta",), _whole, prescan_inputs),
        Entry("tag_end", "", PRESCAN, "tag_end", ("py_tag_end",), _whole, prescan_inputs),
        # The prescan's loop as prescan/compiled.py runs it, over a whole body (the product stops at 1024
        # bytes): find_meta, next_meta to each <meta>, tag_end past it, until the bytes run out.
        Entry("prescan_loop", "", "consumer.decoding.prescan.compiled", "_metas",
              ("py_find_meta", "py_next_meta", "py_tag_end"), lambda data: (data, len(data)), prescan_inputs),
        Entry("mojibake_scan", "", NATIVE + "mojibake", "strong_sequences", ("py_strong_sequences",),
              lambda data: (data, len(data)), mojibake_inputs),
        Entry("mojibake_scan_sse2", "", NATIVE + "mojibake", "strong_sequences_sse2", ("py_strong_sequences_sse2",),
              lambda data: (data, len(data)), mojibake_inputs),
        *(Entry("may_hold_a_sequence", kind, NATIVE + "mojibake", "may_hold_a_sequence", ("py_may_hold_a_sequence",),
                lambda data, p=prefix: (p + data.decode("latin-1"), len(data) + len(p)), lead_inputs)
          for kind, prefix in _KIND_PREFIX.items()),
        Entry("utf8_count", "", UTF8, "count", ("py_count",), _data, utf8_inputs),
        Entry("utf8_more_sequences", "", UTF8, "more_sequences_than_errors", ("py_more_sequences",),
              _data, utf8_inputs),
        Entry("utf8_is_valid", "", UTF8, "is_valid", ("is_valid",), _data, utf8_inputs),
        Entry("utf8_is_valid_scalar", "", UTF8, "is_valid_scalar", ("is_valid_scalar",), _data,
              utf8_inputs),
        Entry("utf8_validity", "", UTF8, "validity", ("validity",), _data, utf8_inputs),
        Entry("utf8_validity_scalar", "", UTF8, "validity_scalar", ("validity_scalar_py",),
              _data, utf8_inputs),
    ]  # fmt: skip
    for big_endian in (False, True):
        entries.append(Entry("utf16_bmp", "be" if big_endian else "le", NATIVE + "utf16", "decode_bmp", ("py_decode_bmp",),
                             lambda data, b=big_endian: (data, b), utf16_inputs))  # fmt: skip
    for big_endian, fatal in ((False, False), (False, True), (True, False)):
        entries.append(Entry("utf16_errors", f"{'be' if big_endian else 'le'}-{_mode(fatal)}",
                             NATIVE + "utf16", "decode", ("py_decode",),
                             lambda data, b=big_endian, f=fatal: (data, b, f), utf16_inputs))  # fmt: skip
    # windows-1252: Latin-1 text and five unmapped bytes; windows-1251: UCS-2 text; x-user-defined: U+F780...
    for encoding in ("windows-1252", "windows-1251", "x-user-defined"):
        for fatal in (False, True):
            entries.append(Entry("single_byte", f"{encoding}-{_mode(fatal)}", NATIVE + "single_byte", "decode",
                                 ("decode",), lambda data, e=encoding, f=fatal: (_single_byte_table(e), data, f),
                                 single_byte_inputs))  # fmt: skip
    # Detection's loops. best_dot_products reads a histogram, at most 128 distinct bytes whatever the data's
    # length: counted so that a loop over more shows; softmax_weights reads one score a byte.
    entries += [
        Entry("high_bytes", "", DETECTION, "high_bytes", ("py_high_bytes",), _data, detection_inputs),
        Entry("high_byte_counts", "", DETECTION, "high_byte_counts", ("py_high_byte_counts",), _data,
              detection_inputs),
        Entry("squeeze", "", DETECTION, "squeeze", ("py_squeeze",), _data, detection_inputs),
        Entry("text_likelihood", "ru", DETECTION, "text_likelihood", ("py_text_likelihood",), _likelihood_of_russian,
              detection_inputs),
        Entry("non_ascii_capitals", "", DETECTION, "non_ascii_capitals", ("py_non_ascii_capitals",),
              lambda data: (data.decode("cp1251", "replace"),), detection_inputs),
        Entry("latin_after_non_ascii", "", DETECTION, "latin_after_non_ascii", ("py_latin_after_non_ascii",),
              lambda data: (data.decode("cp1251", "replace"),), detection_inputs),
        Entry("high_runs", "", DETECTION, "high_runs", ("py_high_runs",), _data, detection_inputs),
        Entry("high_byte_count", "", DETECTION, "high_byte_count", ("py_high_byte_count",), _data, detection_inputs),
        Entry("first_high_byte", "", DETECTION, "first_high_byte", ("py_first_high_byte",), _data, detection_inputs),
        Entry("four_byte_gb18030", "", DETECTION, "four_byte_gb18030", ("py_four_byte_gb18030",), _data,
              detection_inputs),
        Entry("mixed_pairs", "windows-1251", DETECTION, "mixed_pairs", ("py_mixed_pairs",),
              lambda data: (data, _mixing_classes()), detection_inputs),
        Entry("pair_sum", "windows-1251", DETECTION, "pair_sum", ("py_pair_sum",),
              lambda data: (data, *_pair_tables()), detection_inputs),
        Entry("best_dot_products", "", DETECTION, "best_dot_products", ("py_best_dot_products",),
              _histogram_and_tables, detection_inputs),
        Entry("strict_decodes", "", DETECTION, "strict_decodes", ("py_strict_decodes",),
              lambda data: (data, _multi_byte_decoders()), detection_inputs),
        Entry("agreed_decodes", "", DETECTION, "agreed_decodes", ("py_agreed_decodes",),
              lambda data: (data, _multi_byte_decoders(), _multi_byte_readers()), agreement_inputs),
        Entry("softmax_weights", "", DETECTION, "softmax_weights", ("py_softmax_weights",),
              lambda data: ([-float(byte) for byte in data], 0.0), score_inputs),
    ]  # fmt: skip
    # The fast path (undisputed.c) with what it calls: the prescan, the late <meta> scan, the decode or the validity
    # check, the mojibake check, each through its Python object (counted: they run inside its C function).
    for content_type, lazy_text in ((None, False), ("text/html; charset=utf-8", True)):
        facts = (None, *content_type_facts(content_type)[1:])  # the MIME type (unpicklable) is not read
        entries.append(Entry("undisputed_utf8", "declared-lazy" if lazy_text else "undeclared", UNDISPUTED,
                             "undisputed_utf8", ("py_undisputed_utf8",),
                             lambda data, f=facts, lazy=lazy_text: (data, f, lazy), fast_path_inputs))  # fmt: skip
    cjk = {"shift_jis": shift_jis, "euc_jp": euc_jp, "euc_kr": euc_kr, "big5": big5, "gb18030": gb18030}
    for decoder in (*cjk, "iso_2022_jp"):
        worst: Inputs = escape_storms if decoder == "iso_2022_jp" else functools.partial(worst_inputs, cjk[decoder])
        for fatal in (False, True):
            entries.append(Entry(decoder, _mode(fatal), NATIVE + "multibyte", decoder, (f"py_{decoder}",),
                                 lambda data, f=fatal: (data, f), cjk_inputs(decoder, worst)))  # fmt: skip
    return entries


ENTRIES = _entries()


def _extension(entry: Entry) -> str:
    """The compiled module *entry* runs (the prescan's loop runs _native.prescan's functions)."""
    return PRESCAN if entry.function == "_metas" else entry.module


def _failures(entries: list[Entry], workdir: Path) -> list[str]:
    """Each input of *entries* on which work grows faster than the input, or costs more a byte than
    PER_BYTE allows: a line saying so, with the counts."""
    keys, calls = [], []
    for entry in entries:
        for size in (SMALL, LARGE):
            for name, data in entry.inputs(size).items():
                keys.append((entry, name, size, len(data)))
                calls.append(Call(entry.module, entry.function, entry.arguments(data)))
    counts = count_instructions(calls, sorted({symbol for entry in entries for symbol in entry.symbols}), workdir)
    measured = {(entry.id, name, size): (count, length)
                for (entry, name, size, length), count in zip(keys, counts, strict=True)}  # fmt: skip
    failures = []
    for entry, name, size, _ in keys:
        if size != SMALL:
            continue
        (at_n, _), (at_4n, length) = measured[entry.id, name, SMALL], measured[entry.id, name, LARGE]
        case = f"{entry.id} on {name!r}: {at_n} instructions at n, {at_4n} at 4n ({at_4n / length:.1f} a byte)"
        if at_n == 0:
            failures.append(f"{case}: nothing counted; is {entry.symbols} still the C function's symbol (nm)?")
        elif at_4n > 4 * at_n * SLACK:
            failures.append(f"{case}: x{at_4n / at_n:.2f}, more than x{4 * SLACK}")
        elif at_4n > PER_BYTE[entry.name] * length:
            failures.append(f"{case}: more than {PER_BYTE[entry.name]} a byte")
    return failures


#: One valgrind run a test.  Not one test an input: their shared run would be a module-scoped
#: fixture, set up again on every xdist worker given a share of them (pytest 9.2 with xdist 3.8
#: ignores xdist_group, pytest-xdist#1386); so each test checks all its inputs and lists every failure.
#: The fast path has its own run: it calls functions of the others, whose symbols, toggled in the same run,
#: would turn the count off inside it.
AREAS = {
    "prescan": [entry for entry in ENTRIES if _extension(entry) == PRESCAN],
    "codecs": [entry for entry in ENTRIES if _extension(entry) not in (PRESCAN, UNDISPUTED)],
    "fast path": [entry for entry in ENTRIES if _extension(entry) == UNDISPUTED],
}


@pytest.mark.parametrize("area", list(AREAS))
def test_compiled_work_grows_linearly_with_the_input(area: str, tmp_path: Path) -> None:
    built = [entry for entry in AREAS[area] if importlib.util.find_spec(_extension(entry)) is not None]
    missing = sorted({_extension(entry) for entry in AREAS[area]} - {_extension(entry) for entry in built})
    if not built:
        pytest.skip(f"not built (no C compiler): {', '.join(missing)}")
    failures = _failures(built, tmp_path)
    assert not failures, "\n".join(failures)
    if missing:
        pytest.skip(f"the others checked; not built: {', '.join(missing)}")


def test_every_entry_point_of_the_extensions_is_counted() -> None:
    """Each function of each built extension in consumer/decoding/_native has an entry above, so a new one
    cannot go uncounted (``configure`` only hands multibyte.c its tables, once)."""
    from consumer.decoding import _native

    counted = {(entry.module, entry.function) for entry in ENTRIES}
    for name in _native.compiled():
        module = _native.extension(name)
        functions = {function for function in dir(module) if not function.startswith("_")
                     and callable(getattr(module, function))} - {"configure"}  # fmt: skip
        assert functions, name
        assert {(NATIVE + name, function) for function in functions} <= counted, name
