"""Fitting a code answer into the caller's token budget: which symbols are shown whole,
which are cut to their best stretch, which are only listed by location."""

from __future__ import annotations

from ..text.tokens import estimate_tokens
from .excerpt import excerpt
from .naming import Groups
from .results import CodeAnswer, CodeSnippet

SHOWN_TIED = 3  # tied symbols shown with their code in an AMBIGUOUS answer
KEEP_RATIO = 0.6  # a further symbol is shown in full when it scores this close to the best


def pack(answer: CodeAnswer, snippets: list[CodeSnippet], budget: int, wanted: Groups = ()) -> None:
    """Best symbol always (cut to fit if it alone is too big); then the next ones that score
    close to it while they fit; the rest as locations only."""
    best_score = snippets[0].score or 1e-9
    used = 0
    for i, snip in enumerate(snippets):
        cost = cost_of(snip)
        if i == 0:
            if cost > budget:
                truncate(snip, budget - cost_of(snip, with_code=False) - 30, wanted)
                cost = budget
            answer.snippets.append(snip)
            used = cost
        elif snip.score >= KEEP_RATIO * best_score and used + cost <= budget:
            answer.snippets.append(snip)
            used += cost
        else:
            snip.code = ""
            answer.others.append(snip)
    answer.others = answer.others[:5]


def cost_of(snip: CodeSnippet, with_code: bool = True) -> int:
    """Tokens a snippet adds to an answer: its heading line, and its code."""
    head = estimate_tokens(snip.location + snip.title)
    return head + estimate_tokens(snip.code) + 2 if with_code else head


def pack_tied(answer: CodeAnswer, tied: list[CodeSnippet], budget: int) -> None:
    """The symbols of a tie, shown whole while they fit (at most SHOWN_TIED: reading two
    short bodies costs an agent less than a second call with a clue), the rest as
    locations. None is cut: a tie is no place to guess which part matters."""
    used = 0
    for snip in tied:
        cost = cost_of(snip)
        if len(answer.snippets) < SHOWN_TIED and used + cost <= budget:
            answer.snippets.append(snip)
            used += cost
        else:
            snip.code = ""
            answer.others.append(snip)


def truncate(snip: CodeSnippet, tokens: int, wanted: Groups = ()) -> None:
    """Cut ``snip`` to about ``tokens``: its head and the stretch that best matches the
    question (see excerpt.py), the lines left out marked and listed in ``hidden``."""
    cut = excerpt(snip.code, snip.start_line, max(tokens, 16) * 4, wanted)
    snip.code, snip.hidden, snip.truncated_at = cut.code, cut.hidden, cut.last_shown
