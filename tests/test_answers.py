"""Answers an agent can act on: vocabulary, present and past state, passages, weak matches.

Each test builds a small store the way an agent fills one (saves with their dates) and asserts
what the answer is, in what order, and what the compact answer shows.
"""

from __future__ import annotations

import sqlite3

import pytest

from ihmt import IHMT
from ihmt.render import compact_answer
from ihmt.search.intent import asks_history, months_asked
from ihmt.search.navigator import Candidate
from ihmt.search.passage import best_passage
from ihmt.search.query import parse_query
from ihmt.search.restatement import prefer_earlier, prefer_news
from ihmt.text.tokenize import terms
from ihmt.text.vocabulary import normalize


@pytest.fixture
def memory(tmp_path):
    store = IHMT.initialize(tmp_path / "ws")
    yield store
    store.close()


def save_all(memory, dated: list[tuple[str, str]]) -> list[str]:
    return [memory.save(text, timestamp=f"{day}T10:00:00").leaf_ids[0] for day, text in dated]


FILLER = [
    ("2026-03-01", "Lunch on Fridays is at 13:00 in the small meeting room."),
    ("2026-03-02", "The design team reviews mockups in Figma every Tuesday."),
    ("2026-03-03", "Invoices are sent on the last working day of the month."),
    ("2026-03-04", "The office printer is on the second floor next to the kitchen."),
]


# ------------------------------------------------------------------------------ vocabulary


@pytest.mark.parametrize(
    ("asked", "stored"),
    [
        ("postgres", "postgresql"),
        ("k8s", "kubernetes"),
        ("prod", "production"),
        ("db", "database"),
        ("js", "javascript"),
        ("deployed", "deploying"),
        ("migraciones", "migration"),
        ("servidores", "server"),
        ("uses", "using"),
        ("owns", "owner"),  # "who owns billing-service?" / "Marta is now the owner of ..."
        ("owned", "owner"),
    ],
)
def test_one_term_for_each_spelling_of_an_idea(asked, stored):
    assert set(terms(stored)) <= set(terms(asked))


def test_stemming_leaves_identifiers_numbers_and_short_words_alone():
    for token in ("3.11", "v2", "is_valid", "ssh", "k8s1"):
        assert normalize(token) == token or token == "k8s1"
    assert "version" in terms("PostgreSQL 16.2")
    assert "version" not in terms("we had 16 pings")


def test_an_abbreviated_question_finds_the_spelled_out_memory(memory):
    target = save_all(memory, [("2026-03-05", "Production runs PostgreSQL on db-prod-01.")])[0]
    save_all(memory, FILLER)
    result = memory.search("which postgres host is prod on?")
    assert not result.not_found and result.hits[0].leaf_id == target


def test_a_version_question_finds_a_memory_that_only_states_the_number(memory):
    save_all(memory, FILLER)
    target = save_all(memory, [("2026-03-06", "All backend services use Python 3.11.")])[0]
    result = memory.search("which Python version do we use?")
    assert not result.not_found and result.hits[0].leaf_id == target


def test_a_store_indexed_with_an_older_vocabulary_is_reindexed_once(tmp_path, monkeypatch):
    store = IHMT.initialize(tmp_path / "ws")
    target = store.save("Staging deploys are running every Tuesday.").leaf_ids[0]
    catalog = store.layout.catalog
    store.close()
    with sqlite3.connect(catalog) as conn:  # as a store indexed before the stamp existed
        conn.execute("DELETE FROM meta WHERE key = 'vocabulary'")
    calls = []
    original = IHMT._rebuild_locked
    monkeypatch.setattr(IHMT, "_rebuild_locked", lambda self: calls.append(1) or original(self))
    reopened = IHMT.open(tmp_path / "ws")
    assert calls == [1] and reopened.catalog.vocabulary_current()
    assert reopened.search("deployed staging").hits[0].leaf_id == target
    reopened.close()
    IHMT.open(tmp_path / "ws").close()
    assert calls == [1]  # stamped: the next open does not re-index


# ----------------------------------------------------------------------- present and past


CHANGES = [
    ("2026-03-10", "Staging runs PostgreSQL 15.4 on db-stg-01."),
    ("2026-06-20", "Staging now runs PostgreSQL 16.2 after the upgrade weekend."),
]


def test_a_later_statement_without_replaces_answers_the_present(memory):
    save_all(memory, FILLER)
    old, new = save_all(memory, CHANGES)
    result = memory.search("which Postgres version is staging on now?")
    assert not result.ambiguous and not result.not_found
    assert [h.leaf_id for h in result.hits[:2]] == [new, old]
    assert "16.2" in compact_answer(result).split("OTHER MATCHES")[0]


def test_a_question_about_before_answers_with_the_earlier_value(memory):
    save_all(memory, FILLER)
    old, new = save_all(memory, CHANGES)
    result = memory.search("which PostgreSQL version was staging on before the upgrade?")
    assert not result.ambiguous and result.hits[0].leaf_id == old
    assert new in [h.leaf_id for h in result.hits]


def test_an_explicit_correction_wins_a_present_question_even_on_the_same_day(memory):
    save_all(memory, FILLER)
    old = memory.save("The CI runners use Ubuntu 22.04 images.").leaf_ids[0]
    new = memory.save("The CI runners moved to Ubuntu 24.04 images.", replaces="CI runners")
    assert new.replaced_id == old
    result = memory.search("CI runners Ubuntu images")
    assert result.hits[0].leaf_id == new.leaf_ids[0]


def test_two_people_of_one_name_stay_ambiguous(memory):
    save_all(memory, FILLER)
    save_all(
        memory,
        [
            ("2026-03-05", "Luis Ortega is the CTO; reach him on Slack."),
            ("2026-05-05", "Luis Pardo is a contractor frontend developer; reach him by email."),
        ],
    )
    result = memory.search("how do I reach Luis?")
    assert result.ambiguous and len(result.candidates) == 2
    narrowed = memory.search("how do I reach Luis?", clue="the contractor")
    assert not narrowed.ambiguous and "Pardo" in narrowed.best.content


