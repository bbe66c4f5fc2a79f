"""The project index (ihmt.projects): checksum sync, symbol leaves, code-aware ranking,
find_code, project_map and their CLI commands. Every project is generated in tmp_path."""

from __future__ import annotations

import builtins
import io
import json
import os
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt.errors import InputError
from ihmt.projects import search as search_mod
from ihmt.projects import sync as sync_mod
from ihmt.projects.index import (
    ProjectIndex,
    default_projects_dir,
    find_code,
    project_folder_name,
    project_map,
)
from ihmt.projects.manifest import source_kind
from ihmt.projects.naming import covered, name_parts, respelled, spelling_variants
from ihmt.projects.ranking import (
    asks_for_tests,
    code_boost,
    is_test_path,
    name_coverage,
    named_files,
    normalize_subpath,
    query_words,
    scope_filter,
    shadowed_stubs,
    symbol_name,
    word_variants,
)
from ihmt.projects.render import render_code_answer, render_map
from tests.conftest import run_cli

APP = '''\
"""The application."""

import json
import os


class ConfigLoader:
    """Loads settings."""

    def parse_config(self, path):
        with open(path) as handle:
            return json.load(handle)

    def merge_defaults(self, values):
        merged = dict(DEFAULTS)
        merged.update(values)
        return merged


def start_server(port):
    return f"listening on {port}"
'''

TEST_APP = """\
from app import ConfigLoader


def test_parse_config(tmp_path):
    path = tmp_path / "c.json"
    path.write_text("{}")
    assert ConfigLoader().parse_config(path) == {}
"""


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "proj"
    write(root, "src/app.py", APP)
    write(root, "src/util.py", "def slugify(text):\n    return text.lower().replace(' ', '-')\n")
    write(root, "tests/test_app.py", TEST_APP)
    write(root, "README.md", "# Demo\n\nA tiny project for the index tests.\n")
    return root


@pytest.fixture
def index(project, tmp_path):
    ix = ProjectIndex(project, tmp_path / "projects")
    yield ix
    ix.close()


def leaf_sources(ix: ProjectIndex) -> set[str]:
    return set(ix.memory().catalog.sources())


def file_lines(path: Path, start: int, end: int) -> str:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(lines[start - 1 : end])


# -- where the index lives --------------------------------------------------------------------


def test_store_is_private_per_project_and_outside_long_term_memory(project, isolated_home):
    ix = ProjectIndex(project)
    ix.sync()
    ix.close()
    base = isolated_home / ".ihmt" / "ihmt_projects"
    assert default_projects_dir() == base
    folder = base / project_folder_name(project.resolve())
    assert folder.name.startswith("proj-") and len(folder.name) == len("proj-") + 12
    assert (folder / "ihmt_memory" / "root.json").is_file()
    assert (folder / "manifest.json").is_file()
    assert json.loads((folder / "project.json").read_text("utf-8"))["root"] == str(
        project.resolve()
    )
    assert not (isolated_home / ".ihmt" / "ihmt_memory").exists()


def test_projects_dir_env_wins(project, tmp_path, monkeypatch):
    monkeypatch.setenv("IHMT_PROJECTS_DIR", str(tmp_path / "elsewhere"))
    ix = ProjectIndex(project)
    assert ix.folder.parent == tmp_path / "elsewhere"


def test_bad_paths_are_one_line_input_errors(project, tmp_path):
    with pytest.raises(InputError, match="no such folder"):
        ProjectIndex(tmp_path / "missing")
    with pytest.raises(InputError, match="not a folder"):
        ProjectIndex(project / "src" / "app.py")
    with pytest.raises(InputError):
        ProjectIndex("")
    ix = ProjectIndex(project, tmp_path / "p")
    with pytest.raises(InputError, match="scope"):
        ix.find_code("parse", scope="unit")
    with pytest.raises(InputError, match="detail"):
        ix.project_map(detail="everything")
    with pytest.raises(InputError):
        ix.find_code("   ")
    with pytest.raises(InputError, match="max_tokens"):
        ix.find_code("parse", max_tokens=0)
    with pytest.raises(InputError, match="outside"):
        ix.find_code("parse", subpath=str(tmp_path))
    ix.close()


# -- sync --------------------------------------------------------------------------------------


