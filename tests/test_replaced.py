"""``save(..., replaces="...")`` links the memory the new one corrects, chosen by the agent's
short pointer and by the new memory's own words and values (search/replaced.py).

The pointer alone ("Vault version") often fits several memories; the new text ("Vault
upgraded to 1.17.3") shares its subject's rare words and the kind of value with the one it
corrects. A stored document is never linked unasked, and a memory dated after the new one is
no earlier value of it.
"""

from __future__ import annotations

import pytest

import ihmt.search.replaced as replaced
from tests.test_answers import save_all

VAULT = [
    ("2026-01-14", "Vault 1.15.6 runs as a 3-node cluster with Raft storage at vault.internal."),
    ("2026-01-20", "Internal TLS certificates come from Vault PKI (mount pki_int), 30-day TTL."),
    ("2026-02-20", "Services read secrets from Vault through the agent injector annotations."),
]


@pytest.mark.parametrize("weights", ["default", "pointer only"])
def test_the_new_memorys_words_choose_among_memories_the_pointer_fits(memory, monkeypatch, weights):
    if weights == "pointer only":
        monkeypatch.setattr(replaced, "CONTENT_WEIGHT", 0.0)
        monkeypatch.setattr(replaced, "VALUE_WEIGHT", 0.0)
    ids = save_all(memory, VAULT)
    report = memory.save(
        "Vault upgraded to 1.17.3 on the 3-node Raft cluster (rolling, standbys first).",
        replaces="the Vault note",
        timestamp="2026-03-17T10:00:00",
    )
    if weights == "default":
        assert report.replaces_status == "linked"
        assert report.replaced_id == ids[0]
    else:  # every Vault memory fits "the Vault note" alike: no clear choice
        assert report.replaces_status == "candidates"


def test_a_document_is_offered_but_never_linked_unasked(memory):
    memory.ingest_text(
        "# Runbook: Vault operations\n\nVault 1.15.6 runs as a 3-node cluster with Raft "
        "storage. Upgrades are rolling, standbys first; snapshots go to S3 every hour.\n",
        source="runbooks/vault.md",
        timestamp="2026-01-10T10:00:00",
    )
    report = memory.save(
        "Vault upgraded to 1.17.3 (rolling, standbys first); snapshots still hourly to S3.",
        replaces="Vault runbook version",
        timestamp="2026-03-17T10:00:00",
    )
    assert report.replaces_status == "candidates"
    assert report.replaced_id in ("", None)
    assert report.candidates and report.candidates[0]["date"] == "2026-01-10"


def test_a_memory_saved_after_the_new_one_is_no_earlier_value(memory):
    save_all(memory, [("2026-05-01", "The standup moved to 10:00 on Google Meet.")])
    report = memory.save(
        "The standup is at 9:30 on Google Meet.",
        replaces="standup time",
        timestamp="2026-03-01T09:00:00",
    )
    assert report.replaces_status == "not_found"


def test_a_correction_ranks_where_its_old_memory_would_have(memory):
    """The old memory holds the question's words; its correction says the new value in
    other words. Marked OUTDATED, the old one steps back, and its correction takes its rank
    rather than the rank its own words earn."""
    save_all(
        memory,
        [
            ("2026-02-01", "vendima-api (FastAPI) runs on Python 3.11; uv manages dependencies."),
            ("2026-02-02", "Brais is the backend developer (Python, FastAPI, vendima-api)."),
            ("2026-02-03", "Elena runs idf.py size-components before each firmware release."),
        ],
    )
    new = memory.save(
        "vendima-api is now on Python 3.12 (base image python:3.12-slim).",
        replaces="vendima-api Python version",
        timestamp="2026-04-20T10:00:00",
    )
    assert new.replaces_status == "linked"
    result = memory.search("what Python version does vendima-api run?")
    assert result.best.leaf_id == new.leaf_ids[0]


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("Vault upgraded to 1.17.3", {"version"}),
        ("The standup moved to 10:00", {"time"}),
        ("Broker on cache-01.internal:6379", {"port"}),
        ("Nothing but words here", set()),
    ],
)
def test_the_kinds_of_value_a_memory_states(text, kinds):
    assert kinds <= set(replaced.value_shapes(text))
    if not kinds:
        assert not replaced.value_shapes(text) & {"version", "time", "port"}


