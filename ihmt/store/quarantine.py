"""quarantine/: files moved aside, never deleted, each with where it came from and why.

    quarantine/<name>                      the file, byte for byte
    quarantine/<name>.why.json             {"original": "layer_0/general/x.txt",
                                            "reason": "...", "moved_at": "..."}

Two files of the same name both survive: the second gets ``<stem>.2<suffix>`` (then .3, …).
The note is written before the move, so a process killed in between leaves a note without a
file (ignored and cleaned up), never a file without its origin. Notes are read back as
untrusted input: ``original`` must name a leaf path inside layer_0 before a restore uses it.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .atomic import atomic_write_text, fsync_dir

FOLDER = "quarantine"
NOTE_SUFFIX = ".why.json"


@dataclass
class QuarantinedFile:
    name: str
    original: str
    reason: str
    moved_at: str
    size: int

    def to_dict(self) -> dict:
        return asdict(self)


def folder(root: Path) -> Path:
    return root / FOLDER


def _free_name(where: Path, name: str) -> str:
    stem, dot, suffix = name.partition(".")
    suffix = dot + suffix
    candidate, n = name, 1
    while (where / candidate).exists() or (where / (candidate + NOTE_SUFFIX)).exists():
        n += 1
        candidate = f"{stem}.{n}{suffix}"
    return candidate


def move_aside(root: Path, path: Path, reason: str) -> str:
    """Move ``path`` (a file inside the store) into quarantine/; returns its new name."""
    where = folder(root)
    where.mkdir(parents=True, exist_ok=True)
    name = _free_name(where, path.name)
    try:
        original = path.relative_to(root).as_posix()
    except ValueError:
        original = path.name
    note = {
        "original": original,
        "reason": reason,
        "moved_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    atomic_write_text(where / (name + NOTE_SUFFIX), json.dumps(note, ensure_ascii=False))
    if path.is_symlink():
        os.replace(path, where / name)  # the link itself, never what it points to
    else:
        import shutil  # here: shutil (and the compressors it loads) only for a damaged file

        shutil.move(str(path), where / name)
    fsync_dir(where)
    return name


def entries(root: Path) -> list[QuarantinedFile]:
    """What quarantine/ holds, oldest first; files without a note (an older version moved
    them) are listed with an unknown origin."""
    where = folder(root)
    if not where.is_dir():
        return []
    out = []
    for path in sorted(where.iterdir()):
        if path.name.endswith(NOTE_SUFFIX) or path.name.startswith("."):
            continue
        note = read_note(where / (path.name + NOTE_SUFFIX))
        try:
            size = path.lstat().st_size
        except OSError:
            size = 0
        out.append(
            QuarantinedFile(
                name=path.name,
                original=note.get("original", ""),
                reason=note.get("reason", "moved here by an earlier version (no note)"),
                moved_at=note.get("moved_at", ""),
                size=size,
            )
        )
    out.sort(key=lambda e: (e.moved_at, e.name))
    return out


def read_note(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, str)}


def originals(root: Path) -> set[str]:
    """Original relative paths of everything in quarantine (sync keeps them shared)."""
    return {e.original for e in entries(root) if e.original}


def forget_note(root: Path, name: str) -> None:
    (folder(root) / (name + NOTE_SUFFIX)).unlink(missing_ok=True)
