"""Hostile and damaged leaf files (issue 20, points 1, 4, 5, 7).

Header fields are untrusted: whatever a leaf header or a sync peer says, ``check --repair``,
``rebuild`` and a sync pull never create or change a file outside the store folder (a sibling
``victim`` folder and the parent are snapshotted before and after). Quarantine keeps every
file with its origin and reason, and ``quarantine restore`` puts a fixed one back. A leaf the
process may not read is named, never quarantined. A damaged header over an intact body is
rebuilt, the body kept byte for byte.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ihmt import IHMT
from ihmt.errors import InputError
from tests.conftest import run_cli
from tests.helpers_procs import SMALL_TREE, findable, memory_text, unique_word

WORDS = [unique_word(90, i) for i in range(3)]
CLOSE = b"\nIHMT-META>>>\n"
HOSTILE = [
    "../../../../victim/notes",
    "../../../victim/notes",
    "/tmp/../victim/notes",
    "L-general-0000-0123456789/../../../../victim/x",
    "..",
    "",
    "L-\x00general-0000-0123456789",
    "L-" + "a" * 5000 + "-0000-0123456789",
    "L-génér/al-0000-0123456789",
    "victim\\notes",
]


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    ws = tmp_path_factory.mktemp("hostile") / "ws"
    memory = IHMT.initialize(ws, **SMALL_TREE)
    for i, word in enumerate(WORDS):
        memory.save(memory_text(word, 90, i))
    memory.close()
    return ws


def make_site(template: Path, base: Path) -> tuple[Path, Path]:
    """base/ws (a copy of the template store) and base/victim (a file a hostile id aims at)."""
    ws = base / "ws"
    shutil.copytree(template, ws)
    victim = base / "victim"
    victim.mkdir()
    (victim / "notes").write_text("do not touch\n", encoding="utf-8")
    (victim / "notes.txt").write_text("do not touch either\n", encoding="utf-8")
    return ws, victim


def outside(base: Path, ws: Path) -> dict[str, bytes | None]:
    """Every path under ``base`` except the store folder, with its bytes (None for folders).
    The shared bare repository and the peer's clone are left out: a sync pushes to the one,
    and the other is the attacker's."""
    store = ws / "ihmt_memory"
    out: dict[str, bytes | None] = {}
    for path in base.rglob("*"):
        if path == store or store in path.parents:
            continue
        if path.relative_to(base).parts[0] in ("remote.git", "peer"):
            continue
        out[str(path.relative_to(base))] = None if path.is_dir() else path.read_bytes()
    return out


def leaf_with(ws: Path, word: str) -> Path:
    folder = ws / "ihmt_memory" / "layer_0"
    return next(p for p in folder.rglob("*.txt") if word.encode() in p.read_bytes())


def set_header(path: Path, **fields) -> bytes:
    """Rewrite header fields of a leaf file (valid JSON); returns the body."""
    head, body = path.read_bytes()[len(b"<<<IHMT-META\n") :].split(CLOSE, 1)
    header = json.loads(head)
    header.update(fields)
    text = json.dumps(header, indent=2, ensure_ascii=False).encode("utf-8", "surrogatepass")
    path.write_bytes(b"<<<IHMT-META\n" + text + CLOSE + body)
    return body


def quarantined(ws: Path) -> list[Path]:
    folder = ws / "ihmt_memory" / "quarantine"
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if not p.name.endswith(".why.json"))


def run(ws: Path, how: str) -> list[str]:
    memory = IHMT.open(ws)
    try:
        if how == "check":
            return memory.check(repair=True).repaired
        return memory.rebuild()
    finally:
        memory.close()


# -- 1. header fields never become paths ------------------------------------------------------


