"""Merging a peer's commit into the store and re-deriving what the merge changed.

A peer's branch is checked first (it must be a memory, and must not track derived files,
which git would write over this machine's catalog). The merge itself is plain git with
rename detection off (similar leaves are different memories, never renames); what git
cannot finish goes to :mod:`ihmt.sync.resolve`, and a merge that still fails is aborted.
Afterwards the catalog is brought in line with what git removed or rewrote; new files, and
OUTDATED links whose record or leaves a peer removed, are left to ``IHMT.reconcile`` (its
record replay prunes links; there is no second pruning here).
"""

from __future__ import annotations

from pathlib import Path

from ..api import IHMT
from ..errors import SyncError
from ..store.atomic import atomic_write_bytes
from ..vcs.gitcmd import Git, git_message
from .changes import is_leaf_path, leaf_id_of
from .repo import hostname
from .resolve import resolve_conflicts, unmerged_stages

DERIVED_PATHS = ("layers", "state", "root.json", "quarantine")


def looks_like_memory(git: Git, commit: str) -> bool:
    names = set(git.z_lines("ls-tree", "-z", "--name-only", commit))
    return "ihmt.config.json" in names or "layer_0" in names


def check_target(git: Git, target: str, url: str) -> None:
    """Refuse to merge a branch that is not a memory, or that tracks derived files (git
    would overwrite this machine's catalog with them)."""
    names = set(git.z_lines("ls-tree", "-z", "--name-only", target))
    if "ihmt.config.json" not in names and "layer_0" not in names:
        raise SyncError(
            f"{url} is not an IHMT memory (no ihmt.config.json); "
            "give the URL of a repository made by `ihmt sync`"
        )
    refuse_hostile_tree(git, target, url)
    derived = sorted(names & set(DERIVED_PATHS))
    if derived:
        raise SyncError(
            f"{url} tracks derived files ({', '.join(derived)}); remove them there with "
            "`git rm -r --cached layers state root.json`, commit, and sync again"
        )


def hostile_entry(git: Git, commit: str) -> str | None:
    """The first entry of a peer's tree that must never reach this disk, described: a
    symbolic link (it could lead a later write outside the store) or a submodule."""
    for line in git.z_lines("ls-tree", "-r", "-z", "--full-tree", commit):
        meta, _, path = line.partition("\t")
        mode = meta.split(" ", 1)[0]
        if mode == "120000":
            return f"{path!r} is a symbolic link"
        if mode == "160000":
            return f"{path!r} is a submodule"
    return None


def refuse_hostile_tree(git: Git, target: str, url: str) -> None:
    problem = hostile_entry(git, target)
    if problem:
        raise SyncError(
            f"refused the memories of {url}: {problem}, which a memory never holds; nothing "
            "was merged; remove it there, commit, and sync again"
        )


def merge(git: Git, root: Path, target: str, url: str) -> list[str]:
    proc = git.run(
        "merge",
        "-q",
        "--no-edit",
        "--no-verify",
        "--ff",
        "--allow-unrelated-histories",
        "-X",
        "no-renames",
        "-m",
        f"ihmt sync on {hostname()}: merge {url}",
        target,
        check=False,
    )
    if proc.returncode == 0:
        return []
    if not (git.git_dir / "MERGE_HEAD").exists():
        raise SyncError(
            f"git could not merge the memories of {url}: {git_message(proc.stderr + proc.stdout)}; "
            "your store is unchanged; fix that and run `ihmt sync` again"
        )
    try:
        notes = resolve_conflicts(git, root)
        left = unmerged_stages(git)
        if left:
            raise SyncError(f"{len(left)} path(s) still conflict, e.g. {next(iter(left))}")
        git.run("commit", "-q", "--no-edit", "--no-verify")
    except Exception as exc:
        git.run("merge", "--abort", check=False)
        raise SyncError(
            f"the merge with {url} could not be completed ({exc}); it was undone and the store "
            f"works as before; merge by hand with `git -C {root} merge {target[:12]}`, then "
            "run `ihmt sync`"
        ) from None
    return notes


def empty_tree(git: Git) -> str:
    return git.run("hash-object", "-t", "tree", "--stdin", input=b"").stdout.decode().strip()


def apply_tree_change(memory: IHMT, git: Git, pre: str | None, post: str | None) -> bool:
    """Bring the catalog in line with leaf files git removed or rewrote between two commits.

    ``reconcile`` indexes new files by itself; a removed file is taken out here while its
    text is still readable (restored from ``pre`` if git already deleted it), so the term
    statistics lose exactly its terms; a rewritten file (same memory, another header) is
    taken out and put back so it is indexed with its new header.
    """
    if not post or pre == post:
        return False
    root = memory.path
    removed: list[str] = []
    rewritten: dict[str, bytes] = {}
    for status, path in git.name_status(pre or empty_tree(git), post):
        if not is_leaf_path(path):
            continue
        leaf_id = leaf_id_of(path)
        indexed = memory.indexed_path(leaf_id) == path  # the catalog has it at this path
        if status == "D" and indexed:
            if not (root / path).exists() and pre:
                data = git.blob(pre, path)
                if data is not None:
                    atomic_write_bytes(root / path, data, durable=False)
            removed.append(leaf_id)
        elif status == "M":
            data = git.blob(post, path)
            if data is None:
                continue
            if indexed:
                if not (root / path).exists():
                    atomic_write_bytes(root / path, data, durable=False)
                removed.append(leaf_id)
            rewritten[path] = data
    if removed:
        memory.remove_leaves(removed)
    for path, data in rewritten.items():
        atomic_write_bytes(root / path, data)
    return bool(removed or rewritten)
