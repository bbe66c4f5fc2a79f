"""The plain-file store: leaf format, atomic writes, the lock, rebuild and check."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt import IHMT, StoreCorruptError, StoreNotFoundError
from ihmt.store.leaf_format import parse_leaf, render_leaf

from .conftest import ROOT


@settings(max_examples=150, deadline=None)
@given(body=st.text(), source=st.text(max_size=40))
def test_leaf_header_round_trip(body, source):
    header = {
        "leaf_id": "L-general-0000-abc",
        "source": source,
        "tags": ["a", "b"],
        "extra": {"x": 1},
    }
    body = body.encode("utf-8", "replace").decode("utf-8")
    data = render_leaf(header, body)
    parsed_header, parsed_body = parse_leaf(data)
    assert parsed_header == header
    assert parsed_body == body


def test_body_containing_the_closing_marker_round_trips():
    body = "before\nIHMT-META>>>\nafter\n<<<IHMT-META\n"
    header, parsed = parse_leaf(render_leaf({"leaf_id": "L-x"}, body))
    assert parsed == body


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"no header",
        b"<<<IHMT-META\n{not json\nIHMT-META>>>\nx",
        b"<<<IHMT-META\n{}\n",
        b"\xff\xfe",
    ],
)
def test_damaged_leaf_raises_store_corrupt(data):
    with pytest.raises(StoreCorruptError):
        parse_leaf(data)


def test_store_layout_matches_the_seed(memory):
    root = memory.path
    assert (root / "root.json").is_file()
    assert (root / "ihmt.config.json").is_file()
    for folder in ("layer_0", "layers", "state"):
        assert (root / folder).is_dir()
    config = json.loads((root / "ihmt.config.json").read_text(encoding="utf-8"))
    for key in (
        "branch_factor",
        "target_tokens",
        "max_tokens",
        "beam_width",
        "confidence_threshold",
        "ambiguity_margin",
        "max_clue_rounds",
        "summarizer_backend",
        "code_chunk_mode",
    ):
        assert key in config


def test_default_config_values(tmp_path):
    mem = IHMT.initialize(tmp_path / "w")
    c = mem.config
    assert (c.branch_factor, c.target_tokens, c.max_tokens, c.beam_width) == (8, 2000, 3000, 3)
    assert (c.confidence_threshold, c.ambiguity_margin, c.max_clue_rounds) == (0.45, 0.18, 3)
    assert (c.summarizer_backend, c.code_chunk_mode) == ("heuristic", "pack")


def test_leaf_file_is_self_describing(memory):
    memory.ingest_text("The staging database listens on port 8443.", source="notes/port.txt")
    files = list((memory.path / "layer_0").rglob("*.txt"))
    assert len(files) == 1
    header, body = parse_leaf(files[0].read_bytes())
    assert body == "The staging database listens on port 8443."
    for key in (
        "leaf_id",
        "timestamp",
        "data_type",
        "domain",
        "tags",
        "span",
        "checksum",
        "source",
    ):
        assert key in header
    assert header["checksum"].startswith("sha256:")


def test_open_missing_store_says_how_to_create(tmp_path):
    with pytest.raises(StoreNotFoundError, match="ihmt init"):
        IHMT.open(tmp_path / "nothing")


def test_open_accepts_the_store_folder_itself(memory):
    again = IHMT.open(memory.path)
    assert again.path == memory.path


WRITER = r"""
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from ihmt.store.atomic import atomic_write_bytes
target = Path(sys.argv[2])
i = 0
while True:
    i += 1
    payload = (str(i % 10) * 2_000_000).encode()
    print("begin", i, flush=True)
    atomic_write_bytes(target, payload)
    print("end", i, flush=True)
"""


def _kill_writer_at(target: Path, point: str) -> subprocess.CompletedProcess:
    """Run the writer until the fault hook SIGKILLs it at ``point`` (``name#n``: its n-th
    time there); it can only end with -9 by being killed there, inside a write."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "tests.kill_at", point, WRITER, str(ROOT), str(target)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("point", ["atomic.opened", "atomic.written"])
@pytest.mark.parametrize("nth", [1, 2])
def test_atomic_write_never_leaves_a_partial_file_when_killed(tmp_path, point, nth):
    """Killed inside write ``nth`` (its temporary file just created, or written and flushed
    but not yet renamed): the target still holds the previous content, whole."""
    target = tmp_path / "data.bin"
    target.write_bytes(b"0" * 2_000_000)
    proc = _kill_writer_at(target, f"{point}#{nth}")
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert proc.stdout.split()[-2:] == ["begin", str(nth)]  # inside that write
    data = target.read_bytes()
    assert len(data) == 2_000_000
    assert set(data) == {ord(str((nth - 1) % 10))}, "the target is not the previous write, whole"


