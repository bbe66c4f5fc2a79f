"""The judge of a later memory that changes the statement a question reached
(search/change_judge.py): that its verdict decides which memory answers a question about now,
that the rule decides alone when no forest is shipped, and what two of its signals read. The
forests here are written by hand, so each test says which signal it hangs on; what the fitted
forest is worth is measured in benchmarks/RESULTS.md, not asserted here."""

from __future__ import annotations

import pytest

from ihmt import IHMT
from ihmt.search import change_judge, change_trees
from tests.helpers_forests import recorded_inputs, split_on

OLD = (
    "The general node group of the EKS cluster runs m5.xlarge on-demand instances (min 4, max 12)."
)
OTHER = [
    "Grafana dashboards live on grafana.internal behind SSO.",
    "The release branch is cut every second Tuesday; hotfixes go to release/* only.",
    "Spot instances run the nightly batch jobs in their own node group.",
]
NO_OLD_VALUE = "The general node group now runs m7g.xlarge (Graviton); images are built multi-arch."
FROM_TO = "The general node group was resized from m5.xlarge to m7g.xlarge (Graviton)."
QUESTION = "what instance type does the general node group of the EKS cluster run?"


def _store(tmp_path, later: str):
    memory = IHMT.initialize(tmp_path / "ws")
    memory.save(OLD, timestamp="2026-02-13T10:00:00")
    for day, note in enumerate(OTHER, start=1):
        memory.save(note, timestamp=f"2026-03-0{day}T10:00:00")
    memory.save(later, timestamp="2026-06-24T10:00:00")
    return memory


def _judge_with(monkeypatch, trees, base: float = 0.0) -> None:
    monkeypatch.setattr(change_trees, "LEXICAL", trees)
    monkeypatch.setattr(change_trees, "LEXICAL_BASE", base)


def _best(memory, question: str = QUESTION) -> str:
    result = memory.search(question)
    assert result.hits and not result.not_found
    return result.hits[0].content


def test_without_a_forest_the_rule_takes_a_change_naming_the_old_value_only(tmp_path, monkeypatch):
    _judge_with(monkeypatch, "")
    memory = _store(tmp_path, FROM_TO)
    assert "m7g.xlarge" in _best(memory)
    memory.close()
    memory = _store(tmp_path / "other", NO_OLD_VALUE)
    assert "m5.xlarge on-demand" in _best(memory)
    memory.close()


def test_a_forest_that_trusts_a_change_about_the_question_takes_it(tmp_path, monkeypatch):
    # the later memory's sentence telling of a change holds most of the question's words
    _judge_with(monkeypatch, [split_on(change_judge.FEATURES, "change_asked", -4.0, 4.0, 0.3)])
    memory = _store(tmp_path, NO_OLD_VALUE)
    assert "m7g.xlarge" in _best(memory)
    memory.close()


def test_the_forest_and_not_the_rule_decides(tmp_path, monkeypatch):
    # "resized from m5.xlarge to m7g.xlarge" satisfies the rule; a forest doubting every
    # later memory leaves the leader in place
    _judge_with(monkeypatch, [split_on(change_judge.FEATURES, "rule", -4.0, -4.0)])
    memory = _store(tmp_path, FROM_TO)
    assert "m5.xlarge on-demand" in _best(memory)
    memory.close()