@pytest.mark.parametrize("how", ["check", "rebuild"])
def test_a_leaf_id_that_climbs_out_of_the_store_is_quarantined_not_moved(template, tmp_path, how):
    ws, victim = make_site(template, tmp_path)
    before = outside(tmp_path, ws)
    path = leaf_with(ws, WORDS[0])
    raw_body = set_header(path, leaf_id="../../../../victim/notes")
    problems = IHMT.open(ws).check().problems
    assert any("is not a leaf id" in p for p in problems), problems
    notes = run(ws, how)
    assert outside(tmp_path, ws) == before
    assert any(n.startswith("quarantined") and path.name in n for n in notes), notes
    [moved] = quarantined(ws)
    assert moved.read_bytes().endswith(raw_body)
    memory = IHMT.open(ws)
    [entry] = memory.quarantine()
    assert entry.original == path.relative_to(ws / "ihmt_memory").as_posix()
    assert "leaf_id" in entry.reason
    assert memory.check().ok and all(findable(memory, w) for w in WORDS[1:])


def _hostile_text():
    return st.one_of(
        st.sampled_from(HOSTILE),
        st.text(max_size=40),
        st.builds(lambda a, b: f"{a}/../{b}", st.text(max_size=8), st.text(max_size=8)),
        st.integers(),
        st.none(),
        st.lists(st.text(max_size=4), max_size=2),
    )


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    field=st.sampled_from(
        ["leaf_id", "domain", "source", "title", "timestamp", "data_type", "ingested_at", "tags"]
    ),
    value=_hostile_text(),
    how=st.sampled_from(["check", "rebuild"]),
)
def test_no_header_value_makes_repair_or_rebuild_write_outside_the_store(
    template, field, value, how
):
    base = Path(tempfile.mkdtemp(prefix="ihmt-hostile-"))
    try:
        ws, _ = make_site(template, base)
        before = outside(base, ws)
        set_header(leaf_with(ws, WORDS[0]), **{field: value})
        run(ws, how)
        assert outside(base, ws) == before
        memory = IHMT.open(ws)
        try:
            report = memory.check()
            assert report.ok, report.problems
            assert all(findable(memory, w) for w in WORDS[1:])
        finally:
            memory.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_a_symbolic_link_in_layer_0_is_never_followed(template, tmp_path):
    ws, victim = make_site(template, tmp_path)
    before = outside(tmp_path, ws)
    general = leaf_with(ws, WORDS[0]).parent
    (general / "L-general-0000-0123456789.txt").symlink_to(victim / "notes.txt")
    (ws / "ihmt_memory" / "layer_0" / "evil").symlink_to(victim)
    assert any("symbolic link" in p for p in IHMT.open(ws).check().problems)
    run(ws, "check")
    assert outside(tmp_path, ws) == before
    assert all(p.is_symlink() for p in quarantined(ws)) and len(quarantined(ws)) == 2
    assert IHMT.open(ws).check().ok


# -- sync pull ------------------------------------------------------------------------------------

git_missing = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(*args: str, cwd: Path) -> str:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="Peer",
        GIT_AUTHOR_EMAIL="peer@example.invalid",
        GIT_COMMITTER_NAME="Peer",
        GIT_COMMITTER_EMAIL="peer@example.invalid",
    )
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _peer_pushes(base: Path, remote: Path, make) -> None:
    """A hostile peer: a plain clone of the shared memory, ``make(folder)`` adds files."""
    peer = base / "peer"
    _git("clone", "-q", str(remote), str(peer), cwd=base)
    make(peer)
    _git("add", "-A", cwd=peer)
    _git("commit", "-q", "-m", "peer", cwd=peer)
    _git("push", "-q", "origin", "HEAD", cwd=peer)


def _shared_store(template: Path, base: Path) -> tuple[Path, Path]:
    from ihmt.sync import sync

    ws, _ = make_site(template, base)
    remote = base / "remote.git"
    _git("init", "-q", "--bare", "-b", "main", str(remote), cwd=base)
    sync(ws, str(remote))
    return ws, remote


