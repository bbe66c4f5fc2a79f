"""A damaged, half-rebuilt or unwritable catalog always has a next step, and search is never
silently blind.

- A truncated, garbage, half-written or empty ``state/catalog.sqlite3``: every command names
  one fix in one line, and that very command (run as a real CLI process) gives back a working
  store, the damaged file moved aside rather than deleted.
- A rebuild killed with SIGKILL at a random point (a real child process, paused at a chosen
  leaf, branch or swap step so the kill provably lands inside the rebuild): every memory is
  still findable, or the answer says the index is incomplete.
- A killed indexing pass over files changed on disk (reconcile) leaves a mark that every search
  reports, that a later save does not clear and that a rebuild does.
- A full disk: named with the store's path and the fix, nothing changed, reads still answer
  (patched sqlite / ENOSPC in-process, and a real small tmpfs where one can be mounted).
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from ihmt import IHMT
from ihmt.errors import StoreWriteError
from ihmt.render import compact_answer
from tests.conftest import run_cli
from tests.helpers_procs import ROOT, SMALL_TREE, child_env, findable, memory_text, unique_word

WORDS = [unique_word(70, i) for i in range(10)]
MANY = 200  # memories in the store a killed rebuild works on
KILL_TRIALS = 20


def _save_all(memory: IHMT, words: list[str], who: int) -> None:
    memory.ingest_batch(
        [{"text": memory_text(w, who, i), "source": f"note-{who}-{i}"} for i, w in enumerate(words)]
    )
    memory.flush()


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    workspace = tmp_path_factory.mktemp("catalog") / "ws"
    memory = IHMT.initialize(workspace, **SMALL_TREE)
    _save_all(memory, WORDS, 70)
    memory.close()
    return workspace


@pytest.fixture
def store(template, tmp_path) -> Path:
    workspace = tmp_path / "ws"
    shutil.copytree(template, workspace)
    return workspace


def _catalog(workspace: Path) -> Path:
    return workspace / "ihmt_memory" / "state" / "catalog.sqlite3"


def damage(workspace: Path, kind: str) -> None:
    path = _catalog(workspace)
    data = path.read_bytes()
    assert len(data) > 8192, "the catalog should span several pages"
    if kind == "truncated":
        path.write_bytes(data[:1000])  # header and part of the first page
    elif kind == "garbage":
        path.write_bytes(random.Random(7).randbytes(len(data)))
    elif kind == "half-written":
        path.write_bytes(data[: len(data) // 2])
    elif kind == "zero-byte":
        path.write_bytes(b"")
    else:  # pragma: no cover - a typo in a parameter
        raise AssertionError(kind)


def _one_line_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("ihmt: error: "), lines[0]
    return lines[0]


def _cli_finds(workspace: Path, word: str) -> bool:
    done = run_cli("--path", str(workspace), "search", word)
    assert done.returncode == 0, done.stderr
    return word in done.stdout and "NOT FOUND" not in done.stdout


# -- a damaged catalog -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["truncated", "garbage", "half-written", "zero-byte"])
def test_a_damaged_catalog_is_fixed_by_the_command_its_message_names(store, kind):
    damage(store, kind)
    done = run_cli("--path", str(store), "search", WORDS[0])
    if kind == "zero-byte":
        # an empty catalog is a lost one: rebuilt from the leaves on opening, never trusted
        assert done.returncode == 0, done.stderr
        assert WORDS[0] in done.stdout
    else:
        line = _one_line_error(done)
        assert str(_catalog(store)) in line and "damaged" in line, line
        named = re.findall(r"`(ihmt [^`]+)`", line)
        assert named == ["ihmt rebuild"], line
        if kind == "garbage":  # every command names the same fix
            for args in (("stats",), ("save", "refused while damaged")):
                again = run_cli("--path", str(store), *args)
                assert "`ihmt rebuild`" in _one_line_error(again), args
        fixed = run_cli("--path", str(store), *named[0].split()[1:])
        assert fixed.returncode == 0, fixed.stdout + fixed.stderr
        assert "moved the damaged catalog" in fixed.stdout
    aside = list(_catalog(store).parent.glob("catalog.sqlite3.damaged-*"))
    assert len(aside) == 1  # moved aside, never deleted
    assert (aside[0].stat().st_size == 0) == (kind == "zero-byte")  # the damaged bytes kept
    assert _cli_finds(store, WORDS[-1])
    memory = IHMT.open(store)
    assert memory.check().ok, memory.check().problems
    assert all(findable(memory, w) for w in WORDS)
    memory.close()


@pytest.mark.parametrize("command", [("check", "--repair"), ("init", "--force")])
def test_the_other_repairs_also_recover_a_garbage_catalog(store, command):
    damage(store, "garbage")
    checked = run_cli("--path", str(store), "check")
    assert checked.returncode == 1 and "damaged" in checked.stdout, checked.stdout
    done = run_cli("--path", str(store), *command)
    assert done.returncode == 0, done.stdout + done.stderr
    assert list(_catalog(store).parent.glob("catalog.sqlite3.damaged-*"))
    assert run_cli("--path", str(store), "check").returncode == 0
    assert _cli_finds(store, WORDS[3])


def test_a_damaged_catalog_in_a_long_lived_process_names_the_fix_and_heals_after_rebuild(store):
    """An MCP server or GUI keeps its IHMT open while another process rebuilds: after the
    swap its next search reads the new catalog (it notices the file changed)."""
    reader = IHMT.open(store)
    assert findable(reader, WORDS[0])
    assert run_cli("--path", str(store), "rebuild").returncode == 0
    assert all(findable(reader, w) for w in WORDS)
    reader.save(memory_text(unique_word(71, 0), 71, 0))  # and writes to the new one
    reader.close()
    fresh = IHMT.open(store)
    assert findable(fresh, unique_word(71, 0)) and fresh.check().ok, fresh.check().problems


# -- a rebuild killed at random points -----------------------------------------------------------

CHILD = (
    f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
    "from tests.helpers_catalog import rebuild_child; rebuild_child()"
)


@pytest.fixture(scope="module")
def big_template(tmp_path_factory) -> tuple[Path, list[str]]:
    workspace = tmp_path_factory.mktemp("rebuild") / "ws"
    memory = IHMT.initialize(workspace, **SMALL_TREE)
    words = [unique_word(72, i) for i in range(MANY)]
    _save_all(memory, words, 72)
    memory.close()
    return workspace, words


def _kill_rebuild(workspace: Path, step: str, count: int, delay: float) -> str:
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(workspace), step, str(count)],
        cwd=str(ROOT),
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = []
        for line in proc.stdout:
            lines.append(line.strip())
            if line.startswith(("PAUSED", "DONE")):
                break
        time.sleep(delay)  # the pause is a floor: the kill lands at or just after the step
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        proc.stdout.close()
        proc.stderr.close()
    return lines[-1] if lines else ""


def test_a_rebuild_killed_at_random_points_leaves_every_memory_findable(big_template, tmp_path):
    template, words = big_template
    probe = IHMT.open(template)
    branches = probe.stats()["branches"]  # what one rebuild summarizes
    probe.close()
    rng = random.Random(20251201)
    steps = ["leaf"] * 8 + ["branch"] * 6 + ["swap", "swapped", "trunk"] * 2
    rng.shuffle(steps)
    for trial, step in enumerate(steps[:KILL_TRIALS]):
        workspace = tmp_path / f"t{trial}"
        shutil.copytree(template, workspace)
        limit = {"leaf": MANY, "branch": branches}.get(step, 1)
        count = rng.randint(1, limit)
        last = _kill_rebuild(workspace, step, count, rng.choice([0.0, 0.001, 0.01]))
        assert last == f"PAUSED {step} {count}", (trial, step, count, last)  # killed mid-rebuild
        memory = IHMT.open(workspace)
        for w in rng.sample(words, 12) + [words[0], words[-1]]:
            result = memory.search(w, top_k=3)
            answer = compact_answer(result)
            ok = result.best is not None and w in result.best.content
            assert ok or "index is incomplete" in answer, (trial, step, count, w, answer)
            assert ok, (trial, step, count, w)  # the old catalog stayed: nothing is missing
        assert memory.stats()["leaves"] == MANY
        if trial % 5 == 0:  # the next rebuild cleans up after the killed one
            memory.rebuild()
            assert memory.check().ok, memory.check().problems
            assert not list((workspace / "ihmt_memory" / "state").glob(".catalog.*"))
            assert all(findable(memory, w) for w in rng.sample(words, 5))
        memory.close()


# -- a killed indexing pass is reported until it is redone ------------------------------------------


def test_an_interrupted_reconcile_is_reported_by_every_search_until_a_rebuild(store, monkeypatch):
    memory = IHMT.open(store)
    other = tmp_store = store.parent / "other"
    peer = IHMT.initialize(tmp_store, **SMALL_TREE)
    late = [unique_word(73, i) for i in range(6)]
    _save_all(peer, late, 73)
    peer.close()
    for path in (other / "ihmt_memory" / "layer_0").rglob("*.txt"):  # files a sync brought
        target = store / "ihmt_memory" / path.relative_to(other / "ihmt_memory")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)

    def killed(*_args, **_kwargs):
        raise KeyboardInterrupt  # the process dies while indexing them

    monkeypatch.setattr(memory.store, "index_leaves", killed)
    with pytest.raises(KeyboardInterrupt):
        memory.reconcile()
    monkeypatch.undo()
    memory.close()

    reader = IHMT.open(store)
    result = reader.search(late[0])
    answer = compact_answer(result)
    assert result.index_incomplete and "run `ihmt rebuild`" in answer, answer
    assert not answer.startswith("NOT FOUND:") and result.confidence == 0.0, answer
    found = reader.search(WORDS[0])  # a found answer carries the notice too
    assert found.best is not None and "index is incomplete" in compact_answer(found)
    cli = run_cli("--path", str(store), "search", late[1])
    assert "index is incomplete" in cli.stdout, cli.stdout
    assert any("index is incomplete" in p for p in reader.check().problems)
    reader.save(memory_text(unique_word(73, 99), 73, 99))  # a later save does not mask it
    assert reader.search(late[0]).index_incomplete
    reader.rebuild()
    assert all(findable(reader, w) for w in late + WORDS)
    assert not reader.search(late[0]).index_incomplete and reader.check().ok
    reader.close()


# -- a full disk -------------------------------------------------------------------------------------


class _FullDisk:
    """A sqlite3 connection whose writes fail as on a full disk; reads pass through."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, *args):
        if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE", "COMMIT")):
            raise sqlite3.OperationalError("database or disk is full")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._conn, name)


