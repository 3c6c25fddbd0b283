"""The resolution order: one test per "X beats Y", the seed study's cases, strict-first."""

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from consumer.decoding import Decoded, Override, OverrideMode, OverrideTable, decode
from consumer.overrides.loader import load_overrides
from consumer.samples import samples

from resolve_samples import CONTENT_TYPES, HTML, LONG_COMMENT, UTF8_PAGES, meta, page


def override(host="www.example.jp", encoding="Shift_JIS", mode=OverrideMode.FORCE) -> Override:
    return Override(host, encoding, mode, "CDN header is stale since 2024", dt.date(2027, 6, 30), "crawl-team")


# -- the seed study's published cases, as bundled samples -------------------------------


SHIPPED_OVERRIDES = load_overrides(Path(__file__).resolve().parents[2] / "config" / "overrides.yaml").table


@pytest.mark.parametrize("sample", [s for s in samples() if s.expected_text is not None], ids=lambda s: s.name)
def test_seed_sample_decodes_like_a_browser(sample):
    decoded = decode(sample.body, sample.content_type, sample.url, SHIPPED_OVERRIDES)
    assert decoded.encoding == sample.expected_encoding
    assert decoded.source == sample.expected_source
    assert sample.expected_text in decoded.text
    assert not decoded.lossy


def test_shift_jis_fullwidth_tilde_is_not_a_wave_dash():
    body = page("10～20", meta("shift_jis")).encode("cp932")
    assert b"\x81\x60" in body
    decoded = decode(body, HTML)
    assert "10\uff5e20" in decoded.text and "\u301c" not in decoded.text


def test_utf8_declared_only_in_meta_is_not_latin1():
    """requests' failure mode: no charset in the header, so it falls back to ISO-8859-1."""
    decoded = decode(page("Café 価格", meta("utf-8")).encode("utf-8"), "text/html")
    assert "Café 価格" in decoded.text
    assert (decoded.encoding, decoded.source) == ("UTF-8", "meta-prescan")
    assert decoded.declared["header"] is None


def test_a_stale_latin1_header_without_override_is_read_as_utf8():
    """Browsers believe the header and show mojibake; a valid UTF-8 body it would garble is read as UTF-8
    (contradiction.py; the shipped CDN override says so explicitly, and records why)."""
    sample = next(s for s in samples() if s.name == "cdn-stale-latin1-header")
    decoded = decode(sample.body, sample.content_type, sample.url)
    assert (decoded.encoding, decoded.source) == ("UTF-8", "utf-8-over-declaration")
    assert decoded.text == sample.body.decode("utf-8") and not decoded.mojibake_suspected and not decoded.lossy
    assert decoded.declared["header"] == "windows-1252"


def test_iso_8859_1_header_means_windows_1252_with_the_euro():
    decoded = decode(page("20 €").encode("cp1252"), "text/html; charset=ISO-8859-1")
    assert (decoded.encoding, decoded.source) == ("windows-1252", "http-header")
    assert "20 €" in decoded.text


# -- X beats Y ------------------------------------------------------------------------


def test_bom_beats_header():
    decoded = decode(b"\xef\xbb\xbf" + page("Grüße").encode("utf-8"), "text/html; charset=iso-8859-1")
    assert (decoded.encoding, decoded.source) == ("UTF-8", "bom")
    assert decoded.declared == {"bom": "UTF-8", "header": "windows-1252", "meta": None, "xml": None}
    assert not decoded.text.startswith("\ufeff"), "the BOM is stripped"
    assert any("bom" in c and "header" in c for c in decoded.conflicts)


def test_bom_beats_force_override():
    body = b"\xef\xbb\xbf" + page("日本").encode("utf-8")
    decoded = decode(body, HTML, "https://www.example.jp/", [override()])
    assert decoded.source == "bom"
    assert decoded.override is None


# -- a byte order mark is final ------------------------------------------------------------
# The Encoding Standard's decode takes the BOM's encoding and never looks further: malformed
# bytes after it are replaced and counted, not a reason to try the header, <meta> or detector.


