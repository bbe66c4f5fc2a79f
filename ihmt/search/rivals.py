"""Two memories that answer one question differently: a learned AMBIGUOUS.

"What port does the dev server run on?" where two projects each run one; "what's the job
timeout?" where two jobs have one each; "when's the launch?" with two launches planned. The
rules (a tie on the question's words, values of the asked shape saved within a month of each
other, two people of one first name) flag about one such question in six; the others get a
BEST that picks one of the two at random, and the agent never learns there was a choice.

What tells a real choice from one fact said twice, or from a fact and its later correction,
is a mix of weak signals: how alike the two memories are beyond the question's words, whether
each gives a value of the shape asked and whether the values differ, how far apart they were
saved, whether the later one tells of a change, what the ordering trees make of each. A
forest of gradient-boosted trees (rivals_trees.py, fitted by benchmarks/fit_rivals.py on the
agent-question corpora: their ambiguous questions against all the others) weighs them; a BEST
whose runner-up reaches the threshold becomes AMBIGUOUS between the two. The threshold is set
high: AMBIGUOUS on a question with one answer costs the agent a question to the user.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from datetime import date

from .. import boosted
from . import learned_order, rivals_trees

# fitted probability of "two answers" at which a BEST becomes AMBIGUOUS. Left one set out over
# 124 corpora, lexical: 0.6 flags 67 of the 280 ambiguous questions answered BEST with both
# candidates for 16 AMBIGUOUS on other questions (11 of them right answers, still listed among
# the two); 0.5 flags 86 for 34 (23). With the semantic extra (its own forest): 0.6 flags 96
# of 343 for 18 (14); 0.5, 120 for 36 (26)
THRESHOLD = 0.6
LONG_APART = 365.0  # days: two memories this far apart have the full distance signal

PAIR_FEATURES = (
    "tree_lead",  # the ordering trees' score of the best memory
    "tree_rival",  # ... of the runner-up
    "tree_gap",  # ... the difference
    "confidence",  # the answer's confidence
    "both_values",  # each gives a value of the shape asked (a port, a version, a place...)
    "values_differ",  # ... and no value of one is a value of the other
    "days_apart",  # how far apart they were saved, in years (0..1)
    "rival_later",  # the runner-up was saved after the best memory
    "later_tells_change",  # the later of the two says something changed ("now", "moved to")
    "likeness",  # share of their words' rarity (besides the question's) the two share
    "lead_own",  # share of the best memory's rarity in words neither the other nor the question has
    "rival_own",  # ... the runner-up's
    "name_alone",  # the question names someone or something by one word alone ("Brais")
    "same_project",  # both were saved in the same project (or both global)
)
FEATURES = (
    tuple(f"lead_{name}" for name in learned_order.FEATURES)
    + tuple(f"rival_{name}" for name in learned_order.FEATURES)
    + PAIR_FEATURES
)


def features(
    scored: tuple[list, list[list[float]], list[float]],
    lead_id: str,
    question_terms: Sequence[str],
    word_idf: Mapping[str, float],
    confidence: float,
    values_of: Callable[[object], frozenset[str]] | None,
    content_of: Callable[[object], str],
    tells_change: Callable[[str], bool],
    name_alone: bool,
) -> tuple[list[float], object] | None:
    """The judge's input, in FEATURES order, and the runner-up it weighs against the memory
    ``lead_id``; None when that memory is not in the window the ordering trees scored or the
    window holds no other. ``values_of``: the values of the shape asked a memory gives (None
    when the question asks for no shape); ``word_idf``: the rarity of the window's words."""
    window, rows, scores = scored
    index = next((i for i, c in enumerate(window) if c.ref["id"] == lead_id), None)
    if index is None or len(window) < 2:
        return None
    other = max((i for i in range(len(window)) if i != index), key=lambda i: (scores[i], -i))
    lead, rival = window[index], window[other]
    lead_values = values_of(lead) if values_of else frozenset()
    rival_values = values_of(rival) if values_of else frozenset()
    both = bool(lead_values and rival_values)
    lead_date, rival_date = lead.ref.get("date") or "", rival.ref.get("date") or ""
    later = rival if rival_date > lead_date else lead
    asked = set(question_terms)
    lead_words = set(lead.ref.get("tf") or ()) - asked
    rival_words = set(rival.ref.get("tf") or ()) - asked
    return [
        *rows[index],
        *rows[other],
        scores[index],
        scores[other],
        scores[index] - scores[other],
        confidence,
        1.0 if both else 0.0,
        1.0 if both and not lead_values & rival_values else 0.0,
        _years_apart(lead_date, rival_date),
        1.0 if rival_date > lead_date else 0.0,
        1.0 if tells_change(content_of(later)) else 0.0,
        _share(lead_words & rival_words, lead_words | rival_words, word_idf),
        _share(lead_words - rival_words, lead_words, word_idf),
        _share(rival_words - lead_words, rival_words, word_idf),
        1.0 if name_alone else 0.0,
        1.0 if lead.ref.get("project") == rival.ref.get("project") else 0.0,
    ], rival


def probability(x: Sequence[float], semantic: bool) -> float:
    """The fitted probability that the two memories answer the question differently; 0.0 when
    no forest is shipped for the mode."""
    chance = boosted.mode_probability(rivals_trees, semantic, x)
    return 0.0 if chance is None else chance


def _share(part: set[str], whole: set[str], word_idf: Mapping[str, float]) -> float:
    total = math.fsum(word_idf.get(t, 0.0) for t in whole)
    return math.fsum(word_idf.get(t, 0.0) for t in part) / total if total else 0.0


def _years_apart(first: str, second: str) -> float:
    try:
        days = abs((date.fromisoformat(first[:10]) - date.fromisoformat(second[:10])).days)
    except ValueError:
        return 1.0
    return min(days / LONG_APART, 1.0)
