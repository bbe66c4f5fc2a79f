"""A learned gate for a prompt that names nothing: is the answer among the memories shown?

The per-prompt hook shows the best memories for a prompt only when they are likely to hold
what it asks. For a prompt that names nobody and nothing ("which python version do we
target?", "where do the staging logs go?"), fixed floors on the search's confidence and on the
share of the prompt's words the best memory covers decided that; on the coding-agent sessions
of benchmarks/hook_sessions.py the answer was in the search's top four for a fifth of the
recall prompts the floors turned away, while a fifth of the never-said questions got a block.
The signals that tell those apart are many and weak: how much of the prompt's rare words the
top memories hold, the rarest word none holds, whether the prompt asks or orders, whether the
best memory keeps the agent's question the prompt asks again, what the model vouches for by
meaning.

A forest of gradient-boosted trees weighs them, fitted by benchmarks/fit_gate.py (scikit-learn,
at fitting time only) on the recall, never-said and unrelated prompts of those sessions: the
fitted probability that the top four memories show the answer. A block is shown when it
reaches ``THRESHOLD``. Prompts that name someone or something keep the name gate of recall.py
(fitted to LoCoMo's questions about two people, where the forest was not fitted), and a store
of fewer than ``MIN_MEMORIES`` keeps the fixed floors.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from .. import boosted
from ..text.reply import own_words
from ..text.tokenize import terms
from . import prompt_gate_trees

THRESHOLD = 0.55  # fitted probability that the shown memories hold the answer
SHOWN = 4  # the memories a block holds for a prompt that names nothing (recall.PROMPT_HITS)
# the stores the trees were fitted on held 64 to 96 memories; in a smaller one most words of a
# prompt are words no memory holds yet, which the trees never saw, so the fixed floors decide
MIN_MEMORIES = 50

FEATURES = (
    "confidence",  # the search's confidence in its best memory
    "coverage",  # share of the prompt's words the best memory holds
    "best_words",  # how many of the prompt's words the best memory matched
    "hits",  # how many memories the search returned
    "asks",  # the prompt is a question (a mark, or a question word first)
    "request",  # the prompt asks for work ("fix …", "add …")
    "replies",  # the prompt answers the agent ("ok thanks")
    "has_clause",  # a question follows context ("…, which tag do the runners use?")
    "words",  # the prompt's distinct words (stop words aside)
    "weight",  # their summed rarity (idf)
    "best_share",  # share of the rarity of the words memory knows that the best memory holds
    "shown_share",  # ... the shown memories hold together
    "rarest_missing",  # the rarest known word none of them holds, as a share of the rarest
    "unknown_words",  # words of the prompt no memory holds in any inflection
    "unknown_share",  # ... their share of the prompt's rarity
    "keeps_question",  # the best memory is a reply that keeps the agent's question
    "asked_again",  # the prompt asks that question again (recall.asks_again)
    "meaning_answers",  # with the semantic extra: the model vouches for the best memory
    "meaning_alone",  # ... by a cosine that answers on its own
    "ambiguous",  # the search found several memories that fit equally
    "length",  # the prompt's length in words, stop words included
)


def features(
    result,
    text: str,
    words: Sequence[str],
    weights: Mapping[str, float],
    unknown: set[str],
    *,
    asks: bool,
    request: bool,
    replies: bool,
    has_clause: bool,
    keeps_question: bool,
    asked_again: bool,
) -> list[float]:
    """The gate's input for one prompt's search ``result`` (a BEST); ``words``: the prompt's
    distinct words, dates aside; ``weights``: their rarity, a word no memory holds weighing as
    one a single memory holds; ``unknown``: the words no memory holds. What the shown memories
    hold is weighed over the words memory knows: no memory can show a word none holds, and a
    small store knows few ("these days, for the new script")."""
    best = result.best
    total = math.fsum(weights.get(t, 1.0) for t in words) or 1.0
    known = [t for t in words if t not in unknown]
    known_total = math.fsum(weights.get(t, 1.0) for t in known) or 1.0
    rarest = max((weights.get(t, 1.0) for t in known), default=1.0) or 1.0

    def held(hit) -> set[str]:
        return (set(hit.matched_terms) | set(terms(own_words(hit.content)))) & set(known)

    shown = [held(hit) for hit in result.hits[:SHOWN]]
    together = set().union(*shown) if shown else set()
    missing = [weights.get(t, 1.0) for t in known if t not in together]
    return [
        float(result.confidence or 0.0),
        float(best.coverage),
        float(len(best.matched_terms)),
        float(len(result.hits)),
        float(asks),
        float(request),
        float(replies),
        float(has_clause),
        float(len(words)),
        total,
        math.fsum(weights.get(t, 1.0) for t in (shown[0] if shown else ())) / known_total,
        math.fsum(weights.get(t, 1.0) for t in together) / known_total,
        max(missing, default=0.0) / rarest,
        float(len(set(words) & unknown)),
        math.fsum(weights.get(t, 1.0) for t in words if t in unknown) / total,
        float(keeps_question),
        float(asked_again),
        float(best.leaf_id in result.meaning_answers),
        float(best.leaf_id in result.meaning_alone),
        float(bool(result.ambiguous)),
        float(len(text.split())),
    ]


def probability(x: Sequence[float], semantic: bool) -> float | None:
    """The fitted probability that the shown memories hold the answer; None when no forest is
    shipped for the mode (recall.py's fixed floors then decide)."""
    return boosted.mode_probability(prompt_gate_trees, semantic, x)