def test_utf8_bom_with_a_page_cut_mid_character_stays_utf8_and_is_lossy():
    body = b"\xef\xbb\xbf" + page("Café").encode("utf-8") + "é".encode()[:1]
    decoded = decode(body, "text/html; charset=iso-8859-1")
    assert (decoded.encoding, decoded.source) == ("UTF-8", "bom")
    assert decoded.replacements == 1 and decoded.lossy
    assert decoded.text.startswith("<!DOCTYPE html>") and "Café" in decoded.text
    assert decoded.text.endswith("\ufffd")
    assert "ï»¿" not in decoded.text and "CafÃ©" not in decoded.text
    assert any("bom UTF-8" in c and "without errors" in c for c in decoded.conflicts)


def test_odd_length_utf16le_page_stays_utf16le():
    body = b"\xff\xfe" + page("Grüße").encode("utf-16-le") + b"<"
    decoded = decode(body, "text/html; charset=iso-8859-1")
    assert (decoded.encoding, decoded.source, decoded.replacements) == ("UTF-16LE", "bom", 1)
    assert decoded.text == page("Grüße") + "\ufffd"


@pytest.mark.parametrize(
    "body, encoding, text",
    [
        (b"\xef\xbb\xbf\xd6", "UTF-8", "\ufffd"),  # was windows-1252 "ï»¿Ö"
        (b"\xff\xfe\xd9\xde", "UTF-16LE", "\ufffd"),  # a lone trail surrogate; was ISO-8859-5 by the detector
        (b"\xfe\xff\xd8\x00", "UTF-16BE", "\ufffd"),  # a lone lead surrogate
    ],
    ids=["utf-8", "utf-16le", "utf-16be"],
)
def test_a_bom_with_nothing_else_declared_is_not_second_guessed_by_the_detector(body, encoding, text):
    decoded = decode(body, None)
    assert (decoded.encoding, decoded.source) == (encoding, "bom")
    assert decoded.text == text


@pytest.mark.parametrize("lazy_text", [False, True])
def test_a_bom_beats_a_header_even_when_the_header_would_decode_cleanly(lazy_text):
    body = b"\xef\xbb\xbf" + "Ж".encode("cp1251") + b" text"
    decoded = decode(body, "text/html; charset=windows-1251", lazy_text=lazy_text)
    assert (decoded.encoding, decoded.source, decoded.replacements) == ("UTF-8", "bom", 1)
    assert decoded.text == "\ufffd text"


def test_force_override_beats_header_and_meta():
    body = page("日本語", meta("utf-8")).encode("cp932")
    decoded = decode(body, "text/html; charset=utf-8", "https://www.example.jp/a", [override()])
    assert (decoded.encoding, decoded.source) == ("Shift_JIS", "override")
    assert decoded.override == override()
    assert "日本語" in decoded.text


def test_header_beats_meta():
    decoded = decode(page("臺灣", meta("big5")).encode("utf-8"), "text/html; charset=utf-8")
    assert (decoded.encoding, decoded.source) == ("UTF-8", "http-header")
    assert decoded.declared["meta"] == "Big5"
    assert any("header" in c and "meta" in c for c in decoded.conflicts)


def test_meta_beats_utf8_validity_and_detection():
    # Pure ASCII is valid UTF-8, yet the meta declaration decides.
    decoded = decode(page("plain", meta("windows-1251")).encode("ascii"), HTML)
    assert (decoded.encoding, decoded.source) == ("windows-1251", "meta-prescan")


def test_late_meta_is_honoured_when_the_prescan_finds_nothing():
    head = "<script>" + "var x = 1;\n" * 150 + "</script>" + meta("windows-1251")
    body = page("Привет", head).encode("cp1251")
    assert body.index(b"<meta") > 1024
    decoded = decode(body, HTML)
    assert (decoded.encoding, decoded.source) == ("windows-1251", "meta-late")
    assert decoded.declared["meta"] is None
    assert "Привет" in decoded.text


def test_meta_prescan_beats_late_meta():
    body = page("Привет", meta("windows-1251") + LONG_COMMENT + meta("koi8-r")).encode("cp1251")
    decoded = decode(body, HTML)
    assert (decoded.encoding, decoded.source) == ("windows-1251", "meta-prescan")


def test_header_beats_late_meta():
    body = page("Привет", LONG_COMMENT + meta("koi8-r")).encode("cp1251")
    decoded = decode(body, "text/html; charset=windows-1251")
    assert (decoded.encoding, decoded.source) == ("windows-1251", "http-header")


def test_late_meta_beats_utf8_validity():
    decoded = decode(page("plain", LONG_COMMENT + meta("windows-1251")).encode("ascii"), HTML)
    assert (decoded.encoding, decoded.source) == ("windows-1251", "meta-late")


