# Types of the compiled fast path (undisputed.c); resolve.reference_undisputed_utf8 is its Python equivalent.
from collections.abc import Callable

from ..decoded import Decoded
from ..response import ContentTypeFacts

def undisputed_utf8(body: bytes, content_type: ContentTypeFacts, /, lazy_text: bool = False) -> Decoded | None: ...
def configure(
    *,
    decoded: type[Decoded],
    why_header_and_meta: tuple[object, ...],
    why_header: tuple[object, ...],
    why_meta: tuple[object, ...],
    why_valid: tuple[object, ...],
    meta_late: str,
    bom_and_xml_starts: tuple[bytes, ...],
    find_meta: Callable[[bytes, int, int], int],
    prescan_meta: Callable[[bytes], str | None],
    may_declare_a_charset: Callable[[bytes], bool],
    late_meta_labels: Callable[[bytes], tuple[str | None, str | None]],
    looks_double_encoded: Callable[[bytes], bool],
    utf8_validity: Callable[[bytes], int],
    prescan_bytes: int,
    late_meta_limit: int,
) -> None: ...
