"""Time in the facade: timelines from ingested text, OUTDATED answers, replaces, rebuild."""

from __future__ import annotations

import pytest

from ihmt import InputError

JOURNAL = """11/03/2024
Vivo en Madrid desde hace años y trabajo en Nubalia.

22/07/2024
Vacaciones en Benidorm con Luis.

03/02/2026
Por fin me mudé a Valencia; el piso da al mar.
"""


@pytest.fixture
def journal(memory):
    memory.ingest_text(JOURNAL, source="journal.txt", data_type="PERSONAL")
    return memory


def test_change_of_city_gives_a_timeline_and_a_notice(journal):
    resolver = journal.resolver
    assert resolver.active_state()["user::location"].value == "Valencia"
    assert resolver.state_at("2024-12-31")["user::location"].value == "Madrid"
    assert "user::location" not in resolver.state_at("2023-01-01")
    assert (
        "On 2024-03-11 you said user location = 'Madrid', but on 2026-02-03 you updated to 'Valencia'."
        in journal.notices()
    )


def test_where_do_i_live_answers_with_the_present(journal):
    result = journal.search("where do I live?")
    assert not result.ambiguous and not result.not_found
    assert "Valencia" in result.best.content and not result.best.outdated
    older = [h for h in result.hits if "Madrid" in h.content]
    assert older and older[0].outdated and older[0].notices


def test_a_question_that_names_a_year_answers_with_the_value_then(journal):
    result = journal.search("where did I live in 2024?")
    assert "Madrid" in result.best.content


def test_confirmation_is_not_a_contradiction(memory):
    memory.ingest_text("2024-01-10\nVivo en Madrid.\n", source="a.txt", data_type="PERSONAL")
    memory.ingest_text(
        "2025-05-10\nSigo contento: vivo en Madrid.\n", source="b.txt", data_type="PERSONAL"
    )
    assert memory.resolver.contradictions() == []


def test_out_of_order_ingestion_gives_the_right_timeline(memory):
    memory.ingest_text("2026-02-03\nMe mudé a Valencia.\n", source="new.txt", data_type="PERSONAL")
    memory.ingest_text("2024-03-11\nVivo en Madrid.\n", source="old.txt", data_type="PERSONAL")
    timeline = memory.resolver.timeline("user::location")
    assert [f.value for f in timeline] == ["Madrid", "Valencia"]
    assert memory.resolver.active_state()["user::location"].value == "Valencia"


def test_save_reports_the_contradiction_to_relay(memory):
    memory.save("I live in Madrid.", timestamp="2024-03-11")
    report = memory.save("I moved to Valencia.", timestamp="2026-02-03")
    assert any("Madrid" in n and "Valencia" in n for n in report.notices)


def test_replaces_with_one_clear_match_links_and_answers_new_first(memory):
    old = memory.save("The CI runners use Ubuntu 22.04 images.")
    memory.save("Lunch is at 13:00 on Fridays.")
    new = memory.save(
        "The CI runners moved to Ubuntu 24.04 images.", replaces="CI runners Ubuntu 22.04"
    )
    assert new.replaces_status == "linked" and new.replaced_id == old.leaf_ids[0]
    result = memory.search("CI runners Ubuntu images")
    assert result.hits[0].leaf_id == new.leaf_ids[0]
    flagged = [h for h in result.hits if h.leaf_id == old.leaf_ids[0]]
    assert flagged and flagged[0].outdated and flagged[0].notices


def test_replaces_with_several_candidates_lists_ids_then_mark_outdated(memory):
    a = memory.save("Deploys happen on Tuesday for the billing service.")
    b = memory.save("Deploys happen on Tuesday for the search service.")
    new = memory.save("Deploys now happen on Thursday.", replaces="deploys happen on Tuesday")
    assert new.replaces_status == "candidates"
    assert {c["id"] for c in new.candidates} >= {a.leaf_ids[0], b.leaf_ids[0]}
    notice = memory.mark_outdated(a.leaf_ids[0], new.leaf_ids[0])
    assert "OUTDATED" in notice
    assert memory.search("deploys billing").hits[0].leaf_id != a.leaf_ids[0]


