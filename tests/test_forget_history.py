"""Issue 20 point 8: `forget` on a synced store says that copies stay in the git history.

A forget removes the memory from every copy on the next sync, but its file stays in the history
of the store's repository, the remote and every clone. The CLI says so (before the question,
in the report, in --json) with the exact purge commands; an unsynced store, or a memory that
never reached a commit, gets no such warning. The printed commands really purge it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from ihmt import IHMT
from ihmt.sync import sync
from tests.conftest import run_cli
from tests.test_sync import git, git_identity, make_remote, new_store, save  # noqa: F401

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

SECRET = "The vault recovery hint is the blue heron by the old mill"
KEEP = "The team standup moved to 09:45 on Tuesdays"


def _synced_store(tmp_path):
    remote = make_remote(tmp_path)
    ws = new_store(tmp_path, "laptop")
    leaf = save(ws, SECRET)
    save(ws, KEEP)
    sync(ws, remote)
    return ws, remote, leaf


def _leaf_path(ws, leaf_id: str) -> str:
    memory = IHMT.open(ws)
    try:
        return memory.catalog.leaf_row(leaf_id)["path"]
    finally:
        memory.close()


def test_forget_on_a_synced_store_warns_with_the_purge_commands(tmp_path):
    ws, remote, leaf = _synced_store(tmp_path)
    path = _leaf_path(ws, leaf)
    proc = run_cli("--path", str(ws), "forget", "--match", "blue heron", "--yes")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"forgot 1 memory/memories: {leaf}" in out
    assert "WARNING: this store is synced with git" in out
    assert f"the remote {remote}" in out
    assert "git filter-branch" in out and path in out
    assert "git push --force origin main" in out
    assert f"ihmt sync --remote {remote} --path NEW_FOLDER" in out


def test_json_report_carries_the_history_copies(tmp_path):
    ws, remote, leaf = _synced_store(tmp_path)
    path = _leaf_path(ws, leaf)
    proc = run_cli("--path", str(ws), "--json", "forget", leaf, "--yes")
    assert proc.returncode == 0, proc.stderr
    history = json.loads(proc.stdout)["history"]
    assert history["paths"] == [path]
    assert history["remote"] == remote and history["checked"] is True
    assert history["warning"] and any("filter-branch" in c for c in history["commands"])


def test_refusal_without_yes_mentions_the_history(tmp_path):
    ws, _remote, _leaf = _synced_store(tmp_path)
    proc = run_cli("--path", str(ws), "forget", "--match", "blue heron")
    assert proc.returncode == 1
    assert "copies stay in the sync history" in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_forget_on_an_unsynced_store_says_nothing_about_history(tmp_path):
    ws = new_store(tmp_path, "solo")
    save(ws, SECRET)
    proc = run_cli("--path", str(ws), "forget", "--match", "blue heron", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert "WARNING" not in proc.stdout and "filter-branch" not in proc.stdout
    proc = run_cli("--path", str(ws), "--json", "forget", "--match", "standup", "--yes")
    assert proc.returncode == 1  # nothing left to match: one-line error, no history talk
    assert "history" not in proc.stderr


def test_memory_never_committed_gets_no_warning(tmp_path):
    """Saved after the last sync and forgotten before the next: no copy exists in git."""
    ws, _remote, _leaf = _synced_store(tmp_path)
    save(ws, "The spare office key sits in the red drawer")
    proc = run_cli("--path", str(ws), "--json", "forget", "--match", "red drawer", "--yes")
    assert proc.returncode == 0, proc.stderr
    history = json.loads(proc.stdout)["history"]
    assert history["paths"] == [] and history["warning"] == []


def test_warning_comes_before_the_question(tmp_path, monkeypatch, capsys):
    """On a terminal the person reads the warning before typing yes (here: answers no)."""
    from ihmt import cli

    ws, _remote, leaf = _synced_store(tmp_path)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    asked = []

    def answer(prompt: str) -> str:
        asked.append(capsys.readouterr().out)
        return "no"

    monkeypatch.setattr("builtins.input", answer)
    assert cli.main(["--path", str(ws), "forget", leaf]) == 0
    before = asked[0]
    assert "This removes 1 memory/memories" in before
    assert "WARNING: this store is synced with git" in before and "git filter-branch" in before
    assert "nothing forgotten" in capsys.readouterr().out
    assert IHMT.open(ws).store.read_leaf(leaf) is not None


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX shell")
def test_the_printed_commands_purge_the_history_and_sync_keeps_working(tmp_path):
    ws, remote, leaf = _synced_store(tmp_path)
    path = _leaf_path(ws, leaf)
    proc = run_cli("--path", str(ws), "--json", "forget", leaf, "--yes")
    commands = json.loads(proc.stdout)["history"]["commands"]
    assert sync(ws).pushed  # step one of the recipe: sync, so the forget is committed
    store = ws / "ihmt_memory"
    assert git("log", "--all", "--format=%h", "--", path, cwd=store)  # still in history
    script = "set -e\n" + "\n".join(commands) + "\n"
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    for repo in (store, remote):
        objects = git("rev-list", "--all", "--objects", cwd=repo)
        assert path not in objects and leaf not in objects
        assert not git("log", "--all", "--format=%h", "--", path, cwd=repo)
    assert sync(ws).leaves == 1  # the rewritten store still syncs
    assert run_cli("--path", str(ws), "check").returncode == 0
    memory = IHMT.open(ws)
    try:
        assert memory.search("team standup Tuesdays").hits[0].content.strip() == KEEP
    finally:
        memory.close()