def test_first_sync_indexes_source_files_only(index, project):
    (project / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    write(project, "node_modules/lib/index.js", "function vendored() {}\n")
    write(project, "build/gen.py", "def generated():\n    pass\n")
    write(project, ".gitignore", "secret_dir/\n*.log.py\n")
    write(project, "secret_dir/keys.py", "def hidden():\n    pass\n")
    write(project, "notes.log.py", "def ignored():\n    pass\n")
    report = index.sync()
    assert report.added == 4 and report.files == 4
    # code is searched (one leaf per symbol); docs are only sized for the map
    assert leaf_sources(index) == {"src/app.py", "src/util.py", "tests/test_app.py"}
    manifest = json.loads(index.manifest_path.read_text("utf-8"))
    assert manifest["files"]["README.md"]["tokens"] > 0
    assert manifest["files"]["README.md"]["leaves"] == []
    entry = manifest["files"]["src/app.py"]
    assert entry["sha256"] and entry["size"] == (project / "src/app.py").stat().st_size
    assert entry["tokens"] > 0 and entry["leaves"]
    names = {s["name"]: s for s in entry["symbols"]}
    assert names["ConfigLoader.parse_config"]["kind"] == "method"
    assert names["ConfigLoader"]["kind"] == "class"
    assert names["start_server"]["kind"] == "function"


def test_a_file_left_out_is_not_read_again_while_it_stays_the_same(tmp_path):
    root = tmp_path / "bin"
    write(root, "app.py", "def run():\n    return 1\n")
    blob = root / "data.py"
    blob.write_bytes(b"\x00\x01binary\x00" * 10)
    ix = ProjectIndex(root, tmp_path / "p")
    first = ix.sync()
    assert first.read_files == 2 and ("data.py", "binary content (NUL bytes)") in first.skipped
    again = ix.sync()  # known and unchanged: said again, not read again
    assert again.read_files == 0 and ("data.py", "binary content (NUL bytes)") in again.skipped
    fresh = ProjectIndex(root, tmp_path / "p")  # a new process trusts the manifest too
    assert fresh.sync().read_files == 0
    fresh.close()
    blob.write_text("def load():\n    return 2\n", encoding="utf-8")  # now text: indexed
    fixed = ix.sync()
    assert fixed.read_files == 1 and fixed.added == 1 and not fixed.skipped
    assert ix.find_code("load").snippets[0].path == "data.py"
    blob.write_bytes(b"\x00" * 40)  # binary again: its leaves go, it is remembered again
    assert ix.sync().removed == 1 and ix.sync().read_files == 0
    blob.unlink()  # gone: forgotten by the manifest
    gone = ix.sync()
    assert not gone.skipped
    manifest, _ = ix._current_manifest()
    assert manifest.rejected == {} and set(manifest.files) == {"app.py"}
    ix.close()


def test_sync_detects_edit_add_delete_and_rename(index, project):
    index.sync()
    (project / "src/util.py").write_text(
        "def slugify(text):\n    return text.strip().lower()\n", encoding="utf-8"
    )
    write(project, "src/extra.py", "def brand_new_helper():\n    return 42\n")
    old_ids = [r["id"] for r in index.memory().catalog.leaves_of_source("tests/test_app.py")]
    assert old_ids
    (project / "tests/test_app.py").unlink()
    report = index.sync()
    assert (report.changed, report.added, report.removed) == (1, 1, 1)
    assert report.read_files == 2  # the edited file and the new one; nothing else opened
    assert "tests/test_app.py" not in leaf_sources(index)
    assert all(index.memory().catalog.leaf_row(i) is None for i in old_ids)
    assert all(index.memory().store.read_leaf(i) is None for i in old_ids)

    (project / "src/extra.py").rename(project / "src/renamed.py")
    report = index.sync()
    assert (report.added, report.removed, report.changed) == (1, 1, 0)
    answer = index.find_code("brand_new_helper")
    assert answer.status == "FOUND"
    assert answer.snippets[0].path == "src/renamed.py"
    assert "src/extra.py" not in leaf_sources(index)


def test_no_change_sync_opens_no_source_file_and_writes_nothing(index, project, monkeypatch):
    index.sync()
    before = index.manifest_path.stat().st_mtime_ns
    opened: list[str] = []
    real_open, real_io_open = builtins.open, io.open

    def spy(file, *args, **kwargs):
        opened.append(os.fspath(file) if isinstance(file, str | os.PathLike) else "")
        return real_open(file, *args, **kwargs)

    def spy_io(file, *args, **kwargs):
        opened.append(os.fspath(file) if isinstance(file, str | os.PathLike) else "")
        return real_io_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io, "open", spy_io)
    report = index.sync()
    monkeypatch.undo()
    assert report.read_files == 0 and report.reingested == 0 and report.unchanged == 4
    inside = [p for p in opened if p.startswith(str(project)) and not p.endswith(".gitignore")]
    assert inside == []
    assert index.manifest_path.stat().st_mtime_ns == before


def test_a_fresh_process_trusts_the_manifest(project, tmp_path, monkeypatch):
    first = ProjectIndex(project, tmp_path / "p")
    first.sync()
    first.close()
    calls: list[Path] = []
    real = sync_mod._read_source
    monkeypatch.setattr(sync_mod, "_read_source", lambda p: calls.append(p) or real(p))
    again = ProjectIndex(project, tmp_path / "p")
    report = again.sync()
    assert calls == [] and report.unchanged == 4
    again.close()


