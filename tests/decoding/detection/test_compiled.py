"""Detection's compiled loops (``_native/detection.c``) equal their readable references in
``detection.py`` exactly: the histogram, every dot product and every character likelihood to the last
bit, on generated inputs and corpus pages; and ``detect``/``ranked`` answer alike on either path."""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding import detection
from consumer.decoding.codecs.cpython import DECODERS
from consumer.decoding.detection import loops, reference

from corpus import LOCALES, corpus, page

pytestmark = pytest.mark.skipif(not detection.COMPILED, reason="the _native.detection extension was not built")
if detection.COMPILED:
    from consumer.decoding._native import detection as compiled


def test_the_extension_is_built_in_a_development_install() -> None:
    assert detection.COMPILED
    assert loops.high_bytes is compiled.high_bytes and loops.best_dot_products is compiled.best_dot_products
    assert loops.mixed_pairs is compiled.mixed_pairs and loops.squeeze is compiled.squeeze
    assert loops.pair_sum is compiled.pair_sum
    assert loops.high_byte_counts is compiled.high_byte_counts
    assert loops.high_byte_count is compiled.high_byte_count
    assert loops.first_high_byte is compiled.first_high_byte
    assert loops.strict_decodes is compiled.strict_decodes
    assert loops.four_byte_gb18030 is compiled.four_byte_gb18030
    assert loops.best_dot_products is compiled.best_dot_products
    assert loops.softmax_weights is compiled.softmax_weights
    assert loops.non_ascii_capitals is compiled.non_ascii_capitals
    assert loops.high_runs is compiled.high_runs


# -- the histogram -------------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_high_bytes_of_generated_bytes(data: bytes) -> None:
    assert compiled.high_bytes(data) == reference.reference_high_bytes(data)
    assert compiled.high_byte_counts(data) == reference.reference_high_byte_counts(data)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"<p>", b"\x80", b"\xff", b"\xc3\xa9", bytes(range(0x7C, 0x84))]), max_size=400))
def test_high_bytes_of_runs_and_mixtures(chunks: list[bytes]) -> None:
    data = b"".join(chunks)  # runs of one byte and ASCII words, across the eight-byte steps
    assert compiled.high_bytes(data) == reference.reference_high_bytes(data)
    assert compiled.high_byte_counts(data) == reference.reference_high_byte_counts(data)


def test_high_bytes_of_every_byte_and_of_corpus_pages() -> None:
    every = bytes(range(256)) * 3 + bytes(range(255, -1, -1))
    assert compiled.high_bytes(every) == reference.reference_high_bytes(every)
    assert compiled.high_byte_count(every) == reference.reference_high_byte_count(every) == 512
    for made in corpus(1, 5):
        assert compiled.high_bytes(made.body) == reference.reference_high_bytes(made.body)
        assert compiled.high_byte_counts(made.body) == reference.reference_high_byte_counts(made.body)
        assert compiled.high_byte_count(made.body) == reference.reference_high_byte_count(made.body)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"<p>", b"\x80", b"\xff", b"\xc3\xa9", bytes(range(0x7C, 0x84))]), max_size=400))
def test_high_byte_count_of_runs_and_mixtures(chunks: list[bytes]) -> None:
    data = b"".join(chunks)  # high bytes at every place of the eight-byte steps, and in the tail
    assert compiled.high_byte_count(data) == reference.reference_high_byte_count(data)
    assert compiled.first_high_byte(data) == reference.reference_first_high_byte(data)


def test_first_high_byte_at_every_offset() -> None:
    for length in range(40):
        assert compiled.first_high_byte(b"a" * length) == reference.reference_first_high_byte(b"a" * length) == -1
        for high in (0x80, 0xFF):
            data = b"\x7f" * length + bytes([high]) + b"\x80a"
            assert compiled.first_high_byte(data) == reference.reference_first_high_byte(data) == length