def test_a_tie_of_memories_holding_a_small_part_of_the_question_is_not_ambiguous(memory):
    save_all(memory, FILLER)
    save_all(
        memory,
        [
            ("2026-03-05", "billing-service listens on port 8001 in local development."),
            ("2026-03-06", "billing-service has its own database, rutafleet_billing."),
        ],
    )
    result = memory.search("which team owns the billing-service on-call rotation budget?")
    assert not result.ambiguous


def test_two_pieces_of_one_document_are_not_ambiguous(memory, monkeypatch):
    """A runbook saying the same thing in two sections is one answer, not two memories that
    disagree (ingested documents are stored in pieces)."""
    import ihmt.search.engine as engine

    steps = " ".join(
        f"Step {i}: check the dashboards, confirm the queue depth and write it in the log."
        for i in range(80)
    )
    rule = "The rollback window for the billing cutover is 30 minutes."
    runbook = (
        f"# Billing cutover\n\n## Preparation\n\n{steps}\n{rule}\n\n## Cutover\n\n{steps}\n{rule}\n"
    )
    report = memory.ingest_text(
        runbook, source="runbooks/billing.md", timestamp="2026-03-01T10:00:00"
    )
    assert len(report.leaf_ids) >= 2
    save_all(memory, FILLER)
    question = "what is the rollback window for the billing cutover?"
    result = memory.search(question)
    assert not result.ambiguous and result.best.leaf_id in report.leaf_ids
    # counted as two candidates, the pieces tie
    monkeypatch.setattr(engine, "_one_per_document", lambda cands: cands)
    assert memory.search(question).ambiguous


def test_entries_of_one_journal_dated_apart_stay_rivals(memory):
    """A journal is stored as one document too, but its entries are separate memories: two
    people called Luis on two dates are still AMBIGUOUS."""
    journal = (
        "22/07/2024\nVacaciones en Benidorm con Luis, mi primo, y su novia Carla.\n\n"
        "30/08/2026\nFin de semana en la playa de El Saler con Luis, mi amigo del rocódromo.\n"
    )
    assert len(memory.ingest_text(journal, source="journal.txt").leaf_ids) == 2
    assert memory.search("Luis").ambiguous


def test_history_cues_in_english_and_spanish():
    for question in (
        "what did we use before the migration?",
        "which editor did she use previously?",
        "where was Marta living back in April?",
        "what was the host at first?",
        "¿qué versión usábamos antes del cambio?",
        "what was the worker concurrency back on Heroku?",
        "which Rails version did we start the project on?",
        "which Go version was the API on last October?",
    ):
        assert asks_history(question), question
    for question in (
        "which editor does she use?",
        "where is redis running now?",
        "is the staging worker back on?",
        "how do I start the project on my laptop?",
        "what is the first step of a release?",
    ):
        assert not asks_history(question), question
    assert months_asked("how long did the job take back in March?") == {3}
    assert months_asked("the May migration") == set()


# --------------------------------------------------------------------- passages and notes


RUNBOOK = "\n".join(
    ["# Production on-call runbook", "", "Owner: the platform team."]
    + [f"Step {i}: look at dashboard panel {i} and note the figures." for i in range(1, 60)]
    + ["## Replication lag", "Fires when replication lag on the replica exceeds 30 seconds."]
    + [f"Appendix line {i} with nothing of note." for i in range(1, 40)]
)


def test_a_long_memory_answers_with_the_stretch_that_matches():
    passage = best_passage(RUNBOOK, "what is the replication lag alert threshold?")
    assert not passage.whole
    assert "exceeds 30 seconds" in passage.text
    assert passage.text.startswith("# Production on-call runbook")
    assert "Step 1:" not in passage.text and len(passage.text) < 1200


def test_the_words_of_the_title_do_not_pick_the_stretch_shown():
    """The title is shown above any stretch: "lake migration" in it says nothing about where
    the pre-copy's command is, so the stretch holding the question's other words is shown."""
    plan = "\n".join(f"Step {n}: check the quota of bucket {n} with its owner." for n in range(30))
    doc = (
        "# Data lake migration: MinIO to Ceph\n\n## Why\n"
        "The lake migration uses rclone; the object counts came from rclone size.\n\n"
        "## Plan\n" + plan + "\n\n### Pre-copy\n"
        "rclone sync minio:raw rgw:raw --checksum --transfers 32\n\n## Afterwards\n" + plan
    )
    passage = best_passage(doc, "What rclone flags did the lake migration pre-copy use?")
    assert passage.text.startswith("# Data lake migration")
    assert "--checksum --transfers 32" in passage.text


def test_a_line_elsewhere_holding_the_words_the_stretch_lacks_is_shown_after_it():
    """The setup section gathers "pau", "port" and "postgres"; only one line far below says
    "tunnel", and it holds the answer: it is shown after the stretch, which says its number."""
    setup = "\n".join(
        [
            "## Setup",
            "Pau logs in on port 2222 with his own key; port 22 is closed.",
            "PostgreSQL 16 listens on port 5432 and only on localhost.",
            "Pau owns the database role tinaja_app; the port stays closed in ufw.",
        ]
        + [f"Step {n}: copy file {n} and compare its checksum with Pau." for n in range(40)]
    )
    doc = (
        "# Runbook: moving production to vps-02\n"
        + setup
        + "\n## Day to day\n"
        + "\n".join(f"- check backup {n} in the morning." for n in range(30))
        + "\n- tunnel: ssh -N -L 5433:127.0.0.1:5432 deploy@vps-02\n"
    )
    passage = best_passage(doc, "What local port does Pau use for the Postgres tunnel?")
    assert "5433:127.0.0.1" in passage.text
    assert "Pau logs in on port 2222" in passage.text  # the stretch is the setup section
    assert (
        passage.also_line
        == doc.strip("\n")
        .split("\n")
        .index("- tunnel: ssh -N -L 5433:127.0.0.1:5432 deploy@vps-02")
        + 1
    )


