"""Hosts: the host of a URL, the one form hosts are compared in, and the ``*.suffix`` patterns naming them.

Every part of crawl-decoder that compares hosts does it here: the decoder's override lookup
and top-level-domain hint, the overrides file, ``overrides recheck`` and replay's ``--host``.

The form compared is the URL Standard's: a domain goes through "domain to ASCII"
(https://url.spec.whatwg.org/#concept-domain-to-ascii), so it is lower case with its
internationalised labels in punycode, whichever way the URL or the operator wrote it.  One
departure, on purpose: the trailing dot of a fully qualified name (``example.jp.``) is removed,
because DNS resolves it to the same host and an override for ``example.jp`` is meant for it;
only that one dot, the root label, so ``example.jp..`` (an empty label, no DNS name) matches
nothing.  Python's ``idna`` codec implements IDNA 2003 where the URL Standard uses UTS #46:
they agree on the letters hosts use, but differ on a few (``faß.de`` is ``fass.de`` here,
``xn--fa-hia.de`` in a browser), and for a URL host IDNA 2003 refuses (an empty or 64-character
label, say) the host is kept as written, lower-cased: it matches no pattern, which are all ASCII.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Generic, TypeVar
from urllib.parse import urlsplit

Value = TypeVar("Value")

# Most crawled URLs: http(s), a host of letters, digits, dots and hyphens, then "/", "?",
# "#" or the end.  For those, urlsplit(url).hostname is that host lowercased (no userinfo,
# port or IPv6 literal to take apart, no tab or newline for urlsplit to remove from it).
# urlsplit is costly on unique URLs (it splits and caches every part, and crawl URLs never
# repeat), and the processor asks for the host of every record twice.
_PLAIN_HOST = re.compile(r"https?://([A-Za-z0-9.-]+)(?:[/?#]|\Z)")


def host_of(url: str | None) -> str | None:
    """The URL's host in the compared form (``canonical_host``); None when it has none or cannot be parsed."""
    if not url:
        return None
    plain = _PLAIN_HOST.match(url)
    if plain is not None:
        host: str | None = plain.group(1)
    else:
        try:
            host = urlsplit(url).hostname
        except ValueError:  # e.g. an invalid IPv6 literal
            return None
    if not host:
        return None
    return canonical_host(host) or None  # "http://./" has a host of nothing but the root's dot


def canonical_host(host: str) -> str:
    """*host* as hosts are compared: domain to ASCII, lower case, without a fully qualified name's trailing dot.

    Never raises: a host IDNA 2003 refuses is returned lower-cased as it is (see the module docstring).
    An IPv6 address (as ``urlsplit`` gives it, without brackets) is only lower-cased.
    """
    if host.endswith("."):
        host = host[:-1]
    try:
        return _domain_to_ascii(host)
    except UnicodeError:
        return host.lower()


def _domain_to_ascii(domain: str) -> str:
    # Python's idna codec leaves ASCII labels as they are, case included ("WWW.bücher" gives
    # "WWW.xn--bcher-kva"), hence the lower() after it.
    if domain.isascii():
        return domain.lower()
    return domain.encode("idna").decode("ascii").lower()


def tld_of(host: str | None) -> str | None:
    """The last label of a host name (or of a top-level domain as given: " JP.", "jp"), lowercased;
    None for IP addresses, which carry no language hint."""
    if not isinstance(host, str):
        return None
    host = host.strip().strip(".")
    if not host or host.replace(".", "").isdigit() or ":" in host:
        return None
    return host.rsplit(".", 1)[-1].lower() or None


# A DNS label: letters, digits and hyphens, not starting or ending with a
# hyphen, 1 to 63 octets.  Underscores are accepted because real hosts use them
# (``_dmarc``-style names, some CDNs) and browsers resolve them.
_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")
_MAX_NAME = 253


