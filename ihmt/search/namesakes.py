"""Two people of one first name: "what's Luis's extension?" when memory knows Luis Ortega
and Luis Pardo.

The question names someone by first name alone; among the memories that answer it about as
well as the best one, two name that first name with two different surnames, each memory one
of them. Which Luis is meant is the user's to say: the answer is AMBIGUOUS between them (a
clue such as "the CTO" or the surname then picks one; search/clue.py). A memory naming both
people (a team list) speaks of neither in particular and is no candidate; a memory naming
the first name alone ("Luis prefers Meet") cannot be told apart, so the rule stays out.

A first name from ihmt/text/given_names.py counts in any memory; a name the list lacks
("Wanjiru") only in memories that write of a person ("she", "his"), so "GitHub Actions" and
"GitHub Pages" stay one product's two features, not two people.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from .. import re_cache
from ..text.given_names import GIVEN_NAMES
from ..text.tokenize import fold, terms
from .navigator import Candidate
from .unknown_names import named_terms

NAMESAKE_WINDOW = 5  # leading candidates read for a namesake
NAMESAKE_COVERAGE = 0.3  # ... holding at least this share of what the best of them covers

# the surname written right after the first name ("Luis Pardo", "Iker Salgado's"); the clue
# reads it too (search/clue.py: "Ana" + "from SRE" -> the surname of the Ana in SRE)
SURNAME_AFTER = r"(?<![\w.])%s\s+((?-i:[A-ZÁÉÍÓÚÑÜ][a-záéíóúñü'’-]{1,30}))"


def first_names(question: str) -> list[str]:
    """The given names the question uses alone ("Luis" in "what's Luis's phone?"), as written."""
    found = []
    for surface, _named in named_terms(question):
        if " " not in surface and fold(surface) in GIVEN_NAMES:
            found.append(surface)
    return found


def names_alone(question: str) -> list[str]:
    """Every one-word name the question uses alone, given name or not ("Wanjiru", "Grafana"),
    as written: a first name the list of given names lacks is told from a product by the
    memories themselves (``namesakes``)."""
    return [surface for surface, _named in named_terms(question) if " " not in surface]


# a memory about a person says so: "she mutes WhatsApp", "his laptop", "ella revisa"
_PERSON_WORDS = re_cache.compile(
    r"(?<![\w'’])(?:she|he|her|his|him|herself|himself|ella|él)(?!\w)", re.I
)


def _about_a_person(text: str) -> bool:
    return _PERSON_WORDS.search(text[:4000]) is not None


def surnames_in(text: str, first: str) -> set[str]:
    """The surnames written after ``first`` in ``text`` ("Luis Ortega ... Luis Pardo" ->
    {"ortega", "pardo"}), folded, possessive aside."""
    return set(_surnames_written(text, first))


def _surnames_written(text: str, first: str) -> dict[str, str]:
    """Folded surname -> as first written ("Muñoz's" -> {"munoz": "Muñoz"})."""
    pattern = re.compile(SURNAME_AFTER % re.escape(first))  # noqa: TID251 - user text
    out: dict[str, str] = {}
    for match in pattern.finditer(text[:4000]):
        written = match.group(1).removesuffix("'s").removesuffix("’s").rstrip("'’")
        if written:
            out.setdefault(fold(written), written)
    return out


@dataclass(frozen=True)
class Namesakes:
    """A first name the question uses alone and the people of that name memory knows, with
    the memory that speaks for each (in rank order)."""

    first: str
    people: list[str]  # "Luis Ortega", "Luis Pardo"
    candidates: list[Candidate]


def namesakes(
    question: str,
    ranked: list[Candidate],
    content_of: Callable[[Candidate], str],
    answers: Callable[[Candidate], bool],
    weight: dict[str, float] | None = None,
    firsts: list[str] | None = None,
    shape_words: frozenset[str] = frozenset(),
) -> Namesakes | None:
    """The leading candidates that speak of two or more people sharing a first name the
    question uses alone, one candidate per person in rank order; None when the question names
    the person in full, the leader speaks of that first name without a surname, or the
    memories about one of the people hold much less of the question than those about the
    other. ``answers`` says whether a candidate holds what the question asks (the shape
    asked, when it asks one); ``weight`` (term -> rarity) weighs the question's other words,
    which may single out one of the people ("Iñaki's chemistry group"); ``firsts``: the
    question's first names when already read; ``shape_words``: its words naming the shape
    asked ("email")."""
    if len(ranked) < 2:
        return None
    lead = ranked[0]
    for first in first_names(question) if firsts is None else firsts:
        if surnames_in(question, first) or _initial_after(question, first):
            continue  # "Luis Pardo" named in full, or "Nuria C.": one person
        # a name the list lacks ("Wanjiru") is someone's only where memory writes of a person
        given = fold(first) in GIVEN_NAMES
        holders: list[tuple[Candidate, str]] = []
        written: dict[str, str] = {}
        for cand in ranked[:NAMESAKE_WINDOW]:
            text = content_of(cand)
            found = _surnames_written(text, first)
            if cand is lead and not found and _mentions(text, first):
                if given:
                    return None  # "Luis prefers Meet": which Luis cannot be read
                holders = []  # "Slurm" written alone: a thing, whatever follows it elsewhere
                break
            if len(found) == 1 and answers(cand) and (given or _about_a_person(text)):
                surname = next(iter(found))
                holders.append((cand, surname))
                written.setdefault(surname, found[surname])
        if not holders:
            continue
        name_terms = set(terms(first))
        held = {id(cand): _held(cand, name_terms, weight, shape_words) for cand, _ in holders}
        best = max(held.values())
        people: dict[str, Candidate] = {}
        for cand, surname in holders:
            if held[id(cand)] < NAMESAKE_COVERAGE * best:
                continue
            # each person's memory that holds most of the question speaks for them
            if surname not in people or held[id(cand)] > held[id(people[surname])]:
                people[surname] = cand
        if len(people) >= 2:
            chosen = {id(cand): surname for surname, cand in people.items()}
            ordered = [cand for cand in ranked if id(cand) in chosen]
            names = [f"{first} {written[chosen[id(cand)]]}" for cand in ordered]
            return Namesakes(first=first, people=names, candidates=ordered)
    return None


def _held(
    cand: Candidate,
    name_terms: set[str],
    weight: dict[str, float] | None,
    shape_words: frozenset[str] = frozenset(),
) -> float:
    """What a holder (a memory that answers) holds of the question besides the first name, by
    rarity; holding a value of the shape asked, it holds the words naming it
    ("lucia.okada@..." holds "email address" though neither word)."""
    weight = weight or {}
    held = (set(cand.matched) - name_terms) | shape_words
    return math.fsum(weight[t] for t in held if t in weight)


def _initial_after(question: str, first: str) -> bool:
    """Whether the question writes the surname's initial after the first name ("Nuria C.")."""
    pattern = r"(?<![\w.])" + re.escape(first) + r"\s+[A-ZÁÉÍÓÚÑÜ]\.(?!\w)"
    return re.search(pattern, question[:2000]) is not None


def _mentions(text: str, first: str) -> bool:
    pattern = r"(?<![\w.])" + re.escape(first) + r"(?![\w-])"
    return re.search(pattern, text[:4000]) is not None
