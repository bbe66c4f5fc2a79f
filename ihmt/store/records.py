"""Durable records: decisions that are not in any leaf and must survive `init --force`.

Kinds: ``fact`` (record_fact), ``outdated`` (a correction link old leaf -> new leaf) and
``tombstone`` (a forgotten leaf that must not come back). One small immutable JSON file per
record, named by its content hash, so copies of a store merge by plain union of files.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

from .atomic import atomic_write_text

log = logging.getLogger("ihmt.store")


def write_record(folder: Path, kind: str, data: dict) -> Path:
    body = json.dumps({"kind": kind, **data}, ensure_ascii=False, sort_keys=True)
    digest = hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    path = folder / f"{kind}-{digest}.json"
    if not path.exists():
        atomic_write_text(path, body)
    return path


def read_records(folder: Path, kind: str | None = None) -> list[dict]:
    if not folder.is_dir():
        return []
    out = []
    pattern = f"{kind}-*.json" if kind else "*.json"
    for path in sorted(folder.glob(pattern)):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            log.warning("record %s is unreadable; ignored", path.name)
            continue
        if isinstance(data, dict) and "kind" in data:
            out.append(data)
    return out
