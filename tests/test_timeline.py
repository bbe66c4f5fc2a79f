"""Time layer: dated facts, EN/ES extraction rules, supersession, notices."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt.errors import InputError
from ihmt.timeline.facts import Contradiction, Fact, FactStatus
from ihmt.timeline.patterns import (
    DEFAULT_PATTERNS,
    FactExtractor,
    FactPattern,
    patterns_from_config,
)
from ihmt.timeline.resolver import ConflictResolver

MADRID_TS = "2024-03-11T09:00:00Z"
VALENCIA_TS = "2026-02-03T18:30:00Z"
NOTICE = (
    "On 2024-03-11 you said user location = 'Madrid', but on 2026-02-03 you updated to 'Valencia'."
)


def extract_one(text: str, timestamp: str = "2025-01-01T00:00:00Z") -> list[tuple[str, str]]:
    return [(f.key, f.value) for f in FactExtractor().extract(text, timestamp=timestamp)]


@pytest.fixture
def moved() -> tuple[ConflictResolver, list[Contradiction], list[Contradiction]]:
    """The seed's story: Madrid in 2024, Valencia in 2026, each from its own leaf."""
    extractor = FactExtractor()
    resolver = ConflictResolver()
    first = resolver.add_many(
        extractor.extract("Hola, vivo en Madrid.", timestamp=MADRID_TS, source_leaf="L1")
    )
    second = resolver.add_many(
        extractor.extract("Por fin me mudé a Valencia.", timestamp=VALENCIA_TS, source_leaf="L2")
    )
    return resolver, first, second


# ------------------------------------------------------------------ supersession


def test_madrid_to_valencia_gives_the_exact_notice(moved) -> None:
    resolver, first, second = moved
    assert first == []
    assert [c.notice() for c in second] == [NOTICE]
    assert resolver.notices() == [NOTICE]
    assert resolver.notices(subject="user") == [NOTICE]
    assert resolver.notices(subject="staging") == []

    active = resolver.active_state()["user::location"]
    assert (active.value, active.status, active.valid_from, active.valid_to) == (
        "Valencia",
        FactStatus.ACTIVE,
        VALENCIA_TS,
        None,
    )
    old = resolver.timeline("user::location")[0]
    assert (old.value, old.status, old.superseded_by) == ("Madrid", "HISTORICAL", "Valencia")
    assert (old.valid_from, old.valid_to) == (MADRID_TS, VALENCIA_TS)
    assert resolver.superseded_leaves() == {"L1": NOTICE}
    change = second[0]
    assert (change.old_leaf, change.new_leaf) == ("L1", "L2")


def test_state_at_before_between_and_after(moved) -> None:
    resolver, _, _ = moved
    assert resolver.state_at("2024-03-10") == {}
    assert resolver.state_at("2024-03-11")["user::location"].value == "Madrid"
    assert resolver.state_at("2024-12-31")["user::location"].value == "Madrid"
    assert resolver.state_at("2026-02-02")["user::location"].value == "Madrid"
    assert resolver.state_at("2026-02-03")["user::location"].value == "Valencia"  # end of day
    assert resolver.state_at("2026-02-03T10:00:00Z")["user::location"].value == "Madrid"
    assert resolver.state_at("2030-01-01")["user::location"].value == "Valencia"
    with pytest.raises(InputError):
        resolver.state_at("not a date")


def test_state_at_leaves_out_keys_not_yet_known() -> None:
    resolver = ConflictResolver()
    resolver.record_fact("user", "location", "Madrid", "2024-01-01")
    resolver.record_fact("user", "employer", "Globex", "2025-01-01")
    assert set(resolver.state_at("2024-06-01")) == {"user::location"}
    assert set(resolver.state_at("2025-06-01")) == {"user::location", "user::employer"}


