"""Mojibake: UTF-8 decoded as windows-1252 (or ISO-8859-1) and re-encoded, flagged, never changed.

Every case runs on both tiers of ``strong_sequences``: ``compiled`` (_native/mojibake.c, where it was
built) and ``reference`` (the regex, what runs without a C compiler).  test_mojibake_scan.py checks
on generated inputs that the two always agree.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from consumer.decoding import decode, mojibake
from consumer.decoding.codecs import SUPPORTED
from consumer.decoding.data.whatwg import SINGLE_BYTE
from consumer.decoding.mojibake import MAX_BYTES, looks_double_encoded, utf8_looks_double_encoded

try:
    from consumer.decoding._native.mojibake import strong_sequences as compiled_strong_sequences
except ImportError:  # built without a C compiler
    compiled_strong_sequences = None

TIERS = [
    pytest.param(compiled_strong_sequences, id="compiled",
                 marks=pytest.mark.skipif(compiled_strong_sequences is None, reason="not built")),
    pytest.param(mojibake.reference_strong_sequences, id="reference"),
]  # fmt: skip


@pytest.fixture(scope="module", params=TIERS, autouse=True)
def tier(request):
    """``strong_sequences`` as the tier under test (module-scoped: hypothesis runs its examples inside)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mojibake, "strong_sequences", request.param)
        yield request.param


def double_encoded(text: str, via: str = "cp1252") -> str:
    """What an upstream that decodes UTF-8 as *via* makes of *text*."""
    return text.encode("utf-8").decode(via, errors="replace" if via == "cp1252" else "strict")


@pytest.mark.parametrize(
    "text",
    [
        "CafÃ© au lait",  # é
        "donâ€™t stop",  # ’
        "â€œquotedâ€\x9d and more",  # “ ” (0x9D is undefined in windows-1252: U+009D)
        "Ã¼ber alles und Ã¶fter",  # ü ö
        "Ã‰cole Ã  Paris",  # É à
        "SÃ£o Paulo Ã© a maior",  # ã é: the Portuguese that "SÃO PAULO" is not
        "prix: 20Â â‚¬",  # nbsp (weak) and €
        "Â© 2024 Example",  # ©
        "ÃƒÂ©tÃƒÂ©",  # double double encoding
        "ÐŸÑ€Ð¸Ð²ÐµÑ‚ Ð¼Ð¸Ñ€",  # Cyrillic
        "Î•Î»Î»Î·Î½Î¹ÎºÎ¬",  # Greek
        "Ù…Ø±Ø­Ø¨Ø§",  # Arabic
        "ä¸­æ–‡ç½‘é¡µ",  # Chinese
        "ðŸ˜€ smile",  # an emoji
        "ï»¿<!DOCTYPE html>",  # a BOM decoded as text
    ],
)
def test_flags_double_encoded_text(text):
    assert looks_double_encoded(text)


@pytest.mark.parametrize(
    "original",
    [
        "Le café est très bon, à la française, où naïve Noël s'écrit avec un tréma.",
        "Über die Brücke gehen Mädchen und Jungen, Straße für Straße.",
        "Los niños comían piñas en la mañana. ¿Qué pasó? ¡Olé!",
        "Привет, мир! Это обычный русский текст.",
        "日本語のテキストです。",
        "Ελληνικά γράμματα",
        "emoji 😀 and “quotes” — dashes… ©2024",
    ],
)
def test_flags_what_a_real_round_trip_produces(original):
    assert not looks_double_encoded(original)
    assert looks_double_encoded(double_encoded(original))
    assert looks_double_encoded(double_encoded(original, via="latin-1"))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain ASCII text",
        "SÃO PAULO É A MAIOR CIDADE DO BRASIL",  # Ã followed by a letter
        "«IRMÔ e «MAÇÔ",  # Portuguese capitals before closing quotes: weak only
        "AMANHÃ… TALVEZ",
        "“CAFÉ” and CAFÉ’S",  # É + quote decodes to IPA, not a plausible character
        "Straße »Fuß« und »Maß«",  # ß + guillemet decodes to NKo
        "PERÚ” e AVÓ’",
        "Le café est très bon, à la française, où naïve Noël.",
        "Los niños comían piñas en la mañana. ¿Qué pasó? ¡Olé!",
        "Ç'est 5×3 = 15, 20° Ø 3 mm, Ñandú",
        "x Â y",  # a lone Â before a space
        "A single stray CafÃ© in a long French text: " + "Le café est très bon, à la française. " * 20,
        "日本語のテキストです。中文网页。한국어 텍스트.",
        "Привет, мир!",
    ],
)
def test_does_not_flag_legitimate_text(text):
    assert not looks_double_encoded(text)


def test_two_occurrences_flag_a_long_text():
    text = "Le café est très bon. " * 50 + " CafÃ© et thÃ©."
    assert looks_double_encoded(text)


def test_a_sequence_that_is_not_utf_8_does_not_count():
    # "Ã" + "\x80"-like characters that map back to C3 followed by a non-continuation, or
    # overlong/surrogate forms (E0 80 80, ED A0 80), are not UTF-8.
    assert not looks_double_encoded("à€€ and í\xa0€")  # E0 80 80 is overlong, ED A0 80 a surrogate


@given(st.text(max_size=300))
def test_never_raises_on_random_text(text):
    assert looks_double_encoded(text) in (True, False)


