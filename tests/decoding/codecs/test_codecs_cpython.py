"""The one table of CPython codecs closest to the standard's encodings (``codecs.cpython``)."""

from __future__ import annotations

import codecs

import pytest

from consumer.decoding.codecs import decode_strict
from consumer.decoding.codecs.cpython import DECODERS, ENCODERS
from consumer.decoding.codecs.single_byte import TABLES
from consumer.decoding.labels import ENCODINGS

# Everyday text of each encoding's script, which each codec of the table writes and reads as the standard does.
SAMPLES = {
    "UTF-8": "Grüße, 日本語, 😀", "UTF-16LE": "Grüße, 日本語, 😀", "UTF-16BE": "Grüße, 日本語, 😀",
    "Shift_JIS": "日本語のページ、ｶﾀｶﾅ", "EUC-JP": "日本語のページ",
    "ISO-2022-JP": "日本語のページ、ｶﾀｶﾅ",
    "EUC-KR": "한국어 페이지", "Big5": "中文網頁", "gb18030": "中文网页 𠀀", "GBK": "中文网页",
}  # fmt: skip


def test_every_encoding_but_the_single_byte_ones_and_replacement_has_its_codec():
    assert set(DECODERS) == set(ENCODERS) == set(ENCODINGS) - set(TABLES) - {"replacement"}
    for codec in {*DECODERS.values(), *ENCODERS.values()}:
        codecs.lookup(codec)  # a typo would raise LookupError


@pytest.mark.parametrize("encoding", sorted(DECODERS))
def test_each_codec_writes_and_reads_its_encoding_as_the_standard_does(encoding):
    body = SAMPLES[encoding].encode(ENCODERS[encoding])
    assert decode_strict(encoding, body) == SAMPLES[encoding] == body.decode(DECODERS[encoding])


def test_gbk_reads_with_gb18030_and_writes_with_gbk():
    """The standard's GBK decoder is gb18030's (four-byte sequences included); its encoder writes none."""
    four_bytes = "𠀀".encode("gb18030")
    assert decode_strict("GBK", four_bytes) == four_bytes.decode(DECODERS["GBK"]) == "𠀀"
    with pytest.raises(UnicodeEncodeError):
        "𠀀".encode(ENCODERS["GBK"])