def test_repeat_is_confirmation_and_change_is_contradiction() -> None:
    resolver = ConflictResolver()
    assert resolver.record_fact("user", "location", "Madrid", "2024-03-11") == []
    assert resolver.record_fact("user", "location", "MADRÍD", "2025-01-10") == []  # folded
    assert resolver.contradictions() == []
    timeline = resolver.timeline("user::location")
    assert len(timeline) == 1
    assert timeline[0].confirmations == ["2025-01-10T00:00:00Z"]
    assert len(resolver.facts()) == 2  # the repeat is kept, not dropped

    changes = resolver.record_fact("user", "location", "Valencia", "2026-02-03")
    assert [c.notice() for c in changes] == [NOTICE]  # dated from the first statement
    assert all(f.status == FactStatus.HISTORICAL for f in resolver.facts() if f.value != "Valencia")
    assert all(f.valid_to == "2026-02-03T00:00:00Z" for f in resolver.facts()[:2])

    back = resolver.record_fact("user", "location", "Madrid", "2027-05-01")
    assert len(back) == 1 and back[0].new_value == "Madrid"
    assert [f.value for f in resolver.timeline("user::location")] == [
        "Madrid",
        "Valencia",
        "Madrid",
    ]
    assert resolver.active_state()["user::location"].timestamp == "2027-05-01T00:00:00Z"
    assert len(resolver.contradictions()) == 2


def test_same_timestamp_the_later_addition_wins() -> None:
    resolver = ConflictResolver()
    resolver.record_fact("user", "employer", "Initech", "2025-01-01")
    resolver.record_fact("user", "employer", "Globex", "2025-01-01")
    assert resolver.active_state()["user::employer"].value == "Globex"


def test_adding_an_identical_fact_twice_is_a_no_op() -> None:
    resolver = ConflictResolver()
    fact = Fact("user", "location", "Madrid", MADRID_TS, source_leaf="L1")
    resolver.add(fact)
    resolver.add(Fact.from_dict(fact.to_dict()))
    assert len(resolver) == 1
    assert resolver.timeline("user::location")[0].confirmations == []


def test_older_entry_added_late_lands_in_place_and_reports_its_change() -> None:
    resolver = ConflictResolver()
    resolver.record_fact("user", "location", "Valencia", "2026-02-03")
    changes = resolver.record_fact("user", "location", "Madrid", "2024-03-11")
    assert [c.notice() for c in changes] == [NOTICE]
    assert resolver.active_state()["user::location"].value == "Valencia"
    assert resolver.timeline("user::location")[0].status == FactStatus.HISTORICAL


def _timeline_signature(resolver: ConflictResolver) -> dict:
    return {
        "timelines": {
            key: [
                (f.value, f.timestamp, f.status, f.superseded_by, f.valid_from, f.valid_to)
                + (tuple(f.confirmations),)
                for f in resolver.timeline(key)
            ]
            for key in resolver.active_state()
        },
        "notices": resolver.notices(),
        "state_2025": {k: f.value for k, f in resolver.state_at("2025-06-15").items()},
    }


@st.composite
def fact_lists(draw) -> list[tuple[str, str, str, str]]:
    days = draw(st.lists(st.integers(0, 3000), min_size=1, max_size=14, unique=True))
    facts = []
    for day in days:
        subject, attribute = draw(st.sampled_from([("user", "location"), ("staging", "database")]))
        value = draw(st.sampled_from(["Madrid", "madrid", "Valencia", "Paris", "MySQL 8"]))
        stamp = (date(2022, 1, 1) + timedelta(days=day)).isoformat() + "T12:00:00Z"
        facts.append((subject, attribute, value, stamp))
    return facts


@settings(max_examples=60, deadline=None)
@given(facts=fact_lists(), data=st.data())
def test_insertion_order_does_not_change_the_timeline(facts, data) -> None:
    ordered = ConflictResolver()
    for subject, attribute, value, stamp in sorted(facts, key=lambda item: item[3]):
        ordered.record_fact(subject, attribute, value, stamp)
    shuffled = ConflictResolver()
    for subject, attribute, value, stamp in data.draw(st.permutations(facts)):
        shuffled.record_fact(subject, attribute, value, stamp)
    assert _timeline_signature(shuffled) == _timeline_signature(ordered)


