"""A question naming something no memory mentions is NOT FOUND (reason ``unknown_name``).

"How much do we pay for Datadog?" matched against notes about other bills finds words
("pay", "month") but not the subject: the honest answer is that memory never heard of it.
Only names spelled as names count, and a name memory holds under a shorter or plural form,
or one of several alternatives memory knows, keeps the answer.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt.render import compact_answer
from ihmt.search.unknown_names import named_terms, terms_to_count, unknown_names
from tests.test_answers import save_all

NOTES = [
    ("2026-03-01", "We pay 120 EUR per month for the Sentry team plan; Irene owns the bill."),
    ("2026-03-02", "Prometheus scrapes every pod; alerts go to #ops-alerts on Slack."),
    ("2026-03-03", "Redis runs on cache-01.internal:6379 for sessions and rate limits."),
    ("2026-03-04", "The A100 node gpu-01 is booked through the lab calendar before long runs."),
    ("2026-03-05", "The staging cluster stg-k8s runs three worker nodes in fra1."),
]


def surfaces(question: str) -> list[str]:
    return [surface for surface, _ in named_terms(question)]


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("How much are we paying for Datadog per month?", ["Datadog"]),
        ("which Node.js version does the app need?", ["Node.js"]),
        ("what's max_connections set to on pg-prod-01?", ["max_connections", "pg-prod-01"]),
        ("what's the Wi-Fi password?", ["Wi-Fi"]),
        ("what is the Managed Streaming for Kafka cluster called?", ["Managed Streaming Kafka"]),
        ("what's the response time for P3 tickets?", ["P3"]),  # a level, a letter and a digit
    ],
)
def test_names_are_read_as_the_question_spells_them(question, names):
    assert surfaces(question) == names


@pytest.mark.parametrize(
    "question",
    [
        "which laptop was I using back in April?",  # a month sets a time
        "when is she away over Easter?",
        "what's the min SDK for the RN app?",  # short acronyms are often spelled out
        "who is the PM on the product side?",
        "what went wrong in the early-March rehearsal?",  # a compound, not a name
        "how long does the DB-backed test suite take?",
        "Deploy steps please",  # the opening word is capitalised anyway
        "i.e. how far back can we replay?",
        "what is planned for Q3?",  # a quarter sets a time
        "which v2 endpoints are still called?",
        "how does our Portuguese partner like to be contacted?",  # describes, names nothing
        "who covers the lab while its PI is away in Spain?",  # memory says where: "in Madrid"
        "how fast are uploads since we moved the infra to Brazil?",
        "why did we move off Amazon's CDN?",  # a company memory names by its products
        "do we ship an Apple build of the game?",
        "which GL code do European debit disputes post to?",
        "we get 500s in production, where do I look at the logs?",  # counts, names nothing
        "which base image does the Dockerfile start from?",  # a file every project has
        "where does the IaC for the cluster live?",  # acronyms with a small letter inside
        "are we still on the PaaS or on our own servers?",
        # a number with its unit is a time or a measure, not a name
        "something broke at 10pm, can I send a chat message about it?",
        "when does our 24-hour accumulation period begin and end?",
        "is the 512MB limit per worker or per pod?",
    ],
)
def test_calendar_words_acronyms_compounds_and_openings_are_not_names(question):
    assert surfaces(question) == []


def test_a_name_no_memory_mentions_is_not_found(memory):
    save_all(memory, NOTES)
    result = memory.search("How much are we paying for Datadog per month?")
    assert result.not_found
    assert result.reason_code == "unknown_name"
    assert result.reason_params["names"] == ["Datadog"]
    assert '"Datadog"' in result.reason
    assert compact_answer(result).startswith("NOT FOUND")


def test_the_same_question_about_a_known_name_answers(memory):
    ids = save_all(memory, NOTES)
    result = memory.search("How much are we paying for Sentry per month?")
    assert not result.not_found
    assert result.best.leaf_id == ids[0]


def test_a_plural_or_a_shortened_name_is_known(memory):
    ids = save_all(memory, NOTES)
    assert memory.search("where do we book the A100s?").best.leaf_id == ids[3]
    # "Prom" begins a word a leading memory holds (Prometheus)
    assert memory.search("where do Prom alerts go?").best.leaf_id == ids[1]


def test_a_release_a_digit_away_from_a_known_one_is_not_known(memory):
    """One letter away is a slip of the keyboard ("Andew"); one digit away is another release
    or level, which memory never mentioned: "RT-26.5" is not "RT-26.4", "P3" not "P1"."""
    save_all(
        memory,
        [
            ("2026-03-01", "Code freeze for RT-26.4 is on 12 March; the branch is cut at noon."),
            ("2026-03-02", "Integra contract: P1 tickets get a response within 30 minutes."),
        ],
    )
    for question, name in (
        ("when is the code freeze for RT-26.5?", "RT-26.5"),
        ("what's the response time for P3 tickets in the Integra contract?", "P3"),
    ):
        result = memory.search(question)
        assert result.not_found and result.reason_code == "unknown_name"
        assert result.reason_params["names"] == [name]
    assert not memory.search("when is the code freeze for RT-26.4?").not_found


def test_a_long_name_is_known_by_its_initials():
    """A memory saying "LCP" knows "Largest Contentful Paint"; two words give two letters,
    which would match too much, so "Tomás Vergara" is not known by "tv"."""
    question = "what's our Largest Contentful Paint goal on mobile?"
    names = named_terms(question)
    assert "lcp" in terms_to_count(names)
    assert unknown_names(question, names, {"lcp": 2}) == []
    assert unknown_names(question, names, {}) != []
    two = named_terms("which city is Tomás Vergara based in?")
    assert unknown_names("which city is Tomás Vergara based in?", two, {"tv": 4}) != []


def test_one_known_alternative_is_enough(memory):
    ids = save_all(memory, NOTES)
    result = memory.search("do we use Redis or Memcached for sessions?")
    assert result.best.leaf_id == ids[2]
    assert (
        memory.search(
            "which store holds sessions and rate limits, Memcached or Hazelcast?"
        ).reason_code
        == "unknown_name"
    )


def test_pointing_at_memories_is_not_asking(memory):
    """``forget --match`` and ``replaces`` point at memories: their words are not a question."""
    save_all(memory, NOTES)
    result = memory.search("Datadog Sentry bill", as_question=False)
    assert not result.not_found


def test_known_and_unknown_are_decided_by_the_counts():
    names = named_terms("is Grafana or Kibana on the VPS?")
    assert {"grafana", "kibana"} <= terms_to_count(names)
    assert unknown_names("is Grafana or Kibana on the VPS?", names, {"grafana": 3}) == []
    assert [s for s, _ in unknown_names("is Grafana on Kibana?", names, {"grafana": 3})] == [
        "Kibana"
    ]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=2500))
def test_reading_names_never_fails(question):
    names = named_terms(question)
    assert all(surface and named for surface, named in names)
    # with no memory holding anything, every name is unknown
    assert unknown_names(question, names, {}) == names


# ------------------------------------------------- names decide between leading memories

CLIENTS = [
    (
        "2026-03-01",
        "Almena's sales database is PostgreSQL 15 on pg-ventas-01.almena.internal:5432.",
    ),
    ("2026-03-02", "Almena pays monthly; Carmen Ruiz approves every change to the ingest job."),
    ("2026-03-03", "Almena's bastion is bastion.almena.es, reachable on port 2222 only."),
    ("2026-06-02", "Eastmoor Airflow metadata DB: PostgreSQL 16 on af-db.eastmoor.ac.uk:5432."),
]


def test_a_memory_missing_a_name_the_question_uses_steps_back(memory, monkeypatch):
    import ihmt.search.engine as engine

    ids = save_all(
        memory,
        [
            ("2026-05-05", "Sofía's office: building 1G, room 2.14. Desk phone extension 73514."),
            (
                "2026-07-06",
                "Vicent Ferrer is on leave until October. Meanwhile accounts on turia and any "
                "hardware problem go to Amparo Soler (DSIC systems technician, ext. 73590).",
            ),
            ("2026-07-07", "Turia's scratch disk is cleaned every Sunday night by a cron job."),
        ],
    )
    question = "what's Amparo Soler's phone extension?"
    assert memory.search(question).best.leaf_id == ids[1]
    # on its words alone the short note about another person's extension wins
    monkeypatch.setattr(engine, "NAME_MISS", 1.0)
    assert memory.search(question).best.leaf_id == ids[0]


def test_a_newer_memory_about_another_named_thing_is_no_new_value(memory):
    ids = save_all(memory, CLIENTS)
    result = memory.search("What's the Almena Postgres DB host and port?")
    assert result.best.leaf_id == ids[0]
    assert not result.hits[0].outdated


def test_a_phone_number_of_someone_else_of_that_first_name_is_no_answer(memory):
    save_all(
        memory,
        [
            ("2026-03-01", "Jordi Soler's mobile: +34 611 222 333; he prefers calls to e-mail."),
            (
                "2026-03-02",
                "Jordi Martí prefers WhatsApp voice notes and skips e-mail at weekends.",
            ),
        ],
    )
    result = memory.search("what's Jordi Martí's phone number?")
    assert result.not_found and result.reason_code == "lacks_shape"
    assert not memory.search("what's Jordi Soler's phone number?").not_found


def test_a_date_or_an_ip_address_is_not_a_phone_number():
    from ihmt.search.answer_type import SHAPES

    phone = next(shape for shape in SHAPES if shape.name == "phone")
    assert not phone.holds.search("Last updated: 2026-05-26, by Jordi")
    assert not phone.holds.search("nas01 is now 192.168.50.20")
    assert phone.holds.search("call +34 611 222 333")
    assert phone.holds.search("DSIC systems technician, ext. 73590")


def test_the_environment_a_question_sets_is_kept_like_a_name(memory):
    """ "Almena stg": the newer memory about production is another environment's value, not a
    new value of staging's."""
    ids = save_all(
        memory,
        [
            (
                "2026-04-20",
                "almena-ingest staging moved off the VM: it runs on the GKE cluster almena-stg, "
                "namespace ingest, deployed with the Helm chart in deploy/chart.",
            ),
            (
                "2026-09-09",
                "almena-ingest production moved to GKE: cluster almena-prod, namespace ingest, "
                "3 replicas.",
            ),
            ("2026-03-01", "Almena is the retail client; Carmen Ruiz leads its engineering."),
            # staging is a common word in this memory: it weighs little against the rest
            ("2026-03-02", "Staging is reset from a prod dump every Sunday night."),
            ("2026-03-03", "Deploys reach staging on every merge to main."),
            ("2026-03-04", "The staging API sits behind basic auth."),
            ("2026-03-05", "Staging logs stay 7 days, production logs 30."),
        ],
    )
    assert memory.search("Which GKE cluster is Almena stg on?").best.leaf_id == ids[0]
    assert memory.search("Which GKE cluster is Almena prod on?").best.leaf_id == ids[1]