LOCKER = r"""
import os, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from ihmt.store.lock import StoreLock
lock = StoreLock(Path(sys.argv[2]))
log = Path(sys.argv[3])
for i in range(40):
    with lock:
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"start {os.getpid()}\n"); f.flush()
            time.sleep(0.002)
            f.write(f"end {os.getpid()}\n"); f.flush()
"""


def test_two_processes_taking_the_lock_never_interleave(tmp_path):
    lock, log = tmp_path / "write.lock", tmp_path / "log.txt"
    procs = [
        subprocess.Popen([sys.executable, "-c", LOCKER, str(ROOT), str(lock), str(log)])
        for _ in range(3)
    ]
    for p in procs:
        assert p.wait(timeout=60) == 0
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 * 40 * 2
    for start, end in zip(lines[::2], lines[1::2], strict=True):
        assert start.startswith("start ") and end.startswith("end ")
        assert start.split()[1] == end.split()[1]


HOLDER = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from ihmt.store.lock import StoreLock
lock = StoreLock(Path(sys.argv[2]))
lock.acquire()
print("held", flush=True)
time.sleep(60)
"""


def test_lock_of_a_killed_process_is_released(tmp_path):
    from ihmt.store.lock import StoreLock

    path = tmp_path / "write.lock"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(ROOT), str(path)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "held"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    lock = StoreLock(path, timeout=5)
    with lock:
        assert lock.held


def _catalog_snapshot(mem: IHMT) -> list[tuple]:
    return sorted(
        (r["id"], r["path"], r["domain"], r["timestamp"], r["source"])
        for r in mem.catalog.all_leaves()
    )


def test_rebuild_after_deleting_state_gives_the_same_catalog(memory):
    for i in range(11):
        memory.ingest_text(
            f"Note {i}: the build server number {i} runs Debian.", source=f"n{i}.txt"
        )
    memory.flush()
    before = _catalog_snapshot(memory)
    memory.catalog.close()
    import shutil

    shutil.rmtree(memory.path / "state")
    again = IHMT.open(memory.layout.workspace)
    again.rebuild()
    assert _catalog_snapshot(again) == before
    assert again.check().ok, again.check().problems


def test_check_reports_a_corrupted_header_and_a_missing_leaf(memory):
    memory.ingest_text("First memory about the Kafka cluster.", source="a.txt")
    memory.ingest_text("Second memory about the Redis cache.", source="b.txt")
    assert memory.check().ok
    files = sorted((memory.path / "layer_0").rglob("*.txt"))
    files[0].write_text("<<<IHMT-META\n{broken\nIHMT-META>>>\ntext", encoding="utf-8")
    files[1].unlink()
    report = memory.check()
    assert not report.ok
    text = "\n".join(report.problems)
    assert "not valid JSON" in text
    assert "missing" in text


def test_check_repair_restores_a_working_store(memory):
    memory.ingest_text("Kafka runs three brokers in production.", source="a.txt")
    memory.ingest_text("Redis holds the session cache.", source="b.txt")
    (memory.path / "root.json").write_text("{truncated", encoding="utf-8")
    report = memory.check(repair=True)
    assert report.ok, report.problems
    assert memory.search("Kafka brokers").best is not None


def test_initialize_force_keeps_leaves_and_recorded_facts(memory):
    memory.ingest_text("The VPN gateway lives at vpn.example.org.", source="vpn.txt")
    memory.record_fact("user", "editor", "neovim", "2025-01-01")
    leaf_files = sorted(p.name for p in (memory.path / "layer_0").rglob("*.txt"))
    again = IHMT.initialize(memory.layout.workspace, force=True)
    assert sorted(p.name for p in (again.path / "layer_0").rglob("*.txt")) == leaf_files
    assert again.resolver.active_state()["user::editor"].value == "neovim"
    assert again.search("VPN gateway").best is not None


def test_saving_does_not_rewrite_files_that_grow_with_the_store(memory):
    for i in range(40):
        memory.ingest_text(f"Memory number {i} about service{i}.", source=f"s{i}.txt")
    root = memory.path
    before = {p: p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}
    memory.save("A brand new fact about zanzibar.")
    changed = [p for p in root.rglob("*") if p.is_file() and before.get(p) != p.stat().st_mtime_ns]
    names = {p.relative_to(root).as_posix() for p in changed}
    # the new leaf, the trunk, the catalog database/journal, at most a few branches on one path
    layer_files = [n for n in names if n.startswith("layers/")]
    assert len(layer_files) <= 2 * 4
    assert sum(1 for n in names if n.startswith("layer_0/")) == 1
    assert os.environ.get("IHMT_HOME")