def test_the_pointer_stays_with_the_new_memory_as_its_label(memory):
    # no earlier memory matches the pointer, and the text shares no word with the question:
    # only the label, the words the agent chose to describe the fact, can find it
    save_all(memory, VAULT)
    report = memory.save(
        "Nightlies now start at 23:30 Montevideo time instead of 02:00.",
        replaces="build schedule",
        timestamp="2026-03-20T10:00:00",
    )
    assert report.replaces_status == "not_found"
    result = memory.search("what's the build schedule?")
    assert not result.not_found
    assert result.best.leaf_id == report.leaf_ids[0]


def test_a_label_adds_only_the_words_the_text_lacks():
    from ihmt.models import MemoryLeaf
    from ihmt.tree.refs import leaf_terms

    def leaf(extra: dict) -> MemoryLeaf:
        text = "Staging runs PostgreSQL 16.2 since the upgrade."
        return MemoryLeaf(
            "l1", text, "2026-01-01T00:00:00", "GENERIC", "general", "memory", 0, extra=extra
        )

    plain = leaf_terms(leaf({}))
    labelled = leaf_terms(leaf({"about": "staging database version"}))
    assert labelled["databas"] == 1 and "databas" not in plain
    assert labelled["stag"] == plain["stag"]  # already in the text: not counted twice
    # a label read from a damaged or hostile leaf file is ignored, not an error
    assert leaf_terms(leaf({"about": ["not", "text"]})) == plain


BACKUPS = [
    (
        "2026-03-18",
        "PostgreSQL backups: pgBackRest nightly full backups plus WAL archiving to the bucket "
        "rf-pg-backups; retention 7 days.",
    ),
    ("2026-03-20", "Redis runs on cache-01.internal:6379 with AOF persistence."),
    ("2026-04-02", "The PostgreSQL 15 upgrade is planned for June; backups checked weekly."),
]


def test_a_memory_corrected_on_something_else_still_answers_what_it_states(memory):
    """The retention changed, not the bucket: the old note answers "which bucket", without
    OUTDATED, and says that part of it was corrected; the correction answers the retention."""
    ids = save_all(memory, BACKUPS)
    new = memory.save(
        "pgBackRest retention for the PostgreSQL backups raised from 7 to 30 days.",
        replaces="PostgreSQL backups retention",
        timestamp="2026-07-28T10:00:00",
    )
    assert new.replaces_status == "linked" and new.replaced_id == ids[0]
    bucket = memory.search("which bucket do the Postgres backups go to?")
    assert bucket.best.leaf_id == ids[0]
    assert not bucket.best.outdated
    assert any("PARTLY CORRECTED" in n for n in bucket.best.notices)
    retention = memory.search("what's the Postgres backup retention now?")
    assert retention.best.leaf_id == new.leaf_ids[0]


def test_a_correction_naming_what_is_asked_answers_it(memory):
    ids = save_all(memory, BACKUPS)
    new = memory.save(
        "PostgreSQL backups now go to the bucket rf-pg-backups-v2 (the old one was full).",
        replaces="PostgreSQL backups bucket",
        timestamp="2026-07-28T10:00:00",
    )
    assert new.replaced_id == ids[0]
    result = memory.search("which bucket do the Postgres backups go to?")
    assert result.best.leaf_id == new.leaf_ids[0]


def test_a_later_memory_about_another_side_of_the_subject_does_not_answer_which_thing(memory):
    """No link this time: the later memory restates the CI pipeline with a new duration. It
    answers how long the pipeline takes now, not which runner it uses: it names no runner."""
    save_all(
        memory,
        [
            (
                "2025-10-01",
                "Continuous integration for etl-dags (GitLab CI, shared runner "
                "runner-docker-01) runs flake8 and pytest; a pipeline takes about 7 minutes.",
            ),
            ("2025-10-03", "The portal's nginx keeps its rate-limit zone in api_limit.conf."),
            ("2025-11-12", "Airflow runs on airflow-01 with the LocalExecutor."),
            (
                "2025-12-22",
                "The etl-dags CI pipeline jobs now take about 3 minutes: they use the prebuilt "
                "image airflow-ci instead of pip-installing on every run.",
            ),
        ],
    )
    runner = memory.search("Which CI runner do the etl-dags jobs run on?")
    assert "runner-docker-01" in runner.best.content
    duration = memory.search("how long do the etl-dags CI jobs take now?")
    assert "3 minutes" in duration.best.content