def test_touch_without_change_hashes_but_does_not_reingest(index, project):
    index.sync()
    st_ = (project / "src/app.py").stat()
    os.utime(project / "src/app.py", ns=(st_.st_atime_ns, st_.st_mtime_ns + 5_000_000_000))
    report = index.sync()
    assert (report.touched, report.changed, report.read_files) == (1, 0, 1)
    assert report.leaves_written == 0
    assert index.sync().read_files == 0  # the new mtime was recorded


def test_lost_manifest_is_rebuilt_and_reconciled(index, project):
    index.sync()
    index.manifest_path.unlink()
    (project / "src/util.py").unlink()
    report = index.sync()
    assert report.removed == 1
    assert leaf_sources(index) == {"src/app.py", "tests/test_app.py"}
    assert report.leaves_written == 0  # unchanged files keep their leaves (same ids)


def test_every_leaf_is_the_files_lines_and_branches_follow_path_order(index, project):
    index.sync()
    memory = index.memory()
    for rel in leaf_sources(index):
        leaves = memory.leaves(rel)
        assert "".join(leaf.content for leaf in leaves) == (project / rel).read_text("utf-8")
        for leaf in leaves:
            span = leaf.span
            assert leaf.content == file_lines(project / rel, span["start_line"], span["end_line"])
            assert isinstance(leaf.extra["rank"], int)
    ranks = {rel: memory.leaves(rel)[0].extra["rank"] for rel in leaf_sources(index)}
    assert sorted(ranks, key=ranks.get) == sorted(ranks)
    manifest = json.loads(index.manifest_path.read_text("utf-8"))
    for rel, entry in manifest["files"].items():
        for sym in entry["symbols"]:
            text = file_lines(project / rel, sym["start_line"], sym["end_line"])
            assert sym["name"].rpartition(".")[2] in text
            # the range is the symbol's own lines: no blank line at either end
            assert text.splitlines()[0].strip() and text.splitlines()[-1].strip(), (rel, sym)


def test_secrets_are_redacted_without_moving_lines(index, project):
    key = "AKIA" + "Q7XK2M9PL4RT8WZN"
    write(project, "src/settings.py", f'AWS_KEY = "{key}"\n\n\ndef region():\n    return "eu"\n')
    report = index.sync()
    assert report.redactions == 1
    best = index.find_code("region").snippets[0]
    assert best.path == "src/settings.py" and best.end_line == 5 and "def region" in best.code
    assert best.code == file_lines(project / "src/settings.py", best.start_line, best.end_line)
    leaves = index.memory().leaves("src/settings.py")
    assert key not in "".join(leaf.content for leaf in leaves)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["add", "edit", "delete", "rename"]),
            st.integers(0, 3),
            st.integers(0, 9),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_property_the_cache_always_equals_the_files(tmp_path_factory, steps):
    root = tmp_path_factory.mktemp("prop")
    ix = ProjectIndex(root, tmp_path_factory.mktemp("store"))
    try:
        for op, slot, value in steps:
            path = root / f"m{slot}.py"
            if op == "add" or (op == "edit" and path.exists()):
                body = "".join(f"def f{slot}_{k}():\n    return {value + k}\n\n" for k in range(3))
                path.write_text(body, encoding="utf-8")
            elif op == "delete" and path.exists():
                path.unlink()
            elif op == "rename" and path.exists():
                path.rename(root / f"m{(slot + 1) % 4}.py")
            ix.sync()
            files = {p.name: p.read_text("utf-8") for p in root.glob("*.py")}
            memory = ix.memory()
            assert set(memory.catalog.sources()) == set(files)
            for name, text in files.items():
                assert "".join(leaf.content for leaf in memory.leaves(name)) == text
    finally:
        ix.close()


def test_large_project_indexes_fully_and_one_edit_reingests_one_file(tmp_path):
    root = tmp_path / "big"
    for i in range(200):
        write(
            root,
            f"pkg{i // 20:02d}/mod{i:03d}.py",
            f"def handler_{i}(event):\n    return event + {i}\n",
        )
    ticks: list[tuple[int, int]] = []
    ix = ProjectIndex(root, tmp_path / "p")
    report = ix.sync(progress=lambda done, total, name: ticks.append((done, total)))
    assert report.added == 200 and report.files == 200
    assert ticks and ticks[-1] == (200, 200)
    assert len(leaf_sources(ix)) == 200
    assert len(json.loads(ix.manifest_path.read_text("utf-8"))["files"]) == 200
    write(root, "pkg05/mod117.py", "def handler_117(event):\n    return event * 117\n")
    report = ix.sync()
    assert (report.changed, report.added, report.removed, report.read_files) == (1, 0, 0, 1)
    answer = ix.find_code("handler_117")
    assert answer.status == "FOUND" and "event * 117" in answer.snippets[0].code
    assert ix.memory().check().ok
    ix.close()


# -- find_code ---------------------------------------------------------------------------------


