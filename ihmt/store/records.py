"""Durable records: decisions that are not in any leaf and must survive `init --force`.

Kinds: ``fact`` (record_fact), ``outdated`` (a correction link old leaf -> new leaf) and
``tombstone`` (a forgotten leaf that must not come back). One small immutable JSON file per
record, named by its content hash, so copies of a store merge by plain union of files.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..logs import get_logger
from .atomic import atomic_write_text

log = get_logger("ihmt.store")


def write_record(folder: Path, kind: str, data: dict) -> Path:
    body = json.dumps({"kind": kind, **data}, ensure_ascii=False, sort_keys=True)
    import hashlib  # here: only writers need it

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


# -- what the facade and sync read from the records -------------------------------------------
def fact_records(folder: Path) -> list[dict]:
    """The facts recorded with ``record_fact`` (dicts in ``Fact.to_dict`` form)."""
    return [r["fact"] for r in read_records(folder, "fact") if "fact" in r]


def outdated_links(folder: Path) -> set[tuple[str, str, str]]:
    """Every recorded correction as (old id, new id, created)."""
    return {
        (r["old_id"], r["new_id"], r.get("created", ""))
        for r in read_records(folder, "outdated")
        if isinstance(r.get("old_id"), str)
        and isinstance(r.get("new_id"), str)
        and isinstance(r.get("created", ""), str)
    }


def drop_outdated_records(folder: Path, leaf_ids: list[str]) -> None:
    """Delete the correction records that name any of these leaves (they were forgotten)."""
    for path in folder.glob("outdated-*.json"):
        try:
            rec = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(rec, dict) and (
            rec.get("old_id") in leaf_ids or rec.get("new_id") in leaf_ids
        ):
            path.unlink(missing_ok=True)


# -- tombstones: forgotten leaves that must not come back -------------------------------------
def write_tombstones(folder: Path, leaf_ids: list[str], forgotten_at: str) -> None:
    for leaf_id in leaf_ids:
        write_record(folder, "tombstone", {"leaf_id": leaf_id, "forgotten_at": forgotten_at})


def tombstoned_ids(folder: Path) -> set[str]:
    """The ids of every forgotten leaf (a record without a text id is ignored)."""
    return {
        r["leaf_id"] for r in read_records(folder, "tombstone") if isinstance(r.get("leaf_id"), str)
    }


def lift_tombstones(folder: Path, leaf_ids: set[str]) -> None:
    """Saving or ingesting a forgotten text again is a new decision: its tombstone goes,
    so the next rebuild or sync keeps it."""
    if not folder.is_dir():
        return
    for path in folder.glob("tombstone-*.json"):
        try:
            rec = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        # a record from a peer is untrusted: one that names no text id is ignored, not fatal
        if (
            isinstance(rec, dict)
            and isinstance(rec.get("leaf_id"), str)
            and rec["leaf_id"] in leaf_ids
        ):
            path.unlink(missing_ok=True)
