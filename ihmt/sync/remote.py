"""Talking to the remote: fetch and push, and one-line messages for what can go wrong."""

from __future__ import annotations

from ..errors import SyncError
from ..vcs.gitcmd import NETWORK_TIMEOUT, Git, git_message


def remote_error(url: str, stderr: bytes, action: str) -> SyncError:
    message = git_message(stderr)
    low = message.lower()
    hint = ""
    if any(s in low for s in ("does not appear to be a git", "not a git repository", "no such")):
        if "://" not in url and ":" not in url.lstrip("/")[:3]:
            hint = (
                "; is the disk or share mounted? To share through a new folder, create it "
                f"first: git init --bare {url}"
            )
    elif any(
        s in low
        for s in ("authentication", "permission denied", "could not read username", "prompts")
    ):
        hint = "; check your credentials or SSH key for this remote"
    elif any(s in low for s in ("resolve host", "unable to access", "connection", "timed out")):
        hint = "; check the network and the URL"
    return SyncError(f"cannot {action} {url}: {message}{hint}")


def fetch(git: Git, url: str) -> None:
    proc = git.run(
        "fetch", "-q", "--prune", "--no-tags", "origin", check=False, timeout=NETWORK_TIMEOUT
    )
    if proc.returncode != 0:
        raise remote_error(url, proc.stderr, "fetch from")


def push(git: Git, branch: str, rbranch: str, url: str, config: dict[str, str]) -> bool:
    """True when pushed; False when the remote moved on (fetch and merge again)."""
    proc = git.run(
        "push", "--porcelain", "origin", f"HEAD:refs/heads/{rbranch}",
        check=False, timeout=NETWORK_TIMEOUT,
    )  # fmt: skip
    text = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    if proc.returncode == 0:
        if config.get(f"branch.{branch}.merge") != f"refs/heads/{rbranch}":
            git.run("config", "--local", f"branch.{branch}.remote", "origin")
            git.run("config", "--local", f"branch.{branch}.merge", f"refs/heads/{rbranch}")
            config[f"branch.{branch}.merge"] = f"refs/heads/{rbranch}"
        return True
    if "[rejected]" in text or "non-fast-forward" in text or "fetch first" in text:
        return False
    raise remote_error(url, proc.stderr, "push to")
