"""The facade's operations for services (the project index, sync) and the modules the facade
was split into: services reach the memory through these, never through its internals."""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
from pathlib import Path

from ihmt.models import IngestReport, SearchResult
from ihmt.privacy.secrets import redact, redact_reporting
from ihmt.projects import search as project_search
from ihmt.store.records import (
    lift_tombstones,
    outdated_links,
    tombstoned_ids,
    write_record,
    write_tombstones,
)

ROOT = Path(__file__).resolve().parent.parent
KEY = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def _doc(source: str, text: str) -> dict:
    return {"text": text, "source": source, "domain": "notes", "data_type": "GENERIC"}


# -- write operations for the project index --------------------------------------------------
def test_replace_sources_drops_what_an_earlier_version_of_a_source_held(memory):
    first = memory.replace_sources([_doc("a.txt", "Alpha one.\n\nBravo two.")])
    memory.replace_sources([_doc("b.txt", "Charlie three.")])
    report = IngestReport()
    second = memory.replace_sources([_doc("a.txt", "Delta four.")], report)
    memory.finish_write()
    assert {leaf.leaf_id for leaf in first}.isdisjoint(leaf.leaf_id for leaf in second)
    assert report.removed_leaves == len(first)
    assert [leaf.content for leaf in memory.leaves("a.txt")] == ["Delta four."]
    assert memory.sources() == ["a.txt", "b.txt"]
    assert memory.trunk()["counters"]["leaves"] == memory.counts()["leaves"] == 2
    assert memory.remove_source("a.txt") == 1
    assert memory.sources() == ["b.txt"]


def test_fact_extraction_can_be_turned_off_for_a_store(tmp_path):
    from ihmt import IHMT

    plain = IHMT.initialize(tmp_path / "code", extract_facts=False)
    plain.save("I live in Madrid.", timestamp="2023-05-01")
    assert plain.facts() == []
    plain.close()
    personal = IHMT.initialize(tmp_path / "notes")
    personal.save("I moved to Sevilla, I live in Sevilla now.", timestamp="2024-06-01")
    assert personal.current_facts()["user::location"].value.lower() == "sevilla"


def test_corpus_reads_match_what_was_indexed(memory):
    memory.ingest_text("The parser reads tokens. The parser builds trees.", source="p.txt")
    leaves, avgdl = memory.corpus_stats()
    assert leaves == memory.counts()["leaves"] and avgdl > 0
    from ihmt.text.tokenize import terms

    (parser,) = terms("parser")  # the indexed form ("parser" is indexed as "parse")
    assert memory.document_frequencies([parser, "nowhere"]).get(parser) == 1
    assert not memory.document_frequencies(["nowhere"]).get("nowhere")


# -- operations for sync -----------------------------------------------------------------------
def test_a_write_session_is_reentrant_and_removing_leaves_needs_no_internals(memory):
    leaf_id = memory.save("The VPN gateway is vpn-02.").leaf_ids[0]
    path = memory.indexed_path(leaf_id)
    assert path and (memory.path / path).is_file()
    with memory.writing(), memory.writing():
        assert memory.remove_leaves([leaf_id]) == 1
    assert memory.indexed_path(leaf_id) is None and memory.leaf(leaf_id) is None


def test_an_incomplete_mark_is_reported_until_a_reconcile_clears_it(memory):
    memory.save("The build server is ci-04.")
    memory.mark_incomplete("a test interrupted a merge")
    assert any("a test interrupted a merge" in p for p in memory.check().problems)
    memory.reconcile()
    assert memory.check().ok


# -- what the facade was split into ------------------------------------------------------------
def test_time_context_is_cached_until_the_store_changes(memory):
    old = memory.save("The CI job takes 12 minutes.", timestamp="2024-01-02").leaf_ids[0]
    new = memory.save("The CI job takes 5 minutes now.", timestamp="2024-02-03").leaf_ids[0]
    before = memory.time_context()
    assert memory.time_context() is before and old not in before.outdated
    notice = memory.mark_outdated(old, new)
    after = memory.time_context()
    assert after is not before
    assert after.replaced_by == {old: new} and after.outdated[old] == [notice]