# ------------------------------------------------------------------ extraction


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("I live in New York and I love it.", "user::location", "New York"),
        ("I moved to El Saler last year", "user::location", "El Saler"),
        ("I'm living in Valencia now", "user::location", "Valencia"),
        ("We relocated to Lisbon because of work.", "user::location", "Lisbon"),
        ("vivo en Madrid desde 2020", "user::location", "Madrid"),
        ("Me mudé a Valencia a principios de 2026.", "user::location", "Valencia"),
        ("me mudo a Lisboa en marzo", "user::location", "Lisboa"),
        ("nos vamos a mudar a Cádiz", "user::location", "Cádiz"),
        ("The user is moving to Sevilla.", "user::location", "Sevilla"),
        ("El usuario se muda a Sevilla", "user::location", "Sevilla"),
        (
            "me he mudado a Santiago de Compostela, por fin",
            "user::location",
            "Santiago de Compostela",
        ),
        ("nos mudamos a Nueva York en 2019", "user::location", "Nueva York"),
        ("I work at Google as an engineer", "user::employer", "Google"),
        ("I work for Acme Corp.", "user::employer", "Acme Corp"),
        ("I joined Stripe in 2021", "user::employer", "Stripe"),
        ("I started at Globex on Monday", "user::employer", "Globex"),
        ("Trabajo en Mercadona desde 2019", "user::employer", "Mercadona"),
        ("Empecé a trabajar en el Banco de España.", "user::employer", "Banco de España"),
        ("entré a trabajar en Iberdrola", "user::employer", "Iberdrola"),
        ("Hoy he firmado el contrato con Mareas Tech.", "user::employer", "Mareas Tech"),
        ("firmado el contrato con Mareas Tech. Dejo Nubalia", "user::employer", "Mareas Tech"),
        ("Firmé un contrato con Telefónica ayer", "user::employer", "Telefónica"),
        ("He fichado por Glovo", "user::employer", "Glovo"),
        ("fiché por Cabify en marzo", "user::employer", "Cabify"),
        ("I signed with Shopify last week", "user::employer", "Shopify"),
        ("I've signed a contract with Acme Corp.", "user::employer", "Acme Corp"),
        ("I have joined Datadog", "user::employer", "Datadog"),
        (
            "My stack is Python, FastAPI and PostgreSQL.",
            "user::stack",
            "Python, FastAPI and PostgreSQL",
        ),
        ("our stack is Go", "user::stack", "Go"),
        ("Mi stack es Django y React; nada más.", "user::stack", "Django y React"),
        ("nuestro stack es Rust", "user::stack", "Rust"),
        ("staging is on PostgreSQL 17 now", "staging::database", "PostgreSQL 17"),
        ("Production runs on MySQL 8.", "production::database", "MySQL 8"),
        ("prod uses Kubernetes on AWS", "prod::platform", "Kubernetes"),
        ("producción usa MongoDB 7", "produccion::database", "MongoDB 7"),
        ("Staging está en PostgreSQL 16", "staging::database", "PostgreSQL 16"),
        ("Marisol lives in Parque Rodó, near the office.", "marisol::location", "Parque Rodó"),
        ("Elena moved from Vigo to Pontevedra in June.", "elena::location", "Pontevedra"),
        ("Ana Kowalski relocated to Lisbon.", "ana kowalski::location", "Lisbon"),
        ("Tomás Vergara is based in Santiago.", "tomas vergara::location", "Santiago"),
        ("Lucía se ha mudado a Valencia.", "lucia::location", "Valencia"),
        ("Elena is moving to Porto next month.", "elena::location", "Porto"),
        ("Ana Kowalski will move to Lisbon in May.", "ana kowalski::location", "Lisbon"),
        ("Tomás will be relocating to Madrid.", "tomas::location", "Madrid"),
        (
            "Nuria Castro se muda a A Coruña a finales de junio.",
            "nuria castro::location",
            "A Coruña",
        ),
        ("Lucía se va a mudar a Valencia.", "lucia::location", "Valencia"),
        ("Pedro se trasladará a Sevilla en junio.", "pedro::location", "Sevilla"),
        ("Daniela now works from Lisbon (an hour behind).", "daniela::location", "Lisbon"),
        ("Iker is working from Donostia this month.", "iker::location", "Donostia"),
        ("Iker trabaja desde Bilbao.", "iker::location", "Bilbao"),
        ("Nerea vive en Bilbao y trabaja en remoto.", "nerea::location", "Bilbao"),
    ],
)
def test_default_patterns_english_and_spanish(text: str, key: str, value: str) -> None:
    assert extract_one(text) == [(key, value)]