def _assert_disk_full_message(text: str, workspace: Path) -> None:
    assert f"the disk holding {workspace / 'ihmt_memory'} is full" in text, text
    assert "free space and retry" in text and "nothing was changed" in text, text
    assert "\n" not in text and "rebuild" not in text, text


def test_a_full_disk_during_a_catalog_write_is_named_and_changes_nothing(store, monkeypatch):
    memory = IHMT.open(store)
    before = memory.stats()["leaves"]
    real_open = memory.catalog._open_writable
    memory.catalog.close()
    monkeypatch.setattr(memory.catalog, "_open_writable", lambda: _FullDisk(real_open()))
    with pytest.raises(StoreWriteError) as err:
        memory.save(memory_text(unique_word(74, 0), 74, 0))
    _assert_disk_full_message(str(err.value), store)
    assert findable(memory, WORDS[2])  # reads keep working
    monkeypatch.undo()
    memory.catalog.close()
    assert memory.stats()["leaves"] == before
    memory.save(memory_text(unique_word(74, 1), 74, 1))  # room again: writes work
    assert memory.check().ok, memory.check().problems
    memory.close()


def test_enospc_writing_a_leaf_is_named_with_the_path_and_the_fix(store, monkeypatch):
    from ihmt.coordinator import writer as store_mod

    def no_space(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    memory = IHMT.open(store)
    monkeypatch.setattr(store_mod, "atomic_write_bytes", no_space)
    with pytest.raises(StoreWriteError) as err:
        memory.save(memory_text(unique_word(74, 2), 74, 2))
    _assert_disk_full_message(str(err.value), store)
    assert "No space left on device" in str(err.value)
    monkeypatch.undo()
    assert findable(memory, WORDS[0]) and not findable(memory, unique_word(74, 2))
    memory.save(memory_text(unique_word(74, 3), 74, 3))
    assert memory.check().ok, memory.check().problems
    memory.close()


def test_a_catalog_that_cannot_be_opened_for_writing_on_a_full_disk_still_answers(
    store, monkeypatch
):
    from ihmt.store import catalog as catalog_mod

    def io_error(self):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(catalog_mod.Catalog, "_open_writable", io_error)
    monkeypatch.setattr(catalog_mod, "disk_is_full", lambda path: True)
    memory = IHMT.open(store)
    assert all(findable(memory, w) for w in WORDS[:3])
    assert memory.stats()["leaves"] == len(WORDS)
    assert memory.catalog.read_only and memory.catalog.full
    with pytest.raises(StoreWriteError) as err:
        memory.save(memory_text(unique_word(74, 4), 74, 4))
    _assert_disk_full_message(str(err.value), store)
    monkeypatch.undo()
    memory.save(memory_text(unique_word(74, 5), 74, 5))  # space again: the next write reopens
    assert findable(memory, unique_word(74, 5))
    memory.close()


@contextlib.contextmanager
def small_tmpfs(size: str = "4m"):
    """A real file system that fills up, or a skip saying why there is none."""
    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root on Linux")
    point = Path(tempfile.mkdtemp(prefix="ihmt-tmpfs-"))
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        point.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], capture_output=True)
        with contextlib.suppress(OSError):
            point.rmdir()


