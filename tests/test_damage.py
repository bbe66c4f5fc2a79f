"""Damaged stores: hand-edited leaves, truncated branches, a deleted catalog or trunk, stray
files in layer_0. ``check`` names each problem in plain words; ``check(repair=True)`` and
``rebuild()`` give back a working store without losing a leaf whose header is valid, and move
unreadable files to quarantine/ instead of deleting them. The CLI reports the same with exit
codes (1 while problems remain, 0 once repaired)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ihmt import IHMT
from ihmt.errors import StoreCorruptError
from tests.conftest import run_cli
from tests.helpers_procs import SMALL_TREE, findable, memory_text, tree_problems, unique_word

WORDS = [unique_word(60, i) for i in range(12)]


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A healthy store with a few layers of branches, built once and copied per test."""
    workspace = tmp_path_factory.mktemp("damage") / "ws"
    memory = IHMT.initialize(workspace, **SMALL_TREE)
    for i, w in enumerate(WORDS):
        memory.save(memory_text(w, 60, i))
    memory.flush()
    assert memory.check().ok
    memory.close()
    return workspace


@pytest.fixture
def store(template, tmp_path) -> Path:
    workspace = tmp_path / "ws"
    shutil.copytree(template, workspace)
    return workspace


def leaf_files(workspace: Path) -> list[Path]:
    return sorted((workspace / "ihmt_memory" / "layer_0").rglob("*.txt"))


def leaf_with(workspace: Path, word: str) -> Path:
    return next(p for p in leaf_files(workspace) if word.encode() in p.read_bytes())


def problems(workspace: Path) -> list[str]:
    memory = IHMT.open(workspace)
    try:
        return memory.check().problems
    finally:
        memory.close()


def assert_working(workspace: Path, words=WORDS) -> IHMT:
    memory = IHMT.open(workspace)
    report = memory.check()
    assert report.ok, report.problems
    assert tree_problems(memory) == []
    missing = [w for w in words if not findable(memory, w)]
    assert not missing, missing
    return memory


def repair(workspace: Path, how: str) -> list[str]:
    memory = IHMT.open(workspace)
    try:
        if how == "check":
            report = memory.check(repair=True)
            assert report.repaired, "check(repair=True) should say what it did"
            return report.repaired
        return memory.rebuild()
    finally:
        memory.close()


# -- leaves ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["check", "rebuild"])
def test_a_hand_edited_leaf_text_is_named_and_repaired(store, how):
    path = leaf_with(store, WORDS[0])
    path.write_bytes(path.read_bytes().replace(b"staging cluster", b"STAGING cluster (edited)"))
    found = problems(store)
    assert len(found) == 1 and "does not match its checksum" in found[0], found
    assert path.stem in found[0]
    repair(store, how)
    memory = assert_working(store)
    assert "(edited)" in memory.search(WORDS[0]).best.content


def test_a_hand_edited_leaf_is_named_and_still_searchable(store):
    path = leaf_with(store, WORDS[0])
    path.write_bytes(path.read_bytes().replace(b"staging cluster", b"STAGING cluster (edited)"))
    found = problems(store)
    assert len(found) == 1 and "does not match its checksum" in found[0], found
    memory = IHMT.open(store)
    assert "(edited)" in memory.search(WORDS[0]).best.content


