"""The agreement tables (``detection/agreement.py``) spare detection's multi-byte candidates their CPython codec
without changing a text: ``loops.agreed_decodes`` answers as ``strict_decodes`` does, on pages in every CJK
encoding, on bytes cut anywhere, on each cell where a codec reads otherwise than the standard, and on generated
bytes; the tables shipped are the ones this interpreter's codecs give; and on a page's window they answer for
every candidate without the codec, which is what they are for."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding import build_agreement_tables, detection
from consumer.decoding.codecs import decode_strict
from consumer.decoding.detection import agreement, loops
from consumer.decoding.detection.model import _SCORING_CODECS as SCORING_CODECS

from corpus import corpus

pytestmark = pytest.mark.skipif(
    not detection.COMPILED or agreement.reader("Big5") is None, reason="the _native extensions were not built"
)

#: Each list of candidates ``_Window.decoded`` decodes: its codecs and its readers.
LISTS = [(detection._DECODER_CLASSES[key], detection._READERS[key]) for key in detection._DECODER_CLASSES]


def assert_alike(data: bytes) -> None:
    for decoders, readers in LISTS:
        assert loops.agreed_decodes(data, decoders, readers) == loops.strict_decodes(data, decoders), data


def test_the_shipped_tables_are_this_interpreters_codecs() -> None:
    assert build_agreement_tables.main(["--check"]) == 0


def test_what_the_tables_say_of_cells_known_to_differ() -> None:
    shift_jis, big5, gbk = (agreement.shipped()[name] for name in ("Shift_JIS", "Big5", "GBK"))
    # cp932 reads 0xA0 and 0xFD-0xFF as private-use characters where the standard errors: the codec is asked.
    assert [shift_jis.singles[byte] for byte in (0xA0, 0xFD, 0xFE, 0xFF)] == [agreement.DIFFER] * 4
    assert agreement.reference_reading(b"\x82\xa0\xa0", shift_jis) == (agreement.ASK, 2)
    # big5hkscs reads 0xA145 as U+2022, the standard U+2027.
    assert agreement.reference_reading("中文".encode("big5hkscs") + b"\xa1\x45", big5) == (agreement.ASK, 4)
    # Python's gbk refuses 0x80, the standard's euro sign: the codec would fail, so no decode runs (but at the
    # end, where the codec waits for a second byte before it judges the first).
    assert agreement.reference_reading(b"abc\x80 ", gbk) == (agreement.FAILS, 3)
    assert agreement.reference_reading(b"abc\x80", gbk) == (agreement.AGREES, 3)
    # A lead at the end waits for its trail byte: the part before it is read.
    assert agreement.reference_reading("中".encode("gbk") + b"\xd6", gbk) == (agreement.AGREES, 2)


def test_pages_in_every_cjk_encoding_whole_and_cut_anywhere() -> None:
    pages = [made for made in corpus(1, 40) if made.encoding in agreement.ENCODINGS + ("gb18030",)]
    assert {made.encoding for made in pages} >= set(agreement.ENCODINGS)
    for made in pages:
        window = made.body[:1500]
        assert_alike(window)
        for cut in range(len(window) - 7, len(window)):  # a sequence cut after each of its bytes
            assert_alike(window[:cut])


def test_on_a_pages_window_the_tables_answer_for_every_candidate() -> None:
    text = "中文網頁的內容，繁體字寫成。" * 20
    window = text.encode("big5hkscs")
    readings = {encoding: agreement.reference_reading(window, agreement.shipped()[encoding]) for encoding in agreement.ENCODINGS}
    assert readings["Big5"] == (agreement.AGREES, len(window))
    assert decode_strict("Big5", window) == text
    assert all(kind != agreement.ASK for kind, _ in readings.values())


def test_every_cell_that_differs_is_read_by_the_codec() -> None:
    for encoding, tables in agreement.shipped().items():
        codec = codecs.getincrementaldecoder(SCORING_CODECS[encoding])
        cells = [bytes([byte]) for byte in range(256) if tables.singles[byte] == agreement.DIFFER]
        cells += [
            bytes([index >> 8, index & 0xFF])
            for index in range(0x10000)
            if agreement._unpacked(tables.pairs, index) == agreement.DIFFER
        ]
        assert cells or encoding in ("EUC-KR", "GBK")
        for cell in cells:
            assert codec("strict").decode(cell, final=True) != decode_strict(encoding, cell)
            assert_alike(b"<p>" + cell + "字".encode(SCORING_CODECS[encoding]) + b"</p>")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [b"a", b"\x81", b"\x8e", b"\x8f", b"\xa0", b"\xa1", b"\xa4@", b"\xa1\x45", b"\xb0\xa1", b"\xc8\xfe",
             b"\x8f\xa2\xb7", b"\x80", b"\xfd", b"\xff", b"01", b"\x1b$B"]
        ),
        max_size=40,
    )
)
def test_generated_leads_trails_and_cut_sequences(chunks: list[bytes]) -> None:
    assert_alike(b"".join(chunks))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=60))
def test_generated_bytes(data: bytes) -> None:
    assert_alike(data)


def test_reference_reading_against_the_codecs() -> None:
    for encoding, tables in agreement.shipped().items():
        codec = codecs.getincrementaldecoder(SCORING_CODECS[encoding])
        for made in corpus(2, 10):
            window = made.body[:600]
            kind, where = agreement.reference_reading(window, tables)
            try:
                text = codec("strict").decode(window, final=False)
            except UnicodeDecodeError:
                text = None
            if kind == agreement.FAILS:
                assert text is None
            elif kind == agreement.AGREES:
                assert text == decode_strict(encoding, window[:where])
