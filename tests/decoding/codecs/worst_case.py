"""Worst-case inputs of the CJK decoders, of any size: what their linearity tests decode (the readable
decoders' steps counted in test_codecs_linear.py, the compiled ones' instructions in
tests/decoding/test_compiled_linear.py).

Each input aims at a way a decoder could do more than one pass of work: an error at every byte
(a decoder that re-read its input after an error), leads whose trail is prepended back, random
bytes, ISO-2022-JP's escapes that consume nothing themselves."""

from __future__ import annotations

import random
from types import ModuleType

from consumer.decoding.codecs import big5, euc_jp, euc_kr, gb18030, shift_jis

# Lead bytes per encoding, and a byte that ends each one's unit wrongly but is not ASCII.
LEADS = {shift_jis: (0x81, 0xE0, 0xFC), euc_jp: (0xA1, 0x8E, 0x8F, 0xAD), euc_kr: (0x81, 0xB0, 0xFE),
         big5: (0x81, 0x87, 0xA4, 0xFE), gb18030: (0x81, 0x84, 0x90, 0xFE)}


def worst_inputs(module: ModuleType, size: int) -> dict[str, bytes]:
    """Inputs of about *size* bytes for the stateless decoder *module* (a key of ``LEADS``)."""
    leads = LEADS[module]
    rng = random.Random(18)
    inputs = {
        "random bytes": rng.randbytes(size),
        "an error at every position": b"\xff" * size,
        "lead then ASCII trail (prepended)": bytes([leads[0], 0x20]) * (size // 2),
        "lead then lead": bytes([leads[0]]) * size,
        "alternating leads and trails, random": bytes(rng.choice(leads + (0x30, 0x40, 0x7F, 0xA1, 0xFE)) for _ in range(size)),
        "valid pairs with an error every other unit": (b"\x81\x40\xff" if module is not euc_jp else b"\xa4\xa2\xff") * (size // 3),
    }
    if module is gb18030:
        inputs["four-byte prefixes cut short"] = b"\x81\x30\x81" * (size // 3)
        inputs["four-byte sequences, bad fourth"] = b"\x81\x30\x81\x7f" * (size // 4)
    if module is euc_jp:
        inputs["0x8F triples cut short"] = b"\x8f\xa1" * (size // 2)
    return inputs


def escape_storms(size: int) -> dict[str, bytes]:
    """ISO-2022-JP inputs of about *size* bytes: escapes without text between, escapes cut short."""
    rng = random.Random(18)
    return {
        "ESC $ B, no text between (output flag errors)": b"\x1b$B" * (size // 3),
        "ESC ( B, no text between": b"\x1b(B" * (size // 3),
        "ESC alone": b"\x1b" * size,
        "ESC $, prepended back": b"\x1b$" * (size // 2),
        "ESC (, prepended back": b"\x1b(" * (size // 2),
        "lead byte then ESC": b"\x1b$B" + b"!\x1b" * (size // 2),
        "escapes and bytes at random": bytes(rng.choice(b"\x1b$(B@JI!~\x0e\x80") for _ in range(size)),
        "random bytes": rng.randbytes(size),
    }