# -- gb18030's four-byte shape -------------------------------------------------------------------------


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from([b"a", b"0", b"9", b"/", b":", b"\x80", b"\x81", b"\xfe", b"\xff", b"\x811"]), max_size=60)
)
def test_four_byte_gb18030_of_leads_digits_and_their_neighbours(chunks: list[bytes]) -> None:
    # Leads (81, FE) and digits (30, 39) beside the bytes just outside their ranges, at every
    # place of the eight-byte steps (the digit test skips eight starts at once) and in the tail.
    data = b"".join(chunks)
    assert compiled.four_byte_gb18030(data) == reference.reference_four_byte_gb18030(data)


def test_four_byte_gb18030_at_every_offset_and_on_corpus_pages() -> None:
    for offset in range(20):
        for length in range(offset, 24):
            data = b"a" * offset + b"\x811\xfe9" + b"b" * (length - offset)
            assert compiled.four_byte_gb18030(data) and reference.reference_four_byte_gb18030(data)
            cut = data[: offset + 3]  # the sequence's last byte missing
            assert not compiled.four_byte_gb18030(cut) and not reference.reference_four_byte_gb18030(cut)
    for made in corpus(1, 14):
        assert compiled.four_byte_gb18030(made.body) == reference.reference_four_byte_gb18030(made.body)


# -- the dot products ----------------------------------------------------------------------------------


