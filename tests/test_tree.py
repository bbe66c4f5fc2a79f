"""The tree: summarization events, upward propagation, idempotence, reachability, crashes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt import IHMT

from .conftest import ROOT


def word(i: int) -> str:
    """A distinctive alphabetic word per index (the tokenizer splits letters from digits)."""
    letters = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        letters = chr(97 + r) + letters
    return "zq" + letters + "vex"


def note(i: int) -> str:
    return f"Note {i}: service {word(i)} runs on the {word(i + 1000)} host cluster."


def _trunk(mem: IHMT) -> list[dict]:
    return mem.tree.read_root()["entries"]


def _reachable_leaves(mem: IHMT) -> list[str]:
    out, stack = [], [(e["id"], e["kind"]) for e in _trunk(mem)]
    while stack:
        node_id, kind = stack.pop()
        if kind == "leaf":
            out.append(node_id)
        else:
            stack += [(c["id"], c["kind"]) for c in mem.tree.read_branch(node_id)["children"]]
    return out


def test_no_event_below_branch_factor(memory):
    memory.ingest_batch({"text": note(i), "source": f"n{i}"} for i in range(3))
    assert memory.stats()["branches"] == 0
    assert len(_trunk(memory)) == 3
    memory.ingest_text(note(3), source="n3")
    stats = memory.stats()
    assert stats["branches"] == 1 and stats["layers"] == 1
    assert [e["kind"] for e in _trunk(memory)] == ["branch"]


def test_events_propagate_upward(memory):
    memory.ingest_batch({"text": note(i), "source": f"n{i}"} for i in range(16))
    stats = memory.stats()
    assert stats["branches_per_layer"] == {"1": 4, "2": 1}
    assert len(_trunk(memory)) == 1


def test_consolidate_is_idempotent(memory):
    memory.ingest_batch(
        ({"text": note(i), "source": f"n{i}"} for i in range(10)), consolidate=False
    )
    memory.consolidate()
    files = {p: p.read_bytes() for p in (memory.path / "layers").rglob("*.json")}
    assert memory.consolidate() == 0
    assert {p: p.read_bytes() for p in (memory.path / "layers").rglob("*.json")} == files


def test_flush_closes_every_domain_to_a_single_top(memory):
    docs = [{"text": note(i), "source": f"n{i}"} for i in range(7)]
    docs += [
        {"text": f"Paciente con fiebre {i}.", "source": f"c{i}", "domain": "medicine.clinical"}
        for i in range(5)
    ]
    memory.ingest_batch(docs)
    memory.flush()
    tops = _trunk(memory)
    assert sorted(e["domain"] for e in tops) == ["general", "medicine.clinical"]
    assert all(e["kind"] == "branch" for e in tops)
    assert sorted(_reachable_leaves(memory)) == sorted(r["id"] for r in memory.catalog.all_leaves())


def test_branch_embeds_what_ranking_needs(memory):
    memory.ingest_batch(
        {"text": note(i), "source": f"n{i}", "timestamp": f"2025-01-0{i + 1}"} for i in range(4)
    )
    branch_id = _trunk(memory)[0]["id"]
    branch = json.loads(
        (memory.path / "layers" / "1" / f"{branch_id}.json").read_text(encoding="utf-8")
    )
    child = branch["children"][0]
    for key in ("id", "title", "excerpt", "keywords", "tags", "date", "tf", "dl"):
        assert key in child
    me = branch["self"]
    assert me["leaves"] == 4
    assert me["date_from"].startswith("2025-01-01") and me["date_to"].startswith("2025-01-04")
    assert word(2) in me["terms"]  # exact subtree vocabulary for a small subtree


def test_replaced_leaf_updates_summaries_on_its_path(memory):
    memory.ingest_batch({"text": note(i), "source": f"n{i}"} for i in range(16))
    memory.ingest_text("Note 5: zeppelin migration replaced everything.", source="n5")
    assert memory.check().ok, memory.check().problems
    assert memory.search("zeppelin").best is not None
    assert memory.search(word(5)).not_found
    top = _trunk(memory)[0]
    assert word(5) not in json.dumps(top)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    ops=st.lists(
        st.tuples(st.sampled_from(["add", "replace", "consolidate", "flush"]), st.integers(0, 30)),
        max_size=25,
    )
)
def test_every_leaf_is_reachable_after_any_sequence(tmp_path_factory, ops):
    mem = IHMT.initialize(tmp_path_factory.mktemp("seq"), branch_factor=3)
    for op, i in ops:
        if op == "add":
            mem.ingest_text(note(i), source=f"n{i}")
        elif op == "replace":
            mem.ingest_text(note(i) + " Updated later.", source=f"n{i}")
        elif op == "consolidate":
            mem.consolidate()
        else:
            mem.flush()
    leaves = sorted(r["id"] for r in mem.catalog.all_leaves())
    assert sorted(_reachable_leaves(mem)) == leaves
    assert mem.check().ok, mem.check().problems


CONSOLIDATOR = r"""
import sys
sys.path.insert(0, sys.argv[1])
from ihmt import IHMT
mem = IHMT.open(sys.argv[2])
print("ready", flush=True)
mem.flush()
print("done", flush=True)
"""


def test_interrupted_consolidation_leaves_no_orphan_or_duplicate(tmp_path):
    ws = tmp_path / "ws"
    mem = IHMT.initialize(ws, branch_factor=2)
    mem.ingest_batch(({"text": note(i), "source": f"n{i}"} for i in range(400)), consolidate=False)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # killed three times where it is most fragile: new branch files written, not yet in the
    # catalog (the fault hook's tree.branches_written; -9 proves the kill landed there)
    for nth in (1, 2, 3):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "tests.kill_at",
                f"tree.branches_written#{nth}",
                CONSOLIDATOR,
                str(ROOT),
                str(ws),
            ],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == -signal.SIGKILL, proc.stderr
        assert "done" not in proc.stdout
    again = IHMT.open(ws)
    again.flush()
    report = again.check()
    assert report.ok, report.problems
    leaves = sorted(r["id"] for r in again.catalog.all_leaves())
    reachable = _reachable_leaves(again)
    assert sorted(reachable) == leaves and len(reachable) == len(set(reachable))
    assert len(_trunk(again)) == 1


def test_examples_build_a_multi_layer_tree(examples_memory):
    stats = examples_memory.stats()
    assert stats["layers"] >= 2
    assert {"personal", "medicine.clinical", "software.java", "software.python"} <= set(
        stats["leaves_per_domain"]
    )
    assert len(_trunk(examples_memory)) == len(stats["leaves_per_domain"])


def test_tree_outline_cli(examples_memory):
    from .conftest import run_cli

    out = run_cli("--path", str(examples_memory.layout.workspace), "tree", "--depth", "1")
    assert out.returncode == 0, out.stderr
    assert "personal" in out.stdout and "▸ N" in out.stdout