@pytest.mark.parametrize(
    "text",
    [
        "ya no vivo en Madrid",
        "Ya no vivo en Madrid.",
        "I don't live in Paris",
        "no trabajo en Google",
        "si vivo en Madrid, te aviso",
        "busco trabajo en Madrid",
        "concierto en vivo en Madrid",
        "I work at home",
        "I joined the meeting late",
        "I started at 9am",
        "vivo en un piso pequeño",
        "staging is on hold",
        "Dejo Nubalia",
        "I left Nubalia",
        "I quit Globex last month",
        "Ana ha firmado el contrato con Mareas Tech",
        "no he firmado el contrato con Mareas Tech",
        "firmé el contrato con el casero",
        "I signed with a smile",
        "he fichado por la mañana",
        "Prieto moved to the data team on 22 June",
        "Press moved from 8080 to port 8088",
        "He is based in Hamburg",
        "FitZona moved to Vercel last week",
        "The standup moved to Tuesdays",
        "Deploys move to Fridays",
        "Ana works from home on Fridays",
        "Ana works from the Providencia office",
        "muro's staging database is a separate Postgres on pg-muro-stg",
    ],
)
def test_negations_and_non_facts_are_not_extracted(text: str) -> None:
    assert extract_one(text) == []


def test_negated_and_affirmed_in_one_sentence() -> None:
    assert extract_one("Ya no vivo en Madrid, vivo en Valencia.") == [
        ("user::location", "Valencia")
    ]


def test_dated_journal_lines_give_each_fact_its_date() -> None:
    journal = (
        "Diario\n"
        "2024-03-11 — Hoy firmé el contrato. Vivo en Madrid.\n"
        "Nada más.\n"
        "## 2025-06-01\n"
        "I work at Globex. Vivo en Madrid.\n"
        "Lunes, 3 de febrero de 2026: me mudé a Valencia.\n"
    )
    facts = FactExtractor().extract(journal, timestamp="2026-07-01T12:00:00Z", source_leaf="J")
    assert [(f.key, f.value, f.timestamp[:10]) for f in facts] == [
        ("user::location", "Madrid", "2024-03-11"),
        ("user::employer", "Globex", "2025-06-01"),
        ("user::location", "Madrid", "2025-06-01"),
        ("user::location", "Valencia", "2026-02-03"),
    ]
    assert {f.source_leaf for f in facts} == {"J"}
    undated = FactExtractor().extract("vivo en Madrid", timestamp="2026-07-01T12:00:00Z")
    assert undated[0].timestamp == "2026-07-01T12:00:00Z"


def test_identical_fact_on_one_date_is_kept_once() -> None:
    text = "Vivo en Madrid. Sí, vivo en madrid. I live in Madrid!"
    assert extract_one(text) == [("user::location", "Madrid")]


CLINICAL_HISTORY = """Historia clínica — paciente 4471

Consulta 15/01/2024
Motivo: cefalea y cifras tensionales elevadas.
Diagnóstico: Hipertensión arterial grado 1.
Tratamiento: dieta hiposódica y ejercicio aeróbico
Medicación: ninguna

Consulta 10/06/2024
Diagnóstico: Hipertensión arterial grado 1.
Tratamiento: dieta hiposódica y ejercicio aeróbico
Medicación actual: enalapril 10 mg/24h

Consulta 02/02/2025
Diagnóstico: Hipertensión arterial grado 2 con diabetes tipo 2
Tratamiento: control estricto; revisión en 3 meses
Medicación actual: enalapril 20 mg/24h, metformina 850 mg/12h
"""


def test_clinical_history_builds_three_timelines() -> None:
    resolver = ConflictResolver()
    facts = FactExtractor().extract(
        CLINICAL_HISTORY, timestamp="2025-03-01T00:00:00Z", source_leaf="HC-4471"
    )
    resolver.add_many(facts)
    active = {key: fact.value for key, fact in resolver.active_state().items()}
    assert active == {
        "patient::diagnosis": "Hipertensión arterial grado 2 con diabetes tipo 2",
        "patient::treatment": "control estricto",
        "patient::medication": "enalapril 20 mg/24h, metformina 850 mg/12h",
    }
    diagnosis = resolver.timeline("patient::diagnosis")
    assert [f.value for f in diagnosis] == [
        "Hipertensión arterial grado 1",
        "Hipertensión arterial grado 2 con diabetes tipo 2",
    ]
    assert diagnosis[0].confirmations == ["2024-06-10T00:00:00Z"]
    medication = resolver.timeline("patient::medication")
    assert [f.timestamp[:10] for f in medication] == ["2024-01-15", "2024-06-10", "2025-02-02"]
    assert [f.status for f in medication] == ["HISTORICAL", "HISTORICAL", "ACTIVE"]
    assert resolver.state_at("2024-07-01")["patient::medication"].value == "enalapril 10 mg/24h"
    assert len(resolver.contradictions(subject="patient")) == 4