def test_find_code_returns_the_symbol_with_its_lines(index, project):
    answer = index.find_code("parse_config")
    assert answer.status == "FOUND"
    best = answer.snippets[0]
    assert best.path == "src/app.py" and best.title == "ConfigLoader.parse_config"
    assert best.code == file_lines(project / "src/app.py", best.start_line, best.end_line)
    text = render_code_answer(answer)
    assert text.startswith(
        f"src/app.py:{best.start_line}-{best.end_line}  ConfigLoader.parse_config"
    )
    assert "json.load(handle)" in text


def test_editing_a_file_between_two_calls_returns_the_new_body(index, project):
    assert "json.load(handle)" in index.find_code("parse_config").snippets[0].code
    text = (project / "src/app.py").read_text("utf-8")
    (project / "src/app.py").write_text(
        text.replace("return json.load(handle)", "return json.loads(handle.read() or '{}')"),
        encoding="utf-8",
    )
    answer = index.find_code("parse_config")
    assert "json.loads(handle.read() or '{}')" in answer.snippets[0].code
    assert "json.load(handle)" not in answer.snippets[0].code
    assert answer.sync.changed == 1


def test_scope_main_test_all_and_subpath(index):
    main = index.find_code("parse_config")
    assert {s.path for s in main.snippets + main.others} <= {"src/app.py", "src/util.py"}
    tests = index.find_code("parse_config", scope="test")
    assert tests.status == "FOUND" and tests.snippets[0].path == "tests/test_app.py"
    every = index.find_code("parse_config", scope="all")
    assert every.snippets[0].path == "src/app.py"  # tests demoted unless asked
    asked = index.find_code("test parse_config", scope="all")
    assert asked.snippets[0].path == "tests/test_app.py"
    none = index.find_code("parse_config", subpath="src/util.py")
    assert none.status == "NOT_FOUND"
    only = index.find_code("slugify", subpath="./src/")
    assert only.snippets[0].path == "src/util.py"
    nowhere = index.find_code("parse_config", subpath="docs")
    assert nowhere.status == "NOT_FOUND" and "no indexed file" in nowhere.reason


def test_the_file_the_query_names_is_preferred(tmp_path):
    root = tmp_path / "named"
    body = "def fetch_rows(db):\n    return db.query('rows')\n"
    write(root, "alpha.py", body)
    write(root, "beta.py", body.replace("rows'", "rows ')"))
    ix = ProjectIndex(root, tmp_path / "p")
    assert ix.find_code("fetch_rows beta.py").snippets[0].path == "beta.py"
    assert ix.find_code("fetch_rows in beta").snippets[0].path == "beta.py"
    assert ix.find_code("alpha fetch_rows").snippets[0].path == "alpha.py"
    ix.close()


def test_ambiguous_lists_candidates_and_a_clue_decides(tmp_path):
    root = tmp_path / "amb"
    write(root, "a.py", "class Mailer:\n    def deliver_item(self, x):\n        return x\n")
    write(root, "b.py", "class Courier:\n    def deliver_item(self, x):\n        return x\n")
    ix = ProjectIndex(root, tmp_path / "p")
    answer = ix.find_code("deliver_item")
    assert answer.status == "AMBIGUOUS"
    # a tie of short symbols is shown whole: reading both costs less than a second call
    assert {s.path for s in answer.snippets} == {"a.py", "b.py"} and not answer.others
    assert all("def deliver_item" in s.code for s in answer.snippets)
    text = render_code_answer(answer)
    assert text.startswith("AMBIGUOUS") and "a.py:2-3" in text and "b.py:2-3" in text
    assert "2 symbols" in text and "all shown below" in text and "clue=" in text
    assert "2 symbols match" in answer.reason and "a file, a class" in answer.reason
    assert "memor" not in answer.reason  # the engine's words, said for code
    decided = ix.find_code("deliver_item", clue="Courier")
    assert decided.status == "FOUND" and decided.snippets[0].path == "b.py"
    ix.close()


def test_a_wide_tie_shows_the_first_symbols_that_fit_and_lists_the_rest(tmp_path):
    root = tmp_path / "wide"
    filler = "".join(f"    step_{i} = x + {i}\n" for i in range(40))
    for name in ("a", "b", "c", "d", "e"):
        write(root, f"{name}.py", f"def deliver_item(x):\n{filler}    return x\n")
    ix = ProjectIndex(root, tmp_path / "p")
    wide = ix.find_code("deliver_item")
    assert wide.status == "AMBIGUOUS"
    assert len(wide.snippets) == 3 and len(wide.others) == 2  # at most three shown
    assert all(not s.code for s in wide.others)
    order = [s.path for s in wide.snippets] + [s.path for s in wide.others]
    assert sorted(order) == ["a.py", "b.py", "c.py", "d.py", "e.py"]
    text = render_code_answer(wide)
    assert "5 symbols" in text and "3 shown below" in text and "ALSO TIED:" in text
    tight = ix.find_code("deliver_item", max_tokens=300)  # one body is ~250 tokens
    assert tight.status == "AMBIGUOUS" and len(tight.snippets) == 1
    assert len(tight.others) == 4 and "1 shown below" in render_code_answer(tight)
    # the ones shown are the first of the tie, in the same order, whatever fits
    assert [s.path for s in tight.snippets] + [s.path for s in tight.others] == order
    tiny = ix.find_code("deliver_item", max_tokens=64)  # none fits: locations only
    assert tiny.status == "AMBIGUOUS" and not tiny.snippets and len(tiny.others) == 5
    assert [s.path for s in tiny.others] == order
    assert "shown below" not in render_code_answer(tiny)
    ix.close()


