"""The learned NOT FOUND (search/unanswered.py): what it reads, and that its verdict reaches the
answer. The forests here are written by hand, so each test says which signal it hangs on;
what the fitted forest is worth is measured in benchmarks/RESULTS.md, not asserted here."""

from __future__ import annotations

import pytest

from ihmt import IHMT
from ihmt.render import compact_answer
from ihmt.search import unanswered, unanswered_trees
from tests.helpers_forests import recorded_inputs
from tests.helpers_forests import split_on as one_split
from tests.test_answers import FILLER, save_all

MOXA = [
    *FILLER,
    ("2026-03-05", "The Moxa NPort 5110A on line 2 serves the label printer at 10.20.33.41."),
    ("2026-03-06", "Ane owns the Moxa NPort 5110A on line 2; ask her before rebooting it."),
    ("2026-03-07", "Line 2 label printer: a Zebra ZT411, ribbon changed every Monday."),
]


@pytest.fixture
def memory(tmp_path):
    store = IHMT.initialize(tmp_path / "ws")
    save_all(store, MOXA)
    yield store
    store.close()


def judge_with(monkeypatch, trees: list[str], base: float = 0.0) -> None:
    monkeypatch.setattr(unanswered_trees, "LEXICAL", trees)
    monkeypatch.setattr(unanswered_trees, "LEXICAL_BASE", base)


def split_on(feature: str, below: float, above: float, at: float = 0.5) -> str:
    return one_split(unanswered.FEATURES, feature, below, above, at)


def test_the_input_has_one_value_per_named_feature(memory, monkeypatch):
    seen = recorded_inputs(monkeypatch, unanswered)
    memory.search("what firmware is the Moxa NPort 5110A on?")
    assert seen and len(seen[0]) == len(unanswered.FEATURES)
    x = dict(zip(unanswered.FEATURES, seen[0], strict=True))
    # "firmware" is the thing asked, and no memory holds it
    assert x["asks_thing"] == 1.0 and x["thing_held"] == 0.0 and x["thing_unknown"] == 1.0
    assert x["unknown_words"] >= 1.0


def test_a_best_the_judge_takes_for_no_answer_becomes_not_found(memory, monkeypatch):
    judge_with(monkeypatch, [split_on("thing_held", below=4.0, above=-4.0)])
    asked = memory.search("what firmware is the Moxa NPort 5110A on?")
    assert asked.not_found and asked.reason_code == "no_answer"
    assert "2026-03-0" in asked.reason  # the closest memory's date
    assert compact_answer(asked).startswith("NOT FOUND")
    # the same forest leaves a question whose thing the best memory holds answered
    printer = memory.search("which printer does the Moxa NPort 5110A serve?")
    assert not printer.not_found
    assert "10.20.33.41" in printer.best.content


def test_a_judge_below_its_threshold_changes_nothing(memory, monkeypatch):
    before = memory.search("what firmware is the Moxa NPort 5110A on?")
    judge_with(monkeypatch, ["-1,0,0,0,0.0"], base=-0.1)  # probability just under a half
    after = memory.search("what firmware is the Moxa NPort 5110A on?")
    assert after.not_found == before.not_found
    assert [h.leaf_id for h in after.hits] == [h.leaf_id for h in before.hits]


def test_a_judge_between_a_half_and_the_former_threshold_decides(memory, monkeypatch):
    """The threshold is a half (0.6 until the forty-second session): a fitted probability of
    0.55 turns the BEST into NOT FOUND."""
    assert unanswered.THRESHOLD <= 0.55
    judge_with(monkeypatch, ["-1,0,0,0,0.0"], base=0.2)  # probability about 0.55
    assert memory.search("what firmware is the Moxa NPort 5110A on?").not_found


def test_the_hooks_gates_weigh_a_not_found_judged_under_their_own_threshold(memory, monkeypatch):
    """The per-prompt gates were fitted when the judge decided from 0.6: a NOT FOUND it makes
    at about 0.55 reaches them as the BEST it was; one at about 0.73 stays NOT FOUND."""
    from ihmt.loop import recall

    question = "what firmware is the Moxa NPort 5110A on?"
    judge_with(monkeypatch, ["-1,0,0,0,0.0"], base=0.2)  # probability about 0.55
    weak = memory.search(question)
    assert weak.not_found and 0.5 < weak.reason_params["probability"] < 0.6
    assert recall._gates_decide(weak)
    judge_with(monkeypatch, ["-1,0,0,0,0.0"], base=1.0)  # probability about 0.73
    sure = memory.search(question)
    assert sure.not_found and not recall._gates_decide(sure)


