"""What `ihmt semantic enable|disable|status` does (the CLI handler only formats).

enable: refuses with a one-line message when the extra is missing or the model cannot load
(the setting is left off), else sets ``semantic: true`` and embeds every leaf.
disable: sets ``semantic: false`` and keeps the sidecar, so enabling again only embeds what
changed meanwhile (forget still deletes vectors from it); ``drop=True`` deletes it.
status: never loads the model.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from .embedder import EXTRA_HINT, SemanticUnavailable, load_embedder, missing_modules
from .hook import model_setting


def _sidecar_files(memory) -> list[Path]:
    base = memory.semantic_sidecar()
    return [Path(str(base) + suffix) for suffix in ("", "-wal", "-shm")]


def enable(workspace, progress: Callable[[int, int], None] | None = None) -> dict:
    from ..api import IHMT

    memory = IHMT.open(workspace)
    missing = missing_modules()
    if missing:
        raise SemanticUnavailable(
            f"semantic search needs {', '.join(missing)}, which is not installed; run: {EXTRA_HINT}"
        )
    load_embedder(model_setting(memory.config))  # fails here, with the setting left off
    memory.close()
    memory = IHMT.initialize(workspace, semantic=True)
    counts = memory.semantic.sync(progress)
    if memory.semantic.error:
        raise SemanticUnavailable(memory.semantic.error)
    data = status_of(memory)
    data.update(embedded=counts["embedded"], dropped=counts["dropped"])
    memory.close()
    return data


def disable(workspace, drop: bool = False) -> dict:
    from ..api import IHMT
    from . import resident

    IHMT.open(workspace).close()  # a clear error when there is no store
    memory = IHMT.initialize(workspace, semantic=False)
    resident.stop(memory.layout.state)  # the hooks' resident model goes too
    removed = 0
    if drop:
        if memory.semantic is not None:
            memory.semantic.vectors.close()
        for path in _sidecar_files(memory):
            if path.exists():
                removed += path.stat().st_size
                path.unlink()
    data = status_of(memory)
    data["dropped_bytes"] = removed
    memory.close()
    return data


def status(workspace) -> dict:
    from ..api import IHMT

    memory = IHMT.open(workspace)
    data = status_of(memory)
    memory.close()
    return data


def status_of(memory) -> dict:
    from .retriever import SemanticIndex

    index = memory.semantic or SemanticIndex(memory.semantic_source(), model_setting(memory.config))
    data = index.status()
    data["extra_installed"] = not missing_modules()
    data["pending"] = max(0, data["leaves"] - data["vectors"]) if data["enabled"] else 0
    from . import resident

    data["resident"] = resident.running(memory.layout.state)
    data["resident_wanted"] = resident.wanted(memory.config)
    return data


def describe(data: dict) -> str:
    """Human-readable lines for a status dict."""
    state = "on" if data["enabled"] else "off"
    lines = [f"semantic search: {state} (model {data['model']})"]
    if "embedded" in data:
        lines.append(f"embedded {data['embedded']} leaf/leaves now")
    vectors = f"vectors: {data['vectors']} for {data['leaves']} leaves"
    if data["pending"]:
        vectors += f" ({data['pending']} embedded at the next search)"
    lines.append(vectors)
    if data.get("dropped_bytes"):
        lines.append(f"deleted the vector sidecar ({_size(data['dropped_bytes'])})")
    elif data["sidecar_bytes"]:
        kept = " (kept while off; `disable --drop` deletes it)" if not data["enabled"] else ""
        lines.append(f"sidecar: {data['sidecar']} ({_size(data['sidecar_bytes'])}){kept}")
    lines.append(f"model path: {data['model_path']}")
    if data.get("resident"):
        lines.append("resident model (hooks, searches from other processes): running")
    elif data.get("resident_wanted"):
        lines.append(
            "resident model (hooks, searches from other processes): not running "
            "(a session start starts it)"
        )
    if not data["extra_installed"]:
        lines.append(f"the semantic extra is not installed: {EXTRA_HINT}")
    if data["last_error"]:
        lines.append(f"last error (search fell back to lexical): {data['last_error']}")
    return "\n".join(lines)


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def stderr_bar(done: int, total: int) -> None:
    """A progress bar on stderr for `enable` (terminal only, like ingest's)."""
    if not sys.stderr.isatty() or total <= 0:
        return
    width = 30
    filled = width * done // total
    sys.stderr.write(f"\r[{'#' * filled}{'-' * (width - filled)}] {done}/{total} leaves embedded")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()