def _hostile_leaf(field: str, value) -> callable:
    def make(peer: Path) -> None:
        source = next((peer / "layer_0").rglob("*.txt"))
        target = source.parent / "L-general-0000-00000000ff.txt"
        shutil.copy(source, target)
        set_header(target, **{field: value, "checksum": "x"})
        set_header(target, checksum="sha256:" + _digest(target))

    return make


def _digest(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes().split(CLOSE, 1)[1]).hexdigest()


@git_missing
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    field=st.sampled_from(["leaf_id", "domain", "source", "title"]),
    value=st.one_of(st.sampled_from(HOSTILE), st.text(max_size=20)),
)
@example(field="domain", value="0")  # a copy of a leaf filed under another domain folder
def test_a_sync_pull_of_hostile_headers_writes_nothing_outside_the_store(template, field, value):
    from ihmt.sync import sync

    base = Path(tempfile.mkdtemp(prefix="ihmt-hostile-sync-"))
    try:
        ws, remote = _shared_store(template, base)
        _peer_pushes(base, remote, _hostile_leaf(field, value))
        before = outside(base, ws)
        report = sync(ws)
        assert outside(base, ws) == before
        memory = IHMT.open(ws)
        try:
            assert memory.check().ok, memory.check().problems
            bad = [e for e in memory.quarantine() if "00000000ff" in e.original]
            if bad:  # refused: named in the sync report
                assert any(n.startswith("quarantined") for n in report.notes), report.notes
            assert all(findable(memory, w) for w in WORDS)
        finally:
            memory.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)


@git_missing
def test_a_peer_that_sends_a_leaf_id_climbing_out_is_quarantined_and_reported(template, tmp_path):
    from ihmt.sync import sync

    ws, remote = _shared_store(template, tmp_path)
    _peer_pushes(tmp_path, remote, _hostile_leaf("leaf_id", "../../../../victim/notes"))
    before = outside(tmp_path, ws)
    report = sync(ws)
    assert outside(tmp_path, ws) == before
    assert any(n.startswith("quarantined") and "leaf_id" in n for n in report.notes), report
    IHMT.open(ws).rebuild()  # the next rebuild has nothing hostile left to move
    assert outside(tmp_path, ws) == before


@git_missing
def test_a_peer_that_sends_a_symbolic_link_is_refused_before_the_merge(template, tmp_path):
    from ihmt.sync import SyncError, sync

    ws, remote = _shared_store(template, tmp_path)

    def make(peer: Path) -> None:
        (peer / "layer_0" / "L-general-0000-00000000ee.txt").symlink_to("../../victim/notes")

    _peer_pushes(tmp_path, remote, make)
    before = outside(tmp_path, ws)
    with pytest.raises(SyncError, match="symbolic link") as info:
        sync(ws)
    assert "\n" not in str(info.value)
    assert outside(tmp_path, ws) == before
    assert not any(p.is_symlink() for p in (ws / "ihmt_memory").rglob("*"))


# -- 4. quarantine keeps everything; restore --------------------------------------------------------


def test_two_files_of_the_same_name_both_survive_quarantine(template, tmp_path):
    ws, _ = make_site(template, tmp_path)
    folder = leaf_with(ws, WORDS[0]).parent
    for text in ("first stray note\n", "second stray note\n"):
        (folder / "notes.txt").write_text(text, encoding="utf-8")
        run(ws, "check")
    kept = {p.name: p.read_text(encoding="utf-8") for p in quarantined(ws)}
    assert sorted(kept.values()) == ["first stray note\n", "second stray note\n"], kept
    entries = IHMT.open(ws).quarantine()
    assert {e.original for e in entries} == {"layer_0/general/notes.txt"}
    assert len({e.name for e in entries}) == 2 and all(e.reason for e in entries)
    done = run_cli("--path", str(ws), "check")
    assert done.returncode == 0 and "quarantine/ holds 2 file(s)" in done.stdout, done.stdout
    listing = run_cli("--path", str(ws), "quarantine", "list")
    assert all(e.name in listing.stdout for e in entries), listing.stdout


