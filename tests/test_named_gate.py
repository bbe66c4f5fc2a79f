"""The learned gate for prompts that name someone (loop/named_gate.py): what it reads, that its
verdict decides whether the block about the name is shown, and when the fixed floors decide
instead. The forests here are written by hand, so each test says which signal it hangs on;
what the fitted forest is worth is measured in benchmarks/RESULTS.md, not asserted here."""

from __future__ import annotations

import pytest

from ihmt import IHMT
from ihmt.loop import named_gate, named_gate_trees
from tests.helpers_forests import recorded_inputs, use_forest
from tests.helpers_forests import split_on as one_split

NOTES = [
    "Caroline: I go to the pottery class every Friday, I love the wheel.",
    "Melanie: we camped at the lake with the kids in July.",
    "Melanie: Caroline and I painted a sunrise together last week.",
    "John: I set up a 5K charity run in our neighborhood for the homeless shelter.",
]


@pytest.fixture
def memory(tmp_path):
    store = IHMT.initialize(tmp_path / "ws")
    for note in NOTES:
        store.save(note)
    yield store
    store.close()


def gate_with(monkeypatch, trees, base: float = 0.0, min_memories: int = 0) -> None:
    """Hand-written trees for the lexical mode; the four-note store counts as large enough."""
    use_forest(monkeypatch, named_gate, named_gate_trees, trees, base, min_memories)


def split_on(feature: str, below: float, above: float, at: float = 0.5) -> str:
    return one_split(named_gate.FEATURES, feature, below, above, at)


def test_the_input_has_one_value_per_named_feature(memory, monkeypatch):
    gate_with(monkeypatch, "")
    seen = recorded_inputs(monkeypatch, named_gate)
    assert "pottery" in memory.prompt_recall("When does Caroline go to the pottery class?")
    assert seen and len(seen[0]) == len(named_gate.FEATURES)
    x = dict(zip(named_gate.FEATURES, seen[0], strict=True))
    # Caroline speaks the pottery note, which holds every other word of the prompt
    assert x["rule"] == 1.0 and x["lead_speaks"] == 1.0 and x["lead_rank"] == 0.0
    assert x["lead_own_share"] == pytest.approx(1.0) and x["rarest_missing"] == 0.0
    assert x["names"] == 1.0 and x["asks"] == 1.0 and x["unknown_words"] == 0.0


def test_a_word_no_memory_holds_is_counted_apart_from_one_the_block_lacks(memory, monkeypatch):
    gate_with(monkeypatch, "")
    seen = recorded_inputs(monkeypatch, named_gate)
    memory.prompt_recall("When does Caroline go to the pottery class with her cousin?")
    x = dict(zip(named_gate.FEATURES, seen[0], strict=True))
    # "cousin" is in no memory: it weighs in the unknown share, not as a word some memory holds
    assert x["unknown_words"] == 1.0 and 0.0 < x["unknown_share"] < 1.0, x
    assert x["rarest_missing"] > 0.0 and x["rarest_missing_known"] == 0.0


def test_a_reply_told_by_someone_else_counts_as_another_speakers(memory, monkeypatch):
    gate_with(monkeypatch, "")
    seen = recorded_inputs(monkeypatch, named_gate)
    # Melanie's note names Caroline: it is about her (mentioned), and another speaker's words
    memory.prompt_recall("What did Melanie paint with Caroline?")
    x = dict(zip(named_gate.FEATURES, seen[0], strict=True))
    assert x["about"] >= 1.0 and x["lead_speaks"] == 1.0


def test_the_forest_decides_over_the_floors_both_ways(memory, monkeypatch):
    question = "When does Caroline go to the pottery class?"
    gate_with(monkeypatch, [split_on("rule", below=4.0, above=-4.0)])  # the floors, reversed
    assert memory.prompt_recall(question) == ""
    # a question the floors turn away (John's note holds one of its other words) gets it
    seen = recorded_inputs(monkeypatch, named_gate)
    assert "charity" in memory.prompt_recall("Why did John run at the school bake sale?")
    assert seen[0][named_gate.FEATURES.index("rule")] == 0.0


def test_a_forest_in_two_minds_leaves_the_floors_verdict(memory, monkeypatch):
    # a probability between REFUSE_UNDER and SHOW_AT whatever the input: the floors decide
    gate_with(monkeypatch, [split_on("rule", below=-0.2, above=-0.2)])
    assert named_gate.REFUSE_UNDER < 0.45 < named_gate.SHOW_AT
    assert "pottery" in memory.prompt_recall("When does Caroline go to the pottery class?")
    assert memory.prompt_recall("Why did John run at the school bake sale?") == ""


def test_a_forest_reading_the_share_held_shows_what_covers_the_prompt(memory, monkeypatch):
    gate_with(monkeypatch, [split_on("lead_own_share", below=-4.0, above=4.0)])
    assert "pottery" in memory.prompt_recall("When does Caroline go to the pottery class?")
    assert memory.prompt_recall("What did Caroline knit for the bake sale?") == ""


def test_without_a_shipped_forest_or_in_a_small_store_the_floors_decide(memory, monkeypatch):
    gate_with(monkeypatch, "")
    assert named_gate.probability([0.0] * len(named_gate.FEATURES), semantic=False) is None
    assert "pottery" in memory.prompt_recall("When does Caroline go to the pottery class?")
    # trees that turn everything away, but the four notes are fewer than the fitted stores
    gate_with(monkeypatch, [split_on("rule", below=-4.0, above=-4.0)], min_memories=5)
    assert "pottery" in memory.prompt_recall("When does Caroline go to the pottery class?")
    monkeypatch.setattr(named_gate, "MIN_MEMORIES", 4)
    assert memory.prompt_recall("When does Caroline go to the pottery class?") == ""


def test_a_prompt_naming_no_one_never_reaches_the_named_gate(memory, monkeypatch):
    gate_with(monkeypatch, [split_on("rule", below=4.0, above=4.0)])  # passes everything
    seen = recorded_inputs(monkeypatch, named_gate)
    memory.prompt_recall("where did we camp with the kids?")
    memory.prompt_recall("fix this test")
    assert seen == []
