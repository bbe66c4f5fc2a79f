"""The store folder as a git repository: setup, identity, remote, and crash recovery.

What is shared and what is not: leaves (``layer_0/``), records (``records/``) and settings
(``ihmt.config.json``) are the memory and are committed. Everything else is derived and is
listed in the store's ``.gitignore``: ``layers/``, ``state/`` (the catalog, its WAL, the fact
export, the lock files), ``root.json``, and ``quarantine/`` (leaves this machine found
unreadable: a local repair artefact, not something to hand to a peer).
"""

from __future__ import annotations

import json
import os
import platform
import re
import socket
import time
from pathlib import Path

from .. import re_cache
from ..errors import SyncError
from ..store.atomic import atomic_write_text
from ..vcs.gitcmd import DEFAULT_BRANCH, Git, is_repo

IGNORED = ["/layers/", "/state/", "/root.json", "/quarantine/", "*.tmp", ".DS_Store", "Thumbs.db"]
GITIGNORE_HEAD = "# IHMT: derived files, rebuilt on every machine after a sync; never shared\n"
# leaves are checksummed byte for byte: no end-of-line conversion on any platform
GITATTRIBUTES = "* -text\n"
MARKER = "ihmt-sync-state"
LAST_SYNC = "ihmt-last-sync"
STALE_LOCK_SECONDS = 60.0


def hostname() -> str:
    name = socket.gethostname() or platform.node() or "machine"
    return name.split(".")[0] or "machine"


def config_snapshot(git: Git) -> dict[str, str]:
    """Every configuration value git sees in the store (all scopes), read once per sync."""
    out: dict[str, str] = {}
    for item in git.z_lines("config", "-z", "--list"):
        key, _, value = item.partition("\n")
        out[key] = value
    return out


def ensure_repo(git: Git, store_root: Path) -> tuple[bool, dict[str, str]]:
    """Make the store folder its own repository (not a folder of an enclosing one) with the
    ignore rules and an identity; returns (created, configuration snapshot)."""
    created = False
    if not is_repo(store_root):
        git.run("init", "-q")
        git.run("symbolic-ref", "HEAD", f"refs/heads/{DEFAULT_BRANCH}")
        git.run("config", "--local", "core.autocrlf", "false")
        created = True
    _ensure_lines(store_root / ".gitignore", GITIGNORE_HEAD, IGNORED)
    attributes = store_root / ".gitattributes"
    if not attributes.exists():
        atomic_write_text(attributes, GITATTRIBUTES)
    config = config_snapshot(git)
    ensure_identity(git, config)
    return created, config


def _ensure_lines(path: Path, head: str, lines: list[str]) -> None:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    present = {line.strip() for line in text.splitlines()}
    missing = [line for line in lines if line not in present]
    if not missing:
        return
    if text and not text.endswith("\n"):
        text += "\n"
    if not text:
        text = head
    atomic_write_text(path, text + "".join(line + "\n" for line in missing))


def ensure_identity(git: Git, config: dict[str, str]) -> None:
    """Commits need a name and e-mail; on a fresh machine set them for this repository only
    (never in the user's global configuration)."""
    host = hostname()
    if not config.get("user.name"):
        git.run("config", "--local", "user.name", f"IHMT on {host}")
    if not config.get("user.email"):
        git.run("config", "--local", "user.email", f"ihmt@{host}.invalid")


_SCP_LIKE = re_cache.compile(r"^[A-Za-z0-9._-]+@?[A-Za-z0-9._-]*:(?![\\/])")


def normalize_remote(url: str) -> str:
    """URLs and ``host:path`` stay as given; a local folder becomes an absolute path, since
    git resolves a relative one against the store folder, not where the user typed it."""
    url = url.strip()
    if not url:
        raise SyncError("--remote needs a URL or a folder path")
    if "://" in url or (_SCP_LIKE.match(url) and not re.match(r"^[A-Za-z]:[\\/]", url)):
        return url
    return str(Path(url).expanduser().absolute())


def set_remote(git: Git, url: str, current: str | None) -> str | None:
    if current == url:
        return None
    if current is None:
        git.run("remote", "add", "origin", url)
        return f"remote origin set to {url}"
    git.run("remote", "set-url", "origin", url)
    return f"remote origin changed from {current} to {url}"