def _one_table_a_group(tables: array[float]) -> bytes:
    """``groups`` for *tables* with one table a group: each group's best is that table's dot product."""
    return bytes([1]) * (len(tables) // 128)


def test_dot_products_with_the_models_tables_on_corpus_pages() -> None:
    groups = _one_table_a_group(detection._ALL_TABLES)
    for made in corpus(1, 6):
        order, counts = reference.reference_high_bytes(made.body)
        sums, _ = compiled.best_dot_products(order, counts, detection._ALL_TABLES, groups)
        assert sums == reference.reference_dot_products(order, counts, detection._ALL_TABLES)  # to the last bit


@settings(max_examples=200, deadline=None)
@given(
    st.binary(max_size=300),
    st.lists(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), min_size=128, max_size=128 * 3),
)
def test_dot_products_of_generated_histograms_and_tables(data: bytes, values: list[float]) -> None:
    tables = array("d", values[: len(values) // 128 * 128])
    order, counts = reference.reference_high_bytes(data)
    sums, _ = compiled.best_dot_products(order, counts, tables, _one_table_a_group(tables))
    assert sums == reference.reference_dot_products(order, counts, tables)


def test_best_dot_products_with_the_models_tables_on_corpus_pages() -> None:
    for made in corpus(1, 6):
        order, counts = reference.reference_high_bytes(made.body)
        arguments = (order, counts, detection._ALL_TABLES, detection._LANGUAGE_COUNTS)
        assert compiled.best_dot_products(*arguments) == reference.reference_best_dot_products(*arguments)


@settings(max_examples=200, deadline=None)
@given(
    st.binary(max_size=300),
    st.lists(st.integers(min_value=1, max_value=4), min_size=1, max_size=6),
    st.data(),
)
def test_best_dot_products_of_generated_histograms_groups_and_ties(
    data: bytes, groups: list[int], draw: st.DataObject
) -> None:
    # Few distinct values, so that tables tie and the first largest must be the one picked.
    values = draw.draw(
        st.lists(st.sampled_from([-2.0, -1.0, 0.0, 0.5]), min_size=128 * sum(groups), max_size=128 * sum(groups))
    )
    tables = array("d", values)
    order, counts = reference.reference_high_bytes(data)
    arguments = (order, counts, tables, bytes(groups))
    assert compiled.best_dot_products(*arguments) == reference.reference_best_dot_products(*arguments)


def test_best_dot_products_refuses_groups_that_do_not_cover_the_tables() -> None:
    for groups in (b"", b"\x01", b"\x00\x02", b"\x03"):
        with pytest.raises(ValueError):
            compiled.best_dot_products(b"\x80", [1], array("d", [0.0] * 256), groups)
        with pytest.raises(ValueError):
            reference.reference_best_dot_products(b"\x80", [1], array("d", [0.0] * 256), groups)


def test_dot_products_refuses_what_it_cannot_read() -> None:
    groups = _one_table_a_group(detection._ALL_TABLES)
    with pytest.raises(ValueError):
        compiled.best_dot_products(b"\x80", [1, 2], detection._ALL_TABLES, groups)  # counts do not align
    with pytest.raises(ValueError):
        compiled.best_dot_products(b"a", [1], detection._ALL_TABLES, groups)  # an ASCII byte
    with pytest.raises(ValueError):
        compiled.best_dot_products(b"\x80", [1], array("d", [0.0] * 100), b"\x01")  # not whole tables
    with pytest.raises(ValueError):
        compiled.best_dot_products(b"\x80", [1], array("f", [0.0] * 128), b"\x01")  # not doubles


# -- the confidence's softmax -------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(min_value=-1e5, max_value=1e5, allow_nan=False), max_size=30),
    st.floats(min_value=-1e5, max_value=1e5, allow_nan=False),
)
def test_softmax_weights_of_generated_scores(scores: list[float], best: float) -> None:
    # A score over 709 nats above *best* overflows exp: both raise then, as math.exp does.
    assert outcome(compiled.softmax_weights, scores, best) == outcome(reference.reference_softmax_weights, scores, best)


def outcome(function: Callable[..., object], *arguments: object) -> object:
    try:
        return function(*arguments)
    except OverflowError as error:
        return type(error), str(error)


def test_softmax_weights_at_its_edges() -> None:
    # At the floor (-50) and around the cut (1e-6 is exp(-13.8155...)), and below and above the best.
    scores = [0.0, -13.815, -13.8155105579643, -13.816, -49.999, -50.0, -50.001, -1e300, 3.0, -0.0]
    assert compiled.softmax_weights(scores, 0.0) == reference.reference_softmax_weights(scores, 0.0)
    assert compiled.softmax_weights([], 1.0) == reference.reference_softmax_weights([], 1.0) == (0.0, [], [])
    with pytest.raises(TypeError):
        compiled.softmax_weights((1.0,), 1.0)  # type: ignore[arg-type]


# -- the candidates' strict decodes ------------------------------------------------------------------


SCORING_DECODERS = tuple(detection._INCREMENTAL_DECODERS.values())  # every multi-byte candidate's, ISO-2022-JP's


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from([b"a", b"\x81", b"\xa4", b"\xa4@", b"\xb0\xa1", b"\x8e", b"\x1b$B", b"\xff", b"01"]),
        max_size=40,
    )
)
def test_strict_decodes_of_leads_trails_and_cut_sequences(chunks: list[bytes]) -> None:
    data = b"".join(chunks)  # valid pairs, lone leads (cut at the end: no error), bytes no candidate takes
    assert compiled.strict_decodes(data, SCORING_DECODERS) == reference.reference_strict_decodes(data, SCORING_DECODERS)


def test_strict_decodes_of_corpus_pages_and_what_it_refuses() -> None:
    for made in corpus(1, 15):
        window = made.body[:4096]
        assert compiled.strict_decodes(window, SCORING_DECODERS) == reference.reference_strict_decodes(
            window, SCORING_DECODERS
        )
    assert compiled.strict_decodes(b"abc", ()) == []
    with pytest.raises(TypeError):
        compiled.strict_decodes(b"abc", list(SCORING_DECODERS))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        compiled.strict_decodes("text", SCORING_DECODERS)  # type: ignore[arg-type]  # the codec's own error, not swallowed


# -- the squeezed window (whether it decodes alike: test_squeeze.py) ---------------------------------


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"ab", b"abcdefghijk", b"\x81", b"\xa4@", b"\xff\xfe"]), max_size=60))
def test_squeeze_of_runs(chunks: list[bytes]) -> None:
    data = b"".join(chunks)  # ASCII runs of every length, across the eight-byte steps, and at the end
    assert compiled.squeeze(data) == reference.reference_squeeze(data)


