"""Hosts: a URL's host, the form hosts are compared in, operators' host patterns, and matching them.

The decoder's override lookup, the overrides file, ``overrides recheck`` and replay's ``--host``
all use ``consumer.decoding.hosts``; the cases marked "was" are where they used to disagree.
"""

from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from consumer.decoding.hosts import (
    HostPatterns,
    canonical_host,
    host_matches,
    host_of,
    parse_host_pattern,
    tld_of,
)


def urlsplit_host(url: str | None) -> str | None:
    """The definition host_of's shortcut must agree with: urlsplit's host, in the compared form."""
    if not url:
        return None
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    if not host:
        return None
    return canonical_host(host) or None


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
        # The URL Standard's host is ASCII: was "bücher.example" for the decoder, punycode for replay.
        ("https://Bücher.example/", "xn--bcher-kva.example"),
        # A fully qualified name is the same host: was kept with its dot for the decoder (no TLD hint).
        ("http://www.example.jp./", "www.example.jp"),
        ("http://example.jp../", "example.jp."),  # only the root's dot goes: this host matches nothing
        ("http://./", None),
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
     ("localhost", "localhost"), ("example.", "example"), ("JP", "jp"), (" .jp ", "jp"), ("", None), (" ", None)],
)  # fmt: skip
def test_tld_of(host, tld):
    """A host, or a top-level domain as a caller of detect writes it; a trailing dot is the root's."""
    assert tld_of(host) == tld


def test_a_fully_qualified_url_keeps_its_language_hint():
    assert tld_of(host_of("http://www.example.jp./")) == "jp"  # was None


@pytest.mark.parametrize(
    ("host", "canonical"),
    [
        ("WWW.Example.COM", "www.example.com"),
        ("www.example.com.", "www.example.com"),
        ("WWW.Bücher.Example", "www.xn--bcher-kva.example"),  # the idna codec keeps ASCII labels' case
        ("xn--bcher-kva.example", "xn--bcher-kva.example"),
        ("example.jp..", "example.jp."),  # was "example.jp" for the decoder's lookup, "example.jp.." for replay
        ("a..bücher", "a..bücher"),  # IDNA 2003 refuses an empty label: kept as written, matches no pattern
        ("2001:DB8::1", "2001:db8::1"),
        ("", ""),
    ],
)
def test_canonical_host(host, canonical):
    assert canonical_host(host) == canonical


@pytest.mark.parametrize(
    ("written", "stored"),
    [
        ("WWW.Example.COM", "www.example.com"),
        ("www.example.com.", "www.example.com"),
        ("bücher.example", "xn--bcher-kva.example"),
        ("xn--bcher-kva.example", "xn--bcher-kva.example"),
        ("*.例え.jp", "*.xn--r8jz45g.jp"),
        ("  *.Example.JP.  ", "*.example.jp"),
        ("_dmarc.example.com", "_dmarc.example.com"),
    ],
)
def test_parse_host_pattern_gives_the_compared_form(written, stored):
    assert parse_host_pattern(written) == stored
    assert parse_host_pattern(stored) == stored


@pytest.mark.parametrize(
    ("host", "message"),
    [
        ("http://www.example.com", "has a scheme"),
        ("www.example.com/news", "has a path"),
        ("www.example.com:8080", "has a port"),
        ("[2001:db8::1]", "is an IPv6 literal"),
        ("*", "a bare '*' would override every host"),
        ("*example.com", "'*' is allowed only as a whole first label"),
        ("www.*.example.com", "'*' is allowed only as a whole first label"),
        ("*.*.example.com", "'*' is allowed only as a whole first label"),
        ("*.jp", "covers a whole top-level domain"),
        ("*.jp.", "covers a whole top-level domain"),
        ("www..example.com", "has an empty label"),
        ("example.jp..", "has an empty label"),
        ("-www.example.com", "is not a valid host label"),
        ("www.exa$mple.com", "is not a valid host label"),
        ("a" * 64 + ".example", "is not a valid host label"),
        ("xn--zz.example", "is not valid punycode"),
        ("a..bücher", "is not a valid internationalised domain name"),
        ("user@www.example.com", "has user info"),
        ("www.exa mple.com", "contains white space"),
        ("", "host is empty"),
        (".", "has no name"),
    ],
)
def test_parse_host_pattern_refuses(host, message):
    with pytest.raises(ValueError) as caught:
        parse_host_pattern(host)
    assert message in str(caught.value)


PATTERNS = HostPatterns(
    [("*.example.jp", "example"), ("*.shop.example.jp", "shop"), ("www.shop.example.jp", "www"),
     ("bücher.example", "idn")]
)  # fmt: skip


@pytest.mark.parametrize(
    ("host", "found"),
    [
        ("www.shop.example.jp", "www"),  # an exact host beats any pattern
        ("cart.shop.example.jp", "shop"),  # a longer suffix beats a shorter one
        ("a.b.shop.example.jp", "shop"),
        ("news.example.jp", "example"),
        ("shop.example.jp", "example"),  # '*.shop.example.jp' covers sub-domains only
        ("WWW.Shop.Example.JP", "www"),
        ("www.shop.example.jp.", "www"),
        ("xn--bcher-kva.example", "idn"),  # a pattern written in Unicode: was never matched by recheck
        ("BÜCHER.example", "idn"),
        ("example.jp", None),
        ("badexample.jp", None),
        ("www.example.jp.evil.com", None),
        ("www.example.jp..", None),  # was matched by the decoder's lookup, not by replay
        ("2001:db8::1", None),
        ("", None),
        (None, None),
    ],
)
def test_the_most_specific_pattern_wins(host, found):
    assert PATTERNS.lookup(host) == found


@pytest.mark.parametrize(
    ("pattern", "host", "expected"),
    [
        ("*.example.jp", "www.example.jp", True),
        ("*.example.jp", "a.b.example.jp", True),
        ("*.example.jp", "example.jp", False),
        ("*.example.jp", "badexample.jp", False),
        ("example.jp", "example.jp", True),
        ("example.jp", "www.example.jp", False),
        ("Example.JP.", "example.jp", True),  # patterns are read in the compared form too
        ("*.example.jp", None, False),
    ],
)
def test_host_matches(pattern, host, expected):
    assert host_matches(pattern, host) is expected


def test_patterns_count_and_give_back_their_values():
    assert len(PATTERNS) == 4 and sorted(PATTERNS.values()) == ["example", "idn", "shop", "www"]
