"""Foreign names in a Latin-script page (detection/names.py): the words the allowance reads, and when it applies."""

from consumer.decoding.codecs import decode_bytes
from consumer.decoding.detection import names
from consumer.decoding.detection.reference import reference_high_bytes

# A Dutch sentence written for these tests between names Faker makes up for other locales.
DUTCH_WITH_NAMES = (
    "Het archief bevat één bestand. Gascón, Ruská Nová Ves, Tønder. Het pakket is geïnstalleerd. Štôla, Póvoa de "
    "Varzim, Németh. Deze kaart toont de gemeenten van het land. Schwäbisch Gmünd, Štôla, Mathiasstrøm."
)


def readings(text: str, codec: str, *encodings: str) -> tuple[list[str], tuple[bytes, list[int]]]:
    body = text.encode(codec)
    return [decode_bytes(encoding, body)[0] for encoding in encodings], reference_high_bytes(body)


def reading_of(text: str, codec: str):
    """What ``allowance`` asks for: an encoding's reading of the body."""
    return lambda encoding: decode_bytes(encoding, text.encode(codec))[0]


def test_shared_names_are_the_capitalised_words_both_readings_read_alike():
    (one, other), _ = readings(DUTCH_WITH_NAMES, "cp1252", "windows-1252", "windows-1250")
    shared = names.shared_names(one, other)
    # "Tønder" and "Mathiasstrøm" read otherwise ("Třnder"), "één" and "geïnstalleerd" are not capitalised.
    assert shared == {"Gascón": 1, "Ruská": 1, "Nová": 1, "Štôla": 2, "Póvoa": 1, "Németh": 1, "Schwäbisch": 1,
                      "Gmünd": 1}  # fmt: skip


def test_a_reading_whose_language_lacks_the_names_letters_is_allowed_them():
    _, histogram = readings(DUTCH_WITH_NAMES, "cp1252")
    reading = reading_of(DUTCH_WITH_NAMES, "cp1252")
    # More than the least lead that doubts a declaration (contradiction.DOUBT_NATS, 7.5).
    assert names.allowance("windows-1252", "windows-1250", reading, histogram) > 10
    # The other way round the windows-1250 reading gains nothing its rival does not: Slovak and Hungarian have
    # "á", "ô" and "é" already.
    assert names.allowance("windows-1250", "windows-1252", reading, histogram) == 0


def test_no_allowance_between_encodings_of_the_same_languages():
    czech = "Soubor je uložen. Jyväskylä, Kisszékfalu, Žáková, Hajdúgyörgyvég. Nastavení platí pro všechny."
    (one, other), histogram = readings(czech, "cp1250", "windows-1250", "ISO-8859-2")
    assert names.shared_names(one, other)
    assert names.allowance("windows-1250", "ISO-8859-2", reading_of(czech, "cp1250"), histogram) == 0


def test_no_allowance_outside_latin_script():
    text = "Москва, Київ. Жители Санкт-Петербурга любят Невский проспект."
    _, histogram = readings(text, "cp1251")

    def reading(encoding: str) -> str:
        raise AssertionError(f"a Cyrillic pair's readings are never asked for ({encoding})")

    assert names.allowance("windows-1251", "KOI8-R", reading, histogram) == 0
    assert "windows-1251" not in names.LATIN and "windows-1252" in names.LATIN


def test_a_lowercase_word_is_never_a_name():
    (one, other), _ = readings("het geïnstalleerde pakket, één bestand", "cp1252", "windows-1252", "windows-1250")
    assert not names.shared_names(one, other)