def test_a_history_question_keeps_the_name_it_asks_about(memory):
    """ "Where did Camila live before ...": the earlier memory must be about Camila; a name
    after the cue ("before EMQX") is often the new value and is not required."""
    from ihmt.search.engine import _named_before_cue

    def kept(question: str) -> list[str]:
        return [surface for surface, _ in _named_before_cue(question, named_terms(question))]

    assert kept("where did Camila live before moving to the coast?") == ["Camila"]
    assert kept("which broker did Augaviva use before EMQX?") == ["Augaviva"]
    assert kept("what did we run before EMQX?") == []
    ids = save_all(
        memory,
        [
            ("2026-03-01", "LookML lives in github.com/acme/looker; dashboards live in Looker."),
            ("2026-03-02", "Camila lives in Santiago, in Ñuñoa, and takes the metro to work."),
            ("2026-07-01", "Camila moved to Viña del Mar in July; she works remotely now."),
        ],
    )
    assert memory.search("where did Camila live before moving to the coast?").best.leaf_id == ids[1]


def test_a_word_opening_a_later_sentence_is_no_name():
    question = "¿Qué versión de Postgres tiene staging? Quiero usar una función nueva."
    assert [surface for surface, _ in named_terms(question)] == ["Postgres"]
    # a name opening a later sentence is still one
    assert [s for s, _ in named_terms("Deploy failed again. Sentry shows what?")] == ["Sentry"]


def test_an_identifier_in_camel_case_is_known_only_whole():
    question = "What minSdkVersion does the Android build of the tutor app target?"
    names = named_terms(question)
    parts_known = {"sdk": 3, "version": 9, "android": 2, "minut": 1}
    assert [s for s, _ in unknown_names(question, names, parts_known)] == ["minSdkVersion"]
    assert unknown_names(question, names, {"minsdkversion": 1, "android": 2}) == []


def test_a_camel_case_setting_no_memory_holds_whole_is_not_found(memory):
    save_all(
        memory,
        [
            ("2026-03-01", "The tutor app moved to Expo SDK 52; the Android version code is 41."),
            ("2026-03-02", "Android builds run on EAS; the minimum OS is set in app.json."),
        ],
    )
    result = memory.search("What minSdkVersion does the Android build target?")
    assert result.not_found and result.reason_code == "unknown_name"
