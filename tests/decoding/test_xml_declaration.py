"""The XML declaration: the XML grammar (xml_declared_encoding) and the HTML Standard's "get an XML encoding"."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from consumer.decoding.xml_declaration import XML_DECLARATION_BYTES, get_xml_encoding, xml_declared_encoding


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'<?xml version="1.0" encoding="UTF-8"?><rss/>', "UTF-8"),
        (b"<?xml version='1.0' encoding='windows-1251'?>", "windows-1251"),
        (b'<?xml version="1.0" encoding="iso-8859-1"?>', "windows-1252"),
        (b'<?xml version="1.0" encoding="Shift_JIS" standalone="yes"?>', "Shift_JIS"),
        (b"<?xml version=\"1.1\" encoding='euc-jp' standalone='no' ?>", "EUC-JP"),
        (b'<?xml\tversion\n=\r"1.0"\n\tencoding = "gbk"\n?>', "GBK"),
        (b'<?xml version="1.0" encoding="x-mac-cyrillic"?>', "x-mac-cyrillic"),
        # A UTF-16 label in a declaration readable as ASCII: the body is not UTF-16.
        (b'<?xml version="1.0" encoding="UTF-16"?>', "UTF-8"),
        (b'<?xml version="1.0" encoding="utf-16le"?>', "UTF-8"),
        (b'<?xml version="1.0" encoding="utf-16be"?>', "UTF-8"),
        # UTF-16 without a BOM: the HTML Standard's sniff of "<?x", the name is not read.
        ('<?xml version="1.0" encoding="UTF-16"?>'.encode("utf-16-le"), "UTF-16LE"),
        ('<?xml version="1.0" encoding="UTF-16"?>'.encode("utf-16-be"), "UTF-16BE"),
        ('<?xml version="1.0" encoding="koi8-r"?>'.encode("utf-16-le"), "UTF-16LE"),
        # No encoding declaration, or not one the Encoding Standard knows.
        (b'<?xml version="1.0"?><a/>', None),
        (b'<?xml version="1.0" standalone="yes"?>', None),
        (b'<?xml version="1.0" encoding="bogus"?>', None),
        (b'<?xml version="1.0" encoding="ebcdic-cp-us"?>', None),
        # Not the XML grammar: no declaration.
        (b' <?xml version="1.0" encoding="gbk"?>', None),  # not at the very start
        (b'<?XML version="1.0" encoding="gbk"?>', None),
        (b'<?xml encoding="gbk"?>', None),  # version is required
        (b'<?xml encoding="gbk" version="1.0"?>', None),  # and comes first
        (b'<?xml version="1.0"encoding="gbk"?>', None),  # white space is required before encoding
        (b'<?xml version="2.0" encoding="gbk"?>', None),
        (b'<?xml version="1.0" encoding="gbk\'?>', None),  # mismatched quotes
        (b'<?xml version="1.0" encoding=gbk?>', None),
        (b'<?xml version="1.0" encoding=" gbk"?>', None),  # EncName starts with a letter
        (b'<?xml version="1.0" encoding="gbk">', None),  # no "?>"
        (b'<?xml version="1.0" encoding="gbk" standalone="maybe"?>', None),
        (b'<?xml version="1.0" encoding="gbk"', None),
        (b"<?xml", None),
        (b"", None),
        (b"<html>", None),
        (b'<?xml version="1.0" encoding="' + b"a" * 2000 + b'"?>', None),  # bounded: not read past 1 KB
    ],
)
def test_xml_declared_encoding(body, expected):
    assert xml_declared_encoding(body) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'<?xml version="1.0" encoding="windows-1251"?>', "windows-1251"),
        (b"<?xml encoding='gbk'?>", "GBK"),  # no version needed
        (b'<?xml encoding = "gbk" version="1.0"?>', "GBK"),
        (b'<?xml\x01encoding\x00=\x1f"gbk"?>', "GBK"),  # "whitespace" is any byte up to 0x20
        (b'<?xml version="1.0" encoding="utf-16"?>', "UTF-8"),
        (b'<?xml version="1.0" encoding="UTF-16BE"?>', "UTF-8"),
        (b'<?xml version="1.0" ENCODING="gbk"?>', None),  # "encoding" is matched case-sensitively
        (b'<?xml version="1.0" encoding="g bk"?>', None),  # a byte up to 0x20 inside the name
        (b'<?xml version="1.0" encoding=" gbk"?>', None),
        (b'<?xml version="1.0" encoding=gbk?>', None),
        (b'<?xml version="1.0" encoding="gbk?>', None),  # the quote must close before the ">"
        (b'<?xml version="1.0" encoding="gbk\'?>', None),
        (b'<?xml version="1.0"?><x encoding="gbk"/>', None),  # only inside the declaration
        (b'<?xml version="1.0" encoding="bogus"?>', None),
        (b"<?xml version='1.0' encoding='gbk'", None),  # no ">"
        (b' <?xml encoding="gbk"?>', None),
        (b'<?XML encoding="gbk"?>', None),
        (b'<?xml-stylesheet encoding="gbk"?>', "GBK"),  # the standard only checks "<?xml"
        (b"", None),
    ],
)
def test_get_xml_encoding(body, expected):
    assert get_xml_encoding(body) == expected


def test_get_xml_encoding_reads_only_the_first_kilobyte():
    head = b"<?xml version='1.0'" + b" " * XML_DECLARATION_BYTES
    assert get_xml_encoding(head + b"encoding='gbk'?>") is None


@given(st.binary(max_size=256))
def test_never_raises_on_random_bytes(body):
    xml_declared_encoding(body)
    get_xml_encoding(body)
    xml_declared_encoding(b"<?xml version='1.0' encoding='" + body)
    get_xml_encoding(b"<?xml encoding='" + body)