def test_a_correction_the_agent_linked_answers_what_its_memory_answered(memory):
    """ "Resized from CX22 to CX32" shares one word with "what size is the Hetzner VPS now?";
    once linked as the correction of the note that named the Hetzner VPS, it answers that
    question as the note did, instead of a stray-match NOT FOUND."""
    old = memory.save("The Hetzner VPS vps-navarro-01 is a CX22: 2 vCPU, 4 GB RAM, Ubuntu 24.04.")
    for note in (
        "The donations site runs WordPress with GiveWP on the VPS.",
        "Backups of the VPS go to a Storage Box every night at 03:00.",
        "MariaDB 10.11 holds the WordPress database.",
        "Grafana dashboards live on the monitoring host mon-01.",
        "The newsletter goes out with Mailchimp on the first Monday of each month.",
    ):
        memory.save(note)
    new = memory.save(
        "vps-navarro-01 resized from CX22 to CX32 (4 vCPU, 8 GB RAM) after MariaDB was "
        "OOM-killed twice during the summer campaign."
    )
    memory.mark_outdated(old.leaf_ids[0], new.leaf_ids[0])
    result = memory.search("what size is the Hetzner VPS now?")
    assert not result.not_found, result.reason
    assert result.best.leaf_id == new.leaf_ids[0]
    # two memories marked as each other's correction: read, not followed round for ever
    memory.mark_outdated(new.leaf_ids[0], old.leaf_ids[0])
    assert memory.search("what size is the Hetzner VPS now?").hits


def test_replaces_with_no_match_says_so(memory):
    memory.save("The office plant needs water on Mondays.")
    new = memory.save("Kafka retention is 7 days.", replaces="zookeeper quorum size")
    assert new.replaces_status == "not_found"


def test_mark_outdated_rejects_bad_ids(memory):
    saved = memory.save("Something worth keeping about Grafana dashboards.")
    with pytest.raises(InputError):
        memory.mark_outdated(saved.leaf_ids[0], saved.leaf_ids[0])
    with pytest.raises(InputError):
        memory.mark_outdated("L-nope", saved.leaf_ids[0])


def test_rebuild_preserves_timeline_and_links(journal):
    old = journal.save("The VPN endpoint is vpn1.example.org.")
    new = journal.save("The VPN endpoint moved to vpn2.example.org.", replaces="VPN endpoint vpn1")
    journal.record_fact("user", "editor", "helix", "2025-06-01")
    journal.rebuild()
    assert journal.resolver.active_state()["user::location"].value == "Valencia"
    assert journal.resolver.active_state()["user::editor"].value == "helix"
    result = journal.search("VPN endpoint")
    assert result.hits[0].leaf_id == new.leaf_ids[0]
    assert any(h.leaf_id == old.leaf_ids[0] and h.outdated for h in result.hits)


def test_spanish_clinical_history_builds_clinical_timelines(memory):
    from .conftest import EXAMPLES

    memory.ingest_file(EXAMPLES / "historia_clinica.txt")
    active = memory.resolver.active_state()
    for key in ("patient::diagnosis", "patient::treatment", "patient::medication"):
        assert key in active
        assert len(memory.resolver.timeline(key)) >= 2


def test_cli_facts_and_conflicts(journal):
    from .conftest import run_cli

    ws = str(journal.layout.workspace)
    facts = run_cli("--path", ws, "facts", "--subject", "user")
    assert facts.returncode == 0 and "Valencia" in facts.stdout and "HISTORICAL" in facts.stdout
    conflicts = run_cli("--path", ws, "conflicts", "--json")
    assert conflicts.returncode == 0 and "Valencia" in conflicts.stdout


