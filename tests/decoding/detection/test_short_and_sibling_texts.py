"""Short texts in sibling encodings (issue 37, item 3): hand-written titles and sentences of 8 to 64
non-ASCII characters, each in the encoding it was mistaken in, through ``detect`` and through
``decode`` undeclared (on .com and on the language's ccTLD) and under a false ``charset=utf-8``.

The mistakes were: uppercase Greek (ISO-8859-7) read as KOI8-R at confidence 1.00, since KOI8-R maps
those bytes to small Cyrillic letters and the model scored each capital as a rare letter;
x-mac-cyrillic read as windows-1251 (the two differ only in capitals and я); Bulgarian in
windows-1251 read as windows-1255 (its small letters are Hebrew letters there, its capitals Hebrew
points); Romanian in windows-1250 read as windows-1252 (the model had no Romanian); Shift_JIS under a
false UTF-8 header overruled to a single-byte encoding.  The texts are written for these tests, not
taken from the model's word lists or any detector's test data.
"""

from __future__ import annotations

import pytest

from consumer.decoding import decode
from consumer.decoding.detection import Detection, detect, ranked, scores

from corpus import decode as decode_as
from corpus import encode


def title(text: str) -> str:
    return f"<title>{text}</title>"


#: (encoding, ccTLD) -> hand-written texts in that encoding's language.
CASES: dict[tuple[str, str], list[str]] = {
    ("ISO-8859-7", "gr"): [
        "ΑΘΑΝΑΣΙΑΔΗΣ",
        "ΓΕΩΡΓΙΟΣ ΠΑΠΑΔΟΠΟΥΛΟΣ",
        "ΚΑΛΩΣ ΗΡΘΑΤΕ ΣΤΗ ΘΕΣΣΑΛΟΝΙΚΗ",
        "ΕΠΙΚΟΙΝΩΝΙΑ ΜΑΖΙ ΜΑΣ",
        "ΟΡΟΙ ΧΡΗΣΗΣ",
        "ΑΡΧΙΚΗ ΣΕΛΙΔΑ",
        "ΥΠΟΥΡΓΕΙΟ ΠΑΙΔΕΙΑΣ ΚΑΙ ΘΡΗΣΚΕΥΜΑΤΩΝ",
        "ΝΕΑ ΣΜΥΡΝΗ, ΑΘΗΝΑ",
        "ΔΕΛΤΙΟ ΤΥΠΟΥ: Νέα ώρα λειτουργίας",
        "ΠΡΟΣΦΟΡΕΣ ΤΗΣ ΕΒΔΟΜΑΔΑΣ",
        "ΜΑΡΙΑ ΚΩΝΣΤΑΝΤΙΝΙΔΟΥ",
        "ΤΑ ΝΕΑ ΤΗΣ ΗΜΕΡΑΣ",
    ],
    ("x-mac-cyrillic", "ru"): [
        "Я люблю читать книги по вечерам.",
        "Мы живём в Санкт-Петербурге.",
        "Привет, как дела?",
        "Новости дня",
        "Контакты и адрес",
        "Всё о погоде в Москве",
        "Добро пожаловать на наш сайт!",
        "Это правда",
        "Расписание поездов на завтра",
        "Моя семья живёт в деревне",
        "Задать вопрос",
        "Оплата и доставка",
    ],
    ("x-mac-cyrillic", "bg"): [
        "София е столицата на България.",
        "Здравейте, приятели!",
        "Пловдив и Варна през лятото",
        "Цените са без ДДС",
        "Моята любима книга",
        "Времето утре ще бъде слънчево",
    ],
    ("windows-1251", "bg"): [
        "тук ще намерите всичко за нашата фирма",
        "цени на продуктите в магазина",
        "за контакти",
        "всички права запазени",
        "няма намерени резултати",
        "неуспешно свързване със сървъра",
        "моля, опитайте отново по-късно",
        "начало / новини / контакти",
        "Вход за клиенти",
        "продукти и услуги",
        "до края на месеца",
        "поръчай сега с отстъпка",
    ],
    ("windows-1250", "ro"): [
        "Preţurile mici şi livrarea gratuită în toată ţara până mâine",
        "Înscrierile la şcoală încep săptămâna viitoare în Iaşi şi Braşov",
        "Mulţumim pentru înţelegere! Vă rugăm să reveniţi mâine.",
        "Căutare avansată în arhiva ştirilor: rezultate găsite pentru „Timişoara”",
        "Vremea de mâine în Braşov, Sibiu şi Târgu Mureş: ninsori slabe şi lapoviţă la munte",
    ],
    ("windows-1250", "sk"): ["Všetky práva vyhradené. Ďakujeme za návštevu nášho obchodu v Košiciach."],
    ("windows-1250", "hr"): ["Šibenik, Kaštela, Čakovec, Požega, Našice, Đakovo i Križevci: gradovi koje ćete rado posjetiti."],
    ("windows-1250", "si"): [
        "Čestitamo! Vaše naročilo št. 1234 je bilo uspešno oddano; pošiljka bo dostavljena v četrtek. Hvala, ker ste izbrali našo trgovino."
    ],
    ("Shift_JIS", "jp"): [
        "今日はいい天気ですね。",
        "ホームページへようこそ",
        "商品一覧はこちら",
        "送料無料キャンペーン実施中",
        "お問い合わせはこちらから",
        "東京都渋谷区神南一丁目",
        "ｺﾝﾋﾟｭｰﾀ修理受付中",
        "個人情報保護方針",
        "特定商取引法に基づく表記",
        "明日は雨が降るでしょう",
        "山田太郎のブログ",
    ],
}

