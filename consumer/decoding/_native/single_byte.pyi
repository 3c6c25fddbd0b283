# Types of the compiled single-byte decoder (single_byte.c); single_byte.py hands it the tables.
from array import array

# (text, errors), or None when fatal and a byte is not in the table (0xFFFE: no code point).
def decode(table: array[int], data: bytes, fatal: bool, /) -> tuple[str, int] | None: ...
