"""Crashes and failing disks: a writer killed at any instant, a full disk, a read-only store.

Killed writers: a child process runs a seeded mix of save / ingest_text / ingest_batch /
re-ingest of a changed document / consolidate / flush and prints ``DONE`` with the unique words
of every operation that returned; the parent SIGKILLs it after a random delay and then checks
the promises (tests/helpers_procs.py ``CrashCampaign``): the store opens, readers find every
reported save even before recovery, the next write (or ``check --repair`` where check asks for
it) leaves a valid tree, and at the end the leaf set equals a crash-free run of the same
operations. benchmarks/reliability.py runs the same campaign with hundreds of kills.

Failing disks: the CLI in a child whose fsync fails with ENOSPC, or whose files cannot grow
past RLIMIT_FSIZE; and a store folder the user cannot write (run as ``nobody`` when the tests
run as root, since root ignores permission bits).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ihmt import IHMT
from tests.helpers_procs import (
    ROOT,
    SMALL_TREE,
    CrashCampaign,
    findable,
    memory_text,
    run_role,
    tree_problems,
    unique_word,
)

CRASH_TRIALS = 10
# what a kill or a failed write may leave, each completed by the next write
RECOVERABLE = (
    "an interrupted write is pending",
    "root.json is older than the catalog",
    "is not reachable from the root",
    "is in layer_0 but not in the catalog",
)


def _earlier(memory: IHMT, n: int = 6, who: int = 40) -> list[str]:
    words = [unique_word(who, i) for i in range(n)]
    for i, w in enumerate(words):
        memory.save(memory_text(w, who, i))
    memory.flush()
    return words


def _one_line_error(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got: {stderr!r}"
    assert "Traceback" not in stderr
    assert lines[0].startswith("ihmt: error: "), lines[0]
    return lines[0]


# -- killed writers ----------------------------------------------------------------------------


def test_writers_killed_at_random_instants_lose_no_reported_save(tmp_path):
    campaign = CrashCampaign(tmp_path / "ws", seed=20251129, scratch=tmp_path)
    campaign.run(CRASH_TRIALS, max_delay=1.0)
    stats = campaign.finish(tmp_path / "clean")
    assert campaign.problems == []
    assert stats["trials"] == CRASH_TRIALS
    assert stats["killed_mid_op"] >= CRASH_TRIALS // 2, "kills should land inside operations"
    assert stats["words_reported"] > 0 and stats["final_losses"] == 0
    for kind in campaign.check_messages:
        message = kind.removeprefix("after a write: ")
        assert any(r in message for r in RECOVERABLE) or "stray branch file" in message, kind


def test_a_kill_between_writing_leaves_and_indexing_them_is_completed(tmp_path):
    """The announce -> write -> index order, forced: files written and announced, never
    indexed (what a kill at that instant leaves). Reading finds nothing yet and check names
    the pending write; the next write indexes the files."""
    from ihmt.ingest.ingestor import prepare_document
    from ihmt.store.leaf_format import render_leaf

    memory = IHMT.initialize(tmp_path / "ws", **SMALL_TREE)
    earlier = _earlier(memory)
    w = unique_word(41, 0)
    leaf = prepare_document(memory_text(w, 41, 0), source="memory", config=memory.config).leaves[0]
    path = memory.layout.leaf_path(leaf.domain, leaf.leaf_id)
    memory.catalog.announce([(memory.layout.relative(path), leaf.leaf_id)])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(render_leaf(leaf.header(), leaf.content))
    (path.parent / f".{path.name}.123.tmp").write_bytes(b"half a leaf")  # a cut temp file

    fresh = IHMT.open(tmp_path / "ws")
    report = fresh.check()
    assert not report.ok
    assert any("interrupted write is pending" in p for p in report.problems)
    fresh.consolidate()
    assert fresh.check().ok
    assert findable(fresh, w) and all(findable(fresh, e) for e in earlier)
    assert tree_problems(fresh) == []


# -- a full disk -----------------------------------------------------------------------------------


def test_full_disk_at_every_write_of_a_save(tmp_path):
    """``save`` through the CLI while the disk fills up after k successful disk operations, for
    every k a save needs: exit 1 with one line (or a normal save when the disk held out),
    earlier memories intact, and once the disk has room again the next write leaves a healthy
    store where the failed memory is whole or absent."""
    workspace = tmp_path / "ws"
    memory = IHMT.initialize(workspace, **SMALL_TREE)
    earlier = _earlier(memory)
    # close first: reading a database file behind an open SQLite connection of this process
    # drops that connection's POSIX locks
    memory.close()
    probe = tmp_path / "probe"
    shutil.copytree(workspace, probe)
    counted = run_role(
        "faulty-cli", "count", 0, "--path", probe, "save", memory_text(unique_word(42, 99), 42, 99)
    )
    assert counted.returncode == 0, counted.stderr
    ops = int(counted.stderr.split("DISKOPS ")[1].split()[0])
    assert ops >= 2
    refused = 0
    for k in range(ops + 1):
        w = unique_word(42, k)
        text = memory_text(w, 42, k)
        done = run_role("faulty-cli", "enospc", k, "--path", workspace, "save", text)
        if done.returncode == 0:
            assert done.stdout.startswith("saved as"), done.stdout
        else:
            refused += 1
            assert done.returncode == 1, done.stdout + done.stderr
            assert "No space left on device" in _one_line_error(done.stderr)
        after = IHMT.open(workspace)
        assert all(findable(after, e) for e in earlier), k
        for problem in after.check().problems:
            assert any(r in problem for r in RECOVERABLE), (k, problem)
        after.save(memory_text(unique_word(43, k), 43, k))  # the disk has room again
        report = after.check()
        assert report.ok, (k, report.problems)
        assert tree_problems(after) == [], k
        assert all(findable(after, e) for e in earlier), k
        matches = [leaf.content for leaf in after.leaves() if w in leaf.content]
        assert matches in ([], [text]), k
        if done.returncode == 0:
            assert findable(after, w), k
        after.close()
    assert refused >= 2


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_file_size_limit_corrupts_nothing(tmp_path):
    """RLIMIT_FSIZE makes every file that grows past the limit fail (SQLite's included): the
    ingest fails with exit 1 and one line, and the store recovers with the next write."""
    workspace = tmp_path / "ws"
    memory = IHMT.initialize(workspace, **SMALL_TREE)
    earlier = _earlier(memory)
    done = run_role("faulty-cli", "fsize", 50_000, "--path", workspace, "ingest", ROOT / "examples")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    after = IHMT.open(workspace)
    assert all(findable(after, e) for e in earlier)
    after.consolidate()
    assert after.check().ok
    assert tree_problems(after) == []
    assert all(findable(after, e) for e in earlier)


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_file_size_limit_error_is_a_clear_user_error(tmp_path):
    workspace = tmp_path / "ws"
    memory = IHMT.initialize(workspace, **SMALL_TREE)
    _earlier(memory)
    for limit in (20_000, 50_000):
        done = run_role(
            "faulty-cli", "fsize", limit, "--path", workspace, "ingest", ROOT / "examples"
        )
        assert done.returncode == 1
        line = _one_line_error(done.stderr)
        assert "internal error" not in line and "rebuild" not in line, line


# -- a store the user cannot write ---------------------------------------------------------------


def _unprivileged() -> tuple[str | None, str, str]:
    """(python usable by the user, user, reason): as root, the ``nobody`` user with an
    interpreter it can run; otherwise the current user and this interpreter."""
    if os.geteuid() != 0:
        return sys.executable, "", ""
    candidates = [sys.executable, "/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"]
    for python in dict.fromkeys(candidates):
        if not os.path.exists(python):
            continue
        try:
            probe = subprocess.run(
                [python, "-c", "import sys; assert sys.version_info >= (3, 10)"],
                user="nobody",
                cwd="/",
                capture_output=True,
                timeout=60,
            )
        except (OSError, KeyError, subprocess.SubprocessError):
            continue
        if probe.returncode == 0:
            return python, "nobody", ""
    return None, "", "running as root without a Python interpreter the nobody user can run"


@contextlib.contextmanager
def read_only_store(memory_words: int = 5):
    """A store (owned by the unprivileged user when we are root) with every write bit off.

    Yields (workspace, words saved in it, cli(*args), python(*argv)); both callables run as
    that user, so the kernel really refuses every write (no simulation)."""
    python, user, reason = _unprivileged()
    if python is None:
        pytest.skip(reason)
    base = Path(tempfile.mkdtemp(prefix="ihmt-ro-"))
    os.chmod(base, 0o755)
    workspace = base / "ws"
    try:
        memory = IHMT.initialize(workspace, **SMALL_TREE)
        words = _earlier(memory, memory_words, who=44)
        memory.close()
        if user:
            import pwd

            entry = pwd.getpwnam(user)
            for path in [workspace, *workspace.rglob("*")]:
                os.chown(path, entry.pw_uid, entry.pw_gid, follow_symlinks=False)
        for path in [workspace, *workspace.rglob("*")]:
            mode = path.stat().st_mode & 0o7777
            os.chmod(path, mode & ~0o222)

        def run(*argv: str) -> subprocess.CompletedProcess:
            """The unprivileged user's Python with these arguments (the repository importable)."""
            return subprocess.run(
                [python, *argv],
                user=user or None,
                cwd=str(base),
                env={
                    "HOME": str(base),
                    "PATH": "/usr/bin:/bin",
                    "PYTHONDONTWRITEBYTECODE": "1",
                    "PYTHONPATH": str(ROOT),
                },
                capture_output=True,
                text=True,
                timeout=120,
            )

        def cli(*args: str) -> subprocess.CompletedProcess:
            return run(str(ROOT / "main.py"), "--path", str(workspace), *args)

        yield workspace, words, cli, run
    finally:
        for path in [base, *base.rglob("*")]:
            with contextlib.suppress(OSError):
                if os.geteuid() == 0:
                    os.chown(path, 0, 0, follow_symlinks=False)
                os.chmod(path, (path.stat().st_mode & 0o7777) | 0o700)
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions and users")
def test_read_only_store_refuses_writes_with_one_line_and_stays_intact():
    with read_only_store() as (workspace, words, cli, _python):
        before = {p: p.read_bytes() for p in workspace.rglob("*") if p.is_file()}
        attempts = [
            ("save", f"a memory that cannot be written {unique_word(45, 0)}"),
            ("ingest", str(ROOT / "examples" / "journal_personal.txt")),
            ("consolidate", "--force"),
            ("forget", "--match", words[0], "--yes"),
            ("rebuild",),
        ]
        for args in attempts:
            done = cli(*args)
            assert done.returncode == 1, (args, done.stdout, done.stderr)
            line = _one_line_error(done.stderr)
            assert f"the memory at {workspace / 'ihmt_memory'} is read-only: " in line, line
            assert "nothing was changed" in line, line
        after = {p: p.read_bytes() for p in workspace.rglob("*") if p.is_file()}
        assert after == before  # not one byte changed, no file added (no -wal, -shm, temp)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions and users")
def test_read_only_store_is_whole_once_writable_again(tmp_path):
    with read_only_store() as (workspace, words, cli, _python):
        cli("save", f"refused {unique_word(45, 1)}")
        copy = tmp_path / "copy"
        shutil.copytree(workspace, copy)
    for path in [copy, *copy.rglob("*")]:
        os.chmod(path, (path.stat().st_mode & 0o7777) | 0o600 | (0o100 if path.is_dir() else 0))
    memory = IHMT.open(copy)
    assert memory.check().ok
    assert all(findable(memory, w) for w in words)
    assert not findable(memory, unique_word(45, 1))
    assert tree_problems(memory) == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions and users")
def test_read_only_store_still_answers_searches():
    with read_only_store() as (workspace, words, cli, _python):
        before = {p: p.read_bytes() for p in workspace.rglob("*") if p.is_file()}
        done = cli("search", words[0])
        assert done.returncode == 0, done.stderr
        assert words[0] in done.stdout
        asked = cli("ask", words[1])
        assert asked.returncode == 0, asked.stderr
        assert words[1] in asked.stdout
        stats = cli("--json", "stats")
        assert stats.returncode == 0, stats.stderr
        assert json.loads(stats.stdout)["leaves"] == len(words)
        for args in (("tree",), ("facts",), ("conflicts",), ("check",)):
            done = cli(*args)
            assert done.returncode == 0, (args, done.stderr)
            assert done.stderr == "", (args, done.stderr)
        after = {p: p.read_bytes() for p in workspace.rglob("*") if p.is_file()}
        assert after == before  # reading created nothing: no lock file, no -wal, no -shm