def test_a_symbol_the_chunker_split_is_returned_whole(tmp_path):
    root = tmp_path / "ts"
    source = (
        "import { x } from './x';\n"
        "\n"
        "export function resolveAll<\n"
        "  TRouter extends object,\n"
        "  TRequest extends object,\n"
        ">(opts: { router: TRouter; req: TRequest }) {\n"
        "  const paths = Object.keys(opts.router);\n"
        "  return paths.map((p) => p.toUpperCase());\n"
        "}\n"
    )
    write(root, "src/resolve.ts", source)
    ix = ProjectIndex(root, tmp_path / "p")
    answer = ix.find_code("resolveAll")
    best = answer.snippets[0]
    assert (best.title, best.end_line) == ("resolveAll", 9)
    assert best.code == file_lines(root / "src/resolve.ts", best.start_line, 9)
    assert "p.toUpperCase()" in best.code
    symbols = ix.project_map("symbols").files[0].symbols
    assert [(s["name"], s["end_line"]) for s in symbols] == [("resolveAll", 9)]
    ix.close()


def test_a_symbol_named_by_the_question_is_a_weak_match_not_not_found(tmp_path):
    root = tmp_path / "weak"
    write(root, "ops.py", "def share(source):\n    return [source]\n")
    ix = ProjectIndex(root, tmp_path / "p")
    answer = ix.find_code("share operator for observables with many subscribers")
    assert answer.status == "FOUND" and answer.weak
    assert render_code_answer(answer).startswith("WEAK MATCH")
    assert ix.find_code("kubernetes ingress controller").status == "NOT_FOUND"
    ix.close()


def test_not_found(index):
    answer = index.find_code("kubernetes helm chart")
    assert answer.status == "NOT_FOUND"
    assert render_code_answer(answer).startswith("NOT FOUND")


def test_max_tokens_packs_and_truncates_the_best_with_a_note(tmp_path):
    root = tmp_path / "long"
    body = "".join(f"    total += step_{k}(value)\n" for k in range(200))
    write(root, "calc.py", f"def compute_total(value):\n    total = 0\n{body}    return total\n")
    ix = ProjectIndex(root, tmp_path / "p")
    answer = ix.find_code("compute_total", max_tokens=100)
    best = answer.snippets[0]
    assert 0 < best.truncated_at < best.end_line
    text = render_code_answer(answer)
    assert "cut at max_tokens=100" in text and len(text) < 100 * 4 + 300
    full = ix.find_code("compute_total", max_tokens=5000)
    assert full.snippets[0].truncated_at == 0 and "return total" in full.snippets[0].code
    ix.close()


def test_one_call_helpers(project, tmp_path):
    answer = find_code("slugify", project, projects_dir=tmp_path / "p")
    assert answer.status == "FOUND"
    pmap = project_map(project, "symbols", projects_dir=tmp_path / "p")
    assert {f.path for f in pmap.files} >= {"src/app.py", "README.md"}


# -- project_map -------------------------------------------------------------------------------


def test_map_lists_files_tokens_and_symbols_from_the_manifest_only(index, project, monkeypatch):
    index.sync()

    def no_store():
        raise AssertionError("project_map must not open the store when nothing changed")

    monkeypatch.setattr(index, "memory", no_store)
    files = index.project_map()
    assert [f.path for f in files.files] == sorted(f.path for f in files.files)
    assert all(f.tokens > 0 and f.symbols == [] for f in files.files)
    assert files.total_tokens == sum(f.tokens for f in files.files)
    text = render_map(files)
    assert text.startswith("PROJECT proj: 4 files")
    assert "src/ (2 files" in text and "  app.py " in text

    symbols = index.project_map("symbols", subpath="src")
    assert [f.path for f in symbols.files] == ["src/app.py", "src/util.py"]
    text = render_map(symbols)
    assert "class ConfigLoader" in text and ".parse_config 10-12" in text
    assert "start_server 20-21" in text and "slugify 1-2" in text
    assert "tests/" not in text