def test_squeeze_of_corpus_pages() -> None:
    for made in corpus(1, 13):
        assert compiled.squeeze(made.body) == reference.reference_squeeze(made.body)


# -- the script-mixing pairs -------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300), st.sampled_from(sorted(detection._MIXING_CLASSES)))
def test_mixed_pairs_of_generated_bytes(sample: bytes, encoding: str) -> None:
    classes = detection._MIXING_CLASSES[encoding]
    assert compiled.mixed_pairs(sample, classes) == reference.reference_mixed_pairs(sample, classes)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="an.", max_size=200))
def test_mixed_pairs_of_runs_of_classes(marks: str) -> None:
    # "ana", "nan", "aann": pairs sharing a letter, which a count of non-overlapping substrings could miss.
    identity = bytes(range(256))
    assert compiled.mixed_pairs(marks.encode(), identity) == reference.reference_mixed_pairs(marks.encode(), identity)


def test_mixed_pairs_of_corpus_pages_and_a_wrong_table() -> None:
    for made in corpus(1, 4):
        for encoding, classes in detection._MIXING_CLASSES.items():
            sample = made.body[: detection.MIXING_SAMPLE]
            assert compiled.mixed_pairs(sample, classes) == reference.reference_mixed_pairs(sample, classes), encoding
    with pytest.raises(ValueError):
        compiled.mixed_pairs(b"abc", b"short")


# -- the neighbour pairs ---------------------------------------------------------------------------


def pair_sums_agree(sample: bytes, classes: bytes, weights: array[float]) -> None:
    assert compiled.pair_sum(sample, classes, weights) == reference.reference_pair_sum(sample, classes, weights)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300), st.sampled_from(sorted(detection._PAIR_CLASSES)))
def test_pair_sum_of_generated_bytes(sample: bytes, encoding: str) -> None:
    pair_sums_agree(sample, detection._PAIR_CLASSES[encoding], detection._PAIR_WEIGHTS)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200), st.lists(st.floats(-1e6, 0.0), min_size=256, max_size=256))
def test_pair_sum_of_every_class_pair_and_any_weights(sample: bytes, weights: list[float]) -> None:
    # Every byte its own class (mod 16): all 256 pairs of classes occur, weighted arbitrarily.
    pair_sums_agree(sample, bytes(byte % 16 for byte in range(256)), array("d", weights))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"Z", b" ", b"\xe0", b"\xc1", b"\x80" * 9, b"word" * 3]), max_size=60))
def test_pair_sum_of_ascii_words_and_high_bytes(parts: list[bytes]) -> None:
    # All-ASCII words of eight, which the compiled loop skips, after a high byte or not.
    sample = b"".join(parts)
    for encoding in ("windows-1251", "windows-1255", "ISO-8859-7", "windows-1252"):
        pair_sums_agree(sample, detection._PAIR_CLASSES[encoding], detection._PAIR_WEIGHTS)


def test_pair_sum_of_corpus_pages_and_wrong_tables() -> None:
    for made in corpus(1, 4):
        for classes in detection._PAIR_CLASSES.values():
            pair_sums_agree(made.body[: detection.MIXING_SAMPLE], classes, detection._PAIR_WEIGHTS)
    for classes, weights in (
        (b"short", detection._PAIR_WEIGHTS),
        (bytes([16]) * 256, detection._PAIR_WEIGHTS),
        (bytes(256), array("d", [0.0] * 255)),
    ):
        with pytest.raises(ValueError):
            compiled.pair_sum(b"abc", classes, weights)
        with pytest.raises(ValueError):
            reference.reference_pair_sum(b"abc", classes, weights)
    with pytest.raises(ValueError):
        compiled.pair_sum(b"abc", bytes(256), array("f", [0.0] * 256))  # floats, not doubles


# -- the character likelihood --------------------------------------------------------------------------


