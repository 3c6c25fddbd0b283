"""What the decoder takes from a response URL: its host (overrides) and top-level domain (detection)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

# Most crawled URLs: http(s), a host of letters, digits, dots and hyphens, then "/", "?",
# "#" or the end.  For those, urlsplit(url).hostname is that host lowercased (no userinfo,
# port or IPv6 literal to take apart, no tab or newline for urlsplit to remove from it).
# urlsplit costs ~5 us a call on unique URLs (it splits and caches every part, and crawl
# URLs never repeat), and the processor asks for the host of every record twice.
_PLAIN_HOST = re.compile(r"https?://([A-Za-z0-9.-]+)(?:[/?#]|\Z)")


def host_of(url: str | None) -> str | None:
    """The URL's host, lowercase, or None when there is none or the URL cannot be parsed."""
    if not url:
        return None
    plain = _PLAIN_HOST.match(url)
    if plain is not None:
        return plain.group(1).lower()
    try:
        return urlsplit(url).hostname
    except ValueError:  # e.g. an invalid IPv6 literal
        return None


def tld_of(host: str | None) -> str | None:
    """The last label of a host name; None for IP addresses, which carry no language hint."""
    if not host or host.replace(".", "").isdigit() or ":" in host:
        return None
    return host.rsplit(".", 1)[-1] or None