def test_the_compact_answer_shows_the_passage_and_where_the_rest_is(memory):
    save_all(memory, FILLER)
    memory.ingest_text(RUNBOOK, source="runbooks/oncall.md", timestamp="2026-03-09T10:00:00")
    answer = compact_answer(memory.search("replication lag threshold on the replica"))
    best = answer.split("OTHER MATCHES")[0]
    assert "exceeds 30 seconds" in best and "Step 1:" not in best
    assert "the full text is memory L-" in best


def test_a_short_memory_is_shown_whole():
    text = "Redis runs on cache-01.internal:6379."
    assert best_passage(text, "where is redis").text == text


def test_words_no_memory_contains_are_named(memory):
    save_all(memory, FILLER + [("2026-03-05", "Luis Ortega is the CTO and co-founder.")])
    result = memory.search("what is Luis Ortega's birthday?")
    assert result.missing_words == ["birthday"]
    if not result.not_found:
        assert 'NOTE: no memory contains "birthday"' in compact_answer(result)


@pytest.mark.parametrize(
    "question",
    ["redis", "what is the", "x" * 2000, "где сервер базы данных", "🚀🔥", "¿?", "a " * 1000],
)
def test_bad_questions_get_an_answer_or_a_clear_not_found(memory, question):
    save_all(memory, FILLER)
    result = memory.search(question)
    text = compact_answer(result)
    assert text.startswith(("BEST", "NOT FOUND", "AMBIGUOUS"))


# ------------------------------------------------------------------------- facts over time


def test_a_less_precise_value_neither_supersedes_nor_is_superseded(memory):
    memory.save("The production database is PostgreSQL 15.4.", timestamp="2026-03-01T10:00:00")
    later = memory.save(
        "Runbook: the production database is PostgreSQL; restart it with systemctl.",
        timestamp="2026-04-01T10:00:00",
    )
    assert later.notices == [] and memory.notices() == []
    change = memory.save(
        "The production database is PostgreSQL 16.2 now.", timestamp="2026-05-01T10:00:00"
    )
    assert change.notices == [
        "On 2026-03-01 you said production database = 'PostgreSQL 15.4', "
        "but on 2026-05-01 you updated to 'PostgreSQL 16.2'."
    ]


def test_facts_in_the_agents_words_are_tracked(memory):
    assert memory.save("The user lives in Madrid.", timestamp="2026-02-01T10:00:00").facts == [
        "user::location = Madrid"
    ]
    moved = memory.save("The user moved to Sevilla in June.", timestamp="2026-06-01T10:00:00")
    assert moved.facts == ["user::location = Sevilla"] and moved.notices
    assert memory.save("El usuario se ha mudado a Valencia.").facts == ["user::location = Valencia"]


def test_the_newest_telling_of_the_value_in_force_answers(memory):
    """Two memories tell of one home, a month apart: the later telling answers, and a move
    told in the present tense is a move."""
    first, later = save_all(
        memory,
        FILLER
        + [
            ("2026-05-14", "Marta se ha mudado a Sevilla; la mudanza fue el fin de semana."),
            ("2026-06-15", "Marta vive en Sevilla (Triana) y trabaja en remoto desde allí."),
        ],
    )[-2:]
    assert memory.search("which city does Marta live in?").best.leaf_id == later
    plan = memory.save("Lucía se muda a Cádiz en julio.", timestamp="2026-06-20T10:00:00")
    assert plan.facts == ["lucia::location = Cádiz"]
    # a place some names carry an article in
    city = memory.save("Alejandro se mudó a la Ciudad de México.", timestamp="2026-07-01T10:00:00")
    assert [fact.split(" (")[0] for fact in city.facts] == [
        "alejandro::location = Ciudad de México"
    ]
    there = memory.save("Diego vive en la Región de Murcia.", timestamp="2026-07-02T10:00:00")
    assert there.facts and there.facts[0].startswith("diego::location = Región de Murcia")


def test_a_question_about_before_with_only_the_value_now_tracked_goes_by_words(memory):
    """The tracker knows Javier's new city only; his earlier home is in words it does not read
    as a fact, and a question about February must reach it rather than the new city."""
    before, moved = save_all(
        memory,
        FILLER
        + [
            ("2026-02-03", "Javier lives near the office, in a flat in Gràcia; he walks to work."),
            ("2026-06-20", "Javier moved to Valencia in June; he now works remotely."),
        ],
    )[-2:]
    assert memory.search("where did Javier live in February?").best.leaf_id == before


def test_before_a_linked_correction_answers_with_the_corrected_memory(memory):
    old = memory.save("2026-03-02: staging is on PostgreSQL 16; the team knows it.").leaf_ids[0]
    memory.save("My cousin Luis came to Benidorm with us in July 2024.")
    new = memory.save(
        "2026-11-20: staging is on PostgreSQL 17 now; the upgrade went fine.",
        replaces="staging PostgreSQL 16",
    )
    assert new.replaced_id == old
    before = memory.search("which postgres version was staging on before the upgrade?")
    assert before.hits[0].leaf_id == old
    now = memory.search("which postgres version is staging on?")
    assert now.hits[0].leaf_id == new.leaf_ids[0]


def test_a_fact_answered_from_the_timeline_names_no_missing_words(memory):
    memory.save("2026-03-02: staging is on PostgreSQL 16.")
    result = memory.search("which database runs staging")
    assert "PostgreSQL 16" in result.best.content and result.missing_words == []


def test_a_question_about_before_needs_few_of_the_newer_memorys_words(memory):
    """The newer memory names the change the question asks about ("the upgrade"); the older
    one, which holds fewer of the question's words, still answers "before"."""
    save_all(memory, FILLER)
    old, new = save_all(
        memory,
        [
            ("2026-03-10", "Staging runs PostgreSQL 15.4 on db-stg-01."),
            ("2026-06-20", "Staging now runs PostgreSQL 16.2 after the upgrade weekend."),
        ],
    )
    before = memory.search("which postgres version was staging on before the upgrade")
    assert before.hits[0].leaf_id == old
    assert memory.search("which postgres version is staging on now").hits[0].leaf_id == new


