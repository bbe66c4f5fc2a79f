"""A parsed query: the words asked, the clue's words, and what they are worth."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..text.tokenize import terms
from . import expansion

MAX_QUERY_CHARS = 4000
MAX_QUERY_TERMS = 64


@dataclass
class Query:
    text: str
    clue: str | None
    terms: list[str]
    clue_terms: list[str]
    # words the question's words go with in answers, each with the share of its idf it is
    # weighted with (search/expansion.py)
    partners: dict[str, float] = field(default_factory=dict)

    @property
    def all_terms(self) -> list[str]:
        seen = dict.fromkeys(self.terms)
        seen.update(dict.fromkeys(self.clue_terms))
        return list(seen)

    @property
    def empty(self) -> bool:
        return not self.terms and not self.clue_terms


def parse_query(text: str, clue: str | None = None) -> Query:
    """Unique content words of the query and clue, bounded so absurd input stays cheap."""
    text = (text or "")[:MAX_QUERY_CHARS]
    clue = (clue or "")[:MAX_QUERY_CHARS] or None
    q_terms = list(dict.fromkeys(terms(text)))[:MAX_QUERY_TERMS]
    c_terms = [t for t in dict.fromkeys(terms(clue or "")) if t not in q_terms][:MAX_QUERY_TERMS]
    return Query(
        text=text,
        clue=clue,
        terms=q_terms,
        clue_terms=c_terms,
        partners=expansion.partners(q_terms),
    )
