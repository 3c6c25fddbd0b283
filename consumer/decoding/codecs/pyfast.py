"""Decoding of the CJK encodings through Python's C codecs, when provably exact.

The fallback where the compiled decoders (``multibyte``) were not built.  The
standard's CJK decoders (the pure-Python modules beside this one) are the
reference.  Both ``decode_strict`` and ``decode_bytes`` first decode with a
Python codec that is close to the standard and accept its output only when it
cannot differ from the reference's.  Where Python rejects a unit, one step of
the reference decodes it (a character only the standard has, or the
standard's error), from inside Python's decode as its error handler, and
Python resumes; where Python's output holds a *suspect* character, the
reference decodes the whole input.  Either way the work is linear in the
input (tests/decoding/codecs/test_codecs_linear.py counts it).

Why checking characters is enough: both Python's codec and the standard's
decoder read these encodings as a sequence of self-delimiting units (ASCII,
one lead byte + its trails) with no state between units, and when the input is
error-free in both, they cut it into the same units iff they agree on every
unit.  So we enumerate every unit Python accepts (every byte, and every
extension of a byte sequence Python calls an incomplete multibyte sequence)
and decode it with the reference too.  Where the two differ, the characters
Python produced are suspects: an output free of suspects was cut and mapped
unit by unit exactly as the standard does.  Where Python rejects a unit the
standard accepts, Python fails and the reference decodes.  The enumeration
runs once per encoding, on first use or in ``prepare``; tests/decoding/codecs
checks its result against every one-, two- and three-byte sequence and random
input.

The differences this finds, per codec, and how each is fixed (the named
characters are suspects, so output containing one is decoded by the
reference; where Python rejects bytes the standard accepts, Python fails and
the reference decodes):

- Shift_JIS vs cp932: cp932 maps 0xA0 and 0xFD..0xFF to U+F8F0..U+F8F3, the
  standard errors.  Suspects: U+F8F0..U+F8F3.
- EUC-JP vs euc_jp: euc_jp maps 0xA1C1 to U+301C (standard U+FF5E), 0xA1C2
  to U+2016 (U+2225), 0xA1DD to U+2212 (U+FF0D), 0xA1F1/0xA1F2/0xA2CC to
  U+00A2/U+00A3/U+00AC (U+FFE0/U+FFE1/U+FFE2), and 0x8F 0xA2 0xB7 to "~"
  (U+FF5E): an ASCII result cannot be a suspect character, so input holding
  those three bytes takes the reference.  euc_jp also lacks the NEC/IBM rows
  the standard has (leads 0xAD, 0xF9..0xFC): Python fails, the reference decodes.
- EUC-KR vs cp949: identical on every unit cp949 accepts (both windows-949).
- Big5 vs big5hkscs: big5hkscs maps 0xA145, 0xA14E, 0xA1C2, 0xA1E3, 0xA1F2,
  0xA1F3, 0xA241, 0xA242, 0xA244, 0xA246, 0xA247 to U+2022, U+FF64, U+203E,
  U+223C, U+2641, U+2609, U+FF0F, U+FF3C, U+00A5, U+00A2, U+00A3 where the
  standard's index has U+2027, U+FE51, U+00AF, U+FF5E, U+2295, U+2299, U+2215,
  U+FE68, U+FFE5, U+FFE0, U+FFE1.  big5hkscs lacks the standard's cells in
  leads 0x81..0x86 and others: Python fails there.
- gb18030/GBK vs gb18030: Python follows GB18030-2005, the standard the 2022
  edition: 0xA6D9..0xA6F3 (vertical forms U+FE10..U+FE19), 0xFE59..0xFEA0
  (U+9FB4..U+9FBB) and 0xA8BC (U+1E3F) are PUA in Python; 0xA3A0 is U+E5E5
  in Python and U+3000 in the standard; four-byte 0x8135F437 (pointer 7457)
  is U+1E3F in Python and U+E7C7 in the standard.  Suspects: those 21
  Python outputs.  Python rejects 0x80, which the standard decodes as U+20AC:
  the reference decodes.  Four-byte units are enumerated for leads 0x81..0x84
  (the BMP); for leads 0x85..0xFE both sides are the linear supplementary
  mapping (pointer 189000 + n is U+10000 + n, the rest errors), which the
  tests check exhaustively.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator
from types import ModuleType

from . import big5, euc_jp, euc_kr, gb18030, iso_2022_jp, shift_jis
from .cpython import DECODERS

_ANY_BYTE = range(0x100)


def _any_next_byte(prefix: bytes) -> range:
    return _ANY_BYTE


def _gb18030_next_byte(prefix: bytes) -> range:
    # Four-byte units are enumerated for the BMP leads 0x81..0x84 only (see the
    # module docstring), and with a last byte 0x30..0x39 only: CPython's
    # gb18030 decoder rejects any other, as the standard does.
    if len(prefix) == 1:
        return _ANY_BYTE
    if prefix[0] > 0x84:
        return range(0)
    return range(0x30, 0x3A) if len(prefix) == 3 else _ANY_BYTE


#: reference module -> (its Python codec, from ``cpython.DECODERS``; the longest unit to
#: enumerate; the bytes that may extend an incomplete unit).
PYTHON_CODECS: dict[ModuleType, tuple[str, int, Callable[[bytes], range]]] = {
    shift_jis: (DECODERS["Shift_JIS"], 2, _any_next_byte),
    euc_jp: (DECODERS["EUC-JP"], 3, _any_next_byte),
    euc_kr: (DECODERS["EUC-KR"], 2, _any_next_byte),
    big5: (DECODERS["Big5"], 2, _any_next_byte),
    gb18030: (DECODERS["gb18030"], 4, _gb18030_next_byte),  # GBK's decoder too
}


def decoders(module: ModuleType) -> tuple[Callable[[bytes], tuple[str, int]], Callable[[bytes], str | None]]:
    """(``decode_bytes``, ``decode_strict``) for the encoding whose reference is *module*."""
    if module not in PYTHON_CODECS:
        return _reference_decoders(module)
    run = _hybrid(module)

    def lossy(data: bytes) -> tuple[str, int]:
        return run(data, False)  # type: ignore[return-value]

    def strict(data: bytes) -> str | None:
        result = run(data, True)
        return None if result is None else result[0]

    return lossy, strict


def _reference_decoders(
    module: ModuleType,
) -> tuple[Callable[[bytes], tuple[str, int]], Callable[[bytes], str | None]]:
    reference: Callable[..., tuple[str, int] | None] = module.decode
    plain: Callable[[bytes], bool] = module.is_plain

    def lossy(data: bytes) -> tuple[str, int]:
        return (data.decode("ascii"), 0) if plain(data) else reference(data)  # type: ignore[return-value]  # not fatal

    def strict(data: bytes) -> str | None:
        if plain(data):
            return data.decode("ascii")
        result = reference(data, True)
        return None if result is None else result[0]

    return lossy, strict


class _UseReference(Exception):
    """Raised by the error handler where Python's cut of the input may differ from the standard's."""


class _Fatal(Exception):
    """Raised by the error handler at the first error in error mode fatal."""


# Where the reference reads an error, the lossy handler writes this lone surrogate, which none
# of these Python codecs ever outputs; the decode then counts and replaces them, so the handler
# keeps no state between calls (threads share it).
_ERROR_MARK = "\udcff"


def _hybrid(
    module: ModuleType,
    decode_python: Callable[[bytes, str], tuple[str, int]] | None = None,
    step: Callable[[bytes, int, int, int], tuple[str | None, int]] | None = None,
) -> Callable[[bytes, bool], tuple[str, int] | None]:
    """Python's codec for the stretches it reads exactly as the standard, the
    reference's ``step`` for each unit where Python stops.

    Where Python fails, both decoders sit at the same unit boundary in their
    initial state (the prefix was cut into the same units), so one reference
    step decodes the unit there (a character the standard has and Python
    lacks, or the standard's error with its prepend rule) and Python resumes
    after it.  A suspect anywhere hands the whole input to the reference.

    Linear time on any input: the step runs inside Python's decode, as an
    error handler (see ``codecs.register_error``) that returns the step's text
    and the position after it, so the input is handed to Python's codec once,
    whatever the number of errors, and each error costs one handler call.
    (Restarting Python's codec after each error, as this did before, copied
    the rest of the input into each exception: quadratic, ~185 s for 4 MiB of
    random bytes as EUC-KR.)  *decode_python* and *step* default to the
    module's; tests pass counting wrappers to check the work done.
    """
    decode_python = decode_python or codecs.getdecoder(PYTHON_CODECS[module][0])
    step = step or module.step
    reference: Callable[[bytes, bool], tuple[str, int] | None] = module.decode
    plain: Callable[[bytes], bool] = module.is_plain

    def handle(exc: UnicodeError, fatal: bool) -> tuple[str, int]:
        data, at = exc.object, exc.start  # type: ignore[attr-defined]
        byte = data[at]
        if byte < 0x80:
            # Python failed on an ASCII byte: it read the unit before differently.
            raise _UseReference
        text, size = step(data, at, byte, len(data))
        if text is None:
            if fatal:
                raise _Fatal
            text = _ERROR_MARK
        return text, at + size

    # Registered names are global: one pair per hybrid, named after it.
    lossy_name = f"crawl-decoder-{module.__name__}-{id(handle):x}"
    strict_name = lossy_name + "-fatal"
    codecs.register_error(lossy_name, lambda exc: handle(exc, False))
    codecs.register_error(strict_name, lambda exc: handle(exc, True))

    def run(data: bytes, fatal: bool) -> tuple[str, int] | None:
        if plain(data):
            return data.decode("ascii"), 0
        suspects = _SUSPECTS.get(module) or _enumerate(module)
        if suspects.in_data(data):
            return reference(data, fatal)
        try:
            text = decode_python(data, strict_name if fatal else lossy_name)[0]
        except _Fatal:
            return None
        except _UseReference:
            return reference(data, fatal)
        if suspects.in_text(text):
            return reference(data, fatal)
        errors = text.count(_ERROR_MARK)
        return (text.replace(_ERROR_MARK, "\ufffd") if errors else text), errors

    return run


#: Each codec's suspects, enumerated on first use or by ``prepare``.
_SUSPECTS: dict[ModuleType, Suspects] = {}


def prepare() -> None:
    """Enumerate every codec's suspects now rather than on its first non-ASCII input.

    The enumeration takes 0.05-0.6 s a codec on a 2-core machine (every unit Python
    accepts, decoded by the reference too): a long-running processor does it once at
    start, so that its first Big5 or GBK page does not stall a batch.
    """
    for module in PYTHON_CODECS:
        if module not in _SUSPECTS:
            _enumerate(module)


def _enumerate(module: ModuleType) -> Suspects:
    found = _SUSPECTS[module] = Suspects.of(module)
    return found


class Suspects:
    """What in Python's output (or input) may mean it differs from the standard's."""

    def __init__(self, characters: set[str], units: set[bytes]) -> None:
        self.characters = characters
        self.units = units
        # A find per character, not a regex character class: find runs memchr on each
        # character's low byte, the class tests every character of the text (3x slower on
        # CJK text, where this check is a third of the decode).
        self._characters = tuple(sorted(characters))
        self._units = re.compile(b"|".join(re.escape(u) for u in sorted(units)) or b"(?!)")

    @classmethod
    def of(cls, module: ModuleType) -> Suspects:
        characters, units = suspects(module)
        return cls(characters, units)

    def in_text(self, text: str) -> bool:
        """True if Python's *text* may differ from the standard's."""
        for character in self._characters:  # noqa: SIM110 - a plain loop: no generator frame on the decode path
            if character in text:
                return True
        return False

    def in_data(self, data: bytes) -> bool:
        """True if *data* holds a unit Python decodes to ASCII unlike the standard."""
        return bool(self.units) and self._units.search(data) is not None


def suspects(module: ModuleType) -> tuple[set[str], set[bytes]]:
    """Where Python's codec decodes a unit unlike the reference.

    Returns the non-ASCII characters Python produced for such units and, for a
    unit Python decodes to ASCII only (no character to flag, e.g. euc_jp's
    0x8F 0xA2 0xB7 -> "~"), the unit's bytes: input containing them takes the
    reference.
    """
    codec, longest, extend = PYTHON_CODECS[module]
    characters: set[str] = set()
    units: set[bytes] = set()
    for unit, text in python_units(codec, longest, extend):
        result = module.decode(unit, True)
        if result is not None and result[0] == text:
            continue
        flagged = {c for c in text if c >= "\x80"}
        if flagged:
            characters |= flagged
        else:
            units.add(unit)
    return characters, units


def python_units(
    codec: str, longest: int, extend: Callable[[bytes], range]
) -> Iterator[tuple[bytes, str]]:
    """Every byte sequence Python's *codec* decodes as one unit, with its text."""
    pending = [bytes((b,)) for b in range(0x80, 0x100)]
    while pending:
        sequence = pending.pop()
        try:
            yield sequence, sequence.decode(codec)
        except UnicodeDecodeError as exc:
            incomplete = exc.end == len(sequence) and exc.reason.startswith("incomplete")
            if incomplete and len(sequence) < longest:
                pending.extend(sequence + bytes((b,)) for b in extend(sequence))


assert iso_2022_jp not in PYTHON_CODECS  # stateful: see iso_2022_jp's docstring
