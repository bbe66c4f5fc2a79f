"""What a forget cannot reach in a synced store: the git history, and how to purge it.

``forget`` deletes a memory's file and writes a tombstone, and the next sync carries both to
every copy. The file's earlier versions stay in the history of the store's repository, of the
remote, and of every machine that synced it. IHMT does not rewrite that history itself: a
rewrite has to be pushed with force, and every other clone has to be replaced afterwards or
its next sync merges the old commits back. ``history_copies`` says which memories have
copies there and gives the exact commands for this store; GUIDE.md section 7 explains them.
"""

from __future__ import annotations

import shlex
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import SyncError
from .gitcmd import DEFAULT_BRANCH, Git, current_branch, find_git, is_repo


@dataclass
class HistoryCopies:
    """Copies of forgotten memories that stay in git history; ``paths`` empty means none."""

    store: str
    paths: list[str] = field(default_factory=list)  # leaf files, relative to the store
    remote: str | None = None
    branch: str = DEFAULT_BRANCH
    commands: list[str] = field(default_factory=list)  # the purge recipe, in order
    checked: bool = True  # False when git could not be asked (then every path is listed)

    def any(self) -> bool:
        return bool(self.paths)

    def warning(self) -> list[str]:
        """The plain-language notice, one line per item, for a person before they confirm."""
        if not self.paths:
            return []
        where = "this store's git history" + (
            f", the remote {self.remote} and every machine that synced it" if self.remote else ""
        )
        lines = [
            f"WARNING: this store is synced with git; forget removes the memory from every copy "
            f"on the next sync, but {len(self.paths)} file(s) of it stay in {where}.",
            "To purge them: first run `ihmt sync` here and on every other machine, then run "
            "these commands here (they rewrite the shared history; see GUIDE.md, 'Erasing a "
            "memory from the sync history'):",
        ]
        lines += [f"  {command}" for command in self.commands]
        if self.remote:
            lines.append(
                "Afterwards, on every other machine, move its store folder aside and join again "
                f"with `ihmt sync --remote {self.remote} --path NEW_FOLDER`."
            )
        return lines

    def to_dict(self) -> dict:
        data = asdict(self)
        data["warning"] = self.warning()
        return data


def purge_commands(store: Path, paths: list[str], remote: str | None, branch: str) -> list[str]:
    """The shell commands (POSIX sh) that rewrite ``paths`` out of the store's history and
    push the result; git alone is enough (filter-branch ships with git)."""
    quoted = " ".join(shlex.quote(p) for p in paths)
    index_filter = f"git rm -q --cached --ignore-unmatch -- {quoted}"
    commands = [
        f"cd {shlex.quote(str(store))}",
        "FILTER_BRANCH_SQUELCH_WARNING=1 git filter-branch --force --prune-empty "
        f"--index-filter {shlex.quote(index_filter)} -- --all",
        "git for-each-ref --format='delete %(refname)' refs/original | git update-ref --stdin",
        "git reflog expire --expire=now --all && git gc -q --prune=now",
    ]
    if remote:
        commands.append(f"git push --force origin {shlex.quote(branch)}")
        if Path(remote).is_dir():  # a folder on this machine (a USB disk, a share)
            bare = shlex.quote(remote)
            commands.append(
                f"git -C {bare} reflog expire --expire=now --all && git -C {bare} gc -q "
                "--prune=now  # the remote keeps unreachable copies until its own gc"
            )
    return commands


def history_copies(store_root: Path, relative_paths: list[str]) -> HistoryCopies:
    """Which of these leaf files (paths relative to the store) are in the store's git
    history, with the purge recipe; empty when the store is not synced."""
    report = HistoryCopies(store=str(store_root))
    if not relative_paths or not is_repo(store_root):
        return report
    try:
        git = Git(store_root, find_git())
        report.remote = git.config_get("remote.origin.url") or None
        report.branch = current_branch(store_root, git)
        listed = git.run(
            "log", "--all", "--format=", "--name-only", "-z", "--", *relative_paths, check=False
        )
        if listed.returncode == 0:
            seen = {p for p in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if p}
            report.paths = [p for p in relative_paths if p in seen]
        else:  # no commit yet, or a damaged repository: say what may be there
            report.paths = list(relative_paths) if git.rev("HEAD") else []
            report.checked = False
    except SyncError:  # git missing: the history cannot be read, so warn about all of them
        report.paths = list(relative_paths)
        report.checked = False
    if report.paths:
        report.commands = purge_commands(store_root, report.paths, report.remote, report.branch)
    return report


__all__ = ["HistoryCopies", "history_copies", "purge_commands"]
