"""Two people of one first name: a question naming "Luis" alone, when memory knows Luis
Ortega and Luis Pardo, is AMBIGUOUS between them (search/namesakes.py).

Each memory below speaks of one person, in different words and lengths, so their scores are
far apart and the score tie that makes other questions AMBIGUOUS does not apply: only the
namesake rule can list both. The other tests pin down where it must stay out.
"""

from __future__ import annotations

import pytest

from ihmt import IHMT
from ihmt.search.namesakes import first_names, surnames_in
from ihmt.text.given_names import GIVEN_NAMES

TEAM = [
    (
        "2026-03-02T09:00:00",
        "Luis Ortega is the CTO and co-founder. He approves anything touching production "
        "infrastructure or schema changes on big tables, and prefers a quick call over long "
        "threads. GitHub: @lortega-rf.",
    ),
    ("2026-03-09T09:00:00", "Luis Pardo (mobile developer) is @lpardo on GitHub."),
    ("2026-03-10T09:00:00", "Luis Pardo works on the Flutter app from Sevilla."),
    (
        "2026-03-12T09:00:00",
        "CI runs on GitHub Actions; the docs site is published with GitHub Pages from the "
        "gh-pages branch.",
    ),
    ("2026-03-13T09:00:00", "The dispatch API listens on port 8080 in every environment."),
]


@pytest.fixture()
def memory(tmp_path):
    store = IHMT.initialize(tmp_path / "store")
    for stamp, text in TEAM:
        store.save(text, timestamp=stamp)
    store.flush()
    yield store
    store.close()


def test_a_first_name_alone_with_two_people_answering_is_ambiguous(memory):
    result = memory.search("what's Luis's GitHub handle?")
    assert result.ambiguous, result.reason
    listed = " ".join(hit.content for hit in result.candidates)
    assert "Ortega" in listed and "Pardo" in listed


def test_a_full_name_picks_one_person(memory):
    result = memory.search("what's Luis Pardo's GitHub handle?")
    assert not result.ambiguous
    assert "@lpardo" in result.best.content


def test_a_clue_picks_one_person(memory):
    result = memory.search("what's Luis's GitHub handle?", clue="the CTO")
    assert not result.ambiguous
    assert "@lortega-rf" in result.best.content


def test_words_that_only_one_person_has_pick_that_person(memory):
    # only Luis Pardo's memory says anything about Flutter or Sevilla
    result = memory.search("which city does Luis work on the Flutter app from?")
    assert not result.ambiguous
    assert "Sevilla" in result.best.content


def test_a_product_name_is_no_first_name(memory):
    # "GitHub Actions" and "GitHub Pages" are one product's features, not two people
    assert first_names("what does GitHub publish the docs with?") == []
    result = memory.search("what does GitHub publish the docs with?")
    assert not result.ambiguous


def test_first_names_and_surnames_are_read_as_written():
    assert first_names("when is Iñaki off in August?") == ["Iñaki"]
    assert first_names("what's Luis Pardo's phone?") == []  # named in full
    assert surnames_in("Iker Etxeberria's email; Iker Salgado is off.", "Iker") == {
        "etxeberria",
        "salgado",
    }
    assert surnames_in("Ask Luis about it.", "Luis") == set()


def test_a_leader_speaking_of_the_first_name_alone_stays_unresolved(tmp_path):
    # "Luis prefers Meet" cannot be told apart: which Luis is unknown, so no choice is offered
    store = IHMT.initialize(tmp_path / "store")
    store.save("Luis prefers a Google Meet call over Slack threads.", timestamp="2026-03-01T09:00")
    store.save("Luis Ortega is the CTO.", timestamp="2026-03-02T09:00")
    store.save("Luis Pardo is a mobile developer.", timestamp="2026-03-03T09:00")
    store.flush()
    result = store.search("how does Luis prefer to be contacted?")
    store.close()
    assert not result.ambiguous
    assert "Meet" in result.best.content


def test_the_answer_says_which_people_share_the_name(memory):
    from ihmt.render import compact_answer

    result = memory.search("what's Luis's GitHub handle?")
    text = compact_answer(result)
    first = text.splitlines()[0]
    assert first.startswith("AMBIGUOUS:")
    assert "Luis Ortega" in first and "Luis Pardo" in first
    assert result.reason_code == "namesakes"
    assert "2 people of that name" in result.reason


def _answer(tmp_path, texts: list[str], question: str):
    """The search result for ``question`` over a store holding ``texts``, a day apart."""
    store = IHMT.initialize(tmp_path / "store")
    for day, text in enumerate(texts, start=1):
        store.save(text, timestamp=f"2026-03-{day:02d}T09:00:00")
    store.flush()
    result = store.search(question)
    store.close()
    return result