#: Per case, the texts at most that a .com URL (no hint) may read wrong: where only a few letters tell
#: the two encodings apart and the priors favour the usual one (see ``UNDECIDED``).
WRONG_ON_COM = {("ISO-8859-7", "gr"): 4, ("x-mac-cyrillic", "ru"): 2}

#: x-mac-cyrillic texts whose only difference from windows-1251 is one capital (Д, Э, В), which
#: windows-1251 reads as „, ќ, ‚: one character of evidence against windows-1251's priors and, on the
#: ccTLD, its larger TLD bonus.  windows-1251 wins them; what is pinned is that x-mac-cyrillic is a
#: close runner-up, visible to a caller through ``ranked`` and ``scores``.
UNDECIDED = {"Добро пожаловать на наш сайт!", "Это правда", "Времето утре ще бъде слънчево"}

ITEMS = [(encoding, tld, text) for (encoding, tld), texts in CASES.items() for text in texts]


def body_of(encoding: str, text: str) -> bytes:
    body = encode(title(text), encoding)
    assert body is not None, text
    return body


def right(body: bytes, encoding: str, text: str) -> bool:
    """Whether *encoding* decodes *body* to *text*'s page (two encodings that decode it alike are both right)."""
    return decode_as(body, encoding) == title(text)


@pytest.mark.parametrize(("encoding", "tld", "text"), ITEMS, ids=lambda value: str(value)[:24])
def test_every_text_holds_8_to_64_non_ascii_characters_and_is_not_utf8(encoding: str, tld: str, text: str) -> None:
    assert 8 <= sum(char >= "\x80" for char in text) <= 64
    with pytest.raises(UnicodeDecodeError):
        body_of(encoding, text).decode("utf-8")


@pytest.mark.parametrize(("encoding", "tld", "text"), ITEMS, ids=lambda value: str(value)[:24])
def test_detected_with_the_cctld(encoding: str, tld: str, text: str) -> None:
    body = body_of(encoding, text)
    guess = detect(body, tld)
    if text in UNDECIDED:
        return  # test_undecided_texts_leave_the_right_encoding_a_close_second
    assert right(body, guess.encoding, text), guess


@pytest.mark.parametrize(("encoding", "tld"), list(CASES), ids=lambda value: str(value))
def test_detected_on_com_and_never_sure_of_a_wrong_reading(encoding: str, tld: str) -> None:
    wrong: list[tuple[str, Detection]] = []
    for text in CASES[encoding, tld]:
        body = body_of(encoding, text)
        guess = detect(body, "com")
        assert detect(body) == guess  # .com hints at nothing
        if not right(body, guess.encoding, text):
            wrong.append((text, guess))
    assert len(wrong) <= WRONG_ON_COM.get((encoding, tld), 0), wrong
    # The complaint: wrong at 0.96-1.00.  A reading this short that is wrong is not that sure.
    assert [(text, guess) for text, guess in wrong if guess.confidence >= 0.8] == []