def test_an_earlier_memory_answers_before_even_when_the_change_note_uses_other_words(memory):
    """The change note ("launched … behind the flag") shares no subject words beyond the
    product's name with the original plan, so the two are not one restated fact; asked about
    the original date, the earlier memory about the same subject answers all the same."""
    save_all(memory, FILLER)
    plan, live = save_all(
        memory,
        [
            ("2026-03-19", "Dispatch v2 must ship by 15 May 2026 for the pilot customer."),
            (
                "2026-06-09",
                "Dispatch v2 shipped to production on 9 June behind the feature flag; "
                "the ship date slipped by four weeks.",
            ),
        ],
    )
    result = memory.search("what was the original ship date for dispatch v2?")
    assert [h.leaf_id for h in result.hits[:2]] == [plan, live]
    now = memory.search("when did dispatch v2 ship to production?")
    assert now.hits[0].leaf_id == live


def test_a_later_memory_telling_of_a_change_answers_the_present_in_other_words(memory):
    """Old and new value share only the question's words ("Celery gps workers
    concurrency"); the newer one says it changed ("bumped"), so it answers now."""
    save_all(memory, FILLER)
    old, new = save_all(
        memory,
        [
            ("2026-03-13", "Celery gps workers run prefork with --concurrency=4, 3 replicas."),
            (
                "2026-05-28",
                "Celery gps workers bumped: they run with --concurrency=8 since the queue "
                "backed up at the morning peak.",
            ),
        ],
    )
    result = memory.search("what concurrency do the gps Celery workers run with?")
    assert not result.ambiguous
    assert [h.leaf_id for h in result.hits[:2]] == [new, old]


def test_a_later_memory_lacking_the_asked_word_and_telling_no_change_does_not_answer(memory):
    """The later memory names the demo but not where it is hosted, and says nothing changed:
    it is another fact about the subject, not a new value of this one."""
    save_all(memory, FILLER)
    hosted, later = save_all(
        memory,
        [
            ("2026-07-30", "horta-ml demo is hosted on Fly.io (app horta-demo, region mad)."),
            (
                "2026-09-05",
                "horta-ml demo: farmers log in to the app horta-demo with their cooperative "
                "account.",
            ),
        ],
    )
    result = memory.search("where is the horta-ml demo hosted?")
    assert [h.leaf_id for h in result.hits[:2]] == [hosted, later]
    assert not result.hits[0].outdated


CALLS = [
    ("2026-03-05", "The support call rota lives on the wiki; one call per day each."),
    ("2026-03-05", "Sales call notes go in HubSpot after every call."),
]


def test_a_later_change_to_the_same_subject_in_other_words_answers_the_present(memory):
    """The old memory calls it the "weekly sync", the new one the "sync call" that is "now on
    Tuesdays": they share only part of the question's words, but the later one tells of a
    change, gives the time asked and keeps the subject's other words (Montevideo time,
    Arcadia Norte), so it is the new value and the old one is history, not a rival. ("call"
    is a common word in this store and "weekly" a rare one, so the old memory leads on words.)"""
    save_all(memory, FILLER + CALLS)
    old, new = save_all(
        memory,
        [
            (
                "2026-03-06",
                "Weekly sync with Arcadia Norte: Thursdays 10:00 Montevideo time (14:00 Madrid), "
                "Google Meet, 30 minutes. Lucía and Florencia attend the weekly sync.",
            ),
            (
                "2026-05-07",
                "The Arcadia Norte sync call is now on Tuesdays at 11:00 Montevideo time "
                "(16:00 Madrid), starting May 12.",
            ),
        ],
    )
    result = memory.search("when is the weekly call with Arcadia Norte?")
    assert not result.ambiguous and not result.not_found
    assert [h.leaf_id for h in result.hits[:2]] == [new, old]


def test_a_later_change_to_another_call_with_the_subject_leaves_the_answer_alone(memory):
    """A later memory about another call with the same partner tells of a change and gives
    a time, but keeps none of the weekly sync's other words (Montevideo time, Google Meet,
    who attends): it is another fact about the partner, and the weekly sync still answers."""
    save_all(memory, FILLER + CALLS)
    call, _ = save_all(
        memory,
        [
            (
                "2026-03-06",
                "Weekly sync with Arcadia Norte: Thursdays 10:00 Montevideo time (14:00 Madrid), "
                "Google Meet, 30 minutes. Lucía and Florencia attend the weekly sync.",
            ),
            (
                "2026-05-07",
                "The Arcadia Norte billing call is now on the 5th of each month at 09:00.",
            ),
        ],
    )
    result = memory.search("when is the weekly call with Arcadia Norte?")
    assert result.hits[0].leaf_id == call and not result.hits[0].outdated


def test_a_later_value_of_the_shape_asked_answers_though_it_holds_fewer_words(memory):
    """The old memory says "Viñas", "Go", "build" and "services" again and again and scores
    more than twice the new one, which says "Go 1.22 now". The new one gives the shape asked
    (a version of Go) and tells of a change, so it is the fact's new value."""
    save_all(memory, FILLER)
    # "services" and "build" are common words in this store, as in any team's notes
    save_all(
        memory,
        [
            ("2026-01-01", "The billing services build nightly."),
            ("2026-01-02", "The search services build nightly."),
        ],
    )
    old, _, new = save_all(
        memory,
        [
            (
                "2026-01-22",
                "Viñas Go services build with Go 1.21 (go.mod: go 1.21); the Viñas "
                "services build in CI with Go and golangci-lint v1.55; Go builds of the Viñas "
                "services are cached.",
            ),
            ("2026-02-09", "Go conventions on the Viñas services: wrap errors with %w."),
            ("2026-03-19", "Viñas repos are on Go 1.22 now (go.mod and the golang builder image)."),
        ],
    )
    result = memory.search("What Go version do the Viñas services build with?")
    assert result.hits[0].leaf_id == new
    assert old in [h.leaf_id for h in result.hits[1:]]