@pytest.mark.parametrize("how", ["check", "rebuild"])
def test_a_leaf_with_broken_header_json_is_repaired_and_keeps_its_text(store, how):
    path = leaf_with(store, WORDS[1])
    raw = path.read_bytes()
    body = raw.split(b"\nIHMT-META>>>\n", 1)[1]
    path.write_bytes(raw.replace(b'"leaf_id"', b'"leaf_id', 1))
    found = problems(store)
    assert any(path.stem in p and "header is not valid JSON" in p for p in found), found
    assert any("check --repair" in p for p in found), found
    notes = repair(store, how)
    assert any(n.startswith("repaired header of") and path.name in n for n in notes), notes
    assert path.read_bytes().split(b"\nIHMT-META>>>\n", 1)[1] == body  # byte for byte
    assert not (store / "ihmt_memory" / "quarantine").exists()
    assert_working(store)


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (lambda b: b"\xff\xfe" + b[2:], "not valid UTF-8"),
        (lambda b: b.replace(b'"leaf_id"', b'"leaf_key"', 1), "has no leaf_id"),
        (lambda b: b.replace(b"\nIHMT-META>>>\n", b"\nIHMT-MET#>>\n", 1), "never closed"),
    ],
)
def test_a_damaged_header_over_an_intact_body_is_repaired(store, damage, says):
    path = leaf_with(store, WORDS[2])
    path.write_bytes(damage(path.read_bytes()))
    found = problems(store)
    assert any(says in p for p in found), found
    notes = repair(store, "check")
    assert any(n.startswith("repaired header of") for n in notes), notes
    assert_working(store)


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (lambda b: b[: len(b) // 2], "never closed"),  # cut inside the header: no body left
        (lambda b: b"", "missing the <<<IHMT-META header"),
        (lambda b: b.split(b"IHMT-META>>>\n")[0] + b"IHMT-META>>>\n\xff\xfe", "UTF-8"),
    ],
)
def test_other_unreadable_leaves_are_named_and_quarantined(store, damage, says):
    path = leaf_with(store, WORDS[2])
    path.write_bytes(damage(path.read_bytes()))
    found = problems(store)
    assert any(says in p for p in found), found
    repair(store, "check")
    assert (store / "ihmt_memory" / "quarantine" / path.name).exists()
    assert_working(store, [w for w in WORDS if w != WORDS[2]])


