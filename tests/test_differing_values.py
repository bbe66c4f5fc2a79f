"""Memories saved about the same time that each give their own value of what a question asks
for ("what port does the dev server run on?": the API's and the front end's) are a choice to
ask about, not a best answer (SearchEngine._judge_values)."""

from __future__ import annotations

from ihmt.render import compact_answer
from tests.test_answers import save_all

BACKGROUND = [
    ("2026-01-05", "The team standup is on Google Meet at 09:30, fifteen minutes at most."),
    ("2026-01-06", "Production runs on two Hetzner CX32 machines behind a load balancer."),
    ("2026-01-07", "Code review: two approvals for anything touching payments."),
    ("2026-01-08", "Sentry collects the errors of the API and of the kiosk front end."),
]
API = "Local dev of the loans API: its dev server is Laravel Sail, on port 8080 (APP_PORT)."
KIOSK = "The kiosk front end (Vite + Vue) runs its dev server on port 3000 and proxies /api."
QUESTION = "what port does the dev server run on?"


def test_two_dev_servers_saved_days_apart_are_a_choice(memory):
    ids = save_all(memory, [*BACKGROUND, ("2026-02-02", API), ("2026-02-04", KIOSK)])
    result = memory.search(QUESTION)
    assert result.ambiguous and result.reason_code == "values"
    assert set(result.candidate_ids) == set(ids[-2:])
    text = compact_answer(result)
    assert "each give a port of their own" in text and "8080" in text and "3000" in text


def test_values_saved_months_apart_are_one_thing_over_time(memory):
    ids = save_all(memory, [*BACKGROUND, ("2025-09-02", API), ("2026-02-04", KIOSK)])
    result = memory.search(QUESTION)
    assert not result.ambiguous
    assert result.best.leaf_id in ids[-2:]


def test_a_later_value_telling_of_a_change_is_no_choice(memory):
    moved = "The kiosk dev server now runs on port 3001; 3000 clashed with Grafana."
    ids = save_all(
        memory, [*BACKGROUND, ("2026-02-02", KIOSK.replace("3000", "3100")), ("2026-02-06", moved)]
    )
    result = memory.search(QUESTION)
    assert not result.ambiguous
    assert result.best.leaf_id == ids[-1]


def test_memories_giving_the_same_value_are_no_choice(memory):
    same = "Reminder: the dev server is on port 8080, so do not start another app there."
    ids = save_all(memory, [*BACKGROUND, ("2026-02-02", API), ("2026-02-04", same)])
    result = memory.search(QUESTION)
    assert not result.ambiguous
    assert result.best.leaf_id in ids[-2:]
