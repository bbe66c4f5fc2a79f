"""Questions about a tracked fact: "where do I live?", "which database runs staging?".

Lexical search cannot connect "where do I live" with "me mudé a Valencia", but the timeline
already knows user::location. This module recognises which tracked (subject, attribute) a
question asks about, from cue words in English and Spanish, so search can answer with the
memory that holds the current value — and show the older ones as history — or, when the
question names a year, with the value valid then.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import re_cache
from ..text.dates import year_mentions
from ..text.tokenize import fold, tokenize

ATTRIBUTE_CUES: dict[str, set[str]] = {
    "location": {
        "live",
        "lives",
        "living",
        "lived",
        "reside",
        "resides",
        "located",
        "location",
        "based",
        "city",
        "town",
        "move",
        "moved",
        "home",
        "address",
        "vivo",
        "vives",
        "vive",
        "vivir",
        "vivia",
        "vivimos",
        "resido",
        "ciudad",
        "mude",
        "mudado",
        "mudamos",
        "mudanza",
        "domicilio",
    },
    "employer": {
        "work",
        "works",
        "working",
        "worked",
        "job",
        "employer",
        "company",
        "employed",
        "trabajo",
        "trabajas",
        "trabaja",
        "trabajaba",
        "empresa",
        "empleo",
        "curro",
    },
    "stack": {"stack", "tech", "technologies", "technology", "tecnologias", "tecnologia"},
    "database": {"database", "databases", "db", "base", "datos", "bbdd"},
    "platform": {"platform", "runs", "hosted", "hosting", "plataforma"},
    "diagnosis": {"diagnosis", "diagnosed", "diagnostico", "enfermedad", "condition"},
    "treatment": {"treatment", "treated", "tratamiento", "terapia", "therapy"},
    "medication": {
        "medication",
        "medications",
        "medicine",
        "medicines",
        "drug",
        "drugs",
        "medicacion",
        "medicamento",
        "medicamentos",
        "pastillas",
    },
}
# Where a named person lives is asked with the location cues less those that also ask where
# a thing went ("before the group moved to 8G", "the home storage box") and the first-person
# forms, plus the words for a part of a town
_THING_LOCATION_CUES = {"located", "location", "move", "moved", "home", "address", "domicilio"}
_THING_LOCATION_CUES |= {"mude", "mudado", "mudamos", "mudanza", "vivo", "vivimos", "resido"}
PERSON_LOCATION_CUES = (ATTRIBUTE_CUES["location"] - _THING_LOCATION_CUES) | {
    "neighbourhood",
    "neighborhood",
    "barrio",
}
# Idioms whose words would cue the wrong attribute: "what do you do for a living" asks about
# work, not about where someone lives.
_IDIOMS = ((re_cache.compile(r"\bfor\s+a\s+living\b", re.I), "for work"),)
FIRST_PERSON = {"i", "my", "me", "mine", "yo", "mi", "mis", "im"}
PATIENT_CUES = {
    "patient",
    "paciente",
    "diagnosis",
    "diagnostico",
    "treatment",
    "tratamiento",
    "medication",
    "medicacion",
}


@dataclass
class FactQuestion:
    key: str  # subject::attribute
    year: int | None  # a year the question names ("where did I live in 2024?")


def fact_questions(text: str, known_keys: list[str]) -> list[FactQuestion]:
    """The tracked keys a question asks about (empty when it is not such a question)."""
    text = text or ""
    for idiom, meaning in _IDIOMS:
        text = idiom.sub(meaning, text)
    words = set(tokenize(text))
    if not words:
        return []
    years = year_mentions(text or "")
    year = years[0] if len(years) == 1 else None
    out = []
    for key in known_keys:
        subject, _, attribute = key.partition("::")
        cues = ATTRIBUTE_CUES.get(attribute)
        if attribute == "location" and subject not in ("user", "patient"):
            cues = PERSON_LOCATION_CUES
        if not cues or not (words & cues):
            continue
        subject_words = set(tokenize(subject.replace("_", " ")))
        if subject == "user":
            others = {s for k in known_keys for s in tokenize(k.partition("::")[0])} - {"user"}
            if (words & others or _names_someone(text)) and not words & FIRST_PERSON:
                # the question names another subject ("staging runs ..."), or someone by name
                # ("Carlos Pinto's email address" is not where the user lives)
                continue
        elif subject == "patient":
            if not words & PATIENT_CUES:
                continue
        elif not (subject_words and subject_words <= words) and not (
            attribute in _PERSON_ATTRIBUTES and _first_name_only(subject, words, known_keys)
        ):
            continue
        out.append(FactQuestion(key=key, year=year))
    return out


# what only a person has: the first-name shortcut below applies to these, not to "netbox
# migrated::platform"
_PERSON_ATTRIBUTES = frozenset({"location", "employer"})


def _first_name_only(subject: str, words: set[str], known_keys: list[str]) -> bool:
    """True when the question names a tracked person by first name alone ("which city is
    Pablo based in?" for "pablo serrano") and no other tracked subject has that first name
    (two Pablos keep needing their surnames)."""
    names = subject.split()
    if len(names) < 2 or names[0] not in words:
        return False
    subjects = {key.partition("::")[0] for key in known_keys}
    return not any(other != subject and other.split()[:1] == names[:1] for other in subjects)


# a capitalised word after the first one ("Carlos", "Berlin"), the words of a question aside
_NAMED = re_cache.compile(r"(?<=[\w,;:?!'’)]\s)[A-ZÁÉÍÓÚÑ][\w'’-]+")
_NOT_NAMES = {"I", "I'm", "I’m", "I've", "I’ve"}


def _names_someone(text: str) -> bool:
    return any(m.group() not in _NOT_NAMES for m in _NAMED.finditer(text[:2000]))


def folded(text: str) -> str:
    return fold(text or "")
