"""The readable CJK decoders (what runs where the compiled ones were not built) do work linear in
the input on any bytes: the count of their steps (one a character or error, one a run of ASCII) is
at most the input's length on worst-case inputs (random bytes, an error at every position,
alternating lead and trail bytes, ISO-2022-JP escape storms).

Counted, not timed: a decoder that re-read its input after each error would show here as n * n / 2
steps."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from consumer.decoding.codecs import _stream, euc_kr, iso_2022_jp, multibyte
from tests.decoding.codecs.worst_case import LEADS, escape_storms, worst_inputs

SIZE = 16 * 1024


@dataclass
class Work:
    steps: int = 0
    ascii_runs: int = 0


class _CountingPattern:
    """A compiled pattern whose ``match`` calls are counted."""

    def __init__(self, pattern: re.Pattern[bytes], work: Work) -> None:
        self.pattern, self.work = pattern, work

    def match(self, *args):
        self.work.ascii_runs += 1
        return self.pattern.match(*args)


def counting_reference(module, monkeypatch) -> Work:
    """Count *module*'s steps and the ASCII runs its loop copies (both looked up at each decode)."""
    work = Work()
    original_step = module.step

    def step(*args):
        work.steps += 1
        return original_step(*args)

    monkeypatch.setattr(module, "step", step)
    monkeypatch.setattr(_stream, "ASCII_RUN", _CountingPattern(_stream.ASCII_RUN, work))
    return work


@pytest.mark.parametrize("module", list(LEADS), ids=lambda m: m.__name__.rsplit(".", 1)[-1])
@pytest.mark.parametrize("fatal", [False, True], ids=["replacement", "fatal"])
def test_reference_work_is_linear_on_worst_case_bytes(module, fatal: bool, monkeypatch) -> None:
    inputs = worst_inputs(module, SIZE)
    want = {name: module.decode(data, fatal) for name, data in inputs.items()}
    work = counting_reference(module, monkeypatch)
    for name, data in inputs.items():
        work.steps = work.ascii_runs = 0
        assert module.decode(data, fatal) == want[name], name
        # Each step and each ASCII run consumes at least one byte.
        assert work.steps + work.ascii_runs <= len(data), (name, work)


def test_an_error_costs_one_step(monkeypatch) -> None:
    """Errors are stepped over where they are, the input never read again from the start."""
    work = counting_reference(euc_kr, monkeypatch)
    data = "가격".encode("cp949") * 100 + b"\xff" * 1000 + "가격".encode("cp949") * 100
    assert euc_kr.decode(data, False) == ("가격" * 100 + "\ufffd" * 1000 + "가격" * 100, 1000)
    assert work == Work(steps=1400, ascii_runs=0)


ESCAPE_STORMS = escape_storms(SIZE)
STATES = ("_ascii", "_roman", "_katakana", "_lead_byte", "_trail_byte", "_escape_start", "_escape")


@pytest.mark.parametrize("name", list(ESCAPE_STORMS))
def test_iso_2022_jp_reference_work_is_linear(name: str, monkeypatch) -> None:
    """The reference's state handlers run at most three times a byte (a byte is re-read only after
    an escape start or escape prepends it), plus the end of the stream."""
    calls = [0]
    for state in STATES:
        handler = getattr(iso_2022_jp._Decoder, state)

        def counted(self, *args, _handler=handler):
            calls[0] += 1
            return _handler(self, *args)

        monkeypatch.setattr(iso_2022_jp._Decoder, state, counted)
    lossy, strict = multibyte.decoders("ISO-2022-JP", compiled=False)
    data = ESCAPE_STORMS[name]
    text, errors = lossy(data)
    assert errors > 0 and len(text) <= len(data) + 1
    assert calls[0] <= 3 * len(data) + 2, calls[0]
    calls[0] = 0
    assert strict(data) is None and calls[0] <= 3 * len(data) + 2
