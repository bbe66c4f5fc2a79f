"""The fitted last ordering stage (ihmt/search/learned_order.py): how it reads a forest, what it
measures of a candidate, that it only reorders the leading window, and that the search applies
it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ihmt import IHMT, boosted
from ihmt.search import learned_order, order_trees
from ihmt.search.learned_order import (
    FEATURES,
    OrderContext,
    features,
    forest,
    reorder,
    tree_score,
)
from ihmt.search.navigator import stand_in
from ihmt.text.tokenize import terms


def cand(leaf_id: str, *, date="2026-03-01", score=1.0, coverage=0.5, source="memory", tf=None):
    return SimpleNamespace(
        ref={"id": leaf_id, "date": date, "source": source, "tf": tf or {"word": 3}},
        adjusted=score,
        coverage=coverage,
        matched=set(),
    )


def feature_split(name: str, value: float) -> tuple:
    """A one-split forest: candidates with ``name`` above ``value`` score 1, others 0."""
    return (((FEATURES.index(name), value, 1, 2, 0.0), (-1, 0.0, 0, 0, 0.0), (-1, 0.0, 0, 0, 1.0)),)


def test_a_tree_sends_a_value_at_its_threshold_left_and_sums_its_leaves():
    tree = ((0, 0.5, 1, 2, 0.0), (-1, 0.0, 0, 0, -1.0), (1, 2.0, 3, 4, 0.0))
    tree += ((-1, 0.0, 0, 0, 0.25), (-1, 0.0, 0, 0, 2.0))
    assert tree_score((tree,), [0.5, 9.0]) == -1.0
    assert tree_score((tree,), [0.6, 2.0]) == 0.25
    assert tree_score((tree, tree), [0.6, 3.0]) == 4.0


def test_the_newest_candidate_leads_when_the_forest_favours_new_for_a_question_about_now():
    old, new = cand("old", date="2026-01-10", score=2.0), cand("new", date="2026-05-01")
    ctx = OrderContext(question_terms=["word"], idf={"word": 1.0})
    forest = feature_split("newer_now", 0.5)
    assert [c.ref["id"] for c in reorder([old, new], ctx, forest)] == ["new", "old"]
    # the same forest leaves a question about before alone: "newer_now" is 0 for it
    before = OrderContext(question_terms=["word"], idf={"word": 1.0}, about_before=True)
    assert [c.ref["id"] for c in reorder([old, new], before, forest)] == ["old", "new"]


def test_only_the_leading_window_is_reordered_and_ties_keep_the_earlier_order():
    ranked = [cand(f"m{i}", source="memory" if i != 3 else "docs/a.md") for i in range(8)]
    ranked.append(cand("late-doc", source="docs/b.md"))
    ctx = OrderContext(question_terms=["word"], idf={"word": 1.0})
    out = reorder(ranked, ctx, feature_split("document", 0.5))
    # the document piece in the window moves first; the one past the window stays last
    assert [c.ref["id"] for c in out] == [
        "m3",
        "m0",
        "m1",
        "m2",
        "m4",
        "m5",
        "m6",
        "m7",
        "late-doc",
    ]


def test_a_pinned_first_candidate_and_an_empty_forest_leave_the_order_alone():
    a, b = cand("a"), cand("b", source="docs/x.md")
    ctx = OrderContext(question_terms=["word"], idf={"word": 1.0})
    assert reorder([a, b], ctx, ()) == [a, b]
    a.pinned = True
    assert reorder([a, b], ctx, feature_split("document", 0.5)) == [a, b]


def test_together_is_high_when_the_question_words_stand_close_and_low_when_far_apart():
    words = {"redis": 1.0, "host": 1.0}
    close = "Redis runs on the host cache-01.internal"
    far = "Redis is fast. " + "filler text " * 40 + "The host was renamed."
    ctx = OrderContext(question_terms=["redis", "host"], idf=words, content_of=lambda c: c.text)
    a, b = cand("close"), cand("far")
    a.text, b.text = close, far
    together = FEATURES.index("together")
    rows = features([a, b], ctx)
    assert rows[0][together] == pytest.approx(1.0)
    assert rows[1][together] == pytest.approx(0.5)


def test_tight_tells_words_side_by_side_from_words_a_sentence_apart_that_together_does_not():
    words = {terms("finance")[0]: 1.0, "contact": 2.0, "month": 1.0}
    side_by_side = "Correction: the finance month contact is now Amara Nwosu."
    apart = "Finance wants two month closes in parallel; the contact at the bank was changed."
    ctx = OrderContext(question_terms=list(words), idf=words, content_of=lambda c: c.text)
    a, b = cand("side"), cand("apart")
    a.text, b.text = side_by_side, apart
    together, tight = FEATURES.index("together"), FEATURES.index("tight")
    rows = features([a, b], ctx)
    # both hold the three words within one stretch of SPAN_TERMS words ...
    assert rows[0][together] == rows[1][together] == pytest.approx(1.0)
    # ... but only the first holds them next to each other
    assert rows[0][tight] == pytest.approx(1.0)
    assert rows[1][tight] < 0.5


def test_a_memory_standing_in_for_the_first_is_measured_by_its_own_words_too():
    lead = cand("old", score=8.0, coverage=1.0)
    later = cand("later", date="2026-05-01", score=3.0, coverage=0.4)
    stand_in(later, lead, take_words=False)
    # rivals are measured against the fact's score and coverage ...
    assert (later.adjusted, later.coverage) == (8.0, 1.0)
    ctx = OrderContext(question_terms=["word"], idf={"word": 1.0})
    row = features([later, lead], ctx)[0]
    # ... while the ordering still sees how little of the question the stand-in holds itself
    assert row[FEATURES.index("coverage")] == pytest.approx(1.0)
    assert row[FEATURES.index("own_coverage")] == pytest.approx(0.4)
    assert row[FEATURES.index("own_score")] == pytest.approx(3.0 / 8.0)
    # standing in twice keeps the first own values, not the borrowed ones
    stand_in(later, cand("other", score=9.0, coverage=0.9))
    assert (later.own_coverage, later.own_adjusted) == (0.4, 3.0)


def test_a_later_memory_telling_of_a_change_in_the_older_ones_words_reads_as_its_new_value():
    def memory(leaf_id, date, text, source="memory"):
        made = cand(leaf_id, date=date, source=source, tf=dict.fromkeys(terms(text), 1))
        made.text = text
        return made

    old = memory(
        "old", "2026-03-01", "The BFF keeps push tokens in PostgreSQL 15.4 on RDS bff-db-prod"
    )
    new = memory("new", "2026-06-01", "bff-db-prod is now on PostgreSQL 16.3 after the RDS window")
    plain = memory("plain", "2026-06-02", "bff-db-prod runs PostgreSQL with RDS backups nightly")
    other = memory("other", "2026-06-03", "The office moved to the third floor last week")
    rare = {t: 2.0 for t in terms(old.text + " " + new.text + " " + plain.text + " " + other.text)}
    ctx = OrderContext(
        question_terms=["postgresql"],
        idf={"postgresql": 1.0},
        content_of=lambda c: c.text,
        word_idf=rare,
    )
    updates, updated = FEATURES.index("updates_older"), FEATURES.index("updated_by_newer")
    rows = features([old, new, plain, other], ctx)
    # "now on ... 16.3" shares bff-db-prod and RDS with the old statement: its new value
    assert rows[1][updates] > 0.3
    assert rows[0][updated] == pytest.approx(rows[1][updates])
    # the same words without a change told, or a change of something else, link nothing
    assert rows[2][updates] == 0.0
    assert rows[3][updates] == 0.0
    # an older memory is never the new value of a newer one
    assert rows[0][updates] == 0.0 and rows[3][updated] == 0.0
    # pieces of one stored document are not each other's values
    first = memory("d1", "2026-03-01", old.text, source="runbook.md")
    second = memory("d2", "2026-06-01", new.text, source="runbook.md")
    rows = features([first, second], ctx)
    assert rows[1][updates] == rows[0][updated] == 0.0


_FLOATS = st.floats(allow_nan=False, allow_infinity=True, width=64)
_NODES = st.tuples(
    st.integers(-1, 200), _FLOATS, st.integers(0, 32767), st.integers(0, 32767), _FLOATS
)


@given(st.lists(st.lists(_NODES, min_size=1, max_size=12), max_size=6))
def test_packing_a_forest_gives_back_every_node_bit_for_bit(trees):
    trees = tuple(tuple(tree) for tree in trees)
    assert boosted.unpack(boosted.pack(trees)) == trees


def test_a_child_index_past_sixteen_bits_is_refused_rather_than_wrapped():
    with pytest.raises(ValueError):
        boosted.pack((((-1, 0.0, 40000, 0, 1.0),),))


def test_the_shipped_forests_are_packed_and_read_in_one_step_per_process():
    # text trees took 10-15 ms to parse on every hook start; packed ones decode at once
    for shipped in (order_trees.LEXICAL, order_trees.SEMANTIC):
        assert isinstance(shipped, str)
        assert forest(shipped) is forest(shipped)
        assert sum(len(tree) for tree in forest(shipped)) > 1000


def test_the_shipped_forests_fit_the_features_they_are_read_with():
    width = 2 * len(FEATURES)  # each feature and its difference from the first candidate's
    for shipped in (order_trees.LEXICAL, order_trees.SEMANTIC):
        assert shipped, "fitted trees are shipped for both modes"
        for tree in forest(shipped):
            for feature, _threshold, left, right, _value in tree:
                assert feature < width
                if feature >= 0:
                    assert 0 < left < len(tree) and 0 < right < len(tree)


def test_the_search_puts_its_answer_in_the_order_the_forest_gives(tmp_path, monkeypatch):
    memory = IHMT.initialize(tmp_path / "ws")
    try:
        memory.save(
            "The staging database runs on pg-stg-01 with PostgreSQL 15.",
            timestamp="2026-02-01T10:00:00",
        )
        memory.save(
            "Backups of the staging database are taken nightly at 02:00.",
            timestamp="2026-04-01T10:00:00",
        )
        question = "where does the staging database run?"
        monkeypatch.setattr(order_trees, "LEXICAL", ())
        assert "pg-stg-01" in memory.search(question).hits[0].content
        # a forest preferring the newest candidate: the later memory now comes first
        monkeypatch.setattr(order_trees, "LEXICAL", feature_split("newer_now", 0.5))
        assert "nightly" in memory.search(question).hits[0].content
    finally:
        memory.close()


def test_a_clue_search_is_not_reordered(tmp_path, monkeypatch):
    calls = []
    original = learned_order.reorder

    def spy(ranked, ctx, trees=None):
        calls.append(ctx)
        return original(ranked, ctx, trees)

    monkeypatch.setattr(learned_order, "reorder", spy)
    memory = IHMT.initialize(tmp_path / "ws")
    try:
        memory.save("Luis Ortega (SRE) is on call this week.", timestamp="2026-02-01T10:00:00")
        memory.save("Luis Pardo (design) is on holiday.", timestamp="2026-02-02T10:00:00")
        memory.search("who is Luis?")
        assert len(calls) == 1
        memory.search("who is Luis?", clue="the SRE one")
        assert len(calls) == 1
    finally:
        memory.close()


def test_the_first_candidate_keeps_its_place_unless_another_leads_it_by_the_margin():
    assert learned_order.fitted_order([1.0, 1.4, 0.2], margin=0.5) == [0, 1, 2]
    assert learned_order.fitted_order([1.0, 1.6, 0.2], margin=0.5) == [1, 0, 2]
    # below the first, the others still go in fitted order
    assert learned_order.fitted_order([1.0, 0.1, 0.9], margin=0.5) == [0, 2, 1]


def test_a_corrected_memory_is_put_first_only_for_a_question_about_before():
    old = cand("old", date="2026-01-10", score=2.0)
    new = cand("new", date="2026-05-01")
    ctx = OrderContext(question_terms=["word"], idf={"word": 1.0}, corrected={"old"})
    favour_old = feature_split("corrected", 0.5)
    # the forest would put the corrected memory first; it stays behind the current one
    assert [c.ref["id"] for c in reorder([new, old], ctx, favour_old)] == ["new", "old"]
    before = OrderContext(
        question_terms=["word"], idf={"word": 1.0}, corrected={"old"}, about_before=True
    )
    assert [c.ref["id"] for c in reorder([new, old], before, favour_old)] == ["old", "new"]
    assert learned_order.fitted_order([0.0, 5.0, 1.0], kept={1}) == [2, 1, 0]


def test_rarest_word_heading_and_dates_are_read_per_candidate():
    idf = {"redis": 3.0, "host": 1.0}
    ctx = OrderContext(question_terms=["redis", "host"], idf=idf, content_of=lambda c: c.text)
    first = cand("a", date="2026-01-01", tf={"host": 1})
    later = cand("b", date="2026-07-02", tf={"redis": 1, "host": 1})
    first.text = "Backups\nThe host is backed up nightly."
    later.text = "Redis host\ncache-01.internal"
    rows = features([first, later], ctx)
    col = {name: i for i, name in enumerate(FEATURES)}
    assert (rows[0][col["rarest"]], rows[1][col["rarest"]]) == (0.0, 1.0)
    assert rows[1][col["heading"]] == pytest.approx(1.0)
    assert rows[0][col["heading"]] == pytest.approx(0.0)
    assert rows[1][col["days_after_first"]] == pytest.approx(182 / 365)
    assert rows[0][col["days_after_first"]] == 0.0


def test_a_memory_a_later_one_tells_the_change_of_is_not_put_back_ahead_of_it():
    # the change judge put the later memory first and marked the old one "changed by" it
    # (answered OUTDATED, "it is listed first"): a forest favouring the old one may not undo it
    old = cand("old", date="2026-01-10", score=2.0)
    new = cand("new", date="2026-05-01")
    old.changed_by = new
    ctx = OrderContext(question_terms=["word"], idf={"word": 1.0})
    # a one-split forest scoring 1 for the earliest date, 0 for later ones
    split = (FEATURES.index("days_after_first"), -0.1, 1, 2, 0.0)
    favour_old = ((split, (-1, 0.0, 0, 0, 1.0), (-1, 0.0, 0, 0, 0.0)),)
    assert [c.ref["id"] for c in reorder([new, old], ctx, favour_old)] == ["new", "old"]
    # without the mark the same forest puts the old one first
    del old.changed_by
    assert [c.ref["id"] for c in reorder([new, old], ctx, favour_old)] == ["old", "new"]


def feature_row(**values: float) -> list[float]:
    row = [0.0] * len(FEATURES)
    for name, value in values.items():
        row[FEATURES.index(name)] = value
    return row


def test_a_leader_naming_nothing_asked_and_lacking_the_shape_gives_way_to_one_with_both():
    stray = feature_row(no_shape=1.0, coverage=0.45, rarest=1.0)  # "The bastion host ..."
    other = feature_row(no_shape=1.0, coverage=0.3)
    named = feature_row(names=1.0, shape=1.0, coverage=0.24)  # "Grafana ... on mon-03..."
    rows = [stray, other, named]
    assert learned_order.named_answer_first([0, 1, 2], rows, set()) == [2, 0, 1]
    # a leader naming what is asked, or holding the shape, keeps its place
    half_named = feature_row(names=0.5, no_shape=1.0)
    assert learned_order.named_answer_first([0, 1, 2], [half_named, other, named], set()) == [
        0,
        1,
        2,
    ]
    shaped = feature_row(shape=1.0)
    assert learned_order.named_answer_first([0, 1, 2], [shaped, other, named], set()) == [0, 1, 2]
    # so does it when the only candidate with both is an old value a later memory corrects
    assert learned_order.named_answer_first([0, 1, 2], rows, {2}) == [0, 1, 2]
    # named without the shape, or the shape without the name, is not enough
    assert learned_order.named_answer_first(
        [0, 1, 2], [stray, other, feature_row(names=1.0, no_shape=1.0)], set()
    ) == [0, 1, 2]
