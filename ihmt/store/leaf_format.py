"""The leaf file format: a JSON header between markers, then the raw text, byte for byte.

    <<<IHMT-META
    { ...header... }
    IHMT-META>>>
    raw text

The header ends at the first line that is exactly ``IHMT-META>>>``. Pretty-printed JSON never
produces that line (newlines inside strings are escaped), so a body that itself contains the
marker still round-trips. Files are written and read as bytes so CRLF and a BOM survive on
every platform.
"""

from __future__ import annotations

import json

from ..errors import StoreCorruptError

OPEN_MARKER = "<<<IHMT-META\n"
CLOSE_MARKER = "\nIHMT-META>>>\n"


def render_leaf(header: dict, body: str) -> bytes:
    head = json.dumps(header, indent=2, ensure_ascii=False, sort_keys=False)
    text = OPEN_MARKER + head + CLOSE_MARKER + body
    return text.encode("utf-8", "surrogatepass")


def parse_leaf(data: bytes, *, name: str = "leaf") -> tuple[dict, str]:
    """Split a leaf file into (header, body); a damaged file raises StoreCorruptError."""
    try:
        text = data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        raise StoreCorruptError(f"{name}: not valid UTF-8") from None
    if not text.startswith(OPEN_MARKER):
        raise StoreCorruptError(f"{name}: missing the <<<IHMT-META header")
    end = text.find(CLOSE_MARKER, len(OPEN_MARKER) - 1)
    if end < 0:
        raise StoreCorruptError(f"{name}: the header is never closed by IHMT-META>>>")
    try:
        header = json.loads(text[len(OPEN_MARKER) : end])
    except json.JSONDecodeError as exc:
        raise StoreCorruptError(f"{name}: header is not valid JSON ({exc.msg})") from None
    if not isinstance(header, dict) or not isinstance(header.get("leaf_id"), str):
        raise StoreCorruptError(f"{name}: header has no leaf_id")
    return header, text[end + len(CLOSE_MARKER) :]


def leaf_checksum(text: str) -> str:
    """The checksum a leaf header carries for its body: ``sha256:`` and the hex digest of
    the text's UTF-8 bytes (lone surrogates kept, so a body read back matches byte for byte)."""
    import hashlib  # here: the hooks read leaves without checking them

    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