# -- ranking rules -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rel,expected",
    [
        ("tests/test_app.py", True),
        ("src/test/java/com/x/AppTest.java", True),
        ("pkg/handler_test.go", True),
        ("web/__tests__/button.tsx", True),
        ("web/button.test.ts", True),
        ("web/button.spec.js", True),
        ("spec/models/user_spec.rb", True),
        ("test_app.py", True),
        ("app_test.py", True),
        ("conftest.py", True),
        ("src/click/testing.py", False),
        ("src/app.py", False),
        ("src/contest.py", False),
        ("src/main/java/com/x/Tester.java", False),
    ],
)
def test_is_test_path(rel, expected):
    assert is_test_path(rel) is expected


def test_ranking_helpers():
    assert normalize_subpath("./src/api/") == "src/api"
    assert normalize_subpath(".") == "" and normalize_subpath(None) == ""
    assert asks_for_tests("where is the test for login") and asks_for_tests("pruebas de login")
    assert not asks_for_tests("latest login")
    paths = ["src/sessions.py", "src/index.ts", "lib/models.py", "tests/test_x.py"]
    assert named_files("Session in sessions.py", paths) == {"src/sessions.py"}
    assert named_files("how do sessions expire", paths) == {"src/sessions.py"}
    assert named_files("lib/models.py fields", paths) == {"lib/models.py"}
    assert named_files("index of the array", paths) == set()
    assert named_files("index.ts exports", paths) == {"src/index.ts"}
    keep = scope_filter("main", "src")
    assert keep({"source": "src/a.py"}) and not keep({"source": "lib/a.py"})
    assert not scope_filter("main", "")({"source": "tests/test_x.py"})
    assert scope_filter("test", "")({"source": "tests/test_x.py"})


def test_boost_factors():
    boost = code_boost("load settings", named={"src/cfg.py"})
    plain = {"source": "src/a.py", "tags": ["function:other", "type:code"], "title": "other"}
    assert boost(plain, 1.0) == 1.0
    assert boost(dict(plain, source="src/cfg.py"), 1.0) == 2.0
    assert boost(dict(plain, source="tests/test_a.py"), 1.0) == 0.5
    assert boost(dict(plain, tags=["imports", "type:code"]), 1.0) == pytest.approx(0.3)
    named = dict(plain, title="load_settings", tags=["function:load_settings", "type:code"])
    assert boost(named, 1.0) == 8.0  # the symbol's name holds every word asked
    method = dict(plain, title="Config.load", tags=["method:load", "class:Config"])
    assert boost(method, 1.0) == 2.0  # one of the two words: x(1 + 1)
    sample = dict(named, source="examples/cfg/app.py")
    assert boost(sample, 1.0) == 4.0  # set aside from the library: x0.5
    assert boost(dict(named, source="src/deprecated/cfg.py"), 1.0) == 4.0
    # asked for an example: not set aside (2 of the 3 words in the name: x3)
    assert code_boost("example of load settings", named=set())(sample, 1.0) == 3.0
    # a first line that merely mentions the words is not a name
    assert boost(dict(plain, title="# load settings here"), 1.0) == 1.0
    declared = dict(plain, tags=["const:LIMIT", "declaration", "lang:typescript"])
    assert boost(declared, 1.0) == pytest.approx(0.7)  # no behaviour of its own
    asked = code_boost("test load settings", named=set())
    assert asked(dict(plain, source="tests/test_a.py"), 1.0) == 1.0
    long = code_boost("other", named=set(), avgdl=10.0)
    assert long(dict(plain, title="x", dl=40), 1.0) == 2.0  # sqrt(40 / 10)
    assert long(dict(plain, title="x", dl=1000), 1.0) == 2.0  # capped
    assert long(dict(plain, title="x", dl=5), 1.0) == 1.0
    # a long class header or struct lists fields; only code that does something is lifted
    header = dict(plain, title="Config", tags=["class:Config", "type:code"], dl=40)
    assert long(header, 1.0) == 1.0
    assert long(dict(header, tags=["method:load", "class:Config"]), 1.0) == 2.0


def test_a_word_held_only_in_another_inflection_still_counts():
    groups = query_words("quotes value", known=lambda words: {"quote", "quoting", "value"})
    boost = code_boost("quotes value", named=set(), groups=groups)
    plain = {"source": "a.go", "tags": ["function:f"], "title": "f"}
    # "value" is held as asked (BM25 scored it); "quotes" only as quote/quoting: x(1 + 2 x 1/2)
    assert boost(dict(plain, tf={"quoting": 1, "value": 2}), 1.0) == pytest.approx(2.0)
    assert boost(dict(plain, tf={"quotes": 1, "value": 2}), 1.0) == 1.0  # exact: BM25 has it
    assert boost(dict(plain, tf={"value": 2}), 1.0) == 1.0