def test_before_a_linked_correction_answers_with_the_old_memory_however_few_words_it_holds(
    memory,
):
    """The correction holds the question's words ("address", "behind SSO"); the memory it
    replaced holds only "Grafana" and scores a fifth of it. The explicit link makes them one
    fact, so the question about before is answered by the old memory."""
    save_all(memory, FILLER)
    save_all(memory, [("2026-03-02", "Grafana alerting posts to the #alerts channel.")])
    old = memory.save(
        "Grafana is at http://grafana.rf.internal:3000 (VPN only). Main dashboards: "
        "'Dispatch API', 'Celery queues', 'Postgres'.",
        timestamp="2026-03-11T10:00:00",
    ).leaf_ids[0]
    new = memory.save(
        "Grafana moved to https://grafana.rutafleet.io behind Google SSO, no VPN needed; the "
        "address is the same for everyone and SSO groups decide who sees which dashboard.",
        replaces="Grafana URL",
        timestamp="2026-06-18T10:00:00",
    )
    assert new.replaced_id == old
    result = memory.search("what was the Grafana address before we put it behind SSO?")
    assert result.hits[0].leaf_id == old


def test_before_a_change_answers_with_an_older_memory_far_down_the_list(memory):
    """ "what was the Redis host before the May migration?": the migration note and the
    runbook hold every word of it; the memory of the old host holds only "Redis" and ranks
    below many others about Redis. The leader tells of a change, so one more look among
    older memories finds the state before it."""
    save_all(memory, FILLER)
    old = save_all(
        memory,
        [
            (
                "2026-03-04",
                "Production Redis is a single VM, redis-01.rf.internal:6379; it is "
                "both the Celery broker and the Django cache.",
            ),
        ],
    )[0]
    save_all(
        memory,
        [
            (
                f"2026-03-1{day}",
                f"Redis tip {day}: the Redis CLI on laptops talks to Redis in "
                "Docker, never to production Redis.",
            )
            for day in range(6)
        ],
    )
    new = save_all(
        memory,
        [
            (
                "2026-05-12",
                "Redis migration done (12 May): the Celery broker now runs on host "
                "redis-prod-02.rf.internal:6379; the Django cache moved with it.",
            ),
        ],
    )[0]
    result = memory.search("what was the Redis host before the May migration?")
    assert [h.leaf_id for h in result.hits[:2]] == [old, new]
    assert not result.ambiguous


def test_before_a_change_the_subject_is_what_was_used_not_the_verb(memory):
    """ "what did we use for paging before PagerDuty?": the subject is paging; "use" is in
    every question about before and told no memory apart, yet, rarer than "page" here, it
    was the one word the state before the change had to hold."""
    save_all(memory, FILLER)
    old = save_all(
        memory,
        [
            (
                "2026-01-14",
                "Alerting goes through Opsgenie; the platform schedule is called "
                "'platform-primary'. Critical alerts page by phone.",
            ),
        ],
    )[0]
    save_all(memory, [("2026-02-01", "We use Renovate for dependency updates.")])
    new = save_all(
        memory,
        [
            (
                "2026-02-17",
                "Alerting moved to PagerDuty; escalation goes Jonas -> Marta -> Oriol. The "
                "old tool's subscription ends Feb 28.",
            )
        ],
    )[0]
    save_all(
        memory,
        [
            ("2026-03-01", "The status page lives on Instatus; Marta updates the status page."),
            ("2026-03-05", "Every page gets a one-line note in #alerts-platform."),
        ],
    )
    result = memory.search("what did we use for paging before PagerDuty?")
    assert [h.leaf_id for h in result.hits[:2]] == [old, new]


def test_before_a_change_a_name_split_in_parts_needs_only_the_parts_memories_hold(memory):
    """ "NetCDFs" is read as netcdf, net, cd, fs; no memory holds "cd" or "fs", so the state
    before the move was never found."""
    save_all(memory, FILLER)
    old = save_all(
        memory,
        [
            (
                "2025-09-09",
                "After each run the final NetCDF files are copied to the lab NAS at "
                "nas-01.lab.local:/volume1/clima/andes-processed.",
            )
        ],
    )[0]
    save_all(
        memory,
        [
            (f"2025-10-0{day}", f"Run {day} of the pipeline wrote its NetCDF output on time.")
            for day in range(1, 7)
        ],
    )
    new = save_all(
        memory,
        [
            (
                "2025-11-06",
                "Final products now go to the MinIO object store at s3.clima.local:9000, "
                "bucket andes-processed. The NAS copy step was dropped from the pipeline.",
            )
        ],
    )[0]
    result = memory.search("where did the final NetCDFs go before we had MinIO?")
    assert [h.leaf_id for h in result.hits[:2]] == [old, new]


def test_a_clue_describing_the_person_picks_the_memory_naming_them_in_full(memory):
    """ "Ana from SRE": the answer says "Ana Beltrán is on holiday" and never "SRE"; another
    memory ("Ana Beltrán (SRE) prefers Slack DMs") tells which Ana that is. Before, the clue
    lifted the memories holding "Ana" and "SRE" over the answer and the question ended NOT
    FOUND; now the surname joins the clue and the holiday memory answers."""
    save_all(memory, FILLER)
    ids = save_all(
        memory,
        [
            ("2026-01-10", "Platform/SRE team: Marc Puig (lead), Ana Beltrán, Pau Roca, Nerea."),
            ("2026-01-16", "Ana Beltrán (SRE) prefers Slack DMs to calls before 9:30."),
            ("2026-01-19", "Ana Kowalski is the product manager for the ledger service."),
            ("2026-02-17", "Ana Beltrán is on holiday 23-27 March; Pau covers Vault."),
            ("2026-03-02", "Ana Kowalski is on holiday 6-10 April, back for the ledger review."),
        ],
    )
    result = memory.search("When is Ana on holiday?", clue="Ana from SRE")
    assert not result.not_found and not result.ambiguous
    assert result.best.leaf_id == ids[3]


