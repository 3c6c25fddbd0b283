"""Mojibake's compiled scan (_native/mojibake.c) answers as the regex (``reference_strong_sequences``).

Every lead character followed by every one or two candidate continuations, a sample of four-character
sequences, bytes weighted toward the telling ones, Latin text with and without mojibake, windows cut
at every byte around ``MAX_BYTES``: ``strong_sequences`` and ``utf8_looks_double_encoded`` give the
same answer (or raise the same error, on bytes that are not UTF-8) on both tiers.
"""

from __future__ import annotations

import itertools
import random
import shutil
import sysconfig
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding import mojibake
from consumer.decoding.mojibake import MAX_BYTES, reference_strong_sequences

try:
    from consumer.decoding._native.mojibake import strong_sequences as compiled
    from consumer.decoding._native.mojibake import strong_sequences_sse2 as compiled_sse2
except ImportError:  # built without a C compiler
    compiled = compiled_sse2 = None

pytestmark = pytest.mark.skipif(compiled is None, reason="_native.mojibake not built: the reference runs")

# Characters a lead may be (U+00C0-U+00FF, those the regex takes and those it leaves out), and every
# continuation candidate: U+0080-U+00BF and windows-1252's characters for 0x80-0x9F.
LEADS = [chr(code) for code in range(0xC0, 0x100)]
CONTINUATIONS = sorted(set(map(chr, range(0x80, 0xC0))) | set(mojibake._CP1252_80_9F))
# Characters next to a candidate that change its fate: ASCII, a lead, word-final punctuation,
# characters whose UTF-8 shares a first byte with a continuation's (Ł is C5 81, ˇ CB 87, ‰ is E2 80 B0).
NEIGHBOURS = ["", "a", " ", "Ã", "é", "\u00a0", "’", "»", "Ł", "ˇ", "⁄", "日", "😀"]


def test_the_product_runs_the_compiled_scan_where_it_was_built() -> None:
    assert mojibake.COMPILED
    assert mojibake.strong_sequences is compiled


def test_built_wherever_a_compiler_is() -> None:
    """The extension is optional (an install without a compiler still works), so a build that fails
    where a compiler exists would go unnoticed but for this test."""
    compiler = (sysconfig.get_config_var("CC") or "").split()
    if not compiler or shutil.which(compiler[0]) is None:
        pytest.skip("no C compiler here: the regex runs")
    assert mojibake.COMPILED


def both(data: bytes, end: int | None = None) -> tuple[tuple[int, int], tuple[int, int]]:
    """The compiled scan's answer and the regex's; the compiled one's without its AVX2 loop must be the same (on a
    processor without AVX2 the two are one loop)."""
    end = len(data) if end is None else end
    assert compiled is not None and compiled_sse2 is not None
    ours = compiled(data, end)
    assert compiled_sse2(data, end) == ours, (data.hex(), end)
    return ours, reference_strong_sequences(data, end)


def test_every_two_and_three_character_candidate() -> None:
    """Every lead (U+00C0-U+00FF) with every continuation, and with every pair of them: 535,808 sequences."""
    for lead in LEADS:
        for first in CONTINUATIONS:
            data = (lead + first).encode()
            ours, reference = both(data)
            assert ours == reference, data.hex()
            for second in CONTINUATIONS:
                data = (lead + first + second).encode()
                ours, reference = both(data)
                assert ours == reference, data.hex()


def test_four_character_candidates() -> None:
    rng = random.Random(30)
    for lead in LEADS:
        for _ in range(2000):
            data = (lead + "".join(rng.choices(CONTINUATIONS, k=3))).encode()
            ours, reference = both(data)
            assert ours == reference, data.hex()


