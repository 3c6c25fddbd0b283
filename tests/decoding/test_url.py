"""The host and top-level domain the decoder reads from a response URL."""

from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from consumer.decoding.url import host_of, tld_of


def urlsplit_host(url: str | None) -> str | None:
    """The definition host_of's shortcut must agree with."""
    if not url:
        return None
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://www.Example.JP/a/b?c#d", "www.example.jp"),
        ("http://example.com", "example.com"),
        ("http://example.com?q", "example.com"),
        ("https://user:pw@Shop.example.com:8443/x", "shop.example.com"),
        ("http://[2001:DB8::1]:80/", "2001:db8::1"),
        ("HTTPS://EXAMPLE.ORG/", "example.org"),
        ("  https://example.org/", "example.org"),
        ("https://exa\tmple.org/", "example.org"),  # urlsplit removes tabs and newlines
        ("https://bücher.example/", "bücher.example"),
        ("http://[::1/", None),  # unparseable
        ("", None),
        (None, None),
        ("/relative/path", None),
    ],
)
def test_host_of(url, host):
    assert host_of(url) == host == urlsplit_host(url)


_URL_PIECES = st.sampled_from(
    ["http://", "https://", "HTTP://", "ftp://", " ", "\t", "\n", "@", ":", "[", "]", "/", "?", "#", ".", "-",
     "example", "EXAMPLE", "com", "80", "bücher", "user", "::1", "%41"]
)  # fmt: skip


@given(st.lists(_URL_PIECES, max_size=8).map("".join))
def test_host_of_is_urlsplits_hostname(url):
    assert host_of(url) == urlsplit_host(url)


@given(st.text(max_size=40))
def test_host_of_is_urlsplits_hostname_on_any_text(text):
    for url in (text, "http://" + text, "https://" + text):
        assert host_of(url) == urlsplit_host(url)


@pytest.mark.parametrize(
    ("host", "tld"),
    [("www.example.jp", "jp"), ("example.co.kr", "kr"), ("192.168.0.1", None), ("2001:db8::1", None), (None, None),
     ("localhost", "localhost"), ("example.", None)],
)  # fmt: skip
def test_tld_of(host, tld):
    assert tld_of(host) == tld