def test_british_spellings_meet_the_code_spelling():
    used = {"normalize": 3, "normalized": 1, "color": 5, "colour": 0, "whitespace": 2}

    def known(words):
        return {w: used[w] for w in words if used.get(w)}

    assert spelling_variants("normalised") == {"normalized"}
    assert "color" in spelling_variants("colour") and spelling_variants("cat") == set()
    assert respelled("which colour per level", known) == "which color per level"
    # the exact respelling first, else its most used inflection
    assert respelled("tabs normalised", known) == "tabs normalized"
    assert respelled("tabs normalise", known) == "tabs normalize"
    # a word the project uses as written stays, and so does one with no spelling to try
    assert respelled("whitespace colour", lambda w: {"colour": 1}) == "whitespace colour"
    assert respelled("lazily opened", known) == "lazily opened"


def test_symbol_names_and_word_variants():
    ref = {"id": "L-1", "title": "Session.send", "tags": ["method:send", "class:Session"]}
    assert symbol_name(ref) == "Session.send"
    assert symbol_name({"id": "L-2", "title": "x = 1", "tags": []}) == ""
    assert symbol_name({"id": "L-2", "title": "  TRouter,", "tags": []}, {"L-2": "f"}) == "f"
    assert {"lazy"} <= word_variants("lazily")
    assert {"resolve", "resolves"} <= word_variants("resolved")
    assert "iterate" in word_variants("iterating") and word_variants("ab") == set()
    groups = query_words("redirects resolved", known=lambda words: {"redirect", "resolve"})
    assert [(c.word, c.forms) for c in groups] == [
        ("redirects", frozenset({"redirects", "redirect"})),
        ("resolved", frozenset({"resolved", "resolve"})),
    ]
    assert name_coverage(groups, "resolve_redirects") == 1.0
    assert name_coverage(groups, "Session.resolve") == 0.5


def test_names_match_run_together_words_and_abbreviations():
    words = query_words("progress bar for iterating over items")
    assert covered(words, "progressbar") == {0, 1}
    assert covered(words, "ProgressBar.render") == {0, 1}
    env = query_words("read a value from an environment variable")
    assert covered(env, "resolve_envvar_value") == {1, 2, 3}  # env + var, and value
    assert covered(env, "get_environ") == {2}  # "environ" abbreviates "environment"
    assert covered(env, "get_env") == set()  # a lone 3-letter prefix is too loose
    assert covered(env, "environs") == {2}  # an inflection of the abbreviation is not, but
    assert name_parts("parseTRPCMessage HTTPAdapter.send") == (
        "parse", "trpc", "message", "http", "adapter", "send",
    )  # fmt: skip


def test_rare_words_weigh_more_in_a_name():
    df = {"open": 40, "file": 60, "lazy": 3}
    words = query_words(
        "open a file lazily", lambda asked: {w: df[w] for w in asked if w in df}, 100
    )
    by_word = {c.word: c for c in words}
    assert by_word["lazily"].forms == {"lazily", "lazy"}
    assert by_word["lazily"].weight > by_word["open"].weight > by_word["file"].weight
    assert name_coverage(words, "LazyFile") > name_coverage(words, "KeepOpenFile")