# -- derived files ---------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["check", "rebuild"])
def test_a_truncated_branch_is_named_and_rebuilt(store, how):
    branch = sorted((store / "ihmt_memory" / "layers").rglob("*.json"))[0]
    branch.write_bytes(branch.read_bytes()[: branch.stat().st_size // 2])
    found = problems(store)
    assert any(branch.stem in p and "damaged" in p for p in found), found
    memory = IHMT.open(store)
    try:  # a search through the damaged branch says what to do, in one line
        for w in WORDS:
            memory.search(w)
    except StoreCorruptError as exc:
        assert "check --repair" in str(exc) and "\n" not in str(exc)
    repair(store, how)
    assert_working(store)


@pytest.mark.parametrize("how", ["check", "rebuild"])
def test_a_deleted_catalog_is_named_and_rebuilt(store, how):
    for path in (store / "ihmt_memory" / "state").glob("catalog.sqlite3*"):
        path.unlink()
    # the catalog is derived: opening the store rebuilds it from the leaves by itself
    assert problems(store) == []
    if how == "rebuild":
        repair(store, how)
    assert_working(store)


def test_a_deleted_catalog_is_rebuilt_without_being_asked(store):
    for path in (store / "ihmt_memory" / "state").glob("catalog.sqlite3*"):
        path.unlink()
    memory = IHMT.open(store)
    assert all(findable(memory, w) for w in WORDS)
    memory.save(memory_text(unique_word(61, 0), 61, 0))
    assert_working(store, WORDS + [unique_word(61, 0)])


def test_a_deleted_trunk_is_named_searches_say_so_and_repair_restores_it(store):
    (store / "ihmt_memory" / "root.json").unlink()
    found = problems(store)
    assert any("root.json" in p and "missing" in p for p in found), found
    memory = IHMT.open(store)
    with pytest.raises(StoreCorruptError, match="check --repair"):
        memory.search(WORDS[0])
    report = memory.check(repair=True)
    assert report.ok
    assert_working(store)


def test_the_next_write_restores_a_deleted_trunk(store):
    (store / "ihmt_memory" / "root.json").unlink()
    memory = IHMT.open(store)
    memory.save(memory_text(unique_word(61, 1), 61, 1))
    assert_working(store, WORDS + [unique_word(61, 1)])


def test_a_leaf_listed_twice_is_named_and_search_still_answers(store):
    import json

    root_path = store / "ihmt_memory" / "root.json"
    root = json.loads(root_path.read_text(encoding="utf-8"))
    branch_file = sorted((store / "ihmt_memory" / "layers" / "1").glob("*.json"))[0]
    child = json.loads(branch_file.read_text(encoding="utf-8"))["children"][0]
    root["entries"].append(child)
    root_path.write_text(json.dumps(root), encoding="utf-8")
    word = next(w for w in WORDS if w in IHMT.open(store).store.read_leaf(child["id"]).content)
    memory = IHMT.open(store)
    assert word in memory.search(word).best.content
    found = memory.check().problems
    assert any(child["id"] in p and "two parents" in p for p in found), found
    memory.check(repair=True)
    assert_working(store)


# -- stray files -------------------------------------------------------------------------------------


def _foreign_leaf(tmp_path: Path) -> tuple[Path, str]:
    """A valid leaf file from another store."""
    other = IHMT.initialize(tmp_path / "other", **SMALL_TREE)
    word = unique_word(62, 0)
    other.save(f"A memory from another machine: the {word} sensor is in the lab.")
    other.close()
    return leaf_files(tmp_path / "other")[0], word


@pytest.mark.parametrize("how", ["check", "rebuild"])
def test_stray_files_in_layer_0_are_named_then_indexed_or_quarantined(store, tmp_path, how):
    folder = leaf_files(store)[0].parent
    junk = folder / "notes.txt"
    junk.write_text("some text without any header\n", encoding="utf-8")
    foreign, word = _foreign_leaf(tmp_path)
    shutil.copy(foreign, folder / foreign.name)
    found = problems(store)
    assert any("notes.txt" in p and "not in the catalog" in p for p in found), found
    assert any(foreign.name in p and "not in the catalog" in p for p in found), found
    repair(store, how)
    assert (store / "ihmt_memory" / "quarantine" / "notes.txt").read_text(encoding="utf-8") == (
        "some text without any header\n"
    )
    memory = assert_working(store, WORDS + [word])
    assert word in memory.search(word).best.content


def test_reconcile_indexes_a_copied_leaf_and_skips_junk(store, tmp_path):
    folder = leaf_files(store)[0].parent
    (folder / "notes.txt").write_text("junk\n", encoding="utf-8")
    foreign, word = _foreign_leaf(tmp_path)
    shutil.copy(foreign, folder / foreign.name)
    memory = IHMT.open(store)
    notes = memory.reconcile()
    assert any("notes.txt" in n for n in notes), notes
    assert findable(memory, word)
    assert all(findable(memory, w) for w in WORDS)


# -- the CLI -------------------------------------------------------------------------------------------


def test_cli_check_lists_problems_and_repair_fixes_them(store):
    path = leaf_with(store, WORDS[3])
    path.write_bytes(path.read_bytes()[:40])
    branch = sorted((store / "ihmt_memory" / "layers").rglob("*.json"))[0]
    branch.write_bytes(b"{")
    (leaf_files(store)[0].parent / "stray.txt").write_text("stray\n", encoding="utf-8")

    done = run_cli("--path", str(store), "check")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "problem(s)" in done.stdout and "check --repair" in done.stdout
    for needle in (path.stem, branch.stem, "stray.txt"):
        assert needle in done.stdout, needle
    assert "Traceback" not in done.stderr

    fixed = run_cli("--path", str(store), "check", "--repair")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "repaired" in fixed.stdout and "quarantine" in fixed.stdout
    assert run_cli("--path", str(store), "check").returncode == 0
    assert_working(store, [w for w in WORDS if w != WORDS[3]])
    quarantine = store / "ihmt_memory" / "quarantine"
    kept = {p.name for p in quarantine.iterdir() if not p.name.endswith(".why.json")}
    assert kept == {path.name, "stray.txt"}


def test_cli_search_on_a_damaged_store_is_one_line(store):
    (store / "ihmt_memory" / "root.json").unlink()
    done = run_cli("--path", str(store), "search", WORDS[0])
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ihmt: error:") and "--repair" in lines[0]
