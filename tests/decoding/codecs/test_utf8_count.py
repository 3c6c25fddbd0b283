"""UTF-8's counts without the text (``utf8.counts``, compiled in ``_native/utf8.c``) equal the counts
read off the standard's decoder: every one- to three-byte sequence of telling bytes alone and
between ASCII, generated inputs, and long ones decoded without the GIL.  The question resolution asks
of them (``more_sequences_than_errors``, compiled to stop once the rest cannot change the answer)
answers as the counts do."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding.codecs import utf8
from tests.decoding.codecs.whatwg_reference import spec_utf8_decode

# Bytes where the decoder's states differ: ASCII, continuation bounds, every kind of lead, invalid.
TELLING = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]


def spec_counts(data: bytes) -> tuple[int, int]:
    text, errors = spec_utf8_decode(data)
    return sum(ord(c) >= 0x80 for c in text) - errors, errors


def test_every_short_sequence_of_telling_bytes() -> None:
    for length in range(1, 4):
        for sequence in itertools.product(TELLING, repeat=length):
            for data in (bytes(sequence), b"abcdefghij" + bytes(sequence) + b"klmnopqrstu"):
                assert utf8.counts(data) == spec_counts(data), data.hex()
                assert utf8.reference_counts(data) == spec_counts(data), data.hex()
                sequences, errors = spec_counts(data)
                assert utf8.more_sequences_than_errors(data) is (sequences > errors), data.hex()


def test_well_formed_sequences_and_encoded_replacement_characters() -> None:
    data = "aé€😀\ufffd".encode() + b"\xff"
    assert utf8.counts(data) == (4, 1)  # é, €, 😀 and an encoded U+FFFD are sequences; 0xFF an error


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_generated_bytes(data: bytes) -> None:
    assert utf8.counts(data) == utf8.reference_counts(data)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=8).map(str.encode), st.binary(max_size=4)), max_size=16))
def test_generated_text_with_damage(chunks: list[bytes]) -> None:
    data = b"".join(chunks)
    assert utf8.counts(data) == utf8.reference_counts(data)


def test_long_inputs() -> None:
    data = ("<p>texte français, 中文</p>".encode() + b"\xe9\x80") * 5000
    assert len(data) > 65536  # decoded without the GIL
    assert utf8.counts(data) == utf8.reference_counts(data)
    assert utf8.counts(memoryview(data)) == utf8.reference_counts(data)  # type: ignore[arg-type]


def more(data: bytes) -> bool:
    sequences, errors = utf8.reference_counts(data)
    return sequences > errors


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=8).map(str.encode), st.binary(max_size=4)), max_size=40))
def test_more_sequences_than_errors_of_generated_text_with_damage(chunks: list[bytes]) -> None:
    data = b"".join(chunks)
    assert utf8.more_sequences_than_errors(data) is more(data)
    assert utf8.reference_more_sequences_than_errors(data) is more(data)


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=40), st.integers(0, 5), st.binary(min_size=1, max_size=6), st.integers(0, 400))
def test_more_sequences_than_errors_near_the_balance(text: str, copies: int, damage: bytes, at: int) -> None:
    # Sequences and errors close to even, the damage anywhere: where stopping early would show.
    data = bytearray((text * 8).encode())
    for _ in range(copies):
        data[at % (len(data) + 1) : at % (len(data) + 1)] = damage
        at = at * 7 + 13
    assert utf8.more_sequences_than_errors(bytes(data)) is more(bytes(data))


def test_more_sequences_than_errors_of_legacy_pages_and_long_inputs() -> None:
    for data in (
        "Привет, как дела? Это страница.".encode("cp1251") * 2000,  # no: decided within the first bytes
        "東京の天気、晴れのち曇り。".encode("cp932") * 4000,
        "中文网页，天气预报。".encode("gbk") * 4000,
        ("<p>texte français, 中文</p>".encode() + b"\xe9\x80") * 5000,  # yes, > 64 KiB: without the GIL
        "é".encode() * 40000 + b"\xe9" * 40001,  # the balance tips at the very end
        "é".encode() * 40001 + b"\xe9" * 40000,
    ):
        assert utf8.more_sequences_than_errors(data) is more(data)
