"""What a question asks about time and which thing it asks for (search/intent.py): read from
its cue words only."""

from __future__ import annotations

import pytest

from ihmt.search.intent import (
    asked_attribute,
    asks_history,
    asks_now,
    history_cue_at,
    months_asked,
)
from ihmt.text.tokenize import terms


@pytest.mark.parametrize(
    ("question", "attribute"),
    [
        ("which bucket do the Postgres backups go to?", "bucket"),
        ("what's the prod k8s cluster called?", "cluster"),
        ("what's the staging DB host?", "host"),
        ("what instance class is the prod Postgres on RDS?", "class"),
        ("which LXC is Gitea running in?", "LXC"),
        ("¿qué versión de Node usa el backend?", "versión"),
        ("¿cuál es el puerto del servidor?", "puerto"),
        ("quelle version de Python on cible?", "version"),
        ("quel est le port de l'API?", "port"),
        ("quel bucket utilisent les sauvegardes?", "bucket"),
    ],
)
def test_the_thing_a_what_or_which_question_asks_for(question, attribute):
    assert asked_attribute(question) == frozenset(terms(attribute))


@pytest.mark.parametrize(
    "question",
    [
        "where is the NAS mounted?",
        "how long is the retention?",
        "deploys billing",
        "what happened?",
    ],
)
def test_other_questions_name_no_such_thing(question):
    assert asked_attribute(question) == frozenset()


@pytest.mark.parametrize(
    ("question", "now"),
    [
        ("what's the staging DB host now?", True),
        ("which broker do we use at the moment?", True),
        ("¿qué versión usa ahora?", True),
        ("¿con qué validamos hoy las compras de iOS?", True),
        ("how do live queue updates reach the TV displays today?", True),
        ("do we still use Jenkins at present?", True),
        ("which bucket do the backups go to?", False),
        ("what did we know before?", False),
    ],
)
def test_a_question_that_asks_for_the_present_value(question, now):
    assert asks_now(question) is now


@pytest.mark.parametrize(
    ("question", "history"),
    [
        ("who do I check with before renaming the release artifacts?", False),
        ("how long do we wait before escalating a SEV1?", False),
        ("¿quién tiene que revisar los cambios antes de mergear?", False),
        ("where did Camila live before moving to the coast?", True),
        ("how did we merge PRs before switching to rebase?", True),
        ("what did we use before the migration?", True),
        ("which broker before the upgrade?", True),
        # a step told in the present: how something works, not what it was
        ("how long can files sit on scratch before they get purged?", False),
        ("how long do messages stay in the DLQ before they're dropped?", False),
        ("what should I run before I open a merge request?", False),
        ("who signs off builds before they go to the publisher?", False),
        ("how many checks fail before it can alert?", False),
        # ... with a thing, not a pronoun, doing the step
        ("how long can a notebook sit idle before JupyterHub kills it?", False),
        ("how long does a seat hold last before the seats are released?", False),
        ("how many days before the due date does the reminder go out?", False),
        ("what's the default free time before a dwell alert fires?", False),
        # ... but an event after "before" keeps the cue: over the agent-question corpora,
        # reading those as steps too lost as many answers as it gained
        ("what do we drop the DNS TTL to the day before the cutover?", True),
        # ... and the same shape told in the past
        ("where was lobbyd hosted before it moved to AWS?", True),
        ("what was the GPU partition called before it got renamed?", True),
        ("where did Redis live before we moved caching into the cluster?", True),
        ("which editor before she switched?", True),
        # ... and in Spanish, with a verb in a past tense no noun shares
        ("¿cuánto tardaba el job de CI antes de agregar el cache?", True),
        ("¿qué usábamos antes de migrar a Kafka?", True),
        ("¿dónde se guardaban los backups antes de pasarlos a S3?", True),
        ("¿qué hay que revisar antes de desplegar en Debian?", False),
    ],
)
def test_before_a_step_is_no_earlier_state_unless_the_question_is_in_the_past(question, history):
    assert asks_history(question) is history


@pytest.mark.parametrize(
    ("question", "months"),
    [
        ("Which SFTP host did the air quality files come from last autumn?", {9, 10, 11}),
        ("when was lab meeting held last fall?", {9, 10, 11}),
        ("¿qué broker usábamos el otoño pasado?", {9, 10, 11}),
        ("which laptop did I carry last year?", set()),
    ],
)
def test_last_season_or_year_is_a_time_gone_by(question, months):
    """ "last autumn" sets the question in an earlier state, as "in the autumn" with a verb in
    the past does; the season's months say which memories were current then."""
    assert asks_history(question)
    assert months_asked(question) == months


def test_a_season_named_as_a_thing_is_no_time_gone_by():
    assert not asks_history("which laptop do I use for the summer school?")
    assert not asks_history("how long is the winter break?")


@pytest.mark.parametrize(
    ("question", "history"),
    [
        ("what time did the nightly build use to run?", True),
        ("what do we use to deploy?", False),
        ("what settings did we use to stop the crackling?", False),
        ("which Flutter version did the app launch with?", True),
        ("which Django version was the project started on?", True),
        ("who helps newcomers get started on the CLI?", False),
        ("when was the audit first booked?", True),
        ("what's the first step of the runbook?", False),
        ("where was Luis living when he joined the team?", True),
        ("who was the tech lead when the contract started?", True),
        ("how was it fixed when watering started sixty minutes late?", False),
        ("which neighbourhood did Ada live in when she was still in Madrid?", True),
        ("what was the DB address back when we were on Cloud SQL?", True),
        ("what did we use for messaging while we were still on Azure?", True),
        ("which PostgreSQL version was pg-01 first built with?", True),
        ("what is the team first working on?", False),
        ("what was the staging URL when it was on Render?", True),
        ("which neighborhood did Mariana live in when she was in CDMX?", True),
        ("when was it moved to Render?", False),  # asks a date
        ("who do I call when the pager is on silent?", False),
        ("when we started, which CI did we use?", True),
        ("what was the pre-migration host?", True),
        ("¿dónde estaba alojado cuando usábamos Heroku?", True),
        ("¿Cuándo era el directo de Steam durante la Next Fest?", False),  # asks when
        # a state told in the past, on a platform, or first set up
        ("which Postgres version did we run on Heroku?", True),
        ("what engine version were we on at Alpha?", True),
        ("what PostgreSQL version was db-01 on?", True),
        ("which QuestDB version did we first install in staging?", True),
        ("which PostgreSQL version is db-01 on?", False),
        ("what flags did we run the job with?", False),
        # a phase gone by, what there was then
        ("what was the cancellation window when we launched?", True),
        ("what was the log retention when we only had CloudWatch?", True),
        ("what was the offline grace period during the early beta?", True),
        ("which Medusa version did we pick at the very start?", True),
        ("what happens during the pilot?", False),
        ("which ticket asks to turn the check back on?", False),
    ],
)
def test_an_earlier_state_asked_in_other_words(question, history):
    assert asks_history(question) is history


def test_a_month_with_early_or_late_before_it_sets_the_question_in_that_month():
    assert months_asked("what firmware was the fleet on in late May?") == {5}
    assert months_asked("¿qué versión había a principios de marzo?") == {3}


def test_a_state_told_in_the_past_gives_way_to_a_plainer_cue_for_where_the_subject_ends():
    question = "what did site search run on before Typesense?"
    assert history_cue_at(question) == question.index("before")


def test_use_to_gives_way_to_a_plainer_cue_for_where_the_subject_ends():
    from ihmt.search.intent import history_cue_at

    question = "What did we use to run terraform plans before GitHub Actions?"
    assert history_cue_at(question) == question.index("before")