def test_tombstones_read_only_text_ids_and_are_lifted_by_id(tmp_path):
    write_tombstones(tmp_path, ["L-a", "L-b"], "2026-01-01T00:00:00Z")
    write_record(tmp_path, "tombstone", {"leaf_id": ["not", "an", "id"]})
    assert tombstoned_ids(tmp_path) == {"L-a", "L-b"}
    lift_tombstones(tmp_path, {"L-a"})
    assert tombstoned_ids(tmp_path) == {"L-b"}


def test_correction_records_that_name_no_text_ids_are_ignored(tmp_path):
    write_record(tmp_path, "outdated", {"old_id": "L-a", "new_id": "L-b", "created": "2026"})
    write_record(tmp_path, "outdated", {"old_id": ["L-a"], "new_id": "L-b"})
    assert outdated_links(tmp_path) == {("L-a", "L-b", "2026")}


def test_the_facade_reads_git_history_without_importing_sync(tmp_path):
    code = (
        "import sys; from ihmt import IHMT; m = IHMT.initialize(sys.argv[1]); "
        "m.history_copies([]); print('ihmt.sync' in sys.modules)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "ws")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_services_reach_the_memory_only_through_the_facade():
    from ihmt.sync import merge

    sources = {p: p.read_text("utf-8") for p in (ROOT / "ihmt" / "projects").glob("*.py")}
    for name in ("git_sync.py", "status.py", "changes.py"):
        path = ROOT / "ihmt" / "sync" / name
        sources[path] = path.read_text("utf-8")
    sources[Path(merge.__file__)] = inspect.getsource(merge.apply_tree_change)
    inner = re.compile(r"\bmemory(?:\(\))?\.(?:catalog|store|layout|tree|resolver|_\w+)\b")
    for path, text in sources.items():
        ast.parse(text)
        assert not inner.search(text), f"{path.name} reaches inside the memory"


# -- one redaction ---------------------------------------------------------------------------
def test_redaction_can_keep_the_line_count_of_a_multiline_secret():
    key = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(["MIIEow" + "A" * 58] * 4)
    text = f"line one\n{key}\n-----END RSA PRIVATE KEY-----\nlast line\n"
    flat, findings = redact(text)
    kept, same = redact(text, keep_lines=True)
    assert findings and len(same) == len(findings)
    assert "MIIEow" not in flat and "MIIEow" not in kept
    assert kept.count("\n") == text.count("\n") > flat.count("\n")
    assert kept.splitlines()[-1] == "last line"


def test_redaction_for_ingestion_notes_each_secret_where_it_was_found():
    notes: list[str] = []
    clean = redact_reporting(f"token = {KEY}\n", "notes.txt", notes)
    assert KEY not in clean and "[REDACTED:" in clean
    assert len(notes) == 1 and notes[0].startswith("notes.txt: redacted ")


# -- the project index words the engine's reason codes ---------------------------------------
def test_every_reason_code_the_engine_sets_is_worded_for_code():
    engine = (ROOT / "ihmt" / "search" / "engine.py").read_text("utf-8")
    codes = set(re.findall(r'result\.set_reason\("(\w+)"', engine))
    codes |= set(re.findall(r'"(\w+)" if coverage > 0 or not dense else "(\w+)"', engine)[0])
    assert {"ambiguous", "stray", "no_match", "no_words", "unreadable", "no_meaning"} <= codes
    for code in codes:
        result = SearchResult(query="q", clue=None, reason="ENGINE TEXT", reason_code=code)
        result.reason_params = {"n": 3, "coverage": 0.25}
        worded = project_search.code_reason(result)
        assert worded != "ENGINE TEXT" and "memor" not in worded, code
    ambiguous = SearchResult(query="q", clue=None, reason_code="ambiguous", reason_params={"n": 3})
    assert project_search.code_reason(ambiguous).startswith("3 symbols match")
    stray = SearchResult(
        query="q", clue=None, reason_code="stray", reason_params={"coverage": 0.25}
    )
    assert "25%" in project_search.code_reason(stray)