def test_for_a_living_asks_about_work_not_about_the_home():
    from ihmt.timeline.questions import fact_questions

    keys = ["user::location", "user::employer"]
    asked = [q.key for q in fact_questions("what do I do for a living?", keys)]
    assert asked == ["user::employer"]
    assert [q.key for q in fact_questions("where am I living now?", keys)] == ["user::location"]


def test_semantic_model_is_a_setting(tmp_path):
    from ihmt import IHMT

    memory = IHMT.initialize(tmp_path / "w", semantic_model="/models/mini")
    assert memory.config.semantic_model == "/models/mini"
    with pytest.raises(InputError, match="semantic_model"):
        IHMT.initialize(tmp_path / "w2", semantic_model=3)


def test_an_entry_holding_the_value_asked_for_is_not_outdated_for_that_question(journal):
    # 2024 entry: the old city (changed since) and the employer (still current)
    result = journal.search("where do I work?")
    best = result.best
    assert "Nubalia" in best.content and "Madrid" in best.content
    assert not best.outdated  # it answers the question asked
    assert best.notices  # the change of city is still shown beside it
    # asked about the city, the same entry is the old value and stays OUTDATED
    older = [h for h in journal.search("where do I live?").hits if "Madrid" in h.content]
    assert older and older[0].outdated


def test_an_entry_is_outdated_only_for_questions_about_what_changed(journal):
    # the 2024 entry states the old city (Madrid, changed since) and the employer (current)
    stale = journal.time_context().stale_words
    entry = [leaf_id for leaf_id, words in stale.items() if "madrid" in words]
    assert len(entry) == 1
    about_work = [h for h in journal.search("Nubalia team").hits if "Madrid" in h.content]
    assert about_work and not about_work[0].outdated  # the employer is still current
    assert about_work[0].notices  # the change of city is still shown beside it
    about_city = [h for h in journal.search("Madrid flat").hits if "Madrid" in h.content]
    assert about_city and about_city[0].outdated  # asked about the value that changed


def test_an_entry_whose_only_fact_changed_stays_outdated_for_any_question(memory):
    memory.save("I live in Oslo, in a flat with a big balcony.", timestamp="2025-01-10")
    memory.save("I moved to Bergen.", timestamp="2026-01-10")
    assert memory.time_context().stale_words == {}
    flat = [h for h in memory.search("balcony flat").hits if "Oslo" in h.content]
    assert flat and flat[0].outdated


def test_a_person_asked_by_first_name_alone_is_the_tracked_one():
    from ihmt.timeline.questions import fact_questions

    keys = ["pablo serrano::location", "user::location", "carmen ruiz::employer"]
    asked = [q.key for q in fact_questions("which city is Pablo based in?", keys)]
    assert asked == ["pablo serrano::location"]
    # two tracked people called Pablo: the first name alone does not say which
    keys.append("pablo ibanez::location")
    assert fact_questions("which city is Pablo based in?", keys) == []
    # a thing's tracked value is not asked by the first word of its name
    assert (
        fact_questions("what NetBox version are we running?", ["netbox migrated::platform"]) == []
    )


def test_a_move_told_in_spanish_answers_a_question_by_first_name(memory):
    memory.save(
        "Pablo Serrano es el desarrollador móvil; vive en Córdoba.", timestamp="2025-10-01T10:00:00"
    )
    moved = memory.save(
        "Pablo Serrano se ha mudado a Málaga; sigue con nosotros en remoto dos días por semana.",
        timestamp="2026-01-08T10:00:00",
    ).leaf_ids[0]
    # a later memory naming Málaga in passing ("de Málaga gracias al distribuidor") is no move
    memory.save(
        "Métricas del viernes: ya son 45 clínicas de pago; cinco de ellas en la provincia de "
        "Málaga gracias al distribuidor.",
        timestamp="2026-03-06T10:00:00",
    )
    result = memory.search("which city is Pablo based in?")
    assert result.best.leaf_id == moved
    assert not result.best.outdated