def test_restore_refuses_until_fixed_then_puts_the_memory_back(template, tmp_path):
    ws, _ = make_site(template, tmp_path)
    path = leaf_with(ws, WORDS[0])
    good_id = path.stem
    set_header(path, leaf_id="../../../../victim/notes")
    run(ws, "rebuild")
    [moved] = quarantined(ws)
    memory = IHMT.open(ws)
    with pytest.raises(InputError, match="still not a valid leaf"):
        memory.restore_quarantined(moved.name)
    with pytest.raises(InputError, match="give the name of a file in quarantine"):
        memory.restore_quarantined("../ihmt.config.json")
    with pytest.raises(InputError, match="holds no file"):
        memory.restore_quarantined("ihmt.config.json")
    set_header(moved, leaf_id=good_id)  # the user's fix
    shutil.copy(moved, tmp_path / "copy.txt")
    done = run_cli("--path", str(ws), "quarantine", "restore", moved.name)
    assert done.returncode == 0 and "restored" in done.stdout, done.stderr
    memory = IHMT.open(ws)
    assert findable(memory, WORDS[0]) and memory.check().ok and memory.quarantine() == []
    (ws / "ihmt_memory" / "quarantine").mkdir(exist_ok=True)
    shutil.copy(tmp_path / "copy.txt", ws / "ihmt_memory" / "quarantine" / moved.name)
    again = run_cli("--path", str(ws), "quarantine", "restore", moved.name)
    assert again.returncode == 1 and "already exists" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1


# -- 5. a leaf this user may not read --------------------------------------------------------------


def test_an_unreadable_leaf_is_named_and_never_quarantined(template):
    with store_as_nobody(template) as (ws, cli, _):
        locked = leaf_with(ws, WORDS[0])
        locked.chmod(0)
        for argv in (("check",), ("rebuild",), ("check", "--repair"), ("stats",)):
            done = cli(*argv)
            out = done.stdout + done.stderr
            assert "Traceback" not in out, out
            if argv != ("stats",):
                assert "cannot read" in out and "permission denied" in out, (argv, out)
                assert "chmod" in out, out
            if argv[0] == "check":
                assert done.returncode == 1 and "healthy" not in out, (argv, out)
        assert "unreadable   1" in done.stdout, done.stdout
        assert locked.exists() and not quarantined(ws)
        locked.chmod(0o644)
        assert WORDS[0].encode() in locked.read_bytes()
        fixed = cli("check", "--repair")
        assert fixed.returncode == 0, fixed.stdout + fixed.stderr
        found = cli("search", WORDS[0])
        assert WORDS[0] in found.stdout, found.stdout


