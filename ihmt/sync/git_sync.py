"""``ihmt sync``: one memory on several machines and for several people, through git.

The store folder (``W/ihmt_memory``) becomes a git repository. A sync commits what changed
here, fetches the remote, merges, brings the derived state in line with the merged files
and pushes. Any git remote works: a bare repository on a USB disk or a network share, a
self-hosted server, GitHub. The user's own ``git`` command does the work, so their
credentials and SSH keys apply.

Why merges do not conflict. Leaves are immutable and named by a hash of their domain,
source, position and text; records (facts, OUTDATED links, forget tombstones) are immutable
and named by a hash of their body. Two machines that saved different memories therefore
added different files, and git merges them by plain union. The fact timeline is re-derived
from leaves and fact records and does not depend on the order facts arrived, so "I live in
Madrid" (2024) from one machine and "I moved to Valencia" (2026) from another end up in the
same timeline everywhere. The rare same-id conflict and ``ihmt.config.json`` are settled by
:mod:`ihmt.sync.resolve`; a merge that still fails is aborted, never left half done.

Why derived files are ignored rather than merged with a merge driver. The catalog (SQLite),
branches, the trunk and the fact export are functions of the leaves and records. Merging two
SQLite files or two trunks is meaningless, and a custom merge driver would have to be
registered in every clone's configuration before the first merge, or git would mangle the
files. Ignoring them (``.gitignore``) and rebuilding them after the merge
(``IHMT.reconcile``) is simpler and always right, and it means two machines that both
changed their derived files can never conflict over them.

Forgetting across machines. A forget deletes the leaf file and writes a tombstone record.
The peer receives both; its reconcile drops the leaf. A peer that still adds the leaf back
in a commit of its own (it stored the same memory independently) merges into a tree with
the tombstone: reconcile deletes the file again and the same sync commits that deletion, so
after both sides have synced neither has the leaf. (The text stays in git history: see the
guide.)

Safety. The store's write lock is held while git commits, merges and reconcile rebuilds, so
a local writer waits; it is not held during the network fetch and push. A marker in
``.git/`` records the commit a sync started from: if the process is killed, the next sync
aborts a half-done merge, removes git lock files no running git holds, repairs leaf files
an interrupted checkout cut short (from git's objects), and finishes re-deriving the state.
No step deletes a leaf that is not gone from the merged tree or covered by a tombstone.

Each step ends at a fault-injection checkpoint (``ihmt.faults``: sync.fetched, sync.committed,
sync.merged, sync.applied, sync.reconciled, sync.pushing, sync.pushed), where a test can
interrupt a sync at an exact instant; without a test's handler they do nothing.
"""

from __future__ import annotations

import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..api import IHMT
from ..errors import StoreLockedError, SyncError
from ..faults import checkpoint
from ..store.atomic import atomic_write_bytes
from ..store.layout import StoreLayout, resolve_workspace
from ..store.lock import StoreLock
from ..store.quarantine import originals as quarantined_originals
from ..vcs.gitcmd import NETWORK_TIMEOUT, Git, current_branch, find_git, is_repo
from .changes import (
    ChangeCounts,
    count_changes,
    file_valid,
    is_leaf_path,
    leaf_bytes_valid,
    record_bytes_valid,
    tombstoned_ids,
)
from .merge import (
    apply_tree_change,
    check_target,
    empty_tree,
    hostile_entry,
    looks_like_memory,
    merge,
)
from .remote import fetch, push, remote_error
from .repo import (
    clear_marker,
    config_snapshot,
    ensure_repo,
    hostname,
    normalize_remote,
    recover,
    remote_branch,
    set_remote,
    write_last_sync,
    write_marker,
)

SYNC_LOCK_TIMEOUT = 600.0


@dataclass
class SyncReport:
    path: str
    remote: str | None = None
    branch: str = ""
    created_repo: bool = False
    cloned: bool = False
    committed: ChangeCounts | None = None
    received: ChangeCounts | None = None
    pushed: bool = False
    leaves: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


# -- entry points ------------------------------------------------------------------------------
def sync(
    workspace=None, remote: str | None = None, *, init_only: bool = False, retries: int = 3
) -> SyncReport:
    """Commit, pull, merge, rebuild what the merge touched, push. ``init_only`` sets up the
    repository (and the remote) and commits, without touching the network."""
    exe = find_git()
    layout = StoreLayout(resolve_workspace(workspace))
    report = SyncReport(path=str(layout.root))
    url = normalize_remote(remote) if remote else None
    if not layout.exists():
        if not url or init_only:
            raise SyncError(
                f"no IHMT store at {layout.root}; create one with `ihmt init`, or give "
                "--remote URL to fetch a shared memory"
            )
        _clone(exe, layout, url, report)
    git = Git(layout.root, exe)
    with _sync_lock(layout):
        marker = None
        if is_repo(layout.root):
            # before the store is opened: a half-done merge may have left conflict markers
            # in ihmt.config.json, which the store could not even load
            with StoreLock(layout.lock):
                notes, marker = recover(git, layout.root)
            report.notes += notes
        memory = IHMT.open(layout.workspace)
        try:
            recovering = marker is not None or bool(report.notes)
            force = "rebuild" if report.cloned else "reconcile" if recovering else ""
            _sync_locked(memory, git, report, url, init_only, retries, marker, force)
            report.leaves = memory.counts()["leaves"]
        finally:
            memory.close()
    return report


