"""The pure decoding core: bytes, Content-Type, URL and overrides in, ``Decoded`` out.

Nothing here touches Kafka, Avro, logging or the clock.  Start reading at
``resolve.decode``: it reads the Content-Type once, sets aside bodies that are
not text, asks the one fast path (``undisputed_utf8``: the same steps, on a
response known without reading it whole) and otherwise calls ``resolve``, one
small function per step of the resolution order over the facts of
``response.py``, each candidate tried strictly by ``attempt.py``.  The answer
is a ``Decoded`` (``decoded.py``).
"""

from .decoded import DECLARATION_PLACES, SOURCES, Decoded
from .mime_sniff import MEDIA_FAMILIES, media_family, non_text_type
from .overrides import Override, OverrideMode, OverrideTable
from .resolve import decode

__all__ = [
    "DECLARATION_PLACES",
    "SOURCES",
    "Decoded",
    "MEDIA_FAMILIES",
    "Override",
    "OverrideMode",
    "OverrideTable",
    "decode",
    "media_family",
    "non_text_type",
]