def test_patterns_are_well_formed() -> None:
    names = [p.name for p in DEFAULT_PATTERNS]
    assert len(names) == len(set(names))
    for pattern in DEFAULT_PATTERNS:
        assert pattern.validate().compiled().groupindex["value"]


# ------------------------------------------------------------------ custom rules


def test_add_pattern_at_run_time() -> None:
    extractor = FactExtractor()
    pattern = extractor.add_pattern("user", "editor", r"my editor is (?P<value>\w+)", name="ed")
    assert isinstance(pattern, FactPattern) and pattern.name == "ed"
    facts = extractor.extract("These days my editor is Helix, honestly.", timestamp=MADRID_TS)
    assert [(f.key, f.value) for f in facts] == [("user::editor", "Helix")]
    extractor.add_pattern("user", "editor", r"editor: (?P<value>\w+)", name="ed")  # replaces
    assert [p.name for p in extractor.patterns].count("ed") == 1


@pytest.mark.parametrize(
    "regex", [r"my editor is (?P<value>\w+", r"my editor is (\w+)", r"(?P<value>[a-"]
)
def test_add_pattern_rejects_bad_regex_with_one_line(regex: str) -> None:
    with pytest.raises(InputError) as info:
        FactExtractor().add_pattern("user", "editor", regex)
    assert "\n" not in str(info.value)


def test_patterns_from_config() -> None:
    patterns = patterns_from_config(
        [
            {"subject": "project", "attribute": "ci", "regex": r"CI runs on (?P<value>\w+)"},
            {"subject": "user", "attribute": "os", "regex": r"I use (?P<value>\w+)", "name": "os"},
        ]
    )
    extractor = FactExtractor(DEFAULT_PATTERNS + patterns)
    facts = extractor.extract("CI runs on GitHub. I use Linux.", timestamp=MADRID_TS)
    assert [(f.key, f.value) for f in facts] == [("project::ci", "GitHub"), ("user::os", "Linux")]


@pytest.mark.parametrize(
    ("items", "needle"),
    [
        ([{"subject": "a", "attribute": "b", "regex": "(?P<value>", "name": "broken"}], "broken"),
        ([{"subject": "a", "regex": "(?P<value>x)"}], "#0"),
        ([{"subject": "a", "attribute": "b", "regex": "(?P<value>x)"}, "nope"], "#1"),
        ([{"subject": "a", "attribute": "b", "regex": "no group"}], "named group"),
        ("not a list", "list"),
    ],
)
def test_patterns_from_config_names_the_bad_entry(items, needle: str) -> None:
    with pytest.raises(InputError, match=re.escape(needle)):
        patterns_from_config(items)


# ------------------------------------------------------------------ record / remove / persist


def test_record_fact() -> None:
    resolver = ConflictResolver()
    assert resolver.record_fact("User", " Location ", "  Madrid  ", "2024-03-11") == []
    fact = resolver.active_state()["user::location"]
    assert (fact.value, fact.origin, fact.timestamp) == (
        "Madrid",
        "recorded",
        "2024-03-11T00:00:00Z",
    )
    resolver.record_fact("project", "ci", "GitHub Actions")  # timestamp defaults to now
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", resolver.active_state()["project::ci"].timestamp
    )
    for bad in [("", "a", "b", None), ("a", "b", "  ", None), ("a", "b", "c", "someday")]:
        with pytest.raises(InputError):
            resolver.record_fact(*bad)


def test_remove_leaf_recomputes_the_timeline(moved) -> None:
    resolver, _, _ = moved
    assert resolver.remove_leaf("L2") == 1
    madrid = resolver.active_state()["user::location"]
    assert (madrid.value, madrid.status, madrid.valid_to, madrid.superseded_by) == (
        "Madrid",
        "ACTIVE",
        None,
        None,
    )
    assert resolver.notices() == [] and resolver.superseded_leaves() == {}
    assert resolver.remove_leaf("L1") == 1
    assert resolver.active_state() == {} and resolver.timeline("user::location") == []
    assert resolver.remove_leaf("unknown") == 0


