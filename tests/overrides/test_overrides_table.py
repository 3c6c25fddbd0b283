"""Most specific host wins, on tables built from overrides files (the ``OverrideTable`` model)."""

from __future__ import annotations

import pytest

from consumer.overrides import parse_overrides

from overrides_samples import document, entry

TABLE = parse_overrides(document(
    entry(host="'*.example.jp'", encoding="shift_jis", mode="fallback"),
    entry(host="'*.shop.example.jp'", encoding="euc-jp", mode="fallback"),
    entry(host="www.shop.example.jp", encoding="utf-8"),
    entry(host="bücher.example", encoding="windows-1252"),
)).table


@pytest.mark.parametrize("host, encoding", [
    ("www.shop.example.jp", "UTF-8"),  # exact beats any pattern
    ("cart.shop.example.jp", "EUC-JP"),  # longer suffix beats shorter
    ("a.b.shop.example.jp", "EUC-JP"),
    ("news.example.jp", "Shift_JIS"),
    ("shop.example.jp", "Shift_JIS"),  # '*.shop.example.jp' covers sub-domains only
    ("WWW.Shop.Example.JP", "UTF-8"),  # host names are case-insensitive
    ("www.shop.example.jp.", "UTF-8"),  # a fully qualified name is the same host
    ("xn--bcher-kva.example", "windows-1252"),  # hosts arrive from URL parsers in punycode
])
def test_most_specific_wins(host, encoding):
    assert TABLE.lookup(host).encoding == encoding


@pytest.mark.parametrize("host", ["example.jp", "example.com", "notexample.jp", "www.example.jp.evil.com", "", None])
def test_no_match(host):
    assert TABLE.lookup(host) is None