@contextlib.contextmanager
def store_as_nobody(template: Path):
    """A copy of the template store owned by the unprivileged user (when we are root), and a
    ``cli(*argv)`` that runs ihmt as that user, so a ``chmod 0`` really refuses the read."""
    from tests.test_crash import _unprivileged

    python, user, reason = _unprivileged()
    if python is None:
        pytest.skip(reason)
    base = Path(tempfile.mkdtemp(prefix="ihmt-perm-"))
    try:
        os.chmod(base, 0o755)
        ws = base / "ws"
        shutil.copytree(template, ws)
        if user:
            import pwd

            entry = pwd.getpwnam(user)
            for path in [ws, *ws.rglob("*")]:
                os.chown(path, entry.pw_uid, entry.pw_gid, follow_symlinks=False)

        def cli(*argv: str) -> subprocess.CompletedProcess:
            return subprocess.run(
                [python, str(Path(__file__).parents[1] / "main.py"), "--path", str(ws), *argv],
                user=user or None,
                cwd=str(base),
                env={"HOME": str(base), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
                capture_output=True,
                text=True,
                timeout=120,
            )

        yield ws, cli, (python, user)
    finally:
        shutil.rmtree(base, ignore_errors=True)


BLIND = "1 memory file(s) cannot be read (permission denied)"


def test_search_says_when_memory_files_cannot_be_read(template):
    with store_as_nobody(template) as (ws, cli, _):
        locked = leaf_with(ws, WORDS[0])
        locked.chmod(0)
        # indexed before it became unreadable: the search that matches it is refused the read
        out = cli("search", WORDS[0]).stdout
        assert "NOT FOUND IN THE INDEX" in out and BLIND in out and "`ihmt check`" in out, out
        assert "confidence 0.00" in out, out
        # check records the count: every answer says so, without listing layer_0
        assert cli("check").returncode == 1
        other = cli("search", WORDS[1]).stdout
        assert WORDS[1] in other and f"NOTICE: {BLIND}" in other, other
        # after a rebuild the memory is not in the index at all; the count still speaks
        assert cli("rebuild").returncode == 0
        gone = cli("search", WORDS[0]).stdout
        assert "NOT FOUND IN THE INDEX" in gone and BLIND in gone, gone
        assert "confidence 0.00" in gone, gone
        data = json.loads(cli("search", WORDS[0], "--json").stdout)
        assert data["unreadable_leaves"] == 1 and data["not_found"], data
        assert data["confidence"] == 0.0 and BLIND in data["index_incomplete"], data
        # fixed, a rebuild finds none and clears the notice
        locked.chmod(0o644)
        assert cli("check", "--repair").returncode == 0
        back = cli("search", WORDS[0]).stdout
        assert WORDS[0] in back and "cannot be read" not in back, back


def test_reconcile_records_and_clears_the_unreadable_count(template):
    with store_as_nobody(template) as (ws, cli, (python, user)):

        def reconcile() -> None:
            code = "import sys; from ihmt import IHMT; IHMT.open(sys.argv[1]).reconcile()"
            done = subprocess.run(
                [python, "-c", code, str(ws)],
                user=user or None,
                cwd=str(Path(__file__).parents[1]),
                env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 0, done.stderr

        locked = leaf_with(ws, WORDS[2])
        locked.chmod(0)
        reconcile()
        assert BLIND in cli("search", WORDS[1]).stdout
        locked.chmod(0o644)
        reconcile()
        out = cli("search", WORDS[1]).stdout
        assert WORDS[1] in out and "cannot be read" not in out, out


# -- 7. damage that leaves the body intact ------------------------------------------------------------


@pytest.mark.parametrize("offset", [1, 5, 20, 40, -3, -1])
def test_one_corrupted_character_in_the_header_is_repaired_and_found(template, tmp_path, offset):
    ws, _ = make_site(template, tmp_path)
    path = leaf_with(ws, WORDS[1])
    raw = path.read_bytes()
    head_end = raw.index(CLOSE)
    where = len(b"<<<IHMT-META\n") + offset if offset > 0 else head_end + offset
    damaged = raw[:where] + b"#" + raw[where + 1 :]
    path.write_bytes(damaged)
    body = raw[head_end + len(CLOSE) :]
    notes = run(ws, "check")
    assert any(n.startswith("repaired header of") and path.name in n for n in notes), notes
    assert path.read_bytes().endswith(CLOSE + body)
    assert not quarantined(ws)
    memory = IHMT.open(ws)
    assert memory.check().ok
    assert WORDS[1] in memory.search(WORDS[1]).best.content


def test_a_truncated_header_without_its_marker_keeps_the_body(template, tmp_path):
    ws, _ = make_site(template, tmp_path)
    path = leaf_with(ws, WORDS[2])
    raw = path.read_bytes()
    body = raw.split(CLOSE, 1)[1]
    path.write_bytes(raw.replace(CLOSE, b"\nIHMT-ME\n", 1))
    notes = run(ws, "rebuild")
    assert any("repaired header" in n for n in notes), notes
    assert path.read_bytes().split(CLOSE, 1)[1] == body
    assert findable(IHMT.open(ws), WORDS[2])