# -- the sync ----------------------------------------------------------------------------------
class _sync_lock:
    """One sync of a store at a time (fetch and push included), separate from the write lock
    so local writers are only held up during the local part."""

    def __init__(self, layout: StoreLayout) -> None:
        self.lock = StoreLock(layout.state / "sync.lock", timeout=SYNC_LOCK_TIMEOUT)

    def __enter__(self):
        try:
            self.lock.acquire()
        except StoreLockedError:
            raise SyncError(
                "another `ihmt sync` of this store has been running for 10 minutes; "
                "wait for it and try again"
            ) from None
        return self

    def __exit__(self, *exc) -> None:
        self.lock.release()


def _sync_locked(
    memory: IHMT,
    git: Git,
    report: SyncReport,
    url: str | None,
    init_only: bool,
    retries: int,
    marker: dict | None,
    force: str,
) -> None:
    with memory.writing():
        report.created_repo, config = ensure_repo(git, memory.path)
    if report.created_repo:
        report.notes.append(f"made {memory.path} a git repository")
    previous = config.get("remote.origin.url") or None
    if url:
        note = set_remote(git, url, previous)
        if note:
            report.notes.append(note)
    url = url or previous
    report.remote = url
    report.branch = current_branch(memory.path, git)
    for attempt in range(max(1, retries)):
        target, rbranch = None, report.branch
        if url and not init_only:
            try:
                fetch(git, url)
            except SyncError:
                if attempt == 0 and previous != url:
                    _restore_remote(git, previous)  # a typo must not replace a good remote
                raise
            rbranch, target = remote_branch(git, report.branch, config)
            checkpoint("sync.fetched")
        with memory.writing():
            head = _local_phase(memory, git, report, target, url, marker, force)
        marker, force = None, ""
        if not url or init_only:
            break
        if head == target:
            break  # the remote already has everything
        checkpoint("sync.pushing")
        if push(git, report.branch, rbranch, url, config):
            report.pushed = True
            checkpoint("sync.pushed")
            break
        report.notes.append("the remote changed during the sync; merging again")
    else:
        raise SyncError(
            f"{url} kept changing while this sync ran (push rejected {retries} times); "
            "run `ihmt sync` again"
        )
    if not init_only:
        write_last_sync(git, head=head, remote=url or "", branch=report.branch)


def _restore_remote(git: Git, previous: str | None) -> None:
    if previous:
        git.run("remote", "set-url", "origin", previous, check=False)
    else:
        git.run("remote", "remove", "origin", check=False)


def _local_phase(
    memory: IHMT,
    git: Git,
    report: SyncReport,
    target: str | None,
    url: str | None,
    marker: dict | None,
    force: str,
) -> str | None:
    """Under the store's write lock: commit, merge, re-derive; returns the new HEAD.
    ``force`` re-derives even when git changed nothing: "reconcile" or "rebuild".

    ``pre`` is where the catalog last matched git: this sync's starting commit, or the one
    an interrupted sync started from, so whatever that sync's merge changed is re-derived.
    """
    root = memory.path
    start = git.rev("HEAD")
    pre = (marker or {}).get("pre") or start
    write_marker(git, pre=pre, target=target)
    fallbacks = [r for r in ("HEAD", (marker or {}).get("target"), target) if r]
    counts, repaired = _commit(git, root, fallbacks, report.notes)
    before_merge = git.rev("HEAD") if counts else start
    if counts:
        report.committed = _add(report.committed, counts)
    if pre is None and before_merge:
        pre = before_merge  # first commit ever: it matches the catalog exactly
        write_marker(git, pre=pre, target=target)
    checkpoint("sync.committed")
    post = before_merge
    if target and not (before_merge and git.ok("merge-base", "--is-ancestor", target, "HEAD")):
        check_target(git, target, url or "origin")
        # the merge puts files in layer_0 before they are indexed: until the reconcile below
        # ends, searches must say the index may lack them (a killed sync leaves this mark)
        memory.mark_incomplete("a sync was interrupted after merging files from the remote")
        report.notes += merge(git, root, target, url or "origin")
        post = git.rev("HEAD")
    checkpoint("sync.merged")
    if before_merge != post:
        report.received = _add(
            report.received,
            count_changes(
                git.name_status(before_merge or empty_tree(git), post), tombstoned_ids(root)
            ),
        )
    changed = apply_tree_change(memory, git, pre, post) or before_merge != post
    checkpoint("sync.applied")
    if changed or force or repaired:
        # "rebuild" only for a fresh clone: faster than reconcile on an empty catalog, and
        # no other process can have the old catalog open (a rebuild replaces its file)
        notes = memory.rebuild() if force == "rebuild" else memory.reconcile()
        came_back = sum(1 for n in notes if "forgotten leaf" in n)
        if came_back:
            report.notes.append(
                f"removed {came_back} forgotten memory/memories that a peer still had"
            )
        report.notes += [
            n for n in notes if n.startswith(("skipped", "quarantined", "repaired", "cannot read"))
        ]
        checkpoint("sync.reconciled")
        again, _ = _commit(git, root, fallbacks, report.notes)
        if again:
            report.committed = _add(report.committed, again)
            post = git.rev("HEAD")
    clear_marker(git)
    return post