def likelihoods_agree(text: str, language: str) -> None:
    unseen = detection._UNSEEN[language]
    reference_logp = dict(detection._CHARACTER_LOGP[language])
    compiled_logp = dict(reference_logp)
    memo = array("d", [math.nan]) * 0x10000
    expected = reference.reference_text_likelihood(text, reference_logp, unseen)
    assert compiled.text_likelihood(text, compiled_logp, unseen, memo) == expected
    assert compiled_logp == reference_logp  # the same characters remembered, with the same values
    assert compiled.text_likelihood(text, compiled_logp, unseen, memo) == expected  # from the memo now


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.sampled_from(["ja", "zh_cn", "zh_tw", "ko", "ru", "el"]))
def test_text_likelihood_of_generated_text(text: str, language: str) -> None:
    likelihoods_agree(text, language)


@pytest.mark.parametrize(
    ("locale", "encoding"), [("ja_JP", "Shift_JIS"), ("zh_CN", "gb18030"), ("zh_TW", "Big5"), ("ko_KR", "EUC-KR")]
)
def test_text_likelihood_of_corpus_pages(locale: str, encoding: str) -> None:
    made = page(locale, encoding, 20_000, 3)
    assert made is not None
    likelihoods_agree(made.text, LOCALES[locale][0])
    # Read as another CJK encoding: the characters a wrong candidate produces, many unseen.
    for other in ("Shift_JIS", "EUC-KR", "Big5", "GBK"):
        likelihoods_agree(made.body.decode(DECODERS[other], "replace"), LOCALES[locale][0])


def test_text_likelihood_refuses_a_wrong_memo() -> None:
    with pytest.raises(ValueError):
        compiled.text_likelihood("日本", {}, detection._UNSEEN["ja"], array("d", [0.0] * 10))
    with pytest.raises(TypeError):
        compiled.text_likelihood(b"bytes", {}, detection._UNSEEN["ja"], array("d", [0.0] * 0x10000))  # type: ignore[arg-type]


# -- the runs of high bytes ---------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=9) | st.sampled_from([b"\x80", b"\xff" * 9, b"a" * 8, b"a" * 15]), max_size=40))
def test_high_runs_of_runs_and_mixtures(chunks: list[bytes]) -> None:
    data = b"".join(chunks)
    assert compiled.high_runs(data) == loops.reference_high_runs(data)


def test_high_runs_at_every_offset_and_on_corpus_pages() -> None:
    """A run that starts, ends or continues across a word's edge, at every alignment; and whole pages."""
    for offset in range(17):
        for run in range(1, 18):
            data = b"a" * offset + b"\xe9" * run + b"a" * 3 + b"\xe9"
            assert compiled.high_runs(data) == loops.reference_high_runs(data) == 2, (offset, run)
    for made in corpus(1, 5):
        assert compiled.high_runs(made.body) == loops.reference_high_runs(made.body)
    with pytest.raises(TypeError):
        compiled.high_runs("text")  # type: ignore[arg-type]


# -- the capitals of a reading ------------------------------------------------------------------------


def test_non_ascii_capitals_of_every_code_point() -> None:
    """One character at a time, each str kind: a capital of U+0080-U+2FFF is counted, nothing else is."""
    for code in range(0x110000):
        char = chr(code)
        assert compiled.non_ascii_capitals(char) == loops.reference_non_ascii_capitals(char), hex(code)
    assert compiled.non_ascii_capitals("ÀÉ日本ΑΩaÿ\U0001d400") == 4  # À É Α Ω; not a, ÿ nor the bold A above U+3000


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300) | st.text(st.characters(max_codepoint=0x3100), max_size=300))
def test_non_ascii_capitals_of_generated_text(text: str) -> None:
    assert compiled.non_ascii_capitals(text) == loops.reference_non_ascii_capitals(text)


