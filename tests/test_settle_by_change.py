"""Memories tied on a question, the newest telling of a change: one fact's old and new value,
answered by the newest, not a choice to make (SearchEngine._settle_by_change)."""

from __future__ import annotations

from types import SimpleNamespace

from ihmt.models import Hit, SearchResult
from ihmt.search.answer_type import holds_new_value, shapes_asked, subject_terms
from ihmt.search.engine import SearchEngine
from ihmt.search.navigator import Candidate
from ihmt.search.restatement import tells_change

QUESTION = "what Grafana version are we running?"
OLD = "Upgraded Grafana on mon-02 to 11.1.0. The old Worldmap panels had to be replaced."
NEW = "Se actualizó Grafana en mon-02 a 11.1.4 por un parche de seguridad."


def _tie(*memories: tuple[str, str, str]):
    """Candidates and a result holding their hits, in the order given: (id, date, text)."""
    texts = {leaf_id: text for leaf_id, _date, text in memories}
    cands = [
        Candidate(ref={"id": leaf_id, "date": date, "source": "memory"}, path=[], score=1.0)
        for leaf_id, date, _text in memories
    ]
    result = SearchResult(query=QUESTION, clue=None)
    result.hits = [
        Hit(leaf_id, 1.0, texts[leaf_id], [], date, "", "") for leaf_id, date, _ in memories
    ]
    engine = SimpleNamespace(_content_of=lambda cand: texts[cand.ref["id"]])
    return engine, cands, result


def _new_value(text: str, earlier: str) -> bool:
    shapes = shapes_asked(QUESTION)
    return holds_new_value(text, earlier, shapes, subject_terms(QUESTION))


def test_the_newest_telling_of_a_new_value_answers_and_the_older_is_outdated():
    engine, tied, result = _tie(("old", "2026-04-27", OLD), ("new", "2026-08-12", NEW))
    assert SearchEngine._settle_by_change(engine, result, tied, _new_value)
    assert [h.leaf_id for h in result.hits] == ["new", "old"]
    assert result.hits[1].outdated and "2026-08-12" in result.hits[1].notices[0]
    assert not result.hits[0].outdated


def test_a_newer_memory_telling_of_no_change_leaves_the_choice():
    plain = "Grafana on mon-03 is 11.2.0, for the lab dashboards."
    engine, tied, result = _tie(("old", "2026-04-27", OLD), ("lab", "2026-08-12", plain))
    assert not SearchEngine._settle_by_change(engine, result, tied, _new_value)
    assert not any(h.outdated for h in result.hits)


def test_a_change_repeating_the_same_value_or_a_document_settles_nothing():
    same = "Grafana was moved to a new disk; still 11.1.0."
    engine, tied, result = _tie(("old", "2026-04-27", OLD), ("same", "2026-08-12", same))
    assert not SearchEngine._settle_by_change(engine, result, tied, _new_value)
    engine, tied, result = _tie(("old", "2026-04-27", OLD), ("doc", "2026-08-12", NEW))
    tied[1].ref["source"] = "runbooks/grafana.md"
    assert not SearchEngine._settle_by_change(engine, result, tied, _new_value)


def test_change_words_are_read_in_spanish_and_a_documents_date_line_is_none():
    assert tells_change(NEW)
    assert tells_change("The staging certificate was updated on Monday.")
    assert not tells_change("# Runbook\nLast updated: 2026-03-02\nOwner: Ana")


def test_an_update_received_tells_of_a_change():
    assert tells_change("db-01 got the PostgreSQL 16.6 minor update on the Sunday window.")
    assert tells_change("pg-02 received a security patch last night.")
    assert not tells_change("db-01 runs PostgreSQL 16.3; backups go to the nightly bucket.")


def test_memories_giving_one_value_for_the_subject_are_no_choice():
    question = "which city does Marta live in?"
    shapes, subject = shapes_asked(question), subject_terms(question, names_only=True)
    texts = {
        "move": "Marta se muda a Sevilla en junio. Seguirá en remoto y vendrá a Madrid una semana.",
        "now": "Marta ya vive en Sevilla (Triana) desde el 15 de junio.",
        "other": "Marta vive en Málaga desde marzo.",
    }
    engine = SimpleNamespace(_content_of=lambda cand: texts[cand.ref["id"]])

    def tied(*ids: str) -> list:
        return [Candidate(ref={"id": i}, path=[], score=1.0) for i in ids]

    # Madrid is only a visit: it is not written next to Marta
    assert SearchEngine._tell_one_value(engine, tied("move", "now"), shapes, subject)
    assert not SearchEngine._tell_one_value(engine, tied("now", "other"), shapes, subject)
    assert not SearchEngine._tell_one_value(engine, tied("move", "now"), (), subject)


def test_two_dates_in_one_month_are_no_single_value():
    question = "when is Mette off for the summer?"
    shapes, subject = shapes_asked(question), subject_terms(question)
    texts = {
        "holm": "Mette Holm's summer holiday: 20 July - 7 August.",
        "kjaer": "Mette Kjær is on summer holiday 6-24 July (weeks 28-30).",
    }
    engine = SimpleNamespace(_content_of=lambda cand: texts[cand.ref["id"]])
    tied = [Candidate(ref={"id": i}, path=[], score=1.0) for i in texts]
    assert not SearchEngine._tell_one_value(engine, tied, shapes, subject)
