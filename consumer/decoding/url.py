"""What the decoder takes from a response URL: its host (overrides) and top-level domain (detection)."""

from __future__ import annotations

from urllib.parse import urlsplit


def host_of(url: str | None) -> str | None:
    """The URL's host, lowercase, or None when there is none or the URL cannot be parsed."""
    if not url:
        return None
    try:
        return urlsplit(url).hostname
    except ValueError:  # e.g. an invalid IPv6 literal
        return None


def tld_of(host: str | None) -> str | None:
    """The last label of a host name; None for IP addresses, which carry no language hint."""
    if not host or host.replace(".", "").isdigit() or ":" in host:
        return None
    return host.rsplit(".", 1)[-1] or None