@pytest.mark.parametrize(("locale", "encoding"), [("ja_JP", "Shift_JIS"), ("ru_RU", "windows-1251"), ("el_GR", "ISO-8859-7")])
def test_non_ascii_capitals_of_corpus_pages(locale: str, encoding: str) -> None:
    made = page(locale, encoding, 20_000, 3)
    assert made is not None
    assert compiled.non_ascii_capitals(made.text) == loops.reference_non_ascii_capitals(made.text)
    with pytest.raises(TypeError):
        compiled.non_ascii_capitals(made.body)  # type: ignore[arg-type]


# -- detect and ranked, on either path ---------------------------------------------------------------


def answers(bodies: list[tuple[bytes, str | None]]) -> list[tuple[detection.Detection, tuple[str, ...]]]:
    return [(detection.detect(body, tld), detection.ranked(body, tld)) for body, tld in bodies]


def test_detect_answers_alike_on_either_path(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(11)
    bodies: list[tuple[bytes, str | None]] = [(made.body, made.tld) for made in corpus(1, 9)]
    bodies += [(made.body[: len(made.body) // 3], None) for made in corpus(1, 10, min_size=150, max_size=700)]
    bodies += [(bytes(rng.getrandbits(8) for _ in range(rng.choice([10, 500, 5000]))), None) for _ in range(60)]
    # Behind ASCII: examined from just before the first non-ASCII byte (past half of MAX_EXAMINED), or not.
    bodies += [(b"<!-- x -->" * size + made.body, made.tld) for made in corpus(1, 12)[::7] for size in (100, 4000)]
    compiled_answers = answers(bodies)
    monkeypatch.setattr(loops, "COMPILED", False)
    monkeypatch.setattr(loops, "high_bytes", reference.reference_high_bytes)
    monkeypatch.setattr(loops, "mixed_pairs", reference.reference_mixed_pairs)
    monkeypatch.setattr(loops, "pair_sum", reference.reference_pair_sum)
    monkeypatch.setattr(loops, "squeeze", reference.reference_squeeze)
    monkeypatch.setattr(loops, "high_byte_counts", reference.reference_high_byte_counts)
    monkeypatch.setattr(loops, "high_byte_count", reference.reference_high_byte_count)
    monkeypatch.setattr(loops, "first_high_byte", reference.reference_first_high_byte)
    monkeypatch.setattr(loops, "strict_decodes", reference.reference_strict_decodes)
    monkeypatch.setattr(loops, "four_byte_gb18030", reference.reference_four_byte_gb18030)
    monkeypatch.setattr(loops, "best_dot_products", reference.reference_best_dot_products)
    monkeypatch.setattr(loops, "softmax_weights", reference.reference_softmax_weights)
    assert answers(bodies) == compiled_answers


# -- the letters after a character beyond ASCII ------------------------------------------------------------


def test_latin_after_non_ascii_of_every_pair_of_edges() -> None:
    """Each str kind, a letter and its neighbours in ASCII, and characters at the edges of each kind."""
    edges = ["a", "z", "A", "Z", "@", "[", "`", "{", "0", " ", "\x7f", "\x80", "é", "ÿ", "Ā", "日", "\uffff", "\U0001f600"]
    for first in edges:
        for second in edges:
            for text in (first + second, "x" + first + second + "y", "日" + first + second, "\U0001f600" + first + second):
                assert compiled.latin_after_non_ascii(text) == loops.reference_latin_after_non_ascii(text), text
    assert compiled.latin_after_non_ascii("said 土es迫and left, 日本 ok") == 2
    assert compiled.latin_after_non_ascii("") == compiled.latin_after_non_ascii("plain ascii") == 0


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300) | st.text(st.sampled_from("aZ 日é\U0001f600-"), max_size=300))
def test_latin_after_non_ascii_of_generated_text(text: str) -> None:
    assert compiled.latin_after_non_ascii(text) == loops.reference_latin_after_non_ascii(text)
    with pytest.raises(TypeError):
        compiled.latin_after_non_ascii(text.encode())  # type: ignore[arg-type]