def test_uppercase_greek_is_not_koi8_r() -> None:
    # "ΑΘΑΝΑΣΙΑΔΗΣ" read as KOI8-R is "ахамасиадгс": small Cyrillic letters, scored before as likely Russian
    # against eleven Greek capitals each scored as a rare letter.
    body = body_of("ISO-8859-7", "ΑΘΑΝΑΣΙΑΔΗΣ")
    for tld in (None, "com", "gr"):
        assert detect(body, tld).encoding in ("ISO-8859-7", "windows-1253")


def test_bulgarian_is_not_read_as_hebrew() -> None:
    for text in CASES["windows-1251", "bg"]:
        assert detect(body_of("windows-1251", text)).encoding == "windows-1251", text


@pytest.mark.parametrize(("encoding", "tld", "text"), ITEMS, ids=lambda value: str(value)[:24])
def test_decoded_undeclared(encoding: str, tld: str, text: str) -> None:
    body = body_of(encoding, text)
    on_cctld = decode(body, "text/html", f"http://www.example.{tld}/page")
    assert on_cctld.source == "detector" and not on_cctld.lossy
    assert on_cctld.encoding == detect(body, tld).encoding
    if text not in UNDECIDED:
        assert on_cctld.text == title(text)
    on_com = decode(body, "text/html", "http://www.example.com/page")
    assert (on_com.source, on_com.encoding) == ("detector", detect(body, "com").encoding)


@pytest.mark.parametrize(("encoding", "tld", "text"), ITEMS, ids=lambda value: str(value)[:24])
def test_a_false_utf8_header_never_publishes_wrong_text_as_clean(encoding: str, tld: str, text: str) -> None:
    # The body is not UTF-8: the header fails, and detection may overrule it only when confident, on
    # enough non-ASCII bytes; otherwise the page stays lossy UTF-8 (quarantined), as a browser shows it.
    body = body_of(encoding, text)
    for url in (f"http://www.example.{tld}/", "http://www.example.com/"):
        decoded = decode(body, "text/html; charset=utf-8", url)
        if decoded.lossy:
            assert (decoded.encoding, decoded.source) == ("UTF-8", "http-header")
            continue
        assert decoded.source == "detector"
        if decoded.text != title(text):
            # Published wrong: only where the detector's guess is one a few letters could not settle,
            # said with a confidence below 0.8 (or an x-mac-cyrillic text ``UNDECIDED`` pins); the
            # resolver takes guesses from 0.5 (resolve.CONFIDENT_DETECTION).
            assert text in UNDECIDED or (decoded.confidence is not None and decoded.confidence < 0.8), url


@pytest.mark.parametrize("text", sorted(UNDECIDED))
def test_undecided_texts_leave_the_right_encoding_a_close_second(text: str) -> None:
    tld = "bg" if text.startswith("Времето") else "ru"
    body = body_of("x-mac-cyrillic", text)
    for hint in (None, tld):
        found = scores(body, hint)
        assert found is not None
        candidates = found.scores
        assert found.non_ascii == len(body.translate(None, bytes(range(0x80))))
        best = max(candidates.values())
        assert best - candidates["x-mac-cyrillic"] < 6.0  # less than the priors' and the TLD's difference
        assert "x-mac-cyrillic" in ranked(body, hint)[:2]


def test_shift_jis_under_a_false_utf8_header_is_read_as_shift_jis() -> None:
    for text in CASES["Shift_JIS", "jp"]:
        body = body_of("Shift_JIS", text)
        decoded = decode(body, "text/html; charset=utf-8", "http://www.example.com/")
        assert decoded.encoding in ("Shift_JIS", "UTF-8"), (text, decoded.encoding)
        assert decoded.lossy == (decoded.encoding == "UTF-8"), text
