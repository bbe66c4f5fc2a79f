"""Finishing a merge git could not finish alone, the same way on every machine.

Leaves and records are content-addressed, so two machines that saved different memories
add different files and git merges them by plain union. A conflict on a leaf only happens
when both sides stored the *same* memory (same id) with a different header, e.g. the same
document ingested on two machines at different times: the text is identical, so either
version is right, and the winner is chosen by a rule both machines compute identically
(a whole file, then the earliest save). A leaf deleted on one side and present on the other
stays unless a tombstone says it was forgotten: a sync never drops a memory by accident.
For ``ihmt.config.json`` (and any other file) this machine's version is kept.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import SyncError
from ..store.atomic import atomic_write_bytes
from ..vcs.gitcmd import Git
from .changes import (
    CONFIG_FILE,
    is_leaf_path,
    is_record_path,
    leaf_id_of,
    leaf_sort_key,
    tombstoned_ids,
)

CHUNK = 500


def unmerged_stages(git: Git) -> dict[str, dict[int, str]]:
    """path -> {stage: blob sha} for every path git left unmerged (2 = ours, 3 = theirs)."""
    stages: dict[str, dict[int, str]] = {}
    for entry in git.z_lines("ls-files", "-u", "-z"):
        meta, _, path = entry.partition("\t")
        _mode, sha, stage = meta.split()
        stages.setdefault(path, {})[int(stage)] = sha
    return stages


def read_blobs(git: Git, shas: list[str]) -> dict[str, bytes]:
    """Many blobs through one ``git cat-file --batch`` process."""
    if not shas:
        return {}
    unique = list(dict.fromkeys(shas))
    out = git.run("cat-file", "--batch", input=("\n".join(unique) + "\n").encode()).stdout
    blobs: dict[str, bytes] = {}
    pos = 0
    for sha in unique:
        end = out.index(b"\n", pos)
        head = out[pos:end].split()
        if len(head) != 3:
            raise SyncError(f"git cat-file could not read object {sha}")
        size = int(head[2])
        blobs[sha] = out[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
    return blobs


def resolve_conflicts(git: Git, store_root: Path) -> list[str]:
    """Resolve every unmerged path in the index; returns notes for the user."""
    stages = unmerged_stages(git)
    blobs = read_blobs(git, [sha for s in stages.values() for sha in s.values()])
    tombstones = tombstoned_ids(store_root)
    keep: dict[str, bytes] = {}
    drop: list[str] = []
    leaf_conflicts = 0
    notes: list[str] = []
    for path, stage in sorted(stages.items()):
        ours, theirs = stage.get(2), stage.get(3)
        if is_leaf_path(path):
            if ours and theirs:
                leaf_conflicts += 1
                keep[path] = min(blobs[ours], blobs[theirs], key=lambda b: leaf_sort_key(b, path))
            elif leaf_id_of(path) in tombstones:
                drop.append(path)
            else:
                keep[path] = blobs[ours or theirs]  # one side removed it, nobody forgot it
        elif is_record_path(path) and not (ours and theirs):
            # records never change; one side deleted an outdated link of a forgotten leaf
            drop.append(path)
        else:
            chosen = ours or theirs
            if chosen is None:
                drop.append(path)
                continue
            keep[path] = blobs[chosen]
            if ours and theirs:
                label = "settings" if path == CONFIG_FILE else "file"
                notes.append(
                    f"both sides changed {path}; kept this machine's {label} "
                    "(edit it and sync again to share a change)"
                )
    if leaf_conflicts:
        notes.append(
            f"{leaf_conflicts} memory/memories were stored on both sides with different "
            "dates; kept the earliest save of each"
        )
    for path, data in keep.items():
        atomic_write_bytes(store_root / path, data, durable=False)
    paths = list(keep)
    for start in range(0, len(paths), CHUNK):
        git.run("add", "--", *paths[start : start + CHUNK])
    for start in range(0, len(drop), CHUNK):
        git.run("rm", "-q", "-f", "--ignore-unmatch", "--", *drop[start : start + CHUNK])
    return notes