def test_xml_declaration_is_used_for_xml_types_only():
    body = '<?xml version="1.0" encoding="ISO-8859-2"?><a>Łódź</a>'.encode("iso8859_2")
    decoded = decode(body, "application/xml")
    assert (decoded.encoding, decoded.source) == ("ISO-8859-2", "xml-declaration")
    assert "Łódź" in decoded.text
    assert decode(body, "text/html").source != "xml-declaration"


def test_header_beats_xml_declaration():
    body = '<?xml version="1.0" encoding="ISO-8859-2"?><a>x</a>'.encode("ascii")
    decoded = decode(body, "application/xml; charset=utf-8")
    assert decoded.source == "http-header"
    assert decoded.declared["xml"] == "ISO-8859-2"


def test_xml_declaration_beats_utf8_validity():
    decoded = decode(b'<?xml version="1.0" encoding="windows-1251"?><a>x</a>', "application/xml")
    assert (decoded.encoding, decoded.source) == ("windows-1251", "xml-declaration")


def test_json_is_utf8_whatever_the_charset_says():
    decoded = decode('{"a": "Zoë"}'.encode(), "application/json; charset=iso-8859-1")
    assert (decoded.encoding, decoded.source) == ("UTF-8", "json")
    assert decoded.text == '{"a": "Zoë"}'


def test_json_bom_says_otherwise():
    decoded = decode(b"\xff\xfe" + '{"a": 1}'.encode("utf-16-le"), "application/json")
    assert (decoded.encoding, decoded.source) == ("UTF-16LE", "bom")


def test_valid_utf8_beats_detection():
    decoded = decode(page("Grüße aus Köln").encode("utf-8"), HTML)
    assert (decoded.encoding, decoded.source) == ("UTF-8", "utf-8-valid")


def test_force_override_beats_utf8_validity():
    table = OverrideTable([override(encoding="windows-1251")])
    decoded = decode(page("plain").encode("ascii"), HTML, "https://www.example.jp/", table)
    assert (decoded.encoding, decoded.source) == ("windows-1251", "override")


def test_valid_utf8_beats_a_fallback_override():
    table = OverrideTable([override(encoding="EUC-JP", mode=OverrideMode.FALLBACK)])
    decoded = decode(page("日本語").encode("utf-8"), HTML, "https://www.example.jp/", table)
    assert (decoded.encoding, decoded.source, decoded.override) == ("UTF-8", "utf-8-valid", None)


def test_fallback_override_beats_detection_but_not_declarations():
    body = page("日本語のページ").encode("euc_jp")
    table = OverrideTable([override(encoding="EUC-JP", mode=OverrideMode.FALLBACK)])
    decoded = decode(body, HTML, "https://www.example.jp/", table)
    assert (decoded.encoding, decoded.source) == ("EUC-JP", "override")
    declared = decode(page("日本語", meta("utf-8")).encode("utf-8"), HTML, "https://www.example.jp/", table)
    assert declared.source == "meta-prescan"
    assert declared.override is None


def test_detection_with_tld_when_nothing_is_declared():
    body = page("日本語のページです。東京都の天気予報、今日は晴れのち曇りでしょう。").encode("cp932")
    decoded = decode(body, HTML, "https://www.example.co.jp/")
    assert (decoded.encoding, decoded.source) == ("Shift_JIS", "detector")
    assert decoded.confidence is not None and 0 <= decoded.confidence <= 1


# -- strict first, and honest about loss ------------------------------------------------


def test_a_declaration_that_fails_strictly_gives_way_to_the_next():
    body = page("日本語", meta("shift_jis")).encode("utf-8")  # mislabelled: really UTF-8
    decoded = decode(body, HTML)
    assert decoded.encoding == "UTF-8" and not decoded.lossy
    assert any("Shift_JIS" in c and "without errors" in c for c in decoded.conflicts)


def test_damaged_utf8_is_lossy_not_guessed_into_mojibake():
    body = page("Crème brûlée à la française, déjà vu", meta("utf-8")).encode("utf-8").replace(b"vu", b"vu \xff")
    decoded = decode(body, HTML)
    assert decoded.lossy and decoded.replacements == 1
    assert (decoded.encoding, decoded.source) == ("UTF-8", "meta-prescan")
    assert "Crème brûlée" in decoded.text


