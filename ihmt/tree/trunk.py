"""root.json: the trunk, i.e. every node that has no parent yet, plus per-domain counters.

The trunk is derived: it records the catalog generation it was written for, and a writer that
finds a different generation (a killed writer, another process) rebuilds it from the catalog
before using it. Readers just read the latest complete file (it is replaced atomically).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from ..errors import StoreCorruptError
from ..store.atomic import atomic_write_text
from ..text.keywords import top_keywords
from .refs import leaf_count, public_ref

ROOT_FORMAT = 1


def load_root(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StoreCorruptError(f"{path} is missing; run `ihmt check --repair`") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreCorruptError(
            f"{path} is damaged ({exc.__class__.__name__}); run `ihmt check --repair` to rebuild it"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise StoreCorruptError(f"{path} has no trunk entries; run `ihmt check --repair`")
    return data


def render_root(entries: list[dict], generation: int, totals: dict) -> dict:
    domains: dict[str, dict] = {}
    for ref in entries:
        info = domains.setdefault(
            ref["domain"], {"leaves": 0, "top": [], "topics": [], "date_from": "", "date_to": ""}
        )
        info["leaves"] += leaf_count(ref)
        info["top"].append(ref["id"])
    for name, info in domains.items():
        refs = [r for r in entries if r["domain"] == name]
        info["topics"] = top_keywords([" ".join(r.get("keywords", [])) for r in refs], 8)
        lows = [r.get("date_from") or r.get("date") or "" for r in refs]
        highs = [r.get("date_to") or r.get("date") or "" for r in refs]
        info["date_from"] = min((d for d in lows if d), default="")
        info["date_to"] = max((d for d in highs if d), default="")
    return {
        "format_version": ROOT_FORMAT,
        "generation": generation,
        "updated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "counters": totals,
        "domains": domains,
        "entries": [public_ref(r) for r in entries],
    }


def write_root(path: Path, data: dict) -> None:
    # Atomic but not fsynced: root.json is derived and carries the catalog generation it was
    # written for; a stale or missing one is rebuilt from the catalog by the next writer.
    atomic_write_text(
        path, json.dumps(data, ensure_ascii=False, separators=(",", ":")), durable=False
    )
