"""The fallback's fast path (Python's C codecs behind a suspect check, the
reference stepping where Python stops) agrees with the pure-Python reference
decoders: exhaustively over every unit Python's codecs can read, and on random
input.  It is tested directly, not through ``decode_bytes``, which runs the
compiled decoders where they were built (test_codecs_compiled.py)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding.codecs import big5, euc_jp, euc_kr, gb18030, pyfast, shift_jis
from consumer.decoding.codecs.cpython import ENCODERS

from whatwg_reference import gb18030_four_bytes, gb18030_ranges_code_point

REFERENCES = {"Shift_JIS": shift_jis, "EUC-JP": euc_jp, "EUC-KR": euc_kr, "Big5": big5, "gb18030": gb18030}
_PYFAST = {encoding: pyfast.decoders(module) for encoding, module in REFERENCES.items()}


def decode_bytes(encoding: str, data: bytes) -> tuple[str, int]:
    return _PYFAST[encoding][0](data)


def decode_strict(encoding: str, data: bytes) -> str | None:
    return _PYFAST[encoding][1](data)


def reference_strict(encoding: str, data: bytes) -> str | None:
    result = REFERENCES[encoding].decode(data, True)
    return None if result is None else result[0]


def check_all(encoding: str, sequences) -> None:
    wrong = []
    for data in sequences:
        want = REFERENCES[encoding].decode(data)
        got = (decode_bytes(encoding, data), decode_strict(encoding, data))
        if got != (want, want[0] if want[1] == 0 else None):
            wrong.append((data.hex(), got, want))
    assert not wrong, wrong[:5]


@pytest.mark.parametrize("encoding", sorted(REFERENCES))
def test_every_one_and_two_byte_sequence(encoding: str) -> None:
    check_all(encoding, (bytes((b,)) for b in range(256)))
    check_all(encoding, (bytes(pair) for pair in itertools.product(range(0x80, 0x100), range(256))))


def test_euc_jp_every_three_byte_sequence_after_8e_and_8f() -> None:
    check_all("EUC-JP", (bytes((lead, b, c)) for lead in (0x8E, 0x8F) for b in range(256) for c in range(256)))


def test_gb18030_four_byte_bmp_leads() -> None:
    check_all(
        "gb18030",
        (bytes((a, b, c, d)) for a in range(0x81, 0x85) for b in range(0x30, 0x3A) for c in range(256) for d in range(0x30, 0x3A)),
    )
    # Any other fourth byte: both reject (Python) or read a shorter unit (the standard).
    check_all("gb18030", (bytes((a, 0x30, c, d)) for a in (0x81, 0x84) for c in (0x81, 0xFE) for d in range(256)))


@pytest.mark.parametrize("first", range(0x85, 0xFF))
def test_gb18030_four_byte_other_leads(first: int) -> None:
    """Leads 0x85..0xFE, which the suspect enumeration leaves to this test:
    where the standard maps the whole row (the supplementary planes), Python's
    codec gives the same text; where the standard has errors, Python rejects."""
    for second in range(0x30, 0x3A):
        pointers = [((first - 0x81) * 10 + second - 0x30) * 1260 + rest for rest in range(1260)]
        expected = [gb18030_ranges_code_point(p) for p in pointers]
        if None not in expected:
            data = b"".join(gb18030_four_bytes(p) for p in pointers)
            assert data.decode("gb18030") == "".join(map(chr, expected))
            continue
        for pointer, code_point in zip(pointers, expected, strict=True):
            assert python_gb18030(gb18030_four_bytes(pointer)) == (code_point and chr(code_point))


def python_gb18030(data: bytes) -> str | None:
    try:
        return data.decode("gb18030")
    except UnicodeDecodeError:
        return None


def test_suspects_are_what_the_module_docstring_names() -> None:
    characters, units = pyfast.suspects(shift_jis)
    assert characters == {"\uf8f0", "\uf8f1", "\uf8f2", "\uf8f3"} and not units
    characters, units = pyfast.suspects(euc_jp)
    assert characters == set("\u00a2\u00a3\u00ac\u2016\u2212\u301c") and units == {b"\x8f\xa2\xb7"}
    assert pyfast.suspects(euc_kr) == (set(), set())
    assert len(pyfast.suspects(big5)[0]) == 11
    assert len(pyfast.suspects(gb18030)[0]) == 21


TELLING = st.sampled_from(
    [0x00, 0x20, 0x30, 0x39, 0x40, 0x41, 0x5C, 0x7E, 0x7F, 0x80, 0x81, 0x84, 0x8E, 0x8F, 0x90, 0xA0, 0xA1]
    + [0xA2, 0xA4, 0xB0, 0xC8, 0xDF, 0xE0, 0xE3, 0xEF, 0xF0, 0xF9, 0xFC, 0xFD, 0xFE, 0xFF]
)


@pytest.mark.parametrize("encoding", sorted(REFERENCES))
@settings(max_examples=200, deadline=None)
@given(data=st.one_of(st.binary(max_size=32), st.lists(TELLING, max_size=32).map(bytes)))
def test_random_bytes(encoding: str, data: bytes) -> None:
    assert decode_strict(encoding, data) == reference_strict(encoding, data)
    assert decode_bytes(encoding, data) == REFERENCES[encoding].decode(data)


@pytest.mark.parametrize("encoding", sorted(REFERENCES))
@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=40))
def test_random_valid_text(encoding: str, text: str) -> None:
    data = text.encode(ENCODERS[encoding], "ignore")
    assert decode_strict(encoding, data) == reference_strict(encoding, data)
    # And with a damaged byte in the middle: Python stops, the reference steps.
    damaged = data[: len(data) // 2] + b"\xff" + data[len(data) // 2 :]
    assert decode_bytes(encoding, damaged) == REFERENCES[encoding].decode(damaged)


def test_prepare_enumerates_every_codec_once_so_decoding_never_waits_for_it(monkeypatch) -> None:
    pyfast.prepare()
    assert set(pyfast._SUSPECTS) == set(pyfast.PYTHON_CODECS)

    def enumerating_again(*args):
        raise AssertionError("suspects enumerated after prepare()")

    monkeypatch.setattr(pyfast.Suspects, "of", enumerating_again)
    pyfast.prepare()  # a second call finds everything done
    samples = {"Shift_JIS": "価格～", "EUC-JP": "価格〜", "EUC-KR": "가격", "Big5": "價格", "gb18030": "价格€"}
    codecs_ = {"Shift_JIS": "cp932", "EUC-JP": "euc_jp", "EUC-KR": "cp949", "Big5": "big5", "gb18030": "gb18030"}
    for encoding, text in samples.items():
        data = text.encode(codecs_[encoding])
        assert decode_strict(encoding, data) == reference_strict(encoding, data)