def test_a_search_with_a_clue_is_never_judged(memory, monkeypatch):
    """After AMBIGUOUS the agent's clue says which memory is meant: the words chose it, and a
    NOT FOUND there would undo the agent's own choice."""
    judge_with(monkeypatch, ["-1,0,0,0,9.0"])
    assert memory.search("what firmware is the Moxa NPort 5110A on?").not_found
    clued = memory.search("what firmware is the Moxa NPort 5110A on?", clue="line 2")
    assert clued.reason_code != "no_answer"


def test_no_forest_shipped_means_no_judgement():
    x = [0.0] * len(unanswered.FEATURES)
    assert unanswered.probability(x, semantic=False) >= 0.0
    original = unanswered_trees.SEMANTIC
    try:
        unanswered_trees.SEMANTIC = ""
        assert unanswered.probability(x, semantic=True) == 0.0
    finally:
        unanswered_trees.SEMANTIC = original


def test_a_lead_outside_the_scored_window_gets_no_input():
    class Cand:
        def __init__(self, leaf_id):
            self.ref = {"id": leaf_id, "tf": {}}
            self.matched = set()

    width = len(unanswered.FEATURES) - len(unanswered.QUESTION_FEATURES)
    row = [0.0] * (width // 2)
    scored = ([Cand("a"), Cand("b")], [row, row], [0.0, 0.0])
    args = (["moxa"], {"moxa": 1}, 10, 0.5, 0, frozenset(), {}, [])
    assert unanswered.features(scored, "z", *args) is None
    assert len(unanswered.features(scored, "b", *args)) == len(unanswered.FEATURES)


def test_a_question_about_when_something_happened_is_not_judged(tmp_path, monkeypatch):
    """ "When did Caroline go to the pottery class?": the date of the memory telling of it
    answers, though no date is written in it; the judge, fitted on questions asking for dates
    to come, would take the memory for no answer."""
    judge_with(monkeypatch, ["-1,0,0,0,9.0"])
    store = IHMT.initialize(tmp_path / "people")
    try:
        store.save("Caroline: the pottery class was fun.", timestamp="2023-08-05T10:00:00")
        store.save("Melanie: swim lesson with the kids.", timestamp="2023-08-06T10:00:00")
        store.save(
            "Caroline: the pottery studio is on Elm Street.", timestamp="2023-08-07T10:00:00"
        )
        assert not store.search("When did Caroline go to the pottery class?").not_found
        assert store.search("When does Caroline's pottery class end?").not_found
    finally:
        store.close()


@pytest.mark.parametrize(
    "question",
    [
        "How long has Caroline been going to the pottery class?",
        "For how long did Caroline go to the pottery class?",
        "How long was the pottery class?",
        "¿Cuánto tiempo estuvo Caroline en la clase de cerámica?",
    ],
)
def test_a_question_about_a_span_gone_by_is_not_judged(tmp_path, monkeypatch, question):
    """ "How long has Caroline been going to the pottery class?" is worked out from the dates
    of the memories telling of it, which rarely state a span; "how long does the class
    last?" asks for a span a memory states, and stays judged."""
    judge_with(monkeypatch, ["-1,0,0,0,9.0"])
    store = IHMT.initialize(tmp_path / "people")
    try:
        store.save("Caroline: the pottery class was fun.", timestamp="2023-08-05T10:00:00")
        store.save("Caroline: la clase de cerámica fue genial.", timestamp="2023-08-06T10:00:00")
        assert not store.search(question).not_found
        assert store.search("How long does Caroline's pottery class last?").not_found
    finally:
        store.close()


def test_a_question_asked_in_spanish_is_not_judged(memory, monkeypatch):
    """The corpora the judge was fitted on ask their questions without an answer in English:
    it has never seen one in Spanish, and on Spanish questions it only ever took answers for
    none. An always-NOT FOUND forest leaves the Spanish question answered, the English one
    not."""
    judge_with(monkeypatch, ["-1,0,0,0,9.0"])
    spanish = memory.search("¿qué impresora sirve el Moxa NPort 5110A de la línea 2?")
    assert not spanish.not_found
    assert "10.20.33.41" in spanish.best.content
    assert memory.search("which printer does the Moxa NPort 5110A on line 2 serve?").not_found
