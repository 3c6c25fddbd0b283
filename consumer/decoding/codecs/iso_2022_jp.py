"""ISO-2022-JP: implements the Encoding Standard's ISO-2022-JP decoder
(https://encoding.spec.whatwg.org/#iso-2022-jp-decoder) in pure Python.

A state machine switched by escape sequences: ESC ( B ASCII, ESC ( J Roman
(JIS X 0201: 0x5C is U+00A5, 0x7E is U+203E), ESC ( I halfwidth katakana,
ESC $ @ and ESC $ B JIS X 0208 (two bytes 0x21..0x7E, index jis0208).  The
output flag makes an escape sequence directly after another one an error
(no text in between is a known way to smuggle content past filters).

Python's iso2022_jp codec is not used at all: it accepts escape sequences the
standard does not (JIS X 0212, ESC ( I in some variants), does not apply the
output flag rule, and its decode of ESC $ @ uses a different table.
"""

from __future__ import annotations

import re

from ..data.whatwg import INDEX_JIS0208
from ._stream import REPLACEMENT, index_code_point

ASCII, ROMAN, KATAKANA, LEAD_BYTE, TRAIL_BYTE, ESCAPE_START, ESCAPE = range(7)

#: The escape sequences that switch to Roman, katakana or JIS X 0208 (ESC ( J, ESC ( I, ESC $ @,
#: ESC $ B): 7-bit bytes holding one are ISO-2022-JP text rather than ASCII (resolve.py, detection/).
SWITCHING_ESCAPE = re.compile(rb"\x1b(?:\$[@B]|\([JI])")

# Bytes that stand for themselves in the ASCII state (and, but for 0x5C and
# 0x7E, in the Roman state).
_ASCII_RUN = re.compile(rb"[\x00-\x0d\x10-\x1a\x1c-\x7f]+")
_ROMAN_RUN = re.compile(rb"[\x00-\x0d\x10-\x1a\x1c-\x5b\x5d-\x7d\x7f]+")
_ESCAPES: dict[tuple[int, int | None], int] = {
    (0x28, 0x42): ASCII,
    (0x28, 0x4A): ROMAN,
    (0x28, 0x49): KATAKANA,
    (0x24, 0x40): LEAD_BYTE,
    (0x24, 0x42): LEAD_BYTE,
}


def decode(data: bytes, fatal: bool = False) -> tuple[str, int] | None:
    """Decode *data* to (text, errors); with *fatal*, None at the first error."""
    decoder = _Decoder(data, fatal)
    return decoder.run()


class _Decoder:
    """The decoder's state, named as in the standard."""

    def __init__(self, data: bytes, fatal: bool) -> None:
        self.data = data
        self.fatal = fatal
        self.state = ASCII
        self.output_state = ASCII
        self.lead = 0
        self.output_flag = False
        self.out: list[str] = []
        self.errors = 0

    def run(self) -> tuple[str, int] | None:
        data, n = self.data, len(self.data)
        i = 0
        handlers = {
            ASCII: self._ascii,
            ROMAN: self._roman,
            KATAKANA: self._katakana,
            LEAD_BYTE: self._lead_byte,
            TRAIL_BYTE: self._trail_byte,
            ESCAPE_START: self._escape_start,
            ESCAPE: self._escape,
        }
        while True:
            byte = data[i] if i < n else None
            # Each handler returns how far to move: 0 prepends the byte back,
            # -1 also the byte before it; None means finished.
            step = handlers[self.state](byte, data, i)
            if step is None:
                return "".join(self.out), self.errors
            if self.fatal and self.errors:
                return None
            i += step

    def _error(self) -> None:
        self.errors += 1
        self.out.append(REPLACEMENT)

    def _emit(self, text: str) -> None:
        self.output_flag = False
        self.out.append(text)

    def _ascii(self, byte: int | None, data: bytes, i: int) -> int | None:
        return self._single(byte, data, i, _ASCII_RUN, None)

    def _roman(self, byte: int | None, data: bytes, i: int) -> int | None:
        return self._single(byte, data, i, _ROMAN_RUN, {0x5C: "\u00a5", 0x7E: "\u203e"})

    def _single(
        self, byte: int | None, data: bytes, i: int, run: re.Pattern[bytes], special: dict[int, str] | None
    ) -> int | None:
        if byte is None:
            return None
        if byte == 0x1B:
            self.state = ESCAPE_START
            return 1
        if special and byte in special:
            self._emit(special[byte])
            return 1
        match = run.match(data, i)
        if match:
            self._emit(match.group().decode("ascii"))
            return match.end() - i
        self.output_flag = False
        self._error()
        return 1

    def _katakana(self, byte: int | None, data: bytes, i: int) -> int | None:
        if byte is None:
            return None
        if byte == 0x1B:
            self.state = ESCAPE_START
        elif 0x21 <= byte <= 0x5F:
            self._emit(chr(0xFF61 - 0x21 + byte))
        else:
            self.output_flag = False
            self._error()
        return 1

    def _lead_byte(self, byte: int | None, data: bytes, i: int) -> int | None:
        if byte is None:
            return None
        if byte == 0x1B:
            self.state = ESCAPE_START
        elif 0x21 <= byte <= 0x7E:
            self.output_flag = False
            self.lead = byte
            self.state = TRAIL_BYTE
        else:
            self.output_flag = False
            self._error()
        return 1

    def _trail_byte(self, byte: int | None, data: bytes, i: int) -> int | None:
        if byte == 0x1B:
            self.state = ESCAPE_START
            self._error()
            return 1
        self.state = LEAD_BYTE
        if byte is None:
            # End of stream is prepended back: the lead byte state finishes.
            self._error()
            return 0
        if 0x21 <= byte <= 0x7E:
            code_point = index_code_point(INDEX_JIS0208, (self.lead - 0x21) * 94 + byte - 0x21)
            if code_point is not None:
                self.out.append(code_point)
                return 1
        self._error()
        return 1

    def _escape_start(self, byte: int | None, data: bytes, i: int) -> int | None:
        if byte == 0x24 or byte == 0x28:
            self.lead = byte
            self.state = ESCAPE
            return 1
        self.output_flag = False
        self.state = self.output_state
        self._error()
        return 0

    def _escape(self, byte: int | None, data: bytes, i: int) -> int | None:
        lead, self.lead = self.lead, 0
        state = _ESCAPES.get((lead, byte))
        if state is not None:
            self.state = self.output_state = state
            output, self.output_flag = self.output_flag, True
            # An escape sequence right after another one (no output between) is an error.
            if output:
                self._error()
            return 1
        # The lead (0x24 or 0x28) and the byte are prepended back.
        self.output_flag = False
        self.state = self.output_state
        self._error()
        return -1


_SHIFTS = re.compile(rb"[\x0e\x0f\x1b]")


def is_plain(data: bytes) -> bool:
    """True if *data* decodes to itself: ASCII without ESC, SO or SI."""
    return data.isascii() and _SHIFTS.search(data) is None
