"""The compiled UTF-8 validity check (consumer/decoding/_native/utf8.c) against Python's codec.

``utf8.is_valid(data)`` must be exactly ``data.decode("utf-8")`` succeeding, which is the Encoding
Standard's UTF-8 decoder in error mode fatal (test_codecs_utf.py checks the codec against the
standard).  The SIMD check reads 16 bytes a step and looks back up to three bytes across a step's
edge, so every short sequence is tried at each position around an edge and at the end of the data.
"""

from __future__ import annotations

import itertools
import shutil
import sysconfig

import pytest
from hypothesis import given
from hypothesis import strategies as st

from consumer.decoding.codecs import utf8

try:
    from consumer.decoding._native import utf8 as compiled
except ImportError:
    compiled = None
needs_compiled = pytest.mark.skipif(compiled is None, reason="built without a C compiler: is_valid decodes")

# The bytes where the standard's decoder changes its answer: ASCII's end, the continuation range's
# sub-ranges (E0, ED, F0 and F4 narrow it), leads never allowed (C0 C1 F5-FF), and the leads at
# each range's ends.
_EDGES = [
    0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
    0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF,
]  # fmt: skip
_SEQUENCES = [bytes(s) for n in range(1, 5) for s in itertools.product(_EDGES, repeat=n) if n < 4 or s[0] >= 0xF0]
# Where a sequence starts in a 16-byte step: at its start, and so that it crosses into the next step.
_BEFORE = [b"", b"a" * 13, b"a" * 14, b"a" * 15, b"\xc3\xa9" * 8]
# What follows: the end of the data, or ASCII within the step or in the next one.
_AFTER = [b"", b"z", b"z" * 20]


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _checks() -> list:
    checks = [utf8.is_valid, utf8._is_valid_by_decoding]
    if compiled is not None:
        checks.append(compiled.is_valid_scalar)
    return checks


@pytest.mark.parametrize("before", _BEFORE, ids=lambda b: f"after-{len(b)}-bytes")
def test_every_short_sequence_around_a_step_edge(before):
    checks = _checks()
    wrong = [
        (data, check.__name__)
        for sequence in _SEQUENCES
        for after in _AFTER
        for data in [before + sequence + after]
        for expected in [_decodes(data)]
        for check in checks
        if check(data) is not expected
    ]
    assert wrong == []


@needs_compiled
@pytest.mark.parametrize("before", [b"a" * n for n in (1019, 1020, 1021, 1022, 1023)], ids=lambda b: f"after-{len(b)}-bytes")
def test_every_short_sequence_across_the_early_answer_at_a_kib(before):
    """The SIMD check answers a malformed body once a KiB, from the errors found so far: a sequence that the KiB's
    end cuts is no error yet, whichever way it ends."""
    wrong = [
        data
        for sequence in _SEQUENCES
        for data in [before + sequence + b"z" * 20]
        if compiled.is_valid(data) is not _decodes(data)
    ]
    assert wrong == []


# Text with every UTF-8 length, then perhaps a byte changed, inserted or cut off.
_TEXT = st.text(st.sampled_from("aZ<>\x00\x7f\x80é߿ࠀ€日\ud7ff\ue000\uffff𐀀😀\U0010ffff"), max_size=80)


@given(text=_TEXT, position=st.integers(0, 400), byte=st.integers(0, 255), how=st.sampled_from("keep set insert cut"))
def test_damaged_text(text, position, byte, how):
    data = bytearray(text.encode("utf-8"))
    position = position % (len(data) + 1)
    if how == "set" and position < len(data):
        data[position] = byte
    elif how == "insert":
        data.insert(position, byte)
    elif how == "cut":
        del data[position:]
    data = bytes(data)
    assert all(check(data) is _decodes(data) for check in _checks())


@given(data=st.binary(max_size=100))
def test_any_bytes(data):
    assert all(check(data) is _decodes(data) for check in _checks())


def _validities() -> list:
    checks = [utf8.validity, utf8._validity_by_decoding]
    if compiled is not None:
        checks.append(compiled.validity_scalar)
    return checks


def _expected_validity(data: bytes) -> int:
    if not _decodes(data):
        return utf8.NOT_UTF8
    return utf8.ASCII_WITH_ESCAPE if data.isascii() and 0x1B in data else utf8.UTF8


@given(data=st.binary(max_size=100) | st.lists(st.sampled_from([b"\x1b", b"a" * 7, b"$B", "é".encode()])).map(b"".join))
def test_validity_of_any_bytes(data):
    assert all(check(data) == _expected_validity(data) for check in _validities())


@pytest.mark.parametrize("before", _BEFORE + [b"\x1b", b"a" * 15 + b"\x1b"], ids=lambda b: f"after-{len(b)}-bytes")
def test_validity_around_a_step_edge(before):
    """An ESC anywhere in an ASCII body, in the 8-byte words, the 16-byte steps and the tail, or none."""
    for escape_at in range(0, 40, 3):
        plain = bytearray(b"x" * 40)
        plain[escape_at] = 0x1B
        for data in (before + bytes(plain), before + bytes(plain) + "é".encode(), before + b"y" * 40):
            assert [check(data) for check in _validities()] == [_expected_validity(data)] * len(_validities())


def test_long_data_with_one_error_anywhere():
    page = ("<p>Grüße aus Zürich, 東京 😀</p>\n" * 200).encode("utf-8")
    assert utf8.is_valid(page)
    for position in range(0, len(page), 97):
        damaged = page[:position] + b"\xff" + page[position + 1 :]
        assert utf8.is_valid(damaged) is False
    emoji_end = page.rindex("😀".encode()) + 4
    assert [utf8.is_valid(page[:end]) for end in range(emoji_end - 4, emoji_end + 1)] == [True, False, False, False, True]


@needs_compiled
def test_any_bytes_like_object_is_read_and_text_is_refused():
    assert compiled.is_valid(bytearray(b"\xc3\xa9")) and compiled.is_valid(memoryview(b"\xc3\xa9"))
    with pytest.raises(TypeError):
        compiled.is_valid("é")


@needs_compiled
def test_the_compiled_check_runs():
    assert utf8.COMPILED and utf8.is_valid is compiled.is_valid


def test_built_wherever_a_compiler_is():
    """The extension is optional (an install without a compiler still works), so a build that fails
    where a compiler exists would go unnoticed but for this test."""
    compiler = (sysconfig.get_config_var("CC") or "").split()
    if not compiler or shutil.which(compiler[0]) is None:
        pytest.skip("no C compiler here: is_valid decodes")
    assert utf8.COMPILED