def test_a_clue_makes_a_memory_sharing_one_common_word_with_the_question_an_answer(memory):
    """ "how long do we keep the logs?" shares only "logs" with the memory about CloudFront's,
    and many memories speak of logs: alone that is a stray match. The clue the agent gives
    after AMBIGUOUS ("the CloudFront access logs") says the memory is the one meant."""
    save_all(memory, FILLER)
    ids = save_all(
        memory,
        [
            ("2026-02-01", "CloudFront access logs land in the S3 bucket cdn-logs for 30 days."),
            ("2026-02-02", "Application logs go to Loki on mon-01; retention is 14 days."),
            ("2026-02-03", "Nginx error logs are rotated by logrotate every night."),
            ("2026-02-04", "The deploy script writes its logs to /var/log/deploy.log."),
            ("2026-02-05", "Worker logs are JSON lines with a request_id field."),
            ("2026-02-06", "Keep pull requests small; long ones wait for Marta."),
            ("2026-02-07", "Long builds go to the big runner; keep the small one free."),
            ("2026-02-08", "We keep one long-lived branch per release."),
        ],
    )
    result = memory.search("how long do we keep the logs?", clue="the CloudFront access logs")
    assert not result.not_found and not result.ambiguous, result.reason
    assert result.best.leaf_id == ids[0]


def test_a_clue_links_no_surname_when_the_memories_disagree():
    from ihmt.search.clue import linked_name_terms
    from ihmt.search.navigator import Candidate
    from ihmt.text.tokenize import term_counts

    def cand(text):
        return Candidate({"id": text[:8], "tf": term_counts(text)}, [], 1.0), text

    one = [cand("Ana Beltrán (SRE) prefers Slack DMs.")]
    two = one + [cand("Ana Kowalski joined the SRE rota in May.")]
    content = {c.ref["id"]: text for c, text in two}
    read = lambda c: content[c.ref["id"]]  # noqa: E731
    clue = ["sr"]
    assert linked_name_terms("When is Ana on holiday?", clue, [c for c, _ in one], read) == [
        "beltran"
    ]
    assert linked_name_terms("When is Ana on holiday?", clue, [c for c, _ in two], read) == []


@pytest.mark.parametrize(
    "text",
    [
        "Default retention cut to 60 days after matter closure.",
        "The beta milestone slipped to September 29.",
        "The trial was extended by two weeks.",
        "Go-live postponed to 6 July.",
        "Noor Hassan took over the recommendations service.",
        "Today was Diego Sosa's last day.",
        "Cambiamos la sonda de humedad del lote PVT.",
        "Migramos el backend de Heroku a Hetzner.",
        "Starting with 5.14, code freeze is Thursday at noon.",
        "A partir del lunes el daily pasa a las 9:15.",
        "From June Pablo Ruiz joins Sergio on clause extraction.",
        "Irene Campos is the new technical lead on our contract.",
        "From then on Joaquín Beltrán is the rankd owner.",
        "Rosa from reception is the contact for the booking site meanwhile.",
        "tinta 0.15 replaces Tera with MiniJinja 2.",
        "portal.osarea.eus certificate renewed (Sectigo OV again).",
        "Desde el 1 de junio la directora del CCC es la Dra. Arancibia.",
        "El piloto de Porto se amplía a 6 robots.",
        "From release 7.2 onwards builds are signed on the CI runner.",
        "Marta is first on call from 3 March; Joel is backup.",
        "Irene has taken over the billing repo.",
        "The app store launch was pushed to 12 May.",
        "The nightly suite is back up to about 40 minutes.",
        "Release 3.2 raises the offline photo cache to 500 photos.",
        "The prod database was patched to 8.0.41 on Sunday.",
        "The courier rate goes up to 4.20 EUR per parcel from March.",
        "Marta deja el equipo de datos a finales de mayo.",
        "Su sustituto como responsable del ETL es Pablo Gil.",
        "Nueva meta del trimestre: 99,5 % de sesiones sin errores.",
        # someone writing down what they just did, in the first person
        "Actualicé k3s a v1.30.6 en los tres nodos; sin downtime.",
        "Migré el bucket de grabaciones a la cuenta nueva.",
        "Cambié el puerto del exporter al 9101.",
    ],
)
def test_words_telling_of_a_change(text):
    from ihmt.search.restatement import tells_change

    assert tells_change(text)
    assert not tells_change("Default retention: contracts are deleted 90 days after closure.")
    assert not tells_change("Gonzalo Ferrer is the CCC director and signs off policy changes.")
    # a subjunctive is no past change: "cuando cambie" is "when it changes"
    assert not tells_change("Avisar a Marta cuando cambie el proveedor de SMS.")


def _ranked_now(*memories: tuple[str, str, float, str]):
    """Candidates in the order given, each (id, date, score over the leader's, text)."""
    texts = {leaf_id: text for leaf_id, _, _, text in memories}
    ranked = []
    for leaf_id, date, share, _ in memories:
        cand = Candidate({"id": leaf_id, "date": date, "source": "memory"}, [], share)
        cand.adjusted = share
        ranked.append(cand)
    return ranked, lambda cand: texts[cand.ref["id"]]


OLD_KIOSKS = ("old", "2026-01-10", 1.0, "Agnes Lund looks after the Harbour kiosks.")
QUIET_KIOSKS = ("quiet", "2026-02-14", 0.6, "The Harbour kiosks were cleaned in February.")
NEWS_KIOSKS = ("news", "2026-05-02", 0.5, "Agnes left; Tom Reyes keeps the Harbour kiosks now.")