def test_the_input_has_one_value_per_named_feature(tmp_path, monkeypatch):
    _judge_with(monkeypatch, "")
    seen = recorded_inputs(monkeypatch, change_judge)
    memory = _store(tmp_path, FROM_TO)
    memory.search(QUESTION)
    memory.close()
    assert seen and all(len(x) == len(change_judge.FEATURES) for x in seen)
    x = dict(zip(change_judge.FEATURES, seen[0], strict=True))
    assert x["rule"] == 1.0 and x["names_old"] == 1.0 and x["tells_change"] == 1.0
    assert 0.0 < x["years_after"] < 1.0 and x["lead_is_memory"] == 1.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the change is about when the DAG runs, not where it writes
        ("bicival_stations now runs every 5 minutes; the feed allows it.", "low"),
        ("bicival_stations now upserts into the resource 'Estaciones v2'.", "high"),
        ("bicival_stations upserts into the resource 'Estaciones'.", "none"),
    ],
)
def test_change_asked_reads_only_the_sentences_telling_of_a_change(text, expected):
    idf = {"bicival_stations": 3.0, "upsert": 2.0, "resource": 2.0, "datastore": 2.0}
    share = change_judge._change_asked(text, idf)
    assert {"none": share == 0.0, "low": 0.0 < share < 0.5, "high": share >= 0.5}[expected]


def test_even_a_forest_taking_everything_leaves_another_environments_value(tmp_path, monkeypatch):
    """The judge never hears a later memory that drops the environment the question and the
    leader name ("stg") and names another one: that is production's value, not a new value of
    staging's, whatever the trees would say."""
    _judge_with(monkeypatch, [split_on(change_judge.FEATURES, "rule", 4.0, 4.0)])
    memory = IHMT.initialize(tmp_path / "ws")
    staging = memory.save(
        "almena-ingest staging runs on the GKE cluster almena-stg, namespace ingest.",
        timestamp="2026-04-20T10:00:00",
    ).leaf_ids[0]
    for day, note in enumerate(OTHER, start=1):
        memory.save(note, timestamp=f"2026-05-0{day}T10:00:00")
    memory.save(
        "almena-ingest production moved to GKE: cluster almena-prod, namespace ingest.",
        timestamp="2026-09-09T10:00:00",
    )
    result = memory.search("Which GKE cluster is almena-ingest stg on?")
    assert result.hits[0].leaf_id == staging
    memory.close()


IGNITION_QUESTION = "what Ignition version is production on?"


def _ignition_store(tmp_path):
    memory = IHMT.initialize(tmp_path / "ws")
    memory.save(
        "Ignition version in production is 8.1.33; Maite wants no upgrade before winter.",
        timestamp="2025-09-10T10:00:00",
    )
    for day, note in enumerate(OTHER, start=1):
        memory.save(note, timestamp=f"2025-10-0{day}T10:00:00")
    memory.save(
        "Ignition on the gateway is now 8.1.44; Iñaki upgraded it over the weekend.",
        timestamp="2025-11-24T10:00:00",
    )
    return memory


def test_a_correction_leaving_the_environment_out_is_the_judges_to_weigh(tmp_path, monkeypatch):
    """A correction that does not repeat the question's environment ("on the gateway") and
    names no other is heard by the judge, with that as one of its inputs: a forest trusting
    it takes it, a forest hanging on the input leaves the leader."""
    _judge_with(monkeypatch, [split_on(change_judge.FEATURES, "rule", 4.0, 4.0)])
    memory = _ignition_store(tmp_path)
    assert "8.1.44" in _best(memory, IGNITION_QUESTION)
    memory.close()
    _judge_with(monkeypatch, [split_on(change_judge.FEATURES, "keeps_settings", -4.0, 4.0)])
    memory = _ignition_store(tmp_path / "other")
    assert "8.1.33" in _best(memory, IGNITION_QUESTION)
    memory.close()


def test_without_a_forest_the_rule_takes_no_change_dropping_the_environment(tmp_path, monkeypatch):
    _judge_with(monkeypatch, "")
    memory = IHMT.initialize(tmp_path / "ws")
    memory.save("Ignition version in production is 8.1.33.", timestamp="2025-09-10T10:00:00")
    for day, note in enumerate(OTHER, start=1):
        memory.save(note, timestamp=f"2025-10-0{day}T10:00:00")
    memory.save(
        "Ignition on the gateway was upgraded from 8.1.33 to 8.1.44.",
        timestamp="2025-11-24T10:00:00",
    )
    assert "8.1.33." in _best(memory, IGNITION_QUESTION)
    memory.close()
