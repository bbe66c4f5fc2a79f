"""``ihmt sync --status``: what is here and not there, and the other way round."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import StoreLockedError, SyncError
from ..store.layout import StoreLayout, resolve_workspace
from ..store.lock import StoreLock
from ..vcs.gitcmd import Git, current_branch, find_git, is_repo
from .changes import ChangeCounts, count_changes, is_leaf_path, tombstoned_ids
from .remote import fetch as fetch_remote
from .repo import config_snapshot, read_last_sync, remote_branch


@dataclass
class SyncStatus:
    path: str
    repository: bool = False
    remote: str | None = None
    branch: str = ""
    remote_branch: str = ""
    head: str | None = None
    last_sync: str | None = None
    uncommitted: ChangeCounts = field(default_factory=ChangeCounts)
    local_commits: int = 0
    local_leaves: int = 0
    remote_commits: int = 0
    remote_leaves: int = 0
    fetched: bool = False
    fetch_error: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def sync_status(workspace=None, fetch: bool = True) -> SyncStatus:
    """What is here and not there, and the other way round (after a fetch when possible)."""
    exe = find_git()
    layout = StoreLayout(resolve_workspace(workspace))
    if not layout.exists():
        raise SyncError(f"no IHMT store at {layout.root}; create one with `ihmt init`")
    status = SyncStatus(path=str(layout.root), repository=is_repo(layout.root))
    if not status.repository:
        return status
    git = Git(layout.root, exe)
    config = config_snapshot(git)
    status.remote = config.get("remote.origin.url") or None
    status.branch = current_branch(layout.root, git)
    status.head = git.rev("HEAD")
    status.last_sync = read_last_sync(git).get("time")
    status.uncommitted = _uncommitted(git, layout.root)
    if status.remote and fetch:
        lock = StoreLock(layout.state / "sync.lock", timeout=2.0)
        try:
            with lock:
                fetch_remote(git, status.remote)
            status.fetched = True
        except StoreLockedError:
            status.fetch_error = "a sync of this store is running; showing the last fetched state"
        except SyncError as exc:
            status.fetch_error = str(exc)
    target = None
    if status.remote:
        status.remote_branch, target = remote_branch(git, status.branch, config)
    if status.head:
        if target:
            status.local_commits = int(git.out("rev-list", "--count", f"{target}..HEAD"))
            status.remote_commits = int(git.out("rev-list", "--count", f"HEAD..{target}"))
            status.local_leaves = _added_leaves(git, f"{target}...HEAD")
            status.remote_leaves = _added_leaves(git, f"HEAD...{target}")
        else:
            status.local_commits = int(git.out("rev-list", "--count", "HEAD"))
            status.local_leaves = sum(
                1
                for p in git.z_lines("ls-tree", "-r", "-z", "--name-only", "HEAD", "--", "layer_0")
                if is_leaf_path(p)
            )
    status.local_leaves += status.uncommitted.added
    return status


def _uncommitted(git: Git, root: Path) -> ChangeCounts:
    entries = []
    for item in git.z_lines(
        "--no-optional-locks",
        "status",
        "--porcelain",
        "-z",
        "--untracked-files=all",
        "--no-renames",
    ):
        code, path = item[:2], item[3:]
        letter = "A" if ("?" in code or "A" in code) else "D" if "D" in code else "M"
        entries.append((letter, path))
    return count_changes(entries, tombstoned_ids(root))


def _added_leaves(git: Git, spec: str) -> int:
    return sum(
        1
        for status, path in git.name_status(spec, "--", "layer_0")
        if status == "A" and is_leaf_path(path)
    )
