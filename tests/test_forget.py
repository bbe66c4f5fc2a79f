"""Forgetting: ``ihmt forget <leaf-id | --source PATH | --match TEXT>`` removes a memory for good.

After a forget, not one byte of the forgotten text is left anywhere in the store folder (leaf
files, branch summaries, root.json, records, the SQLite catalog and its WAL, the fact export);
searches no longer find it, including in a process that was already running; the tree stays
valid; and a rebuild does not bring it back (a tombstone remembers the decision). The CLI
previews and asks; without --yes and without a terminal it refuses with one line. Agents
cannot forget: the MCP server has no such tool.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ihmt import IHMT
from tests.conftest import run_cli
from tests.helpers_procs import (
    ROOT,
    SMALL_TREE,
    findable,
    memory_text,
    spawn,
    store_bytes,
    tree_problems,
    unique_word,
)

KEEP = [unique_word(80, i) for i in range(14)]
GONE = unique_word(81, 0)


def _store(tmp_path: Path) -> tuple[Path, str]:
    """A flushed store with branches whose summaries mention the memory to forget."""
    workspace = tmp_path / "ws"
    memory = IHMT.initialize(workspace, **SMALL_TREE)
    for i, w in enumerate(KEEP[:7]):
        memory.save(memory_text(w, 80, i))
    report = memory.save(f"The {GONE} vault code for the lab door is kept by Marta.")
    for i, w in enumerate(KEEP[7:], start=7):
        memory.save(memory_text(w, 80, i))
    memory.flush()
    memory.close()
    return workspace, report.leaf_ids[0]


def holding(workspace: Path, *words: str) -> list[str]:
    """Files under the store that hold any of ``words`` in any case (no handle may be open)."""
    found = []
    for path, data in store_bytes(workspace / "ihmt_memory").items():
        low = data.lower()
        if any(w.lower().encode() in low for w in words):
            found.append(str(path.relative_to(workspace)))
    return sorted(found)


def assert_forgotten(workspace: Path, *words: str) -> None:
    assert holding(workspace, *words) == []
    memory = IHMT.open(workspace)
    try:
        for w in words:
            assert not findable(memory, w)
            assert memory.search(w).not_found
        report = memory.check()
        assert report.ok, report.problems
        assert tree_problems(memory) == []
        assert all(findable(memory, w) for w in KEEP)
    finally:
        memory.close()


def test_forget_by_id_leaves_no_byte_behind_and_survives_a_rebuild(tmp_path):
    workspace, leaf_id = _store(tmp_path)
    before = holding(workspace, GONE)
    assert any("layer_0" in p for p in before) and any("layers" in p for p in before)
    assert any("catalog.sqlite3" in p for p in before) and "ihmt_memory/root.json" in before

    done = run_cli("--path", str(workspace), "forget", leaf_id, "--yes")
    assert done.returncode == 0, done.stderr
    assert leaf_id in done.stdout
    assert_forgotten(workspace, GONE)

    memory = IHMT.open(workspace)
    memory.rebuild()
    memory.close()
    assert_forgotten(workspace, GONE)
    memory = IHMT.open(workspace)
    assert memory.check(repair=True).ok
    memory.reconcile()
    memory.close()
    assert_forgotten(workspace, GONE)


def test_a_forgotten_leaf_copied_back_by_hand_is_not_resurrected(tmp_path):
    workspace, leaf_id = _store(tmp_path)
    memory = IHMT.open(workspace)
    leaf = memory.store.read_leaf(leaf_id)
    path = memory.layout.leaf_path(leaf.domain, leaf_id)
    raw = path.read_bytes()
    memory.forget(leaf_id)
    path.write_bytes(raw)  # e.g. restored from an old backup or synced back
    memory.reconcile()
    memory.close()
    assert_forgotten(workspace, GONE)
    path.write_bytes(raw)
    memory = IHMT.open(workspace)
    memory.rebuild()
    memory.close()
    assert_forgotten(workspace, GONE)


def test_forget_by_source_removes_every_leaf_of_a_file(tmp_path):
    workspace, _ = _store(tmp_path)
    words = [unique_word(82, i) for i in range(4)]
    notes = tmp_path / "meeting.md"
    notes.write_text(
        "\n\n".join(
            f"## Item {i}\nThe {w} decision was taken after a long discussion about the budget "
            "and the migration plan for the reporting service."
            for i, w in enumerate(words)
        ),
        encoding="utf-8",
    )
    assert run_cli("--path", str(workspace), "ingest", str(notes)).returncode == 0
    memory = IHMT.open(workspace)
    count = len(memory.leaves(str(notes)))
    assert count >= 2 and all(findable(memory, w) for w in words)
    memory.close()
    done = run_cli("--path", str(workspace), "forget", "--source", str(notes), "--yes")
    assert done.returncode == 0, done.stderr
    assert f"forgot {count} " in done.stdout
    assert_forgotten(workspace, *words)


def test_forget_by_match_and_a_long_lived_process_stops_finding_it(tmp_path):
    workspace, _ = _store(tmp_path)
    holder = spawn("holder", workspace, stdin=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "READY"
        holder.stdin.write(f"search {GONE}\n")
        holder.stdin.flush()
        assert holder.stdout.readline().split() == ["FOUND", GONE]  # its caches are warm
        done = run_cli("--path", str(workspace), "forget", "--match", f"{GONE} vault", "--yes")
        assert done.returncode == 0, done.stderr
        assert holding(workspace, GONE) == []  # even with another process's catalog open
        holder.stdin.write(f"search {GONE}\nsearch {KEEP[0]}\n")
        holder.stdin.flush()
        assert holder.stdout.readline().split() == ["NOTFOUND", GONE]
        assert holder.stdout.readline().split() == ["FOUND", KEEP[0]]
        holder.stdin.write("quit\n")
        holder.stdin.flush()
        assert holder.wait(timeout=60) == 0
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.communicate()
    assert_forgotten(workspace, GONE)


def test_forget_drops_outdated_links_to_the_memory(tmp_path):
    workspace = tmp_path / "ws"
    memory = IHMT.initialize(workspace, **SMALL_TREE)
    old_word, new_word = unique_word(83, 0), unique_word(83, 1)
    old = memory.save(f"2023-02-01: the {old_word} staging database runs PostgreSQL 15.")
    new = memory.save(f"2024-02-01: the {new_word} staging database runs PostgreSQL 17.")
    memory.mark_outdated(old.leaf_ids[0], new.leaf_ids[0])
    hits = memory.search(old_word).hits
    assert any(h.outdated and old_word in h.content for h in hits)
    memory.forget(old.leaf_ids[0])
    assert not memory.catalog.links()
    assert not list(memory.layout.records.glob("outdated-*.json"))
    result = memory.search(new_word)
    assert not result.best.outdated and not result.best.notices
    memory.close()
    assert holding(workspace, old_word) == []


def test_forget_removes_the_facts_the_memory_taught(tmp_path):
    workspace = tmp_path / "ws"
    memory = IHMT.initialize(workspace, **SMALL_TREE)
    for i, w in enumerate(KEEP[:5]):
        memory.save(memory_text(w, 80, i))
    city = "Qz" + "cityx"
    memory.save(f"2024-05-02: I moved to {city} after the lease ended.")
    assert any(f.value == city for f in memory.resolver.facts())
    memory.rebuild()
    memory.forget(match=city)
    assert not any(city in str(f.value) for f in memory.resolver.facts())
    memory.close()
    assert holding(workspace, city) == []


# -- the CLI's confirmation --------------------------------------------------------------------------


def test_without_yes_and_without_a_terminal_it_refuses_in_one_line(tmp_path):
    workspace, leaf_id = _store(tmp_path)
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--path", str(workspace), "forget", leaf_id],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--yes" in lines[0], done.stderr
    memory = IHMT.open(workspace)
    assert findable(memory, GONE)


def test_bad_forget_requests_are_one_line_errors(tmp_path):
    workspace, leaf_id = _store(tmp_path)
    for args in (
        ["forget", "--yes"],
        ["forget", "L-general-0000-doesnotexist", "--yes"],
        ["forget", "--match", "qz", "--yes"],
        ["forget", "--match", "nothing-like-this-anywhere", "--yes"],
        ["forget", "--source", str(tmp_path / "never-ingested.md"), "--yes"],
        ["forget", leaf_id, "--match", GONE, "--yes"],
    ):
        done = run_cli("--path", str(workspace), *args)
        assert done.returncode == 1, (args, done.stdout)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("ihmt: error:"), (args, done.stderr)
    memory = IHMT.open(workspace)
    assert findable(memory, GONE) and memory.check().ok


def _in_terminal(args: list[str], answer: str, timeout: float = 120) -> tuple[int, str]:
    """Run the CLI on a pseudo-terminal, type ``answer`` at the prompt; (exit code, output)."""
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "main.py"), *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        close_fds=True,
    )
    os.close(follower)
    output = b""
    deadline = time.monotonic() + timeout
    answered = False
    while time.monotonic() < deadline:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the process is gone
            break
        if not chunk:
            break
        output += chunk
        if not answered and b"Type 'yes'" in output:
            os.write(leader, answer.encode() + b"\n")
            answered = True
    os.close(leader)
    return proc.wait(timeout=30), output.decode("utf-8", "replace")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
@pytest.mark.parametrize(("answer", "forgotten"), [("no", False), ("yes", True)])
def test_in_a_terminal_it_previews_then_asks(tmp_path, answer, forgotten):
    workspace, leaf_id = _store(tmp_path)
    code, output = _in_terminal(["--path", str(workspace), "forget", leaf_id], answer)
    assert code == 0, output
    assert leaf_id in output and "vault code" in output  # the preview names what would go
    memory = IHMT.open(workspace)
    assert findable(memory, GONE) is not forgotten
    memory.close()
    if forgotten:
        assert_forgotten(workspace, GONE)
    else:
        assert "nothing forgotten" in output


def test_agents_cannot_forget(tmp_path):
    from ihmt.mcp_session import Session
    from ihmt.mcp_tools import build_server

    names = list(build_server(Session(home=tmp_path / "ihmt", cwd=tmp_path)).schemas())
    assert names and not any("forget" in name or "delete" in name for name in names)
