"""A clue that describes someone instead of naming them: "Ana from SRE", "the backend Pablo".

After an AMBIGUOUS answer the agent calls again with a clue, usually in the words it or the
user has for the person ("Ana from SRE", "the producer"), which the memory that answers rarely
repeats ("Ana Beltrán is on holiday 23-27 March"). Another memory links the two: "Ana Beltrán
(SRE) prefers Slack DMs" holds the first name and the clue's words, and says which Ana that
is. The surname found next to the first name there joins the clue, so the answer that names
the person in full is the one the clue picks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from ..text.tokenize import terms
from .namesakes import SURNAME_AFTER
from .navigator import Candidate
from .unknown_names import named_terms

LINK_WINDOW = 10  # leading candidates read for the person a clue describes


def linked_name_terms(
    question: str,
    clue_terms: Iterable[str],
    cands: list[Candidate],
    content_of: Callable[[Candidate], str],
) -> list[str]:
    """Terms of the surname the clue points at for a first name the question uses alone
    ("Ana" + clue "from SRE" -> "beltran"), read from the leading memory holding both the
    first name and a word of the clue; [] when none is found or two memories disagree."""
    clue = set(clue_terms)
    if not clue:
        return []
    first_names = [
        (surface, named) for surface, named in named_terms(question) if " " not in surface
    ]
    found: list[str] = []
    for surface, named in first_names:
        surnames: set[str] = set()
        pattern = re.compile(SURNAME_AFTER % re.escape(surface))  # noqa: TID251 - user text
        for cand in cands[:LINK_WINDOW]:
            tf = cand.ref.get("tf") or {}
            if not set(named) <= set(tf) or not clue & set(tf):
                continue
            for match in pattern.finditer(content_of(cand)[:4000]):
                surname = terms(match.group(1))
                if surname and not set(surname) & clue:
                    surnames.add(" ".join(surname))
        if len(surnames) == 1:
            found.extend(next(iter(surnames)).split())
    return [t for t in dict.fromkeys(found) if t not in clue]
