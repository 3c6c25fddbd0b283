"""The replacement encoding: implements the Encoding Standard's replacement
decoder (https://encoding.spec.whatwg.org/#replacement-decoder).

Labels such as iso-2022-kr and hz-gb-2312 map here so that content in those
encodings (a known cross-site scripting vector) is never decoded: a non-empty
stream is one error, an empty one is nothing.
"""

from __future__ import annotations


def decode(data: bytes) -> tuple[str, int]:
    return ("\ufffd", 1) if data else ("", 0)


def decode_strict(data: bytes) -> str | None:
    return None if data else ""
