"""Host names and ``*.suffix`` patterns as operators write them in overrides.

Hosts are compared in their ASCII (punycode) form, lower-cased, without a
trailing dot: the form ``OverrideTable.lookup`` expects and the form a URL
parser gives for an internationalised host (URL Standard, "domain to ASCII":
https://url.spec.whatwg.org/#concept-domain-to-ascii).  Python's ``idna``
codec implements IDNA 2003 rather than UTS #46; for the letters operators type
the two agree, and a name IDNA 2003 refuses is reported, never guessed.
"""

from __future__ import annotations

import re

# A DNS label: letters, digits and hyphens, not starting or ending with a
# hyphen, 1 to 63 octets.  Underscores are accepted because real hosts use them
# (``_dmarc``-style names, some CDNs) and browsers resolve them.
_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")
_MAX_NAME = 253


def normalise_host(text: str) -> str:
    """Return the canonical form of an override host, or raise ValueError saying what is wrong.

    Accepts an exact host (``www.example.jp``) or a suffix pattern
    (``*.example.jp``, sub-domains only).  Refuses URLs, paths, ports, user
    info, a bare ``*``, ``*`` anywhere but the first label, and patterns on a
    single label (``*.jp`` would override a whole top-level domain).
    """
    host = text.strip()
    if not host:
        raise ValueError("host is empty")
    _refuse_url_parts(text, host)
    pattern = host.startswith("*.")
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
    if name.isascii():
        ascii_name = name.lower()
    else:
        try:
            ascii_name = name.encode("idna").decode("ascii").lower()
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