def _fill(folder: Path) -> Path:
    filler = folder / "filler.bin"
    with open(filler, "wb", buffering=0) as handle:
        for block in (65536, 512):
            with contextlib.suppress(OSError):
                while True:
                    handle.write(b"\0" * block)
    return filler


def test_a_really_full_disk_is_named_and_reads_keep_working():
    with small_tmpfs() as point:
        workspace = point / "ws"
        memory = IHMT.initialize(workspace, **SMALL_TREE)
        _save_all(memory, WORDS, 70)
        memory.close()  # no -shm left: the next reader must create one on the full disk
        filler = _fill(point)
        for args in (("save", memory_text(unique_word(75, 0), 75, 0)), ("consolidate",)):
            done = run_cli("--path", str(workspace), *args)
            if done.returncode == 0 and args[0] == "consolidate":
                continue  # nothing to consolidate: no write needed
            line = _one_line_error(done)
            assert f"the disk holding {workspace / 'ihmt_memory'} is full" in line, line
            assert "free space" in line and "rebuild" not in line, line
        found = run_cli("--path", str(workspace), "search", WORDS[4])
        assert found.returncode == 0 and WORDS[4] in found.stdout, found.stdout + found.stderr
        for args in (("--json", "stats"), ("tree",)):
            done = run_cli("--path", str(workspace), *args)
            assert done.returncode == 0, (args, done.stderr)
        filler.unlink()
        saved = run_cli("--path", str(workspace), "save", memory_text(unique_word(75, 1), 75, 1))
        assert saved.returncode == 0, saved.stderr
        after = IHMT.open(workspace)
        assert after.check().ok, after.check().problems
        assert all(findable(after, w) for w in WORDS + [unique_word(75, 1)])
        assert not findable(after, unique_word(75, 0))
        after.close()
