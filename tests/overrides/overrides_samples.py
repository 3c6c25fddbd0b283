"""Sample overrides files for the tests: one entry at a time, fields left out or replaced."""

from __future__ import annotations

from pathlib import Path

#: The example that ships in the repository (CI validates it).
SHIPPED = Path(__file__).resolve().parents[2] / "config" / "overrides.yaml"


def entry(host: str = "www.example.com", **fields: str | None) -> str:
    """One YAML entry of ``overrides:``; a field set to None is left out."""
    values = {
        "host": host,
        "encoding": "utf-8",
        "mode": "force",
        "reason": "header says iso-8859-1, pages are UTF-8",
        "review_by": "2027-01-31",
        "owner": "crawl-quality",
        **fields,
    }
    lines = [f"{key}: {value}" for key, value in values.items() if value is not None]
    return "  - " + "\n    ".join(lines) + "\n"


def document(*entries: str, settings: str = "") -> str:
    return settings + "overrides:\n" + "".join(entries)
