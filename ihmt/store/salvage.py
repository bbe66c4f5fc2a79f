"""Rebuild a damaged leaf header from what is left, keeping the body byte for byte.

One wrong character in the JSON header, a mangled marker line or a missing field must not
cost a memory whose text is intact. The body is located by the header's shape (the closing
marker, or the line ``}`` that ends pretty-printed JSON, followed by a damaged marker line);
then the essential fields are recovered:

* leaf_id: the file name, when it is a well-formed id (else a well-formed id in the header);
* domain: the one inside the id (which is how ids are minted);
* position: the number inside the id;
* timestamp: the header's, if readable, else the first date in the text, else the mtime;
* source, data_type, title, ingested_at: the header's, if readable, else neutral values.

Nothing is guessed when the body cannot be found or is not valid UTF-8: the caller
quarantines such a file.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from .. import re_cache
from .ids import LEAF_ID_RE, header_problem, valid_domain, valid_leaf_id
from .leaf_format import CLOSE_MARKER, OPEN_MARKER, leaf_checksum

_OPEN = OPEN_MARKER.encode()
_CLOSE = CLOSE_MARKER.encode()
_STRING_FIELD = r'"{name}"\s*:\s*"((?:[^"\\\n]|\\.){{0,2000}})"'
DATA_TYPES = ("CODE", "NARRATIVE", "CLINICAL", "PERSONAL", "PROCESS", "GENERIC")
_ISO = re_cache.compile(r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?Z?)?")


def split_damaged(data: bytes) -> tuple[str, bytes] | None:
    """(header text, body bytes) of a leaf whose header is damaged, or None when the body's
    start cannot be told."""
    end = data.find(_CLOSE)
    if data.startswith(_OPEN[:6]) and end >= 0:
        return data[:end].decode("utf-8", "replace"), data[end + len(_CLOSE) :]
    # the closing marker is damaged: the JSON ends at a line that is exactly "}", and the
    # damaged marker line follows it
    lines = data.split(b"\n")
    if len(lines) < 3 or b"IHMT" not in lines[0] and b"{" not in lines[0]:
        return None
    for i, line in enumerate(lines[1:], start=1):
        if line.rstrip(b"\r") == b"}" and i + 1 < len(lines):
            marker = lines[i + 1]
            if b"IHMT" in marker or b"META" in marker or marker.endswith(b">>>"):
                head = b"\n".join(lines[: i + 1]).decode("utf-8", "replace")
                return head, b"\n".join(lines[i + 2 :])
            return None
    return None


def _field(head: str, name: str) -> str | None:
    match = re.search(_STRING_FIELD.format(name=name), head)
    if not match:
        return None
    try:
        value = json.loads(f'"{match.group(1)}"')
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, str) and "\x00" not in value else None


def _header_of(head: str) -> dict:
    """The header's JSON if it still parses (only a field was damaged), else {}."""
    start = head.find("{")
    if start < 0:
        return {}
    try:
        value = json.loads(head[start:])
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def salvage(path: Path, data: bytes) -> tuple[dict, str] | None:
    """A trustworthy header and the intact body of a leaf file, or None."""
    parts = split_damaged(data)
    if parts is None:
        return None
    head, body_bytes = parts
    try:
        body = body_bytes.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None
    if not body.strip():
        return None
    parsed = _header_of(head)
    leaf_id = path.stem if valid_leaf_id(path.stem) else None
    if leaf_id is None:
        found = parsed.get("leaf_id") if valid_leaf_id(parsed.get("leaf_id")) else None
        found = found or _field(head, "leaf_id")
        leaf_id = found if valid_leaf_id(found) else None
    if leaf_id is None:
        return None
    match = LEAF_ID_RE.fullmatch(leaf_id)
    domain_part, position = leaf_id[2:].rsplit("-", 2)[:2] if match else ("general", "0")
    domain = domain_part if valid_domain(domain_part) else "general"

    def text(name: str) -> str | None:
        value = parsed.get(name)
        return value if isinstance(value, str) and "\x00" not in value else _field(head, name)

    try:
        mtime = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(path.stat().st_mtime))
    except OSError:
        mtime = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    timestamp = text("timestamp")
    if not timestamp or not _ISO.match(timestamp):
        from ..text.dates import normalize_timestamp, parse_date

        day = parse_date(body[:2000])
        timestamp = normalize_timestamp(day) if day else mtime
    data_type = text("data_type")
    header = {
        "leaf_id": leaf_id,
        "timestamp": timestamp,
        "data_type": data_type if data_type in DATA_TYPES else "GENERIC",
        "domain": domain,
        "source": text("source") or "memory",
        "position": int(position),
        "tags": [],
        "span": {},
        "checksum": leaf_checksum(body),
        "oversized": False,
        "title": text("title") or "",
        "ingested_at": text("ingested_at") or mtime,
        "extra": {"repaired_header": True},
    }
    tags = parsed.get("tags")
    if isinstance(tags, list) and all(isinstance(t, str) for t in tags):
        header["tags"] = tags
    if header_problem(header):
        return None
    return header, body
