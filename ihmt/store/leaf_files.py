"""Leaf files as the store reads them: a file becomes a MemoryLeaf only once its header is
trusted, and a leaf's checksum is computed here, once, for every writer and checker.

Part of the store (the file format), not of the tree: the tree, the search engine and the
write coordinator read leaves through these functions.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..errors import StoreCorruptError
from ..models import MemoryLeaf
from .ids import header_problem
from .leaf_format import parse_leaf


def leaf_checksum(text: str) -> str:
    """The checksum a leaf header carries for its body: ``sha256:`` and the hex digest of
    the text's UTF-8 bytes (lone surrogates kept, so a body read back matches byte for byte)."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def read_leaf_file(path: Path) -> MemoryLeaf:
    """A leaf from its file; a damaged file, or a header whose id, domain or field types
    cannot be trusted (they become paths and catalog rows), raises StoreCorruptError."""
    header, body = parse_leaf(path.read_bytes(), name=path.name)
    problem = header_problem(header)
    if problem:
        raise StoreCorruptError(f"{path.name}: {problem}")
    return leaf_from_header(header, body)


def leaf_from_header(header: dict, body: str) -> MemoryLeaf:
    known = set(MemoryLeaf.__dataclass_fields__) - {"content"}
    data = {k: v for k, v in header.items() if k in known and v is not None}
    data.setdefault("timestamp", "")
    data.setdefault("data_type", "GENERIC")
    data.setdefault("domain", "general")
    data.setdefault("source", "")
    data.setdefault("position", 0)
    return MemoryLeaf(content=body, **data)