@given(st.text(alphabet=st.sampled_from(list("ÃÂâ€™©¼¶ÐÑðŸ˜aé ”…»\u00a0\x81\x9d")), max_size=200))
def test_never_raises_on_mojibake_alphabet(text):
    assert looks_double_encoded(text) in (True, False)


@given(st.text(alphabet=st.sampled_from(list("ÃÂâ€™©¼ÐÑðŸaé ”…»\u00a0\x81日本")), max_size=400))
def test_the_bodys_bytes_give_the_same_answer_as_the_text(text):
    """decode passes a UTF-8 body's bytes to spare the encoding: the answer must not change."""
    assert utf8_looks_double_encoded(text.encode("utf-8")) == looks_double_encoded(text)


# One strong candidate among few non-ASCII characters: flagged on its own.
_MOJIBAKE = "CafÃ© au lait"


@pytest.mark.parametrize("filler", ["x", "é", "日"])
def test_only_the_first_max_bytes_of_utf_8_are_examined(filler):
    width = len(filler.encode("utf-8"))
    inside = filler * ((MAX_BYTES - len(_MOJIBAKE.encode("utf-8"))) // width) + _MOJIBAKE
    outside = filler * (MAX_BYTES // width + 1) + _MOJIBAKE
    assert len(inside.encode("utf-8")) <= MAX_BYTES < len(outside.encode("utf-8"))
    if filler == "x":
        assert looks_double_encoded(inside)
    assert not looks_double_encoded(outside)
    assert not utf8_looks_double_encoded(outside.encode("utf-8"))


@pytest.mark.parametrize("cut", range(4))
def test_a_window_ending_inside_a_character_keeps_only_whole_characters(cut):
    # Two candidates among a hundred other accented letters (so one alone does not flag); the
    # second "Ã©" (C3 83 C2 A9) ends `cut` bytes past the window.
    text = "é" * 100 + "x" * (MAX_BYTES + cut - 4 - 204) + "Ã©" + "Ã©"
    assert len(text.encode("utf-8")) == MAX_BYTES + cut
    assert looks_double_encoded(text) == utf8_looks_double_encoded(text.encode("utf-8")) == (cut == 0)


@pytest.mark.parametrize("filler", ["中", "é", "é’", "x", "😀"])
@pytest.mark.parametrize("shift", range(-3, 4))
def test_the_text_is_answered_as_its_utf_8_whether_or_not_it_holds_a_lead_and_a_continuation(filler, shift):
    """``looks_double_encoded`` answers a text without a lead character followed by a continuation (CJK, accented
    letters before ASCII) without encoding it: the same answer as its UTF-8's, the pair near the window's end."""
    for spoiled in ("", "Ã©", "Ã©Ã©", "â€™ Ã©", "Ã x Ã©"):
        text = (filler * MAX_BYTES)[: MAX_BYTES // len(filler.encode()) + shift] + spoiled + "ok"
        assert looks_double_encoded(text) == utf8_looks_double_encoded(text.encode("utf-8"))


# -- encodings in which no text can look double-encoded ------------------------------------------

LEAD_CHARACTERS = st.characters(min_codepoint=0xC2, max_codepoint=0xF4)


@given(text=st.text())
def test_a_text_without_a_lead_character_never_looks_double_encoded(text):
    # What possible_in relies on: every flagged sequence starts with a character U+00C2-U+00F4.
    without_leads = "".join(char for char in text if not "\u00c2" <= char <= "\u00f4")
    assert not looks_double_encoded(without_leads)


@pytest.mark.parametrize("encoding", sorted(SINGLE_BYTE))
def test_possible_in_a_single_byte_encoding_exactly_when_it_maps_a_byte_to_a_lead_character(encoding):
    leads = [char for char in SINGLE_BYTE[encoding] if "\u00c2" <= char <= "\u00f4"]
    assert mojibake.possible_in(encoding) is bool(leads)


def test_the_cyrillic_greek_arabic_and_thai_encodings_are_spared_the_check():
    spared = {"windows-1251", "KOI8-R", "KOI8-U", "IBM866", "ISO-8859-5", "x-mac-cyrillic", "windows-1253",
              "ISO-8859-7", "ISO-8859-6", "windows-874"}  # fmt: skip
    assert {encoding for encoding in SUPPORTED if not mojibake.possible_in(encoding)} == spared


@pytest.mark.parametrize("encoding", ["windows-1252", "windows-1250", "windows-1256", "Shift_JIS", "GBK", "UTF-8"])
def test_the_check_runs_where_a_lead_character_can_be_decoded(encoding):
    assert mojibake.possible_in(encoding)


def test_a_double_encoded_page_in_windows_1252_is_still_flagged_through_decode():
    # Its own accents (E9, E8...) are windows-1252, not UTF-8: the label is right and the text it gives is flagged.
    # (Its double-encoded part alone would be valid UTF-8, read as such; and were it most of the page, a few
    # malformed bytes beside it, the page would be read as damaged UTF-8 and quarantined: test_contradiction.py.)
    body = ("Résumé, élève, à côté, déjà, très naïve: " + double_encoded("Café crème.")).encode("cp1252")
    assert decode(body, "text/html; charset=windows-1252").mojibake_suspected
    assert decode(body, "text/html; charset=windows-1252", lazy_text=True).mojibake_suspected