def test_a_question_about_now_gets_the_later_news_over_the_full_old_statement():
    """The old memory leads on the question's words; a later one just below it that tells of
    a change answers a question about now. One that only mentions the thing does not."""
    ranked, read = _ranked_now(OLD_KIOSKS, QUIET_KIOSKS, NEWS_KIOSKS)
    assert [c.ref["id"] for c in prefer_news(ranked, {}, read)] == ["news", "old", "quiet"]
    ranked, read = _ranked_now(OLD_KIOSKS, QUIET_KIOSKS)
    assert [c.ref["id"] for c in prefer_news(ranked, {}, read)] == ["old", "quiet"]


@pytest.mark.parametrize(
    "news",
    [
        ("news", "2026-05-02", 0.2, NEWS_KIOSKS[3]),  # far below the leader
        ("news", "2025-11-02", 0.5, NEWS_KIOSKS[3]),  # older than the leader
        ("news", "2026-05-02", 0.5, "Tom Reyes keeps the Harbour kiosks."),  # tells no change
    ],
)
def test_news_that_is_weak_older_or_no_news_leaves_the_leader(news):
    ranked, read = _ranked_now(OLD_KIOSKS, news)
    assert prefer_news(ranked, {}, read)[0].ref["id"] == "old"


def test_a_replaces_link_counts_as_news_and_a_corrected_memory_never_answers_now():
    plain = ("fix", "2026-05-02", 0.5, "Tom Reyes keeps the Harbour kiosks.")
    ranked, read = _ranked_now(OLD_KIOSKS, plain)
    assert prefer_news(ranked, {"old": "fix"}, read)[0].ref["id"] == "fix"
    ranked, read = _ranked_now(OLD_KIOSKS, NEWS_KIOSKS)
    assert prefer_news(ranked, {"news": "later"}, read)[0].ref["id"] == "old"


def test_a_named_persons_move_answers_where_they_live_now(memory):
    """ "Marisol moved to Atlántida" shares only her name with the question; the timeline
    knows marisol::location changed, so it answers, and the old home follows as history."""
    save_all(memory, FILLER)
    old, new = save_all(
        memory,
        [
            ("2026-04-08", "Marisol lives in Parque Rodó, ten minutes by bike from the office."),
            ("2026-08-03", "Marisol moved to Atlántida (Canelones) over the weekend."),
        ],
    )
    result = memory.search("where does Marisol live now?")
    assert [h.leaf_id for h in result.hits[:2]] == [new, old]
    assert not result.ambiguous and not result.not_found
    before = memory.search("where did Marisol live before she moved?")
    assert before.hits[0].leaf_id == old


def test_two_people_of_one_first_name_keep_two_homes(memory):
    luis_o, luis_p = save_all(
        memory,
        [
            ("2026-02-01", "Luis Ortega lives in Gijón and comes in on Mondays."),
            ("2026-06-01", "Luis Pardo moved to Lugo in May."),
        ],
    )
    assert memory.search("which city does Luis Ortega live in?").hits[0].leaf_id == luis_o
    assert not memory.search("which city does Luis Ortega live in?").hits[0].outdated


def test_old_and_new_value_are_one_fact_whichever_of_them_leads():
    """The newer memory leads on its words ("app-movil upgraded to React Native 0.75.4")
    and the older states the old value with no other word in common ("is on ... 0.73.6
    with Hermes"): the later one tells of a change, so they are one fact over time (the
    newer answers, the older is history), not two rivals for AMBIGUOUS."""
    from ihmt.search.navigator import Candidate
    from ihmt.search.query import parse_query
    from ihmt.search.restatement import order_by_time
    from ihmt.text.tokenize import term_counts

    texts = {
        "new": ("2026-09-16", "app-movil upgraded to React Native 0.75.4 without Fabric yet."),
        "old": ("2026-05-14", "app-movil is on React Native 0.73.6 with Hermes enabled."),
    }
    query = parse_query("what React Native version is app-movil on?")
    cands = []
    for leaf_id, (date, text) in texts.items():
        tf = term_counts(text)
        ref = {"id": leaf_id, "date": date, "tf": tf, "source": "memory"}
        cand = Candidate(ref, ["root", leaf_id], 1.0)
        cand.matched, cand.adjusted, cand.coverage = set(query.terms) & set(tf), 1.0, 1.0
        cands.append(cand)
    idf = {t: 1.0 for t in query.terms}
    ranked = order_by_time(cands, query, idf, False, {}, {}, lambda c: texts[c.ref["id"]][1])
    assert ranked[0].ref["id"] == "new"
    assert getattr(ranked[1], "restated", False)


def test_an_ip_address_is_not_a_version():
    from ihmt.search.answer_type import holds_shape, shapes_asked, subject_terms

    question = "Which Proxmox version is pve01 running?"
    shapes, subject = shapes_asked(question), subject_terms(question)
    assert holds_shape("pve01 upgraded to Proxmox VE 8.2 (kernel 6.8).", shapes, subject)
    ip_only = "After the move the LAN is 192.168.50.0/24; pve01 is 192.168.50.10 in Proxmox."
    assert not holds_shape(ip_only, shapes, subject)


@pytest.mark.parametrize("prior", ["default", "none"])
def test_a_saved_memory_goes_before_a_runbook_piece_that_matches_as_well(
    memory, monkeypatch, prior
):
    """A runbook section repeating the question's words used to beat the short memory that
    states the answer; at a close match the fact the agent saved on purpose leads."""
    import ihmt.search.engine as engine

    if prior == "none":
        monkeypatch.setattr(engine, "DOCUMENT_PRIOR", 1.0)
        # the control isolates the prior: the fitted ordering step also prefers the memory,
        # and so do the words a port goes with in answers ("internal": search/expansion.py)
        monkeypatch.setattr("ihmt.search.order_trees.LEXICAL", ())
        monkeypatch.setattr("ihmt.search.expansion._table", lambda: {})
    save_all(
        memory,
        [
            ("2026-03-01", "Staging Redis: cache-02.internal, port 6380 (no persistence)."),
            ("2026-03-02", "Production Redis runs on cache-01.internal."),
            ("2026-03-02", "The staging database is PostgreSQL 16."),
        ],
    )
    memory.ingest_text(
        "# Redis on staging\n\nWhen the staging Redis port is busy, restart the staging Redis "
        "from the ops box; the staging Redis port is in the ops wiki.",
        source="runbooks/cache.md",
        timestamp="2026-02-03T10:00:00",
    )
    result = memory.search("which port is the staging Redis on?")
    sources = [hit.source for hit in result.hits[:2]]
    # without the prior the runbook's repetitions win: the test depends on it
    expected = (
        ["memory", "runbooks/cache.md"] if prior == "default" else ["runbooks/cache.md", "memory"]
    )
    assert sources == expected


