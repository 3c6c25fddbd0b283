"""Labelled detection cases, the API's guarantees, and hostile input."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consumer.decoding.detection import LANGUAGES, MAX_EXAMINED, TLD_BONUS, TLD_HINTS, Detection, detect, ranked, scores
from consumer.decoding.labels import ENCODINGS

from corpus import decode, encode
from handwritten import TEXTS, html


def page_in(language: str, encoding: str, repeat: int = 3) -> bytes:
    body = encode(html(TEXTS[language], repeat), encoding)
    assert body is not None
    return body


@pytest.mark.parametrize(
    ("language", "encoding", "tld"),
    [
        ("ja", "Shift_JIS", "jp"),
        ("ja", "Shift_JIS", None),
        ("ja", "EUC-JP", "jp"),
        ("ja", "EUC-JP", None),
        ("ru", "windows-1251", None),
        ("ru", "windows-1251", "ru"),
        ("ru", "KOI8-R", None),
        ("ru", "KOI8-R", "ru"),
        ("ru", "IBM866", None),
        ("ru", "ISO-8859-5", None),
        ("ko", "EUC-KR", None),
        ("ko", "EUC-KR", "kr"),
        ("zh_cn", "GBK", None),
        ("zh_cn", "GBK", "cn"),
        ("zh_tw", "Big5", None),
        ("zh_tw", "Big5", "tw"),
        ("el", "windows-1253", None),
        ("el", "ISO-8859-7", "gr"),
        ("pl", "windows-1250", None),
        ("pl", "ISO-8859-2", "pl"),
    ],
)
def test_hand_written_pages_are_detected(language: str, encoding: str, tld: str | None) -> None:
    result = detect(page_in(language, encoding), tld)
    assert result.encoding == encoding
    assert result.confidence > 0.5


@pytest.mark.parametrize(
    ("language", "encoding"),
    [
        ("fr", "windows-1252"),
        ("de", "windows-1252"),
        ("es", "windows-1252"),
        ("pt", "windows-1252"),
        ("is", "windows-1252"),  # its "ð" and "þ" are windows-1257's "š" and "ž", windows-1254's "ğ" and "ş"
        ("tr", "windows-1254"),
        ("cs", "windows-1250"),
        ("cs", "ISO-8859-2"),
        ("hu", "windows-1250"),
        ("lt", "windows-1257"),
        ("lv", "windows-1257"),
        ("et", "windows-1257"),
        ("he", "windows-1255"),
        ("ar", "windows-1256"),
        ("ar", "ISO-8859-6"),
        ("th", "windows-874"),
        ("vi", "windows-1258"),
        ("uk", "KOI8-U"),
        ("uk", "windows-1251"),
        ("bg", "windows-1251"),
        ("ru", "x-mac-cyrillic"),
    ],
)
def test_one_hand_written_paragraph_decodes_to_its_text(language: str, encoding: str) -> None:
    # Encodings that decode the paragraph alike are equally right (Hungarian reads the same in ISO-8859-2).
    text = html(TEXTS[language], repeat=1)
    body = encode(text, encoding)
    assert body is not None
    assert decode(body, detect(body).encoding) == text


def test_koi8_r_and_windows_1251_tell_the_same_text_apart() -> None:
    assert detect(page_in("ru", "KOI8-R")).encoding == "KOI8-R"
    assert detect(page_in("ru", "windows-1251")).encoding == "windows-1251"


def test_big5_and_gbk_tell_chinese_pages_apart_even_against_the_hint() -> None:
    # A hint is a prior, not an override: a page that only Big5 decodes sensibly stays Big5 on .cn.
    assert detect(page_in("zh_tw", "Big5"), "cn").encoding == "Big5"
    assert detect(page_in("zh_cn", "GBK"), "tw").encoding == "GBK"


def test_short_snippets_are_detected() -> None:
    assert detect(encode("<p>Москва — столица России.</p>", "windows-1251")).encoding == "windows-1251"
    # Read as windows-1251, "château" would be "chвteau": a Cyrillic letter inside a Latin word.
    french = encode("<p>Le château se trouve près de la forêt. Où êtes-vous</p>", "windows-1252")
    assert detect(french).encoding == "windows-1252"
    # Read as windows-874, "é" is a Thai tone mark: a Thai mark on a Latin letter.
    quoted = encode("<p>Valeur « %s » invalide pour « %s » : réessayez.</p>", "windows-1252")
    assert detect(quoted).encoding == "windows-1252"


#: English typography glues the em dash to words; a byte 0x97 before an ASCII letter is also a Shift_JIS character
#: ("late\x97very" is "late要ery"), and Firefox's chardetng reads each of these as windows-1252.
EM_DASHES = [
    "It was late—very late—when the train left—and nobody noticed. ",
    "Well—yes. ",
    "The deal—worth a lot—was signed. He said—no. Then—nothing. " * 3,
    "He said “yes”—and left. ",
    "It was late—very late—when the train left the station—and nobody noticed the café’s sign. " * 6,
]


@pytest.mark.parametrize("text", EM_DASHES)
def test_em_dashes_glued_to_words_read_as_the_western_text(text: str) -> None:
    body = encode(f"<p>{text}</p>", "windows-1252")
    assert body is not None
    assert decode(body, detect(body, "com").encoding) == f"<p>{text}</p>"


#: English pages whose few signs are letters elsewhere: windows-874 reads "»", "°" and "×" as Thai ("ป", "ฐ", "ื"),
#: windows-1251 "×" as "Ч", windows-1250 "£" as "Ł", ISO-8859-2 "©" and "®" as "Š" and "Ž", Shift_JIS "’s" as
#: "痴", "½" as "ｽ" and "—£" as "離"; Firefox's chardetng reads each as windows-1252, as a browser's default for a
#: .com does.
ENGLISH_SIGNS = [
    "Home » News » Sports. Read “more” here.",
    "Tomorrow: 25°C and sunny, they’re saying.",
    "A 3×4 grid—nothing more.",
    "Tickets cost £50 each; it’s “cheap”.",
    "Home » News » World » Europe. It’s 18°C in Paris, £12 a ticket, 2×3 rooms.",
    "Our Brand® range. © 2019 Brand Inc.",
    "© 2019 Acme Widgets",
    "Widgets® for everyone",
    "The gas’s benefit: a house 6½ miles away.",
    "It cost six—£211 in all.",
]


@pytest.mark.parametrize("text", ENGLISH_SIGNS)
def test_an_english_page_s_signs_are_not_read_as_another_script(text: str) -> None:
    body = encode(f"<p>{text}</p>", "windows-1252")
    assert body is not None
    for tld in ("com", None):
        assert decode(body, detect(body, tld).encoding) == f"<p>{text}</p>"
        assert ranked(body, tld)[0] == detect(body, tld).encoding


#: Real text of another script keeps its encoding on a .com: the default holds only against signs read as letters,
#: and a windows-1252 reading of real text glues signs to letters ("©koda Octavia, ®ilina"; "§A½T©w­n" for Big5).
FOREIGN_ON_COM = [("windows-874", "สงวนลิขสิทธิ์ ราคา 50 บาท"), ("windows-1251", "Цена 50 рублей, всё хорошо"),
                  ("ISO-8859-7", "Τιμή 50 ευρώ, όλα καλά"), ("windows-1250", "Cena 50 złotych, Łódź"),
                  ("ISO-8859-2", "Škoda Octavia, Žilina"), ("Big5", "你確定要"), ("Shift_JIS", "東京"),
                  ("GBK", "中文"), ("EUC-KR", "서울")]


@pytest.mark.parametrize(("encoding", "text"), FOREIGN_ON_COM, ids=[encoding for encoding, _ in FOREIGN_ON_COM])
def test_a_short_page_of_another_script_keeps_its_encoding_on_a_com(encoding: str, text: str) -> None:
    body = encode(f"<p>{text}</p>", encoding)
    assert body is not None
    assert decode(body, detect(body, "com").encoding) == f"<p>{text}</p>"


#: CJK text with Latin words glued to it, as technical pages write them: a letter after a character costs a reading
#: little next to its own characters' evidence.
LATIN_IN_CJK = [
    ("Shift_JIS", "Windowsの設定画面でPCを再起動してください。GitHubでPRを作成し、CIのテストを確認します。"),
    ("EUC-JP", "Windowsの設定画面でPCを再起動してください。GitHubでPRを作成し、CIのテストを確認します。"),
    ("GBK", "请在Windows设置中重启PC。在GitHub上创建PR，然后检查CI测试。"),
    ("Big5", "請在Windows設定中重新啟動PC。在GitHub上建立PR，然後檢查CI測試。"),
    ("EUC-KR", "Windows설정에서PC를 다시 시작하세요. GitHub에서PR을 만들고CI테스트를 확인합니다."),
]


@pytest.mark.parametrize(("encoding", "text"), LATIN_IN_CJK, ids=[encoding for encoding, _ in LATIN_IN_CJK])
def test_cjk_text_with_latin_words_glued_to_it_is_still_detected(encoding: str, text: str) -> None:
    body = encode(f"<p>{text}</p>", encoding)
    assert body is not None
    assert decode(body, detect(body).encoding) == f"<p>{text}</p>"


@pytest.mark.parametrize("encoding", ["ISO-8859-7", "windows-1253"])
def test_a_difference_after_the_scored_window_still_counts(encoding: str) -> None:
    # The two decode this Greek alike except for Ά, which occurs only ~20 KB in.
    plain = "Η πόλη γεμίζει επισκέπτες από όλο τον κόσμο κάθε καλοκαίρι. "
    text = html(plain * 300 + "Άνοιξη στην Αθήνα. Άλλη μια μέρα.", repeat=1)
    body = encode(text, encoding)
    assert body is not None and body.index(encode("Ά", encoding)) > 16 * 1024
    assert detect(body).encoding == encoding


def test_gb18030_four_byte_sequences_name_gb18030() -> None:
    body = html(TEXTS["zh_cn"] + " 😀").encode("gb18030")
    assert detect(body).encoding == "gb18030"


def test_iso_2022_jp_escape_sequences() -> None:
    body = html(TEXTS["ja"]).encode("iso2022_jp")
    assert b"\x1b$B" in body and body.isascii()
    assert detect(body) == Detection("ISO-2022-JP", 0.99)


def test_ascii_only_body_takes_the_hinted_or_default_encoding() -> None:
    assert detect(b"<html><body>plain</body></html>") == Detection("windows-1252", 1.0)
    assert detect(b"<html><body>plain</body></html>", "jp") == Detection("Shift_JIS", 1.0)


@pytest.mark.parametrize(
    ("body", "tld", "expected"),
    [
        # 0xB0A1 is the first syllable of KS X 1001 and the first hanzi of GB 2312: both common.
        (b"<p>\xb0\xa1</p>", "kr", "EUC-KR"),
        (b"<p>\xb0\xa1</p>", "cn", "GBK"),
        # "Café" decodes alike in windows-1250 and windows-1252.
        (b"<p>Caf\xe9</p>", None, "windows-1252"),
        (b"<p>Caf\xe9</p>", "pl", "windows-1250"),
    ],
)
def test_tld_hint_decides_a_truly_ambiguous_body(body: bytes, tld: str | None, expected: str) -> None:
    assert detect(body, tld).encoding == expected


def test_tld_hint_accepts_a_dotted_or_uppercase_domain() -> None:
    assert detect(b"<p>\xb0\xa1</p>", ".KR").encoding == "EUC-KR"
    assert detect(b"<p>\xb0\xa1</p>", "example.co.kr").encoding == "EUC-KR"


def test_every_hinted_encoding_is_a_whatwg_name() -> None:
    assert {encoding for hinted in TLD_HINTS.values() for encoding in hinted} <= set(ENCODINGS)


def test_only_the_examined_prefix_counts() -> None:
    body = page_in("ru", "windows-1251", repeat=600)
    assert len(body) > MAX_EXAMINED
    junk = bytes(range(0x80, 0x100)) * 4000
    assert detect(body[:MAX_EXAMINED] + junk) == detect(body[:MAX_EXAMINED])


def test_a_character_cut_at_the_examined_limit_is_not_an_error() -> None:
    body = page_in("ja", "Shift_JIS", repeat=600)
    for cut in range(MAX_EXAMINED - 3, MAX_EXAMINED + 1):
        assert detect(body[:cut] + body[MAX_EXAMINED:]).encoding == "Shift_JIS"


def test_the_page_decodes_to_its_text() -> None:
    text = html(TEXTS["ru"])
    body = encode(text, "KOI8-R")
    assert decode(body, detect(body).encoding) == text


def test_clear_page_is_confident_and_noise_is_not() -> None:
    assert detect(page_in("ru", "windows-1251")).confidence > 0.9
    noise = bytes((i * 2654435761 >> 7) & 0xFF for i in range(4096))
    assert detect(noise).confidence < 0.5


def test_detection_is_an_immutable_value() -> None:
    result = detect(page_in("ru", "windows-1251"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.encoding = "UTF-8"  # type: ignore[misc]


@settings(max_examples=300, deadline=None)
@given(body=st.binary(max_size=3000), tld=st.none() | st.text(max_size=12))
def test_never_raises_and_answers_a_whatwg_name(body: bytes, tld: str | None) -> None:
    result = detect(body, tld)
    assert result.encoding in ENCODINGS
    assert 0.0 <= result.confidence <= 1.0


@settings(max_examples=100, deadline=None)
@given(
    text=st.text(alphabet=st.characters(min_codepoint=0x400, max_codepoint=0x44F) | st.sampled_from(" .,"), min_size=1),
    encoding=st.sampled_from(["windows-1251", "KOI8-R", "IBM866", "ISO-8859-5", "x-mac-cyrillic"]),
)
def test_arbitrary_cyrillic_letters_give_a_valid_answer(text: str, encoding: str) -> None:
    result = detect(encode(text, encoding) or b"", "ru")
    assert result.encoding in ENCODINGS
    assert 0.0 <= result.confidence <= 1.0


# -- ranked: the leaders, for a caller that tries several (overrides suggest) ------------------------------


@pytest.mark.parametrize(
    ("language", "encoding"), [("ja", "Shift_JIS"), ("ru", "windows-1251"), ("ru", "KOI8-R"), ("zh_cn", "GBK")]
)
def test_ranked_leads_with_what_detect_answers(language: str, encoding: str) -> None:
    body = page_in(language, encoding)
    leaders = ranked(body)
    assert leaders[0] == detect(body).encoding == encoding
    assert len(leaders) == len(set(leaders))


def test_a_long_page_has_one_leader_and_a_short_title_several() -> None:
    # A paragraph read the wrong way loses by hundreds of nats; two letters by a few.
    assert ranked(page_in("ja", "Shift_JIS")) == ("Shift_JIS",)
    short = "<title>仙台</title>".encode("shift_jis")
    assert ranked(short)[0] == "Shift_JIS" and len(ranked(short)) > 1
    assert len(ranked(short, margin=0.0)) < len(ranked(short))


def test_ranked_of_an_ascii_body_is_detects_answer() -> None:
    assert ranked(b"<p>plain</p>", "jp") == (detect(b"<p>plain</p>", "jp").encoding,) == ("Shift_JIS",)


@settings(max_examples=200, deadline=None)
@given(body=st.binary(max_size=2048), tld=st.none() | st.text(max_size=12))
def test_ranked_never_raises_and_names_whatwg_encodings(body: bytes, tld: str | None) -> None:
    leaders = ranked(body, tld)
    assert leaders and set(leaders) <= set(ENCODINGS)
    assert leaders[0] == detect(body, tld).encoding


def test_scores_are_detect_s_and_name_the_evidence() -> None:
    body = page_in("ru", "windows-1251", repeat=1)
    found = scores(body)
    assert found is not None
    candidates = found.scores
    assert max(candidates, key=candidates.__getitem__) == detect(body).encoding == "windows-1251"
    assert set(candidates) <= set(LANGUAGES) and "KOI8-R" in candidates
    assert found.non_ascii == sum(byte >= 0x80 for byte in body)
    # Cyrillic bytes are no valid Shift_JIS here: a candidate that cannot decode the window is absent.
    assert "Shift_JIS" not in candidates
    # The reading a false declaration would give is far less likely than the best one.
    assert candidates["windows-1251"] - candidates["windows-1252"] > 100


def test_scores_add_the_tld_bonus_and_skip_ascii() -> None:
    body = page_in("el", "ISO-8859-7", repeat=1)
    plain, hinted = scores(body), scores(body, "gr")
    assert plain is not None and hinted is not None
    assert hinted.scores["windows-1253"] - plain.scores["windows-1253"] == pytest.approx(TLD_BONUS)
    assert hinted.scores["ISO-8859-7"] - plain.scores["ISO-8859-7"] == pytest.approx(TLD_BONUS - 0.5)
    assert hinted.likelihoods == plain.likelihoods and hinted.non_ascii == plain.non_ascii
    assert scores(b"<p>plain ASCII</p>") is None
    assert scores(b"") is None