def test_candidates_between_neighbours() -> None:
    rng = random.Random(31)
    sequences = ["Ã©", "â€™", "Ã\u00a0", "Ã”", "Ã…", "ðŸ˜€", "Ã¼", "Â©", "Ã\x81", "í\xa0€", "à€€", "ô\x90€€"]
    for before, sequence, after in itertools.product(NEIGHBOURS, sequences, NEIGHBOURS):
        for data in ((before + sequence + after).encode(), (before + sequence + after + sequence).encode()):
            for end in range(len(data) + 1):  # cut anywhere, inside a character too
                ours, reference = both(data, end)
                assert ours == reference, (data.hex(), end)
        rng.shuffle(sequences)


# Bytes of mojibake and of clean accented text: the C3 and C2 leads, E2 80 punctuation, trail bytes
# at the bounds the standard checks, the leads C5 C6 CB, invalid bytes.
TELLING = [0xC3, 0xC3, 0xC3, 0xC2, 0xC2, 0xE2, 0xE2, 0x80, 0x80, 0x99, 0x9D, 0xA9, 0xA0, 0x82, 0x8F, 0x90, 0x9F,
           0xAF, 0xB0, 0xB4, 0xBF, 0xC5, 0xC6, 0xCB, 0x92, 0x86, 0x84, 0xA2, 0xAC, 0x41, 0x20, 0xED, 0xF0, 0xFF]  # fmt: skip


def test_random_bytes_weighted_toward_the_telling_ones() -> None:
    rng = random.Random(32)
    for _ in range(100_000):
        data = bytes(rng.choice(TELLING) if rng.random() < 0.9 else rng.randrange(256)
                     for _ in range(rng.randrange(40)))  # fmt: skip
        ours, reference = both(data, rng.randint(0, len(data)))
        assert ours == reference, data.hex()


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=200))
def test_generated_bytes(data: bytes) -> None:
    ours, reference = both(data)
    assert ours == reference


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(LEADS + CONTINUATIONS + NEIGHBOURS[1:]), max_size=120))
def test_generated_text_of_candidate_characters(text: str) -> None:
    ours, reference = both(text.encode())
    assert ours == reference


@settings(max_examples=800, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(LEADS + CONTINUATIONS + NEIGHBOURS[1:]),
                          st.integers(min_value=1, max_value=140).map(lambda n: "x" * n)), max_size=40),
       st.data())
def test_candidates_apart_across_the_compiled_blocks(parts: list[str], draw: st.DataObject) -> None:
    """Candidate characters with ASCII runs between them, so that sequences start at every offset of
    the compiled scan's 16- and 32-byte blocks and 64- and 128-byte skips, and straddle their edges and the end."""
    data = "".join(parts).encode()
    ours, reference = both(data, draw.draw(st.integers(min_value=0, max_value=len(data))))
    assert ours == reference


# -- whole pages: utf8_looks_double_encoded on both tiers -------------------------------------------

LATIN = [
    "L’été dernier, à l’hôtel «\u00a0Le Château\u00a0», nous avons mangé des crêpes… – très bon\u00a0!",
    "Über die Brücke „gehen“ Mädchen – Straße für Straße, »Fuß« und »Maß«… größer.",
    "Não, a Conceição disse: “amanhã às três” – é difícil… AVÓ’S, IRMÃ”, AMANHÃ…",
    "¿Qué pasó con el niño? ¡Olé! Los años “dorados” – según él… mañana\u00a0€20.",
]


def outcome(check: Callable[[bytes], bool], data: bytes) -> object:
    """What *check* answers, or the type of the error it raises (bytes that are not UTF-8)."""
    try:
        return check(data)
    except (UnicodeDecodeError, IndexError) as error:
        return type(error)


def on_both_tiers(data: bytes) -> tuple[object, object]:
    answers = []
    for scan in (compiled, reference_strong_sequences):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(mojibake, "strong_sequences", scan)
            answers.append(outcome(mojibake.utf8_looks_double_encoded, data))
    return answers[0], answers[1]


