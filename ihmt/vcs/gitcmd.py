"""A thin wrapper around the user's own ``git`` command (subprocess, no library).

Why the command and not a library: the user's git already knows their credentials, SSH keys,
proxies and hosting quirks; the standard library has no git, and re-implementing the
protocol would be a liability. Every call runs ``git -C <store>`` with a cleaned environment
(no inherited GIT_DIR and friends, C locale for parseable messages, no pager) and a timeout,
and every failure becomes a one-line :class:`SyncError`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from ..errors import SyncError

# variables that would point git at another repository than the store's own
_FOREIGN_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_COMMON_DIR",
)
LOCAL_TIMEOUT = 600.0
NETWORK_TIMEOUT = 300.0
DEFAULT_BRANCH = "main"


def find_git() -> str:
    exe = shutil.which("git")
    if not exe:
        raise SyncError(
            "git is not installed or not on PATH; install git (https://git-scm.com) "
            "and run `ihmt sync` again"
        )
    return exe


def git_message(stderr: bytes | str, fallback: str = "git failed") -> str:
    """The most useful single line of git's error output."""
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for prefix in ("fatal:", "error:", "remote: error:", "remote:"):
        for line in lines:
            if line.lower().startswith(prefix):
                return line[len(prefix) :].strip() or fallback
    hints = [line for line in lines if not line.lower().startswith(("hint:", "warning:"))]
    return (hints or lines or [fallback])[-1]


class Git:
    """Runs git inside one repository folder."""

    def __init__(self, repo: Path, executable: str | None = None) -> None:
        self.repo = Path(repo)
        self.exe = executable or find_git()
        env = {k: v for k, v in os.environ.items() if k not in _FOREIGN_ENV}
        env.update({"LC_ALL": "C", "LANGUAGE": "C", "GIT_PAGER": "cat", "PAGER": "cat"})
        env.setdefault("GIT_MERGE_AUTOEDIT", "no")
        if not _interactive():
            # an agent or a server has nobody to type a password: fail instead of hanging
            env["GIT_TERMINAL_PROMPT"] = "0"
            env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
        self.env = env

    @property
    def git_dir(self) -> Path:
        return self.repo / ".git"

    def run(
        self,
        *args: str,
        check: bool = True,
        input: bytes | None = None,
        timeout: float = LOCAL_TIMEOUT,
        what: str | None = None,
    ) -> subprocess.CompletedProcess:
        cmd = [
            self.exe,
            "-C",
            str(self.repo),
            "-c",
            "core.quotepath=false",
            "-c",
            "core.autocrlf=false",
            "-c",
            "color.ui=false",
            *args,
        ]
        try:
            proc = subprocess.run(
                cmd,
                input=input,
                capture_output=True,
                env=self.env,
                timeout=timeout,
                stdin=None if input is not None else subprocess.DEVNULL,
            )
        except FileNotFoundError:
            raise SyncError("git is not installed or not on PATH; install git and retry") from None
        except subprocess.TimeoutExpired:
            raise SyncError(
                f"`git {args[0]}` did not finish within {timeout:.0f} s "
                "(an unreachable remote?); run `ihmt sync` again"
            ) from None
        if check and proc.returncode != 0:
            label = what or f"git {args[0]}"
            raise SyncError(f"{label} failed: {git_message(proc.stderr)}")
        return proc

    def out(self, *args: str, check: bool = True) -> str:
        return self.run(*args, check=check).stdout.decode("utf-8", "surrogateescape").strip()

    def ok(self, *args: str) -> bool:
        return self.run(*args, check=False).returncode == 0

    def rev(self, ref: str) -> str | None:
        proc = self.run("rev-parse", "--verify", "--quiet", ref + "^{commit}", check=False)
        if proc.returncode != 0:
            return None
        return proc.stdout.decode().strip() or None

    def blob(self, ref: str, path: str) -> bytes | None:
        proc = self.run("cat-file", "blob", f"{ref}:{path}", check=False)
        return proc.stdout if proc.returncode == 0 else None

    def config_get(self, key: str, local: bool = False) -> str:
        args = ["config", "--local", "--get", key] if local else ["config", "--get", key]
        return self.out(*args, check=False)

    def z_lines(self, *args: str) -> list[str]:
        data = self.run(*args).stdout.decode("utf-8", "surrogateescape")
        return [part for part in data.split("\0") if part]

    def name_status(self, *args: str) -> list[tuple[str, str]]:
        """``git diff --name-status -z`` pairs (status letter, path), renames disabled."""
        parts = self.z_lines("diff", "--name-status", "--no-renames", "-z", *args)
        return [(parts[i][0], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]


def _interactive() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):
        return False


def is_repo(store_root: Path) -> bool:
    return (store_root / ".git").exists()


def current_branch(store_root: Path, git: Git) -> str:
    head = store_root / ".git" / "HEAD"
    try:
        text = head.read_text(encoding="utf-8").strip()
    except OSError:
        text = ""
    if text.startswith("ref: refs/heads/"):
        return text[len("ref: refs/heads/") :]
    name = git.out("symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    if not name:
        raise SyncError(
            f"the store repository {git.repo} is on a detached HEAD; run "
            f"`git -C {git.repo} switch {DEFAULT_BRANCH}` and sync again"
        )
    return name
