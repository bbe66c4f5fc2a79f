"""A store the user can read but not write: reads answer, writes refuse in one line.

Two ways to make a store read-only, both deterministic:

* real permissions (``read_only_store`` from tests/test_crash.py): every write bit off and the
  child run as ``nobody`` when the tests run as root, so the kernel itself refuses writes;
* a simulation that works in-process even as root, who ignores permission bits: ``os.access``
  answers "not writable" for paths under the store, exactly what the kernel answers a user
  without write permission. The library decides "read-only" from that answer, so this drives
  the real code path; SQLite and the file system underneath are not faked, which is why every
  simulated test also checks that not one byte of the store changed and no file appeared
  (root could write, so a write that slipped through would show).
"""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
import textwrap
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from ihmt import IHMT
from ihmt import cli as ihmt_cli
from ihmt.errors import StoreLockedError, StoreWriteError
from ihmt.store import lock as lock_module
from ihmt.store.lock import StoreLock
from tests.helpers_procs import ROOT, SMALL_TREE, findable, memory_text, unique_word
from tests.test_crash import read_only_store

CITY = "Qzcityx"


# -- helpers -----------------------------------------------------------------------------------


class ReadOnlySwitch:
    """Makes ``os.access(path, W_OK)`` false under one folder while switched on."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
        self.root = root.resolve()
        self.on = True
        real = os.access

        def access(path, mode, *args, **kwargs):
            if self.on and mode & os.W_OK and self._under(path):
                return False
            return real(path, mode, *args, **kwargs)

        monkeypatch.setattr(os, "access", access)

    def _under(self, path) -> bool:
        resolved = Path(path).resolve()
        return resolved == self.root or self.root in resolved.parents


def _make_store(workspace: Path, n: int = 5) -> list[str]:
    memory = IHMT.initialize(workspace, **SMALL_TREE)
    words = [unique_word(71, i) for i in range(n)]
    for i, word in enumerate(words):
        memory.save(memory_text(word, 71, i))
    memory.save(f"2024-05-02: I moved to {CITY} after the lease ended.")
    memory.flush()
    memory.close()
    return words


def _snapshot(root: Path, skip: tuple[str, ...] = ()) -> dict[Path, bytes]:
    return {
        p: p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not any(p.name.endswith(s) for s in skip)
    }


def _run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = ihmt_cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _assert_one_line_read_only(message: str, workspace: Path) -> None:
    assert "\n" not in message.strip(), message
    assert "Traceback" not in message
    assert f"the memory at {workspace / 'ihmt_memory'} is read-only: " in message, message


@pytest.fixture
def ro(tmp_path, monkeypatch):
    """(workspace, words, switch): a filled store that this process may not write."""
    workspace = tmp_path / "ws"
    words = _make_store(workspace)
    switch = ReadOnlySwitch(monkeypatch, workspace)
    return workspace, words, switch


# -- reads -------------------------------------------------------------------------------------


def test_library_reads_answer_on_a_read_only_store(ro):
    workspace, words, _switch = ro
    before = _snapshot(workspace)
    memory = IHMT.open(workspace)
    assert all(findable(memory, w) for w in words)
    assert memory.ask(words[2]).best is not None
    stats = memory.stats()
    assert stats["leaves"] == len(words) + 1 and stats["facts"] >= 1
    assert memory.tree.read_root()["entries"]
    assert any(f.value == CITY for f in memory.resolver.facts())
    assert memory.check().ok
    assert memory.catalog.read_only
    memory.close()
    assert _snapshot(workspace) == before  # no lock file, no -wal/-shm, no byte changed


def test_cli_reads_answer_on_a_read_only_store(ro):
    workspace, words, _switch = ro
    before = _snapshot(workspace)
    for args in (("search", words[0]), ("ask", words[1])):
        code, out, err = _run_cli("--path", str(workspace), *args)
        assert (code, err) == (0, ""), err
        assert args[1] in out
    for args in (("stats",), ("tree",), ("facts",), ("conflicts",), ("check",)):
        code, out, err = _run_cli("--path", str(workspace), *args)
        assert (code, err) == (0, ""), (args, err)
    code, out, _ = _run_cli("--path", str(workspace), "facts")
    assert CITY in out
    assert _snapshot(workspace) == before


def test_reads_replay_no_interrupted_write(tmp_path, monkeypatch):
    """A write a killed process announced is completed by the next *writer*; a reader of a
    read-only store leaves it pending (and says so in check) instead of failing."""
    workspace = tmp_path / "ws"
    words = _make_store(workspace)
    memory = IHMT.open(workspace)
    memory.catalog.announce([("layer_0/general/L-gone.txt", "L-gone")])
    memory.close()
    ReadOnlySwitch(monkeypatch, workspace)
    before = _snapshot(workspace)
    memory = IHMT.open(workspace)
    assert findable(memory, words[0])
    assert memory.catalog.pending() == [("layer_0/general/L-gone.txt", "L-gone")]
    assert any("pending" in p for p in memory.check().problems)
    memory.close()
    assert _snapshot(workspace) == before


# -- writes ------------------------------------------------------------------------------------


def _id(memory: IHMT, word: str) -> str:
    return memory.search(word).best.leaf_id


WRITES = {
    "save": lambda m, w: m.save(f"a memory that cannot be written {unique_word(72, 0)}"),
    "ingest_text": lambda m, w: m.ingest_text(f"text {unique_word(72, 1)}", source="t"),
    "ingest_file": lambda m, w: m.ingest_file(ROOT / "examples" / "journal_personal.txt"),
    "consolidate": lambda m, w: m.consolidate(force=True),
    "forget": lambda m, w: m.forget(match=w[0]),
    "record_fact": lambda m, w: m.record_fact("user", "city", "Lima"),
    "rebuild": lambda m, w: m.rebuild(),
    "mark_outdated": lambda m, w: m.mark_outdated(_id(m, w[0]), _id(m, w[1])),
}


@pytest.mark.parametrize("operation", sorted(WRITES))
def test_library_writes_refuse_with_one_line_and_change_nothing(ro, operation):
    workspace, words, _switch = ro
    before = _snapshot(workspace)
    memory = IHMT.open(workspace)
    assert findable(memory, words[0])  # the catalog is open read-only before the write
    with pytest.raises(StoreWriteError) as caught:
        WRITES[operation](memory, words)
    _assert_one_line_read_only(str(caught.value), workspace)
    assert "nothing was changed" in str(caught.value)
    assert "chmod -R u+w" in str(caught.value)  # the message names the fix
    assert all(findable(memory, w) for w in words)  # still answers after the refusal
    memory.close()
    assert _snapshot(workspace) == before


def test_a_write_first_is_refused_before_the_catalog_is_opened(ro):
    workspace, _words, _switch = ro
    before = _snapshot(workspace)
    memory = IHMT.open(workspace)
    with pytest.raises(StoreWriteError, match="its folder cannot be written"):
        memory.save(f"first thing {unique_word(72, 2)}")
    memory.close()
    assert _snapshot(workspace) == before


@pytest.mark.parametrize(
    "args",
    [
        ("save", "a memory that cannot be written"),
        ("ingest", str(ROOT / "examples" / "journal_personal.txt")),
        ("consolidate", "--force"),
        ("forget", "--match", "session", "--yes"),
        ("rebuild",),
    ],
)
def test_cli_writes_exit_1_with_one_line(ro, args):
    workspace, _words, _switch = ro
    before = _snapshot(workspace)
    code, out, err = _run_cli("--path", str(workspace), *args)
    assert code == 1, (out, err)
    assert err.startswith("ihmt: error: ")
    _assert_one_line_read_only(err, workspace)
    assert _snapshot(workspace) == before


def test_the_same_handle_writes_once_the_store_is_writable_again(ro):
    """A long-lived process (the MCP server) must not stay read-only forever."""
    workspace, words, switch = ro
    memory = IHMT.open(workspace)
    assert findable(memory, words[0]) and memory.catalog.read_only
    with pytest.raises(StoreWriteError):
        memory.save(f"refused {unique_word(72, 3)}")
    switch.on = False
    word = unique_word(72, 4)
    memory.save(memory_text(word, 72, 4))
    assert not memory.catalog.read_only
    assert findable(memory, word) and findable(memory, words[1])
    assert memory.check().ok
    memory.close()


def test_a_read_only_snapshot_follows_a_writer_with_write_access(ro):
    """Someone who may write changes the store while we read it: the reader sees the change
    (its immutable snapshot is reopened when the file changes), never stale or torn pages."""
    workspace, words, switch = ro
    reader = IHMT.open(workspace)
    assert findable(reader, words[0]) and reader.catalog.read_only
    switch.on = False
    writer = IHMT.open(workspace)
    word = unique_word(72, 5)
    writer.save(memory_text(word, 72, 5))
    writer.flush()
    writer.close()
    switch.on = True
    assert findable(reader, word)
    assert all(findable(reader, w) for w in words)
    reader.close()


# -- a catalog with commits still in its write-ahead log -----------------------------------------


def _leave_commits_in_the_wal(workspace: Path, word: str) -> None:
    """A writer killed with its last commits in catalog.sqlite3-wal (not checkpointed)."""
    code = textwrap.dedent(
        f"""
        import os, sys
        sys.path.insert(0, {str(ROOT)!r})
        from ihmt import IHMT
        memory = IHMT.open({str(workspace)!r})
        memory.catalog._conn().execute("PRAGMA wal_autocheckpoint=0")
        memory.save({memory_text(word, 73, 0)!r})
        os._exit(0)
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_commits_in_the_wal_are_read_when_its_index_exists(tmp_path, monkeypatch):
    workspace = tmp_path / "ws"
    words = _make_store(workspace)
    word = unique_word(73, 0)
    _leave_commits_in_the_wal(workspace, word)
    state = workspace / "ihmt_memory" / "state"
    assert (state / "catalog.sqlite3-wal").stat().st_size > 0
    assert (state / "catalog.sqlite3-shm").exists()
    ReadOnlySwitch(monkeypatch, workspace)
    before = _snapshot(workspace, skip=("-shm",))  # readers share the -shm index by design
    memory = IHMT.open(workspace)
    assert findable(memory, word) and findable(memory, words[0])
    memory.close()
    assert _snapshot(workspace, skip=("-shm",)) == before