def pages(rng: random.Random) -> Iterator[bytes]:
    """Latin pages clean, spoiled once, spoiled a few times, spoiled whole, and around the window."""
    for _ in range(300):
        text = " ".join(rng.choices(LATIN, k=rng.randrange(1, 30)))
        spoiled = text.encode().decode("cp1252", errors="replace")
        yield text.encode()
        yield spoiled.encode()
        at = rng.randrange(len(text))
        yield (text[:at] + spoiled[at : at + rng.randrange(1, 12)] + text[at:]).encode()
        # The window's end near a candidate: the page grown to MAX_BYTES +- a few bytes.
        filler = rng.choice(["x", "é", "日", " ’"])
        page = (filler * (MAX_BYTES // len(filler.encode())) + spoiled).encode()
        cut = MAX_BYTES + rng.randrange(-12, 12)
        yield page[cut - MAX_BYTES : cut + rng.randrange(0, 12)]


def test_latin_pages_clean_and_spoiled() -> None:
    for data in pages(random.Random(33)):
        ours, reference = on_both_tiers(data)
        assert ours == reference, data[:80]


def test_windows_ending_inside_a_sequence() -> None:
    """Each candidate placed to end at every byte around MAX_BYTES: cut inside it, at it, after it."""
    for sequence in ["Ã©", "â€™", "ðŸ˜€", "Ã\u00a0", "Ã©Ã©"]:
        encoded = sequence.encode()
        for shift in range(-8, 8):
            for filler in ("x", "é"):
                head = filler * MAX_BYTES
                data = head.encode()[: MAX_BYTES + shift - len(encoded)] + encoded + b"tail"
                ours, reference = on_both_tiers(data)
                assert ours == reference, (sequence, shift, filler)


def test_random_bytes_as_bodies() -> None:
    """Bytes that are not UTF-8 (the processor asks only of valid bodies): the same answers, or the same error."""
    rng = random.Random(34)
    for _ in range(20_000):
        data = bytes(rng.choice(TELLING) for _ in range(rng.randrange(60)))
        ours, reference = on_both_tiers(data)
        assert ours == reference, data.hex()


def test_arguments() -> None:
    assert compiled is not None
    data = "CafÃ© et thÃ©".encode()
    assert compiled(bytearray(data), len(data)) == compiled(memoryview(data), len(data)) == (2, 4)
    assert compiled(data, 5) == (0, 0)  # the window ends inside the first candidate
    with pytest.raises(ValueError):
        compiled(data, len(data) + 1)
    with pytest.raises(ValueError):
        compiled(data, -1)
    with pytest.raises(TypeError):
        compiled(data.decode(), 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        compiled(data)  # type: ignore[call-arg]


# -- may_hold_a_sequence: the pair every sequence starts with, looked for on the text ---------------

try:
    from consumer.decoding._native.mojibake import may_hold_a_sequence as compiled_may_hold
except ImportError:  # built without a C compiler
    compiled_may_hold = None

#: A first character that makes a str UCS-2 or UCS-4 (CPython's kinds), neither a lead nor a continuation.
KINDS = {"Latin-1": "", "UCS-2": "\u0100", "UCS-4": "\U0001f600"}
# Characters around a pair's edges: the leads' bounds (U+00C1, U+00C2, U+00F4, U+00F5), the continuations' (U+007F,
# U+0080, U+00BF, U+00C0), windows-1252's characters above U+00FF and characters just beside them, CJK.
EDGES = ["\u00c1", "\u00c2", "\u00f4", "\u00f5", "\x7f", "\x80", "\xbf", "\xc0", "\u0151", "\u0152", "\u2122",
         "\u2123", "\u2019", "\u201a", "\u4e2d", "a"]  # fmt: skip


def may_hold_both(text: str, end: int) -> bool:
    assert compiled_may_hold is not None
    ours = compiled_may_hold(text, end)
    assert ours == mojibake.reference_may_hold_a_sequence(text, end), (text[:40], len(text), end)
    return ours


def test_the_product_runs_the_compiled_pair_search_where_it_was_built() -> None:
    assert mojibake.may_hold_a_sequence is compiled_may_hold


def test_every_pair_of_candidate_characters_at_every_offset_of_the_blocks() -> None:
    """Every lead and neighbour of a lead, followed by every continuation and neighbour of one, in each kind of str,
    at offsets 0-40 (the 16-character Latin-1 blocks and the 8- and 16-character UCS-2 ones), with *end* at the pair,
    inside it and past it."""
    firsts = LEADS + EDGES
    seconds = CONTINUATIONS + EDGES
    for prefix in KINDS.values():
        for first in firsts:
            for second in seconds:
                for offset in range(0, 41, 3):
                    text = prefix + "x" * offset + first + second + "y" * (offset % 7)
                    at = len(prefix) + offset
                    expected = "\u00c2" <= first <= "\u00f4" and second in CONTINUATIONS
                    assert may_hold_both(text, len(text)) is expected, (prefix, first, second, offset)
                    assert may_hold_both(text, at + 2) is expected
                    assert may_hold_both(text, at + 1) is False  # the window ends between the two
                    assert may_hold_both(text, at) is False


def test_random_texts_of_candidate_characters() -> None:
    rng = random.Random(35)
    alphabet = LEADS + CONTINUATIONS + EDGES + ["x", " ", "日"]
    for _ in range(20_000):
        prefix = rng.choice(list(KINDS.values()))
        text = prefix + "".join(rng.choices(alphabet, k=rng.randrange(60)))
        may_hold_both(text, rng.randint(-2, len(text) + 2))


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=200), st.integers(min_value=-5, max_value=250))
def test_generated_texts(text: str, end: int) -> None:
    may_hold_both(text, end)


def test_long_texts_with_the_pair_near_the_window() -> None:
    """CJK, Latin-1 and emoji text grown to ``MAX_BYTES`` characters with a pair just before, across and after the
    end the product passes (``looks_double_encoded``'s window is at most that many characters)."""
    for filler in ("中", "é", "a", "😀", "é中"):
        for shift in range(-4, 4):
            text = (filler * MAX_BYTES)[: MAX_BYTES + shift] + "Ã©" + filler * 20
            for end in (MAX_BYTES - 1, MAX_BYTES, MAX_BYTES + 1, len(text)):
                may_hold_both(text, end)


def test_a_false_answer_means_no_sequence() -> None:
    """Where the pair search says no, the check of the text's UTF-8 finds no sequence: the shortcut is exact."""
    rng = random.Random(36)
    alphabet = LEADS + CONTINUATIONS + EDGES + ["x", " "] * 20
    for _ in range(20_000):
        text = "".join(rng.choices(alphabet, k=rng.randrange(40)))
        if not may_hold_both(text, len(text)):
            assert reference_strong_sequences(text.encode(), len(text.encode())) == (0, 0), text


def test_pair_search_arguments() -> None:
    assert compiled_may_hold is not None
    assert compiled_may_hold("CafÃ©", 6) is True
    assert compiled_may_hold("CafÃ©", 100) is True
    assert compiled_may_hold("CafÃ©", -1) is False
    with pytest.raises(TypeError):
        compiled_may_hold(b"Caf\xc3\xa9", 5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        compiled_may_hold("CafÃ©")  # type: ignore[call-arg]


@pytest.mark.parametrize("filler", [b"x", "日".encode(), "é".encode(), "\u00e9x".encode()])
def test_a_sequence_at_every_offset_of_the_skips(filler: bytes) -> None:
    """One mojibake sequence ("Ã©" with "’" after it: two strong ones) placed at every offset of 300 bytes of a
    filler, the scan's 128-byte skips and 32-byte blocks crossed at each of their edges, cut at every end near it."""
    sequence = "Ã©’ Ã©".encode()
    body = (filler * 300)[:300]
    for at in range(len(body)):
        data = body[:at] + sequence + body[at:]
        for end in (at + 1, at + 2, at + 3, at + len(sequence) - 1, at + len(sequence), len(data)):
            ours, reference = both(data, end)
            assert ours == reference, (filler, at, end)