def test_a_first_name_the_list_lacks_is_a_person_where_memory_writes_of_one(tmp_path):
    # "Mumbua" is on no list of given names: the memories say she is someone
    assert "mumbua" not in GIVEN_NAMES
    result = _answer(
        tmp_path,
        [
            "Mumbua Kamau prefers Slack DMs; she mutes WhatsApp during working hours.",
            "Mumbua Njoroge prefers email with claims@mavuno.example copied; she is not on "
            "our Slack.",
            "The payout batch runs at 10:00 EAT on weekdays.",
        ],
        "how does Mumbua prefer to be contacted?",
    )
    assert result.ambiguous, result.reason
    assert result.reason_code == "namesakes"
    listed = " ".join(hit.content for hit in result.candidates)
    assert "Kamau" in listed and "Njoroge" in listed


def test_a_listed_first_name_is_a_person_without_he_or_she(tmp_path):
    # memories about someone who goes by "they" hold no "he" or "she": the list of given
    # names is what says Sam is a person
    result = _answer(
        tmp_path,
        [
            "Sam Nakamura has a work phone now: 604-555-0192; use it for anything urgent.",
            "For cutover day only, Sam Whitford gave Camila their direct cell, 778-555-0163.",
            "The sensor map refreshes every ten minutes from the hourly readings table.",
        ],
        "what's Sam's phone number?",
    )
    assert result.ambiguous, result.reason
    assert result.reason_code == "namesakes"
    listed = " ".join(hit.content for hit in result.candidates)
    assert "Nakamura" in listed and "Whitford" in listed


def test_everyday_words_and_places_are_no_given_names():
    # read as a person, "Una" would make a Spanish sentence's first word someone
    for word in ("una", "loan", "sydney", "robin", "ante", "elle", "ville"):
        assert word not in GIVEN_NAMES, word
    for name in ("sam", "fiona", "gunnar", "mette", "wanjiru", "montse", "callum"):
        assert name in GIVEN_NAMES, name


def test_a_name_the_list_lacks_stays_a_product_where_no_person_is_written_of(tmp_path):
    result = _answer(
        tmp_path,
        [
            "Kilimo Ingest runs on Cloud Run in europe-west1 and reads the rainfall rasters.",
            "Kilimo Payouts runs on Cloud Run in us-central1 and calls M-Pesa.",
            "The payout batch runs at 10:00 EAT on weekdays.",
        ],
        "which region does Kilimo run in on Cloud Run?",
    )
    assert not result.ambiguous, result.reason


def test_a_value_of_the_shape_asked_holds_the_words_that_name_it(tmp_path):
    # Lucía Okada's memory gives her address without the words "email address"
    result = _answer(
        tmp_path,
        [
            "Lucía Okada's station alias is lucia.okada@radio.example; it forwards to her Gmail.",
            "Lucía Benítez's email address is coordinacion@radio.example; she reads it once a day.",
            "Icecast listens on port 8000 on localhost only.",
        ],
        "what's Lucía's email address?",
    )
    assert result.ambiguous, result.reason
    listed = " ".join(hit.content for hit in result.candidates)
    assert "lucia.okada@" in listed and "coordinacion@" in listed


def test_a_thing_named_beside_the_first_name_does_not_hide_the_namesakes(tmp_path):
    # "Slurm" is read as a possible name too; written alone in the leader, it is a thing
    # and the two people named Luis still make the question AMBIGUOUS
    result = _answer(
        tmp_path,
        [
            "Luis Ortega submits his jobs under the Slurm account cto-lab; he also owns the "
            "lab's GPU quota and sets the fair-share weights every quarter.",
            "Luis Pardo submits under the Slurm account mobile-ci.",
            "The payout batch runs at 10:00 EAT on weekdays.",
        ],
        "what Slurm account does Luis submit under?",
    )
    assert result.ambiguous, result.reason


def _candidate(leaf_id: str, text: str, matched: set[str]):
    from ihmt.search.navigator import Candidate

    cand = Candidate(ref={"id": leaf_id}, path=[], score=1.0, matched=set(matched))
    cand.content = text
    return cand


_INGRID = [
    _candidate("a", "Ingrid Solberg is away on holiday from 3 to 14 August.", {"away", "holiday"}),
    _candidate("b", "Ingrid Haugen's holiday: 22 December to 2 January.", {"holiday"}),
]
_RARITY = {"away": 2.0, "holiday": 1.0}  # "away" the rarer word of the question


def _ingrid(question: str):
    from ihmt.search.namesakes import namesakes

    return namesakes(question, _INGRID, lambda c: c.content, lambda _c: True, _RARITY)


def test_a_person_whose_memory_holds_a_third_of_what_the_others_holds_is_still_meant():
    found = _ingrid("when is Ingrid away on holiday?")
    assert found is not None  # Haugen's memory holds 1.0 of Solberg's 3.0: a third
    assert found.people == ["Ingrid Solberg", "Ingrid Haugen"]


def test_a_surnames_initial_in_the_question_names_one_person():
    assert _ingrid("when is Ingrid H. away on holiday?") is None
