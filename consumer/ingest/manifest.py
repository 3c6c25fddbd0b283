"""A list of inputs in a file, one a line, as Common Crawl publishes them (``warc.paths.gz``).

Lines are paths relative to a base URL (``crawl-data/CC-MAIN-.../x.warc.gz`` under
``https://data.commoncrawl.org/`` or ``s3://commoncrawl/``) or whole URLs and paths; blank lines and
lines starting with ``#`` are skipped.  The manifest itself is a local file or a URL, gzip-compressed
or not (told by its first bytes).
"""

from __future__ import annotations

import gzip
import io
import zlib

from .exceptions import SourceError
from .remote import is_remote
from .source import open_source


def read_manifest(path: str, base_url: str | None = None) -> list[str]:
    """The inputs *path* lists, each relative line joined to *base_url* when given."""
    source = open_source(path)
    try:
        data = source.stream.read()
    except OSError as exc:
        raise SourceError(f"cannot read manifest {path}: {exc}") from exc
    finally:
        source.close()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise SourceError(f"manifest {path} is not a whole gzip file: {exc}") from exc
    inputs = []
    for raw in io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="strict"):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        inputs.append(join(base_url, line) if base_url else line)
    return inputs


def join(base_url: str, line: str) -> str:
    """*line* under *base_url* (``https://host/`` or ``s3://bucket/prefix``), unless it is a URL itself."""
    if is_remote(line):
        return line
    return base_url.rstrip("/") + "/" + line.lstrip("/")