def test_names_in_the_query_reach_symbols_plain_bm25_ranks_low(tmp_path):
    """A short function whose name abbreviates the question is found although long code that
    repeats the question's words outranks it in plain BM25."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    topics = ["cookies", "headers", "timeouts", "retries", "encodings", "variables"]
    other = "".join(
        f"def handle_{word}_{i}(request):\n"
        f'    """Apply the {word} of the request."""\n'
        f"    return request.{word}\n\n\n"
        for i in range(40)
        for word in topics
    )
    merge_steps = "".join(
        f"    proxies = merge(proxies, env, step={k})  # environment proxies\n" for k in range(6)
    )
    long_ones = "".join(
        f"def rebuild_{i}(request, proxies, env):\n"
        '    """Merge the proxies, the environment proxies and the request proxies."""\n'
        f"{merge_steps}    return proxies\n\n\n"
        for i in range(40)  # more than the candidates one descent re-ranks
    )
    short = (
        "def get_environ_proxies(url):\n"
        '    """The proxies set in the environment for url."""\n'
        "    return lookup(url)\n"
    )
    (root / "pkg" / "net.py").write_text(other + long_ones + short, encoding="utf-8")
    answer = find_code("proxies from environment variables", root, projects_dir=tmp_path / "idx")
    assert answer.status == "FOUND"
    assert answer.snippets[0].title == "get_environ_proxies"


def test_source_kinds():
    assert source_kind("app.py") == "code" and source_kind("App.TSX") == "code"
    assert source_kind("README.md") == "text" and source_kind("bundle.min.js") is None
    assert source_kind("logo.png") is None and source_kind("requirements.txt") is None


# -- CLI ---------------------------------------------------------------------------------------


def test_cli_map_and_find_code(project, tmp_path):
    env = {"IHMT_PROJECTS_DIR": str(tmp_path / "cli-projects")}
    out = run_cli("map", str(project), env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("PROJECT proj: 4 files") and "app.py" in out.stdout
    out = run_cli("map", str(project), "--symbols", "--subpath", "src", env=env)
    assert out.returncode == 0 and ".parse_config 10-12" in out.stdout
    out = run_cli("find-code", "merge_defaults", "--project", str(project), env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("src/app.py:14-17  ConfigLoader.merge_defaults")
    out = run_cli(
        "find-code",
        "parse_config",
        "--project",
        str(project),
        "--scope",
        "test",
        "--json",
        env=env,
    )
    data = json.loads(out.stdout)
    assert data["status"] == "FOUND" and data["snippets"][0]["path"] == "tests/test_app.py"
    out = run_cli("find-code", "x", "--project", str(tmp_path / "nope"), env=env)
    assert out.returncode == 1 and out.stderr.startswith("ihmt: error: no such folder")
    assert "Traceback" not in out.stderr
    out = run_cli("find-code", "x", "--project", str(project), "--scope", "unit", env=env)
    assert out.returncode == 2


def test_stubs_beside_their_module_are_mapped_but_not_searched(tmp_path):
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "shapes.py").write_text(
        "def polygon_area(points):\n    return abs(sum(a * b for a, b in points)) / 2\n",
        encoding="utf-8",
    )
    (root / "pkg" / "shapes.pyi").write_text(
        "def polygon_area(points: list[tuple[float, float]]) -> float: ...\n", encoding="utf-8"
    )
    (root / "pkg" / "_native.pyi").write_text(
        "def fast_hull(points: list[tuple[float, float]]) -> list[int]: ...\n", encoding="utf-8"
    )
    assert shadowed_stubs(["pkg/shapes.py", "pkg/shapes.pyi", "pkg/_native.pyi"]) == {
        "pkg/shapes.pyi"
    }
    ix = ProjectIndex(root, tmp_path / "idx")
    try:
        answer = ix.find_code("polygon_area")
        assert [s.path for s in answer.snippets + answer.others] == ["pkg/shapes.py"]
        # a stub with no implementation beside it (a compiled module) is still searched
        assert ix.find_code("fast_hull").snippets[0].path == "pkg/_native.pyi"
        assert "pkg/shapes.pyi" in {f.path for f in ix.project_map().files}
    finally:
        ix.close()


def test_an_index_cut_by_an_older_chunker_is_rebuilt_once(index, project):
    first = index.sync()
    leaves = len(index.memory().catalog.all_leaves())
    data = json.loads(index.manifest_path.read_text("utf-8"))
    data["settings"] = "symbol/800/1600/bf8/code-leaves"  # what the previous version wrote
    index.manifest_path.write_text(json.dumps(data), encoding="utf-8")
    rebuilt = ProjectIndex(project, index.folder.parent)
    try:
        report = rebuilt.sync()
        assert report.read_files == first.read_files  # every file read again
        assert len(rebuilt.memory().catalog.all_leaves()) == leaves  # no leaf twice
        assert rebuilt.sync().read_files == 0  # and trusted from then on
    finally:
        rebuilt.close()


def _hit(leaf_id: str, score: float, terms: list[str]):
    from ihmt.models import Hit

    return Hit(leaf_id, score, "", [], "", "a.py", "code", title=leaf_id, matched_terms=terms)


def test_the_open_and_the_focused_search_are_judged_together():
    from ihmt.models import SearchResult

    def result(*hits, **flags):
        return SearchResult(query="q", clue=None, hits=list(hits), **flags)

    # the focused search found a tie among symbols the open search's lead outranks
    open_ = result(_hit("lead", 60.0, ["a", "b"]), not_found=True, reason="stray")
    focused = result(_hit("x", 36.0, ["a"]), _hit("y", 35.0, ["a"]), ambiguous=True)
    merged = search_mod._merged(open_, focused, 0.06)
    assert [h.leaf_id for h in merged.hits] == ["lead", "x", "y"]
    assert not merged.ambiguous and not merged.not_found and merged.reason == ""
    # a tie on the merged list is AMBIGUOUS, whichever search found each side of it
    tie = search_mod._merged(result(_hit("p", 50.0, ["a"])), result(_hit("q", 48.0, ["a"])), 0.06)
    assert tie.ambiguous and tie.candidate_ids == ["p", "q"] and "2 symbols" in tie.reason
    # the same score on other words is no tie; NOT FOUND only when both searches say so
    other_words = search_mod._merged(
        result(_hit("p", 50.0, ["a"])), result(_hit("q", 49.0, ["b"])), 0.06
    )
    assert not other_words.ambiguous
    both = search_mod._merged(
        result(_hit("p", 5.0, ["a"]), not_found=True, reason="stray"),
        result(_hit("q", 4.0, ["a"]), not_found=True, reason="stray"),
        0.06,
    )
    assert both.not_found and both.reason == "stray"