def parse_host_pattern(text: str) -> str:
    """What an operator wrote as a host, in the compared form; raises ValueError saying what is wrong.

    Accepts an exact host (``www.example.jp``) or a suffix pattern
    (``*.example.jp``, sub-domains only).  Refuses URLs, paths, ports, user
    info, a bare ``*``, ``*`` anywhere but the first label, and patterns on a
    single label (``*.jp`` would override a whole top-level domain).  Stricter
    than ``canonical_host``: a name IDNA 2003 refuses is reported, never guessed.
    """
    host = text.strip()
    if not host:
        raise ValueError("host is empty")
    _refuse_url_parts(text, host)
    pattern = is_pattern(host)
    name = host[2:] if pattern else host
    if host == "*":
        raise ValueError("a bare '*' would override every host; write a suffix such as '*.example.jp'")
    if "*" in name:
        raise ValueError(f"host {text!r}: '*' is allowed only as a whole first label, as in '*.example.jp'")
    name = _to_ascii(text, name[:-1] if name.endswith(".") else name)
    if pattern and "." not in name:
        raise ValueError(f"host pattern {text!r} covers a whole top-level domain; name a registered domain")
    return f"*.{name}" if pattern else name


def _refuse_url_parts(text: str, host: str) -> None:
    if "://" in host:
        raise ValueError(f"host {text!r} has a scheme; write the host name only, e.g. 'www.example.com'")
    if "/" in host or "?" in host or "#" in host:
        raise ValueError(f"host {text!r} has a path; overrides apply to a whole host")
    if "@" in host:
        raise ValueError(f"host {text!r} has user info; write the host name only")
    if ":" in host:
        raise ValueError(f"host {text!r} has a port (or is an IPv6 literal); overrides apply to a host name")
    if any(char.isspace() for char in host):
        raise ValueError(f"host {text!r} contains white space")


def _to_ascii(text: str, name: str) -> str:
    if not name:
        raise ValueError(f"host {text!r} has no name")
    try:
        ascii_name = _domain_to_ascii(name)
    except UnicodeError as exc:
        raise ValueError(f"host {text!r} is not a valid internationalised domain name ({exc})") from exc
    if len(ascii_name) > _MAX_NAME:
        raise ValueError(f"host {text!r} is longer than {_MAX_NAME} characters")
    for label in ascii_name.split("."):
        _check_label(text, label)
    return ascii_name


def _check_label(text: str, label: str) -> None:
    if not _LABEL.match(label):
        if not label:
            raise ValueError(f"host {text!r} has an empty label ('..' or a leading dot)")
        raise ValueError(
            f"host {text!r}: label {label!r} is not a valid host label "
            "(letters, digits, '-', at most 63 characters, no leading or trailing '-')"
        )
    if label.startswith("xn--"):
        try:
            label.encode("ascii").decode("idna")
        except UnicodeError as exc:
            raise ValueError(f"host {text!r}: {label!r} is not valid punycode ({exc})") from exc


def is_pattern(host: str) -> bool:
    """Whether *host* is a ``*.suffix`` pattern (it names sub-domains) rather than one host."""
    return host.startswith("*.")


class HostPatterns(Generic[Value]):
    """Values by host pattern; ``lookup`` finds the value of the most specific pattern matching a host.

    A pattern is an exact host (``www.example.jp``) or ``*.suffix``, which matches sub-domains
    of the suffix but not the suffix itself.  An exact host beats any pattern; among patterns,
    the longest suffix wins (``*.shop.example.jp`` beats ``*.example.jp``).  Lookup is a
    dictionary probe per label of the host, so it stays cheap with thousands of patterns.
    """

    __slots__ = ("_exact", "_suffixes")

    def __init__(self, items: Iterable[tuple[str, Value]] = ()) -> None:
        self._exact: dict[str, Value] = {}
        self._suffixes: dict[str, Value] = {}
        for pattern, value in items:
            if is_pattern(pattern):
                self._suffixes["." + canonical_host(pattern[2:])] = value  # keep the dot: ".example.jp"
            else:
                self._exact[canonical_host(pattern)] = value

    def __len__(self) -> int:
        return len(self._exact) + len(self._suffixes)

    def values(self) -> Iterator[Value]:
        yield from self._exact.values()
        yield from self._suffixes.values()

    def lookup(self, host: str | None) -> Value | None:
        """The value of the most specific pattern matching *host* (any spelling of it), else None."""
        if not host:
            return None
        host = canonical_host(host)
        found = self._exact.get(host)
        if found is not None:
            return found
        dot = host.find(".")
        while dot != -1:
            found = self._suffixes.get(host[dot:])
            if found is not None:
                return found
            dot = host.find(".", dot + 1)
        return None


def host_matches(pattern: str, host: str | None) -> bool:
    """Whether *pattern* (an exact host or ``*.suffix``) matches *host*, as an override for it would."""
    return HostPatterns([(pattern, True)]).lookup(host) is not None