def _add(total: ChangeCounts | None, more: ChangeCounts) -> ChangeCounts:
    if total is None:
        return more
    merged = ChangeCounts()
    for name in ("added", "replaced", "outdated", "forgotten", "facts", "purged"):
        setattr(merged, name, getattr(total, name) + getattr(more, name))
    merged.settings = total.settings or more.settings
    return merged


# -- local commits -----------------------------------------------------------------------------
def _stage(
    git: Git, root: Path, fallbacks: list[str], notes: list[str]
) -> tuple[list[tuple[str, str]], int]:
    """Stage every change of the memory, but never share a damaged leaf or record: a file
    cut short (an interrupted checkout) or damaged on this disk is repaired from git's
    objects, and a leaf this machine moved to quarantine/ is restored rather than deleted
    everywhere; anything that cannot be repaired is left out and reported.
    Returns the staged changes and how many files were repaired."""
    git.run("add", "-A")
    entries = git.name_status("--cached")
    bad = [path for status, path in entries if status in "AM" and not file_valid(root, path)]
    aside = quarantined_originals(root)
    quarantined = [
        path for status, path in entries if status == "D" and is_leaf_path(path) and path in aside
    ]
    repaired = 0
    for path in bad + quarantined:
        for ref in fallbacks:
            data = git.blob(ref, path)
            if data is not None and (
                leaf_bytes_valid(data, path) if is_leaf_path(path) else record_bytes_valid(data)
            ):
                atomic_write_bytes(root / path, data)
                git.run("add", "--", path)
                notes.append(f"repaired {path} from git (the copy here was damaged or cut short)")
                repaired += 1
                break
        else:
            if path in quarantined:
                continue  # nothing better to offer: the removal stands
            if git.rev("HEAD") and git.blob("HEAD", path) is not None:
                git.run("reset", "-q", "HEAD", "--", path)
            else:
                git.run("rm", "-q", "--cached", "--", path)
            notes.append(f"not shared: {path} is damaged (see `ihmt check`)")
    return (git.name_status("--cached") if bad or repaired else entries), repaired


def _commit(
    git: Git, root: Path, fallbacks: list[str], notes: list[str]
) -> tuple[ChangeCounts | None, int]:
    entries, repaired = _stage(git, root, fallbacks, notes)
    if not entries:
        return None, repaired
    counts = count_changes(entries, tombstoned_ids(root))
    git.run("commit", "-q", "--no-verify", "-m", f"ihmt sync on {hostname()}: {counts.words()}")
    return counts, repaired


# -- cloning -------------------------------------------------------------------------------------
def _clone(exe: str, layout: StoreLayout, url: str, report: SyncReport) -> None:
    """A machine without the store: clone the shared memory and create the derived state."""
    root = layout.root
    if root.exists() and any(root.iterdir()):
        raise SyncError(
            f"{root} exists but is not an IHMT store; move it away or pick another --path"
        )
    layout.workspace.mkdir(parents=True, exist_ok=True)
    proc = Git(layout.workspace, exe).run(
        "clone", "-q", "--no-tags", "--origin", "origin", url, str(root),
        check=False, timeout=NETWORK_TIMEOUT,
    )  # fmt: skip
    if proc.returncode != 0:
        raise remote_error(url, proc.stderr, "clone")
    git = Git(root, exe)
    head = git.rev("HEAD")
    if head is None:
        # the remote's HEAD names a branch it does not have (a bare repository made with
        # another default branch name): check out the branch that holds the memory
        branch = current_branch(root, git)
        rbranch, target = remote_branch(git, branch, config_snapshot(git))
        if target:
            git.run("checkout", "-q", "-B", rbranch, target)
            git.run("branch", "-q", f"--set-upstream-to=origin/{rbranch}")
            head = target
    if head and not looks_like_memory(git, head):
        shutil.rmtree(root, ignore_errors=True)
        raise SyncError(f"{url} is a git repository but not an IHMT memory (no ihmt.config.json)")
    if head:
        problem = hostile_entry(git, head)
        if problem:
            shutil.rmtree(root, ignore_errors=True)  # never follows a link it removes
            raise SyncError(
                f"refused the memories of {url}: {problem}, which a memory never holds; "
                "nothing was kept"
            )
    IHMT.initialize(layout.workspace).close()
    report.cloned = True
    report.notes.append(f"cloned the shared memory from {url}")
    if head:
        entries = git.name_status(empty_tree(git), head)
        report.received = count_changes(entries, tombstoned_ids(root))


__all__ = ["SyncReport", "sync"]
