"""Atomic file replacement: readers see the old file or the new one, never half of either.

A unique temporary name in the same folder (so ``os.replace`` is a rename on one file system),
fsync of the data before the rename, and fsync of the folder after it so the rename itself
survives a power cut.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ..faults import checkpoint


def atomic_write_bytes(path: Path, data: bytes, *, durable: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # here, not at the top: readers (the hooks) never write

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        checkpoint("atomic.opened")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        checkpoint("atomic.written")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str, *, durable: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8", "surrogatepass"), durable=durable)


def fsync_dir(folder: Path) -> None:
    """Persist a rename; a no-op where folders cannot be opened (Windows)."""
    if os.name == "nt":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale_temps(folder: Path) -> int:
    """Delete temporary files left by writers that were killed mid-write."""
    removed = 0
    if not folder.is_dir():
        return 0
    for entry in folder.iterdir():
        if entry.name.startswith(".") and entry.name.endswith(".tmp"):
            with contextlib.suppress(OSError):
                entry.unlink()
                removed += 1
    return removed