def test_replacement_label_never_yields_text_silently():
    decoded = decode(page("abc", meta("iso-2022-kr")).encode("ascii"), HTML)
    assert decoded.declared["meta"] == "replacement"
    assert decoded.encoding != "replacement" and "abc" in decoded.text


def test_mojibake_is_flagged_not_changed():
    text = page("Itâ€™s a cafÃ© in SÃ£o Paulo")
    decoded = decode(text.encode("utf-8"), "text/html; charset=utf-8")
    assert decoded.mojibake_suspected
    assert "cafÃ©" in decoded.text
    assert not decode(page("It’s a café").encode("utf-8"), HTML).mojibake_suspected


@pytest.mark.parametrize("lazy_text", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("body", [b"abc", "café".encode("cp1252")], ids=["valid UTF-8", "windows-1252"])
def test_decoded_is_immutable(body, lazy_text):
    decoded = decode(body, lazy_text=lazy_text)
    fields = ("text", "built_text", "utf8", "encoding", "source", "replacements", "declared", "conflicts")
    for field in fields:
        with pytest.raises(AttributeError):
            setattr(decoded, field, "x")
        with pytest.raises(AttributeError):
            delattr(decoded, field)
    with pytest.raises(TypeError):
        decoded.declared["meta"] = "UTF-8"
    assert type(decoded) is Decoded


@pytest.mark.parametrize("body", [page("Grüße aus 東京"), "\ufeff" + page("Grüße aus 東京")], ids=["undisputed", "BOM"])
def test_a_lazy_valid_utf8_decode_gives_its_bytes_and_builds_no_text(body):
    body = body.encode("utf-8")
    decoded = decode(body, HTML, lazy_text=True)
    payload = body.removeprefix(b"\xef\xbb\xbf")
    # The processor writes these bytes and never reads the text.
    assert decoded.built_text is None and decoded.utf8 == payload
    assert decode(body, HTML).utf8 is None and decode(body, HTML).built_text == payload.decode("utf-8")
    assert decoded.text == payload.decode("utf-8")
    eager = Decoded(payload.decode("utf-8"), "UTF-8", decoded.source, 0, decoded.declared, (), None, False, None)
    assert decoded == eager
    assert decoded != eager.as_dict() and decoded != Decoded("other", "UTF-8", decoded.source)


def test_empty_body():
    decoded = decode(b"")
    assert decoded.text == "" and not decoded.lossy


def test_an_idn_host_matches_its_punycode_override():
    table = OverrideTable([override(host="xn--bcher-kva.example")])
    body = page("日本語").encode("cp932")
    assert decode(body, HTML, "https://bücher.example/", table).source == "override"


@pytest.mark.parametrize(
    ("text", "url"), [("Привет, это страница \x1b$B про погоду", None), ("日本語のページ \x1b$B です", "http://www.example.jp/")]
)
def test_a_stray_iso_2022_jp_escape_in_a_utf8_page_leaves_it_utf8(text, url):
    # Bytes >= 0x80 rule ISO-2022-JP out: the escape must not hand the page to the detector.
    body = page(text).encode("utf-8")
    decoded = decode(body, HTML, url)
    assert (decoded.encoding, decoded.source, decoded.text) == ("UTF-8", "utf-8-valid", page(text))


def test_undeclared_iso_2022_jp_is_not_taken_for_utf8():
    body = page("日本語のページです。今日は晴れです。").encode("iso2022_jp")
    assert body.isascii()
    decoded = decode(body, HTML, "https://www.example.jp/")
    assert (decoded.encoding, decoded.source) == ("ISO-2022-JP", "detector")
    assert "日本語のページです" in decoded.text


# -- Decoded.utf8: the text's UTF-8 of a lazy decode, whenever it has no replacements ---------------


@given(body=UTF8_PAGES, content_type=st.sampled_from(CONTENT_TYPES))
def test_utf8_is_the_texts_utf8_or_none(body, content_type):
    decoded = decode(body, content_type, lazy_text=True)
    if decoded.lossy or decoded.binary is not None:  # a text with U+FFFD added, or none at all
        assert decoded.utf8 is None
    else:
        assert decoded.utf8 == decoded.text.encode("utf-8")
        if decoded.encoding == "UTF-8" and decoded.source != "bom":
            assert decoded.utf8 is body  # the body's own bytes, not a copy


def test_utf8_leaves_out_the_bom_the_decode_stripped():
    body = b"\xef\xbb\xbf" + page("café").encode("utf-8")
    decoded = decode(body, "text/html; charset=iso-8859-1", lazy_text=True)
    assert decoded.source == "bom"
    assert decoded.utf8 == decoded.text.encode("utf-8") == body[3:]


# -- a late <meta> is the weakest declaration ---------------------------------------------


def test_a_late_meta_that_fails_strictly_gives_way_to_a_clean_guess_at_any_confidence():
    # "ñ" alone is windows-1252 by the detector at confidence < 0.5.
    late = page("ñ", "<!--" + "x" * 1100 + "-->" + meta("utf-8")).encode("cp1252")
    decoded = decode(late, HTML)
    assert (decoded.encoding, decoded.source, decoded.lossy) == ("windows-1252", "detector", False)
    assert decoded.confidence < 0.5 and "<p>ñ</p>" in decoded.text
    assert any("meta-late UTF-8 does not decode" in c for c in decoded.conflicts)
    # The same <meta> within the prescan's window is a firm declaration: a guess that unsure is not
    # taken over it, and the page is reported lossy instead.
    early = page("ñ", meta("utf-8")).encode("cp1252")
    assert (decode(early, HTML).source, decode(early, HTML).lossy) == ("meta-prescan", True)


def test_the_issues_late_meta_examples_publish_the_pages_own_text():
    """Issue 17: a <meta> in a script is not a declaration; the page is decoded by what it is."""
    comment = "<!--" + "x" * 1100 + "-->"
    in_string = page("Привет, как дела? Это страница на русском языке.", comment + "<script>var s='<meta charset=\"koi8-r\">';</script>")
    decoded = decode(in_string.encode("cp1251"), HTML)
    assert (decoded.encoding, decoded.source) == ("windows-1251", "detector")
    assert "Привет, как дела?" in decoded.text
    in_comment = page("Crème brûlée, déjà vu", comment + '<script>/* <meta charset="hz-gb-2312"> */</script>')
    decoded = decode(in_comment.encode("cp1252"), HTML)
    assert (decoded.encoding, decoded.lossy) == ("windows-1252", False)
    assert "Crème brûlée, déjà vu" in decoded.text


@pytest.mark.parametrize("lazy_text", [False, True])
def test_an_unknown_late_meta_charset_is_recorded_in_conflicts(lazy_text):
    body = page("Grüße", LONG_COMMENT + meta("utf8x")).encode()
    decoded = decode(body, HTML, lazy_text=lazy_text)
    assert (decoded.encoding, decoded.source) == ("UTF-8", "utf-8-valid")
    assert "meta-late charset 'utf8x' is not a known encoding: ignored" in decoded.conflicts


# -- what is declared but not understood is said ------------------------------------------


@pytest.mark.parametrize("body", [page("abc").encode(), page("Grüße").encode(), page("Grüße").encode("cp1252")])
@pytest.mark.parametrize("lazy_text", [False, True])
def test_an_unknown_header_charset_is_recorded_in_conflicts(body, lazy_text):
    decoded = decode(body, "text/html; charset=utf8x", lazy_text=lazy_text)
    assert decoded.declared["header"] is None
    assert "http-header charset 'utf8x' is not a known encoding: ignored" in decoded.conflicts


@pytest.mark.parametrize(
    "head",
    [meta("utf8x"), '<meta http-equiv="Content-Type" content="text/html; charset=utf8x">'],
    ids=["charset", "http-equiv"],
)
@pytest.mark.parametrize("content_type", [HTML, "text/html; charset=utf-8"])
@pytest.mark.parametrize("lazy_text", [False, True])
def test_an_unknown_meta_charset_is_recorded_in_conflicts(head, content_type, lazy_text):
    decoded = decode(page("Grüße", head).encode(), content_type, lazy_text=lazy_text)
    assert (decoded.encoding, decoded.declared["meta"]) == ("UTF-8", None)
    assert "meta-prescan charset 'utf8x' is not a known encoding: ignored" in decoded.conflicts


def test_a_known_meta_charset_after_an_unknown_one_still_decides():
    decoded = decode(page("Привет", meta("utf8x") + meta("windows-1251")).encode("cp1251"), HTML)
    assert (decoded.encoding, decoded.source) == ("windows-1251", "meta-prescan")


def test_the_word_charset_in_the_text_is_no_conflict():
    decoded = decode(page("set the charset of your page").encode(), HTML)
    assert decoded.conflicts == ()


def test_an_empty_header_charset_is_recorded_too():
    decoded = decode(page("abc").encode(), 'text/html; charset=""')
    assert any("http-header charset ''" in c for c in decoded.conflicts)


# -- XML's own default ----------------------------------------------------------------------


def test_undeclared_xml_is_utf8_before_the_iso_2022_jp_escape_check():
    body = b"<?xml version='1.0'?><a>" + "日本".encode("iso2022_jp") + b"</a>"
    assert b"\x1b$B" in body and body.isascii()
    decoded = decode(body, "application/xml")
    assert (decoded.encoding, decoded.source) == ("UTF-8", "utf-8-valid")
    assert decode(body, HTML).encoding == "ISO-2022-JP"  # an HTML page's escapes are still looked at


# -- detection sees the text, not only the first 64 KiB ------------------------------------


SCRIPT_70_KIB = "<script>" + "var counter = counter + 1; // update\n" * 1900 + "</script>"


@pytest.mark.parametrize(
    "text, codec, encoding",
    [
        ("Привет, как дела? Это страница на русском языке о погоде в Москве.", "cp1251", "windows-1251"),
        ("日本語のページです。東京都の天気予報、今日は晴れのち曇りでしょう。", "cp932", "Shift_JIS"),
        ("한국어 페이지입니다. 서울의 날씨는 오늘 맑고 내일은 비가 오겠습니다.", "cp949", "EUC-KR"),
        ("Ελληνική σελίδα για τον καιρό στην Αθήνα, σήμερα και αύριο.", "cp1253", "windows-1253"),
    ],
    ids=["windows-1251", "Shift_JIS", "EUC-KR", "windows-1253"],
)
def test_detection_finds_the_text_after_64_kib_of_inline_script(text, codec, encoding):
    body = page(text, SCRIPT_70_KIB).encode(codec)
    assert body.index(text[0].encode(codec)) > 64 * 1024
    decoded = decode(body, HTML)
    assert (decoded.encoding, decoded.source, decoded.lossy) == (encoding, "detector", False)
    assert text in decoded.text


# -- nothing declared: the detector's guess is the browser's choice, failing strictly or not ---------------


def test_an_undeclared_page_cut_mid_character_is_its_detected_encoding_with_the_cut_counted():
    # A crawler's size limit cut the page after the lead byte of 曇: CED shows it as Shift_JIS with one U+FFFD.
    body = page("日本語のページです。東京都の天気予報、今日は晴れのち曇りでしょう。" * 3).encode("cp932")
    cut = body[: body.rindex("曇".encode("cp932")) + 1]
    decoded = decode(cut, HTML)
    assert (decoded.encoding, decoded.source, decoded.replacements, decoded.lossy) == ("Shift_JIS", "detector", 1, True)
    assert decoded.text.endswith("今日は晴れのち\ufffd") and decoded.confidence > 0.5
    assert "detector Shift_JIS does not decode without errors" in decoded.conflicts
    whole = decode(body, HTML)
    assert (whole.encoding, whole.source, whole.lossy) == ("Shift_JIS", "detector", False)


def test_an_undeclared_single_byte_page_with_an_unmapped_byte_is_its_detected_encoding_lossy():
    # 0xFF is unmapped in windows-1253: the Greek page has one U+FFFD, not windows-1252's "ÅëëçíéêÞ".
    body = page("Ελληνική σελίδα για τον καιρό στην Αθήνα, σήμερα και αύριο. " * 3).encode("cp1253") + b"\xff"
    decoded = decode(body, HTML)
    assert (decoded.encoding, decoded.source, decoded.replacements) == ("windows-1253", "detector", 1)
    assert "Ελληνική σελίδα" in decoded.text


def test_a_declared_page_that_fails_strictly_stays_the_declarations_when_the_guess_fails_too():
    # The browser's choice is the declaration: the guess (Shift_JIS, failing too) does not replace it.
    body = page("日本語のページです。東京都の天気予報、今日は晴れのち曇りでしょう。" * 3).encode("cp932")
    decoded = decode(body[: body.rindex("曇".encode("cp932")) + 1], "text/html; charset=euc-kr")
    assert (decoded.encoding, decoded.source, decoded.lossy) == ("EUC-KR", "http-header", True)