def test_leaf_that_states_the_new_value_is_not_flagged() -> None:
    resolver = ConflictResolver()
    text = "2024-03-11 vivo en Madrid.\n2026-02-03 me mudé a Valencia.\n"
    resolver.add_many(FactExtractor().extract(text, timestamp=VALENCIA_TS, source_leaf="J"))
    assert resolver.notices() == [NOTICE]
    assert resolver.superseded_leaves() == {}


def test_round_trip_through_json(moved) -> None:
    resolver, _, _ = moved
    resolver.record_fact("user", "location", "valencia", "2026-05-01", source_leaf="L3")
    resolver.record_fact("staging", "database", "PostgreSQL 17", "2025-01-01")
    dumped = json.dumps(resolver.to_list())
    restored = ConflictResolver.from_list(json.loads(dumped))
    assert restored.to_list() == resolver.to_list()
    assert _timeline_signature(restored) == _timeline_signature(resolver)
    assert restored.superseded_leaves() == resolver.superseded_leaves()
    for fact in resolver.facts():
        assert Fact.from_dict(json.loads(json.dumps(fact.to_dict()))) == fact


@pytest.mark.parametrize(
    "items",
    [
        [{"subject": "user"}],
        [
            {
                "subject": "u",
                "attribute": "a",
                "value": "v",
                "timestamp": "2024-01-01",
                "status": "X",
            }
        ],
        [{"subject": "u", "attribute": "a", "value": "v", "timestamp": "never"}],
        ["nope"],
        "nope",
    ],
)
def test_from_list_rejects_malformed_items(items) -> None:
    with pytest.raises(InputError):
        ConflictResolver.from_list(items)


# ------------------------------------------------------------------ robustness

_FRAGMENTS = st.sampled_from(
    [
        "vivo en ", "I live in ", "me mudé a ", "Diagnóstico:", "Medicación actual:\n",
        "staging is on ", "my stack is ", "2024-03-11 ", "\n", ". ", ", ", " y ", "Madrid",
        "El", "de", "la", "(", ")", "ya no ", "trabajo en ", "I joined ", "'", "’", "ß", "İ",
    ]
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(text=st.one_of(st.text(max_size=400), st.lists(_FRAGMENTS, max_size=40).map("".join)))
def test_extract_never_raises(text: str) -> None:
    facts = FactExtractor().extract(text, timestamp=MADRID_TS, source_leaf="X")
    for fact in facts:
        assert fact.value.strip() and len(fact.value) <= 120
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", fact.timestamp)
    ConflictResolver().add_many(facts)


def test_extract_tolerates_non_text_and_rejects_bad_timestamp() -> None:
    extractor = FactExtractor()
    assert extractor.extract(None, timestamp=MADRID_TS) == []  # type: ignore[arg-type]
    assert extractor.extract("", timestamp=MADRID_TS) == []
    with pytest.raises(InputError):
        extractor.extract("vivo en Madrid", timestamp="whenever")


def test_long_adversarial_text_is_handled() -> None:
    text = "vivo en " * 20000 + "staging is on " * 5000 + "I " * 20000
    assert FactExtractor().extract(text, timestamp=MADRID_TS) == []


def test_a_new_employer_supersedes_the_one_left_without_a_leaving_fact() -> None:
    """'Dejo Nubalia' names no value; the joining fact that follows replaces the old one."""
    extractor = FactExtractor()
    resolver = ConflictResolver()
    resolver.add_many(
        extractor.extract("Trabajo en Nubalia.", timestamp=MADRID_TS, source_leaf="L1")
    )
    later = extractor.extract(
        "Hoy he firmado el contrato con Mareas Tech. Dejo Nubalia.",
        timestamp=VALENCIA_TS,
        source_leaf="L2",
    )
    assert [(f.key, f.value) for f in later] == [("user::employer", "Mareas Tech")]
    changes = resolver.add_many(later)
    active = resolver.active_state()["user::employer"]
    assert (active.value, active.source_leaf) == ("Mareas Tech", "L2")
    assert [(c.old_value, c.new_value) for c in changes] == [("Nubalia", "Mareas Tech")]