def test_a_memory_corrected_on_another_point_still_answers_the_shape_it_holds(memory):
    """A later memory changed how long the bags are kept, not where the bucket is: the first
    one still answers "which host", though it says "on storage-01" and never "host"."""
    save_all(memory, FILLER)
    (old,) = save_all(
        memory,
        [
            (
                "2026-03-23",
                "Field rosbags are uploaded every night to the MinIO bucket field-bags on "
                "storage-01 and kept for 14 days.",
            )
        ],
    )
    memory.save(
        "Field rosbags in field-bags are now kept 30 days, because Lucía needs a month of "
        "evidence for the safety file.",
        replaces="field rosbag retention",
        timestamp="2026-07-09T09:00:00",
    )
    result = memory.search("which host is the field-bags MinIO bucket on?")
    assert not result.not_found and not result.ambiguous
    assert result.best.leaf_id == old and not result.best.outdated
    # ... while the question the correction answers gets the correction
    kept = memory.search("how long are the field-bags rosbags kept?")
    assert kept.best.leaf_id != old


def test_a_later_hand_over_answers_who_owns_it(memory):
    """ "took over" tells of a change as "now" does: the owner before it is history."""
    save_all(memory, FILLER)
    old, new = save_all(
        memory,
        [
            ("2026-03-02", "Ravi owns the OCR pipeline and is the first reviewer for its PRs."),
            ("2026-07-14", "From July Noor takes over as owner of the OCR pipeline."),
        ],
    )
    result = memory.search("who owns the OCR pipeline now?")
    assert not result.ambiguous and not result.not_found
    assert [h.leaf_id for h in result.hits[:2]] == [new, old]


def test_a_later_change_sharing_one_word_of_the_question_is_another_fact(memory):
    """ "provider" reads as "vendor" too, and the CI note names Composer's vendor directory:
    one word of the question and little else in common make no new value of the SMS
    provider, however much the CI note tells of a change."""
    dated = [
        ("2026-03-01", "Lunch on Fridays is at 13:00 in the small meeting room."),
        ("2026-03-02", "The design team reviews mockups in Figma every Tuesday."),
        ("2026-03-03", "Invoices are sent at the end of the month."),
        (
            "2026-04-09",
            "SMS provider switched from Twilio to Esendex (UK-based, invoices in GBP, charity "
            "discount). New code in app/Services/Sms/EsendexSender.php.",
        ),
        ("2026-04-20", "SMS reminders go out at 18:00 the evening before each shift."),
        ("2026-04-21", "Volunteers get an SMS when a shift is cancelled."),
        ("2026-04-22", "SMS opt-out replies (STOP) are honoured within the hour."),
        ("2026-04-23", "The SMS template for new volunteers includes the pantry address."),
        ("2026-04-24", "Coordinators can resend a reminder SMS from the shift page."),
        (
            "2026-05-04",
            "The CI test job now takes about 3 minutes, after caching Composer's vendor "
            "directory and running the MySQL service container on tmpfs.",
        ),
    ]
    ids = save_all(memory, dated)
    result = memory.search("which SMS provider are we on these days?")
    assert not result.not_found and not result.ambiguous
    assert [hit.leaf_id for hit in result.hits[:2]] == [ids[3], ids[9]]


def test_before_a_change_an_older_memory_already_naming_the_new_state_is_not_the_answer():
    """ "which provider sent appointment reminders before we switched to Zalo?": the note of
    the switch ("reminders now go through Zalo") is older than the leader and scores above the
    first note, but it names what the question says came after; the state before the change
    is the older memory that does not."""
    question = "which provider sent appointment reminders before we switched to Zalo?"
    query = parse_query(question)
    held = {
        "lead": {"appointment", "reminder", "sent", "zalo"},
        "switch": {"appointment", "reminder", "zalo"},
        "first": {"appointment", "reminder", "sent"},
    }
    ranked = []
    for leaf_id, date, score in (
        ("lead", "2026-01-22", 1.0),
        ("switch", "2026-01-21", 0.9),
        ("first", "2025-10-15", 0.6),
    ):
        cand = Candidate({"id": leaf_id, "date": date, "source": "memory"}, [], score)
        cand.adjusted = score
        cand.matched = held[leaf_id]  # question terms: vendor, sent, appointment, reminder...
        ranked.append(cand)
    idf = dict.fromkeys(query.terms, 1.0)
    assert [c.ref["id"] for c in prefer_earlier(ranked, query, idf)] == ["first", "lead", "switch"]
    # without the switch in the window, the older note it replaced answers as before
    assert prefer_earlier([ranked[0], ranked[2]], query, idf)[0].ref["id"] == "first"


def test_a_later_value_in_the_present_tense_answers_now(memory):
    """ "Release 3.2 raises the offline cache to 500 photos" tells of a change as surely as
    "was raised": the question about now gets it, not the older limit it matches better."""
    ids = save_all(
        memory,
        [
            ("2026-01-05", "The field app keeps up to 200 photos in its offline cache."),
            ("2026-01-06", "Lunch on Fridays is at 13:00 in the small meeting room."),
            ("2026-01-07", "The design team reviews mockups in Figma every Tuesday."),
            ("2026-03-02", "Release 3.2 raises the offline photo cache to 500 photos."),
        ],
    )
    result = memory.search("how many photos does the field app keep in its offline cache?")
    assert not (result.not_found or result.ambiguous)
    assert result.best.leaf_id == ids[-1]
