"""A "how many" question is answered by a number next to the thing it counts.

"How many worker nodes does rf-prod have?" asks for a count of nodes: a memory about rf-prod
holding "15 days of retention" has a digit, but not the answer. Among the leading memories
one that puts a number beside the thing counted goes first (search/counted.py).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt.search.counted import counted_terms, holds_count
from tests.test_answers import save_all


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("how many worker nodes does the rf-prod cluster have?", {"worker", "nod"}),
        ("How many Kafka brokers does production have?", {"kafka", "broker"}),
        ("¿Cuántos ficheros salieron con checksum distinto?", {"fil"}),
        ("¿cuántas alertas llegaron a Opsgenie?", {"alert"}),
        ("how many days of backups do we keep?", {"day"}),  # "of" ends what is counted
    ],
)
def test_the_thing_counted_is_read_after_how_many(question, expected):
    assert counted_terms(question) == frozenset(expected)


@pytest.mark.parametrize(
    "question",
    ["how many of them are left?", "what port does the broker use?", "how much RAM is there?"],
)
def test_a_question_naming_nothing_counted_counts_nothing(question):
    assert counted_terms(question) == frozenset()


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("how many gateways are in the fleet?", "The fleet is now 19 RAK7289 gateways."),
        ("how many wishlists do we have?", "Wishlists after Next Fest: 31,000."),
        ("how many monitors does Teo use?", "Teo trabaja con dos monitores."),
        ("how many connections per node?", "un pool de 20 conexiones por nodo"),
        ("how many days do we keep logs?", "Logs have a 30-day retention."),
    ],
)
def test_a_number_beside_the_thing_counted_holds_the_count(question, text):
    assert holds_count(text, counted_terms(question))


@pytest.mark.parametrize(
    ("question", "text"),
    [
        # a number, but of something else
        (
            "how many worker nodes does rf-prod have?",
            "Prometheus runs in rf-prod with 15 days of retention.",
        ),
        # the thing counted, but no number near it
        (
            "how many brokers does production have?",
            "The brokers in production were patched on Tuesday after the 2025 audit of every "
            "cluster we run.",
        ),
    ],
)
def test_a_number_of_something_else_is_no_count(question, text):
    assert not holds_count(text, counted_terms(question))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.text(max_size=600))
def test_reading_counts_never_fails_on_any_text(question, text):
    counted = counted_terms(question)
    assert holds_count(text, counted) in (True, False)


def test_the_memory_counting_the_thing_asked_ranks_first(memory, monkeypatch):
    import ihmt.search.engine as engine

    ids = save_all(
        memory,
        [
            ("2026-03-01", "Lunch on Fridays is in the small meeting room."),
            ("2026-03-02", "The design team reviews mockups in Figma every Tuesday."),
            (
                "2026-03-03",
                "The rf-prod cluster has 6 worker nodes, all of them e2-standard-8 machines.",
            ),
            (
                "2026-03-04",
                "Prometheus runs on the rf-prod cluster worker nodes with 15 days of retention.",
            ),
        ],
    )

    def first() -> str:
        question = "how many worker nodes does the rf-prod cluster have?"
        return memory.search(question).hits[0].leaf_id

    # both hold a digit; only one gives a number of nodes
    assert first() == ids[2]
    monkeypatch.setattr(engine, "holds_count", lambda _text, _counted: True)
    assert first() == ids[3]
