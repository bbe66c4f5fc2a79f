"""The learned AMBIGUOUS (search/rivals.py): what it reads, and that its verdict reaches the
answer. The forests here are written by hand, so each test says which signal it hangs on; what
the fitted forest is worth is measured in benchmarks/RESULTS.md, not asserted here."""

from __future__ import annotations

import pytest

from ihmt import IHMT
from ihmt.render import compact_answer
from ihmt.search import rivals, rivals_trees
from tests.helpers_forests import recorded_inputs
from tests.helpers_forests import split_on as one_split
from tests.test_answers import FILLER, save_all

# two dev servers, saved half a year apart: the rule for values saved within a month of each
# other does not hear them, and neither says anything changed
DEV_SERVERS = [
    *FILLER,
    ("2026-01-10", "The bibliolend-api dev server runs on port 8080 with hot reload."),
    ("2026-07-12", "The kiosk front end dev server uses port 3000 (Vite)."),
]
QUESTION = "what port does the dev server run on?"


@pytest.fixture
def memory(tmp_path):
    store = IHMT.initialize(tmp_path / "ws")
    save_all(store, DEV_SERVERS)
    yield store
    store.close()


def judge_with(monkeypatch, trees: list[str] | str, base: float = 0.0) -> None:
    monkeypatch.setattr(rivals_trees, "LEXICAL", trees)
    monkeypatch.setattr(rivals_trees, "LEXICAL_BASE", base)


def split_on(feature: str, below: float, above: float, at: float = 0.5) -> str:
    return one_split(rivals.FEATURES, feature, below, above, at)


def test_the_input_has_one_value_per_named_feature(memory, monkeypatch):
    seen = recorded_inputs(monkeypatch, rivals)
    judge_with(monkeypatch, "")
    memory.search(QUESTION)
    assert seen and seen[0] is not None
    x, rival = seen[0]
    assert len(x) == len(rivals.FEATURES)
    named = dict(zip(rivals.FEATURES, x, strict=True))
    # each gives a port, and not the same one; saved half a year apart
    assert named["both_values"] == 1.0 and named["values_differ"] == 1.0
    assert 0.4 < named["days_apart"] < 0.6
    assert named["later_tells_change"] == 0.0


def test_a_pair_the_judge_takes_for_two_answers_becomes_ambiguous(memory, monkeypatch):
    judge_with(monkeypatch, [split_on("values_differ", below=-4.0, above=4.0)])
    result = memory.search(QUESTION)
    assert result.ambiguous and result.reason_code == "rivals"
    shown = " ".join(hit.content for hit in result.candidates)
    assert "8080" in shown and "3000" in shown
    text = compact_answer(result)
    assert text.startswith("AMBIGUOUS") and "different things" in text
    # the agent's clue chooses, and the judge does not undo the choice
    clued = memory.search(QUESTION, clue="kiosk")
    assert not clued.ambiguous and "3000" in clued.best.content


def test_a_judge_below_its_threshold_changes_nothing(memory, monkeypatch):
    judge_with(monkeypatch, "")
    before = memory.search(QUESTION)
    judge_with(monkeypatch, ["-1,0,0,0,0.0"], base=-0.1)  # probability just under a half
    after = memory.search(QUESTION)
    assert after.ambiguous == before.ambiguous
    assert [h.leaf_id for h in after.hits] == [h.leaf_id for h in before.hits]


def test_a_question_about_before_is_not_judged(memory, monkeypatch):
    judge_with(monkeypatch, ["-1,0,0,0,9.0"])  # a forest that takes every pair
    assert memory.search(QUESTION).reason_code == "rivals"
    before = memory.search("which port did the dev server run on before the move?")
    assert before.reason_code != "rivals"


def test_each_mode_reads_its_own_forest(monkeypatch):
    """The semantic mode's ordering inputs differ: a lexical forest taking every pair says
    nothing there, and a mode with no forest never judges."""
    x = [0.0] * len(rivals.FEATURES)
    judge_with(monkeypatch, ["-1,0,0,0,9.0"])
    monkeypatch.setattr(rivals_trees, "SEMANTIC", "")
    assert rivals.probability(x, semantic=False) > 0.99
    assert rivals.probability(x, semantic=True) == 0.0


def test_a_window_of_one_gets_no_input():
    class Cand:
        ref = {"id": "L1", "tf": {"port": 1}, "date": "2026-01-01"}

    scored = ([Cand()], [[0.0] * len(rivals.FEATURES)], [1.0])
    assert (
        rivals.features(scored, "L1", ["port"], {}, 0.5, None, str, lambda _: False, False) is None
    )


def test_a_hook_block_notes_rivals_without_telling_the_agent_to_ask(memory, monkeypatch):
    """The hooks put memories in front of the agent on any prompt: two memories the judge
    takes for answers about different things are shown with a note, not an instruction to
    ask the user."""
    from ihmt.loop.recall import prompt_recall

    judge_with(monkeypatch, [split_on("values_differ", below=-4.0, above=4.0)])
    assert memory.search(QUESTION).reason_code == "rivals"
    block = prompt_recall(memory, QUESTION)
    assert "8080" in block and "3000" in block
    assert "different things" in block and "AMBIGUOUS" not in block