def remote_branch(git: Git, branch: str, config: dict[str, str]) -> tuple[str, str | None]:
    """The branch of origin this one follows (its upstream, the same name, or the remote's
    only branch: a shared memory created elsewhere as master, say) and its fetched commit."""
    refs = {}
    for line in git.out(
        "for-each-ref", "--format=%(objectname) %(refname)", "refs/remotes/origin/", check=False
    ).splitlines():
        sha, _, ref = line.partition(" ")
        if ref and not ref.endswith("/HEAD"):
            refs[ref[len("refs/remotes/origin/") :]] = sha
    merge = config.get(f"branch.{branch}.merge", "")
    upstream = merge[len("refs/heads/") :] if merge.startswith("refs/heads/") else ""
    if upstream and (upstream in refs or not refs):
        name = upstream
    elif branch in refs or len(refs) != 1:
        name = branch
    else:
        name = next(iter(refs))
    return name, refs.get(name)


# -- markers: what a sync was doing, so the next one can finish it -----------------------
def read_marker(git: Git) -> dict | None:
    path = git.git_dir / MARKER
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_marker(git: Git, **data) -> None:
    atomic_write_text(git.git_dir / MARKER, json.dumps(data, sort_keys=True), durable=False)


def clear_marker(git: Git) -> None:
    (git.git_dir / MARKER).unlink(missing_ok=True)


def read_last_sync(git: Git) -> dict:
    try:
        data = json.loads((git.git_dir / LAST_SYNC).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_last_sync(git: Git, **data) -> None:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    body = json.dumps({"time": stamp, **data}, indent=2)
    atomic_write_text(git.git_dir / LAST_SYNC, body, durable=False)


# -- recovery -----------------------------------------------------------------------------
def _lock_files(git_dir: Path) -> list[Path]:
    names = ["index.lock", "HEAD.lock", "ORIG_HEAD.lock", "config.lock", "packed-refs.lock"]
    found = [git_dir / n for n in names if (git_dir / n).exists()]
    heads = git_dir / "refs" / "heads"
    if heads.is_dir():
        found += sorted(heads.rglob("*.lock"))
    return found


def git_running_in(folder: Path, lock: Path | None = None) -> bool:
    """Is a git process working in ``folder``? Uses /proc where it exists (Linux); elsewhere
    a lock file younger than a minute is taken as still held."""
    proc = Path("/proc")
    if not (proc / "self" / "cwd").exists():
        if lock is None:
            return False
        try:
            return time.time() - lock.stat().st_mtime < STALE_LOCK_SECONDS
        except OSError:
            return False
    target = str(folder.resolve())
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv0 = (entry / "cmdline").read_bytes().split(b"\0", 1)[0].decode("utf-8", "replace")
            if not os.path.basename(argv0).startswith("git"):
                continue
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if cwd == target or cwd.startswith(target + os.sep):
            return True
    return False


def recover(git: Git, store_root: Path) -> tuple[list[str], dict | None]:
    """Undo what an interrupted sync or git command left behind.

    Returns notes for the user and the marker of an unfinished sync (its ``pre`` commit lets
    the caller re-derive what the interrupted merge changed), or None.
    """
    notes: list[str] = []
    locks = _lock_files(git.git_dir)
    if locks:
        if git_running_in(store_root, locks[0]):
            raise SyncError(
                f"a git command is working in {store_root} ({locks[0].name} is held); "
                "wait for it to finish and run `ihmt sync` again"
            )
        for lock in locks:
            lock.unlink(missing_ok=True)
        names = ", ".join(sorted({p.name for p in locks}))
        notes.append(f"removed {names} left by an interrupted git command (no git is running)")
    if (git.git_dir / "MERGE_HEAD").exists():
        if git.run("merge", "--abort", check=False).returncode != 0:
            git.run("reset", "--merge", check=False)
        notes.append("aborted a merge an interrupted sync left unfinished")
    marker = read_marker(git)
    if marker is not None:
        notes.append("finishing a sync that was interrupted")
    return notes, marker