def test_commits_in_the_wal_without_its_index_give_one_clear_line(tmp_path, monkeypatch):
    workspace = tmp_path / "ws"
    _make_store(workspace)
    _leave_commits_in_the_wal(workspace, unique_word(73, 1))
    (workspace / "ihmt_memory" / "state" / "catalog.sqlite3-shm").unlink()
    ReadOnlySwitch(monkeypatch, workspace)
    before = _snapshot(workspace)
    code, out, err = _run_cli("--path", str(workspace), "search", "session")
    assert code == 1, out
    _assert_one_line_read_only(err, workspace)
    assert "catalog.sqlite3-wal" in err and "make state/ writable" in err
    assert _snapshot(workspace) == before  # never an older snapshot passed off as the store


# -- the write lock ----------------------------------------------------------------------------


def test_a_lock_file_that_cannot_be_opened_for_writing_means_read_only(tmp_path, monkeypatch):
    real_open = os.open

    def refuse(path, flags, *args, **kwargs):
        if str(path).endswith("write.lock"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(lock_module.os, "open", refuse)
    lock = StoreLock(tmp_path / "ihmt_memory" / "state" / "write.lock")
    with pytest.raises(StoreWriteError, match=r"is read-only: cannot open write\.lock"):
        lock.acquire()
    assert not lock.held
    monkeypatch.setattr(lock_module.os, "open", real_open)
    with lock:  # the thread lock was released: usable once the file opens
        assert lock.held


def test_a_lock_that_cannot_be_opened_for_another_reason_is_not_called_read_only(tmp_path):
    blocker = tmp_path / "state"
    blocker.write_text("a file where the state folder should be", encoding="utf-8")
    with pytest.raises(StoreLockedError):
        StoreLock(blocker / "write.lock").acquire()


# -- real permissions: the library in a process that may not write ------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions and users")
def test_library_on_a_really_read_only_store_searches_and_refuses_a_save():
    script = textwrap.dedent(
        """
        import sys
        from ihmt import IHMT
        from ihmt.errors import StoreWriteError
        memory = IHMT.open(sys.argv[1])
        best = memory.search(sys.argv[2]).best
        print("FOUND" if best is not None and sys.argv[2] in best.content else "MISSING")
        try:
            memory.save("this cannot be saved")
        except StoreWriteError as exc:
            print("REFUSED", exc)
        else:
            print("SAVED")
        """
    )
    with read_only_store() as (workspace, words, _cli, python):
        before = _snapshot(workspace)
        done = python("-c", script, str(workspace), words[0])
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[0] == "FOUND", done.stdout
        assert lines[1].startswith("REFUSED "), done.stdout
        _assert_one_line_read_only(lines[1], workspace)
        assert len(lines) == 2
        assert _snapshot(workspace) == before


def test_init_on_an_existing_read_only_store_opens_it_and_writes_nothing(ro):
    workspace, words, _switch = ro
    before = _snapshot(workspace)
    memory = IHMT.initialize(workspace)  # same settings: nothing to write
    assert findable(memory, words[0])
    memory.close()
    code, _out, err = _run_cli("--path", str(workspace), "init")
    assert (code, err) == (0, ""), err
    assert _snapshot(workspace) == before


def test_init_that_must_write_settings_says_the_store_is_read_only(ro, monkeypatch):
    workspace, _words, _switch = ro

    def refuse(*_args, **_kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr("ihmt.api.atomic_write_text", refuse)
    with pytest.raises(StoreWriteError) as caught:
        IHMT.initialize(workspace, beam_width=5)
    _assert_one_line_read_only(str(caught.value), workspace)
