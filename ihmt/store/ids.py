"""The grammar of names that become paths, and the check of a leaf header read from disk.

A leaf file's header, a record and a file arriving by sync are input like any other: a header
that says ``"leaf_id": "../../victim/notes"`` must never become a path. Leaf ids are minted by
``ingest.ingestor.leaf_id_for`` as ``L-<domain>-<position, 4+ digits>-<hex digest>`` and
domains are dotted words (``software.python``); anything else is refused here, with a reason
the caller reports (and quarantines the file for).
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import re_cache

_WORD = r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}"
DOMAIN_RE = re_cache.compile(rf"{_WORD}(?:\.{_WORD}){{0,7}}")
LEAF_ID_RE = re_cache.compile(rf"L-{DOMAIN_RE.pattern}-[0-9]{{4,9}}-[0-9a-f]{{6,64}}")
MAX_ID = 240

# header fields and the types they must have when present (absent ones get defaults)
_FIELD_TYPES: dict[str, type | tuple[type, ...]] = {
    "timestamp": str,
    "data_type": str,
    "source": str,
    "position": int,
    "tags": list,
    "span": dict,
    "checksum": str,
    "oversized": bool,
    "title": str,
    "ingested_at": str,
    "extra": dict,
    "project": str,
    "session": str,
}
MAX_LABEL = 1000  # project and session names


def valid_leaf_id(value: object) -> bool:
    return isinstance(value, str) and len(value) <= MAX_ID and bool(LEAF_ID_RE.fullmatch(value))


def valid_domain(value: object) -> bool:
    return isinstance(value, str) and bool(DOMAIN_RE.fullmatch(value))


def short(value: object, limit: int = 60) -> str:
    """A header value quoted for a one-line message (control characters escaped)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def header_problem(header: dict) -> str | None:
    """Why a parsed leaf header cannot be trusted, or None when it can."""
    leaf_id = header.get("leaf_id")
    if not valid_leaf_id(leaf_id):
        return f"header leaf_id {short(leaf_id)} is not a leaf id (L-<domain>-<nnnn>-<hash>)"
    if "domain" in header and not valid_domain(header["domain"]):
        return f"header domain {short(header['domain'])} is not a domain name"
    for name, kind in _FIELD_TYPES.items():
        value = header.get(name)
        if value is None:  # absent or null: the reader's default applies
            continue
        if isinstance(value, bool) and kind is int or not isinstance(value, kind):
            return f"header field {name} has the wrong type ({type(value).__name__})"
    for name in ("project", "session"):
        if len(header.get(name) or "") > MAX_LABEL:
            return f"header field {name} is longer than {MAX_LABEL} characters"
    if any(not isinstance(t, str) for t in header.get("tags") or []):
        return "header field tags holds a value that is not text"
    return None


def inside(root: Path, path: Path) -> bool:
    """True when ``path`` (followed through symbolic links) lies inside ``root``: the last
    guard before a move or write, whatever the id checks above let through."""
    base = os.path.realpath(root)
    target = os.path.realpath(path)
    return target == base or target.startswith(base.rstrip(os.sep) + os.sep)
