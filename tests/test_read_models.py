"""The facade's read models: what presenters and services read instead of the internals."""

from __future__ import annotations


def test_outline_expands_branches_to_the_depth_asked(examples_memory):
    shallow = examples_memory.outline(1)
    deep = examples_memory.outline(3)
    assert [r["id"] for r in shallow["entries"]] == [r["id"] for r in deep["entries"]]
    assert all("expanded" not in r for r in shallow["entries"])
    branches = [r for r in deep["entries"] if r["kind"] == "branch"]
    assert branches and all(r["expanded"] for r in branches)
    nested = [c for r in branches for c in r["expanded"] if c["kind"] == "branch"]
    assert all("expanded" in c for c in nested)
    assert deep["counters"]["leaves"] == examples_memory.stats()["leaves"]


def test_node_and_leaf_answer_none_for_unknown_ids(examples_memory):
    branch = next(r for r in examples_memory.trunk()["entries"] if r["kind"] == "branch")
    node = examples_memory.node(branch["id"])
    assert node is not None and node["children"]
    assert examples_memory.node("B-L9-nope") is None
    assert examples_memory.leaf("L-nope") is None


def test_recent_memories_are_saved_memories_newest_first(memory):
    memory.save("We deploy with Ansible.", timestamp="2024-01-02")
    memory.save("The staging host is stg-01.", timestamp="2024-03-04")
    memory.ingest_text("A document about something else entirely.", source="doc.txt")
    recent = memory.recent_memories(5)
    assert [m.content for m in recent] == ["The staging host is stg-01.", "We deploy with Ansible."]
    assert memory.recent_memories(1)[0].content == "The staging host is stg-01."


def test_corrections_name_both_memories_with_their_dates(memory):
    old = memory.save("The CI job takes 12 minutes.", timestamp="2024-01-02").leaf_ids[0]
    new = memory.save("The CI job takes 5 minutes now.", timestamp="2024-02-03").leaf_ids[0]
    memory.mark_outdated(old, new)
    (correction,) = memory.corrections()
    assert (correction.old_id, correction.new_id) == (old, new)
    assert correction.old_date.startswith("2024-01-02")
    assert correction.new_date.startswith("2024-02-03")


def test_fact_read_models_follow_time(memory):
    memory.save("I live in Madrid.", timestamp="2023-05-01")
    memory.save("I moved to Sevilla, I live in Sevilla now.", timestamp="2024-06-01")
    assert memory.current_facts()["user::location"].value.lower() == "sevilla"
    assert memory.facts_as_of("2023-12-31")["user::location"].value.lower() == "madrid"
    values = [f.value.lower() for f in memory.fact_timeline("user::location")]
    assert values == ["madrid", "sevilla"]
    assert memory.contradictions("user")
    before = memory.generation()
    memory.save("Unrelated note.")
    assert memory.generation() != before


def test_holds_store_answers_like_locate_then_store_exists(tmp_path, memory, workspace):
    from ihmt import IHMT

    plain = tmp_path / "plain"
    plain.mkdir()
    lookalike = tmp_path / "lookalike"  # a folder holding a root.json but no store inside
    lookalike.mkdir()
    (lookalike / "root.json").write_text("{}", encoding="utf-8")
    store_folder = IHMT.store_folder(workspace)
    for folder in (workspace, store_folder, plain, lookalike, tmp_path / "missing"):
        expected = IHMT.store_exists(IHMT.locate(folder))
        assert IHMT.holds_store(folder) == expected, folder
    assert IHMT.holds_store(workspace) and IHMT.holds_store(store_folder)
    assert not IHMT.holds_store(plain)
