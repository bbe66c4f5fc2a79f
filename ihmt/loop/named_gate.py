"""A learned gate for a prompt that names someone or something: do the memories about the
name that would be shown hold its answer?

A prompt naming someone ("What did Maria donate to a luxury store?") is shown the memories
about that name when the best of them holds enough of the prompt's other words, and no memory
about something else holds more (recall.py). Two fixed floors decided that. On LoCoMo replayed
through the hooks (benchmarks/hooks.py) they turned away an eighth of the questions whose
evidence was among the four best memories, while a fifth of the adversarial questions (a real
memory with one detail changed: a flood asked as a drought, a travel club as a cult) got a
block. The signals are many and weak: how much of the prompt's rarer words the memories hold
and which rare word none holds, words no memory holds at all, where the best memory about the
name ranks, whether its speaker is the one named, what the model vouches for by meaning.

A forest of gradient-boosted trees weighs them, fitted by benchmarks/fit_named_gate.py
(scikit-learn, at fitting time only) on LoCoMo conversations other than the held-out ones and
on the named prompts of the coding-agent sessions: the fitted probability that the block
holds the answer. It overrules the fixed floors when it is clear either way (``SHOW_AT``,
``REFUSE_UNDER``); the floors alone decide when no forest is shipped for the search's mode,
and in a store smaller than ``MIN_MEMORIES``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from .. import boosted
from . import named_gate_trees

# the fitted probability that the block about the name holds the answer overrules the floors
# only when it is clear: a block the floors turn away is shown from SHOW_AT, one they pass is
# turned away under REFUSE_UNDER (left one conversation out, the forest alone at any single
# threshold lost LoCoMo evidence for each adversarial question it turned away)
SHOW_AT = 0.6
REFUSE_UNDER = 0.4
# the stores the trees were fitted on held 64 to 900 memories; a smaller one keeps the floors
# (most words of a prompt are words no memory holds yet, which the trees never saw)
MIN_MEMORIES = 50

FEATURES = (
    "rule",  # the fixed floors would show the block
    "lead_share",  # share of the prompt's other words' rarity the best memory about it holds
    "lead_own_share",  # ... in its own words (not the question a captured reply keeps)
    "elsewhere",  # ... the best memory about something else holds
    "margin",  # lead_own_share - elsewhere
    "about",  # memories about the name among the search's first twenty
    "lead_rank",  # the best memory about the name's place in the search
    "lead_speaks",  # its speaker is the one named (not a mention in someone's words)
    "shown",  # memories the block would show
    "together",  # share of the prompt's other words' rarity the block holds together
    "rarest_missing",  # the rarest such word the block lacks, over the rarest of the prompt
    "rarest_missing_known",  # ... of the words some memory holds
    "other_speaker",  # share the best memory spoken by someone not named holds
    "rest_words",  # the prompt's distinct words besides the names and dates
    "unknown_words",  # ... no memory holds in any inflection
    "unknown_share",  # ... their share of the rarity
    "names",  # how many names the prompt has
    "confidence",  # the search's confidence in its best memory
    "coverage",  # share of the prompt's words the search's best memory holds
    "asks",  # the prompt is a question
    "request",  # the prompt asks for work
    "meaning_lead",  # with the semantic extra: the model vouches for the best memory about it
    "meaning_alone",  # ... by a cosine that answers on its own
    "ambiguous",  # the search found several memories that fit equally
    "length",  # the prompt's length in words
)


def features(
    block: Sequence,
    result,
    lead,
    *,
    rule: bool,
    lead_share: float,
    lead_own_share: float,
    elsewhere: float,
    other_speaker: float,
    about: int,
    held_together: set[str],
    rest: Sequence[str],
    weights: Mapping[str, float],
    unknown: set[str],
    names: int,
    asks: bool,
    request: bool,
    length: int,
    speaks: bool,
) -> list[float]:
    """The gate's input for the ``block`` recall.py would show for a named prompt; ``lead``:
    the best memory about the name; ``rest``: the prompt's words besides the names and
    dates, weighed by ``weights`` (a word no memory holds weighing as one a single memory
    holds); ``held_together``: those of them the block holds."""
    total = math.fsum(weights.get(t, 1.0) for t in rest) or 1.0
    rarest = max((weights.get(t, 1.0) for t in rest), default=1.0) or 1.0
    missing = [weights.get(t, 1.0) for t in rest if t not in held_together]
    missing_known = [weights.get(t, 1.0) for t in rest if t not in held_together | unknown]
    hits = list(result.hits)
    return [
        float(rule),
        lead_share,
        lead_own_share,
        elsewhere,
        lead_own_share - elsewhere,
        float(about),
        float(hits.index(lead)) if lead in hits else float(len(hits)),
        float(speaks),
        float(len(block)),
        math.fsum(weights.get(t, 1.0) for t in rest if t in held_together) / total,
        max(missing, default=0.0) / rarest,
        max(missing_known, default=0.0) / rarest,
        other_speaker,
        float(len(rest)),
        float(sum(1 for t in rest if t in unknown)),
        math.fsum(weights.get(t, 1.0) for t in rest if t in unknown) / total,
        float(names),
        float(result.confidence or 0.0),
        float(result.best.coverage) if result.best is not None else 0.0,
        float(asks),
        float(request),
        float(lead.leaf_id in result.meaning_answers),
        float(lead.leaf_id in result.meaning_alone),
        float(bool(result.ambiguous)),
        float(length),
    ]


def shows(rule: bool, chance: float | None) -> bool:
    """Whether the block is shown: the floors' verdict ``rule`` unless the forest's
    ``chance`` (None: no forest) clearly says otherwise."""
    if chance is None:
        return rule
    return chance >= SHOW_AT or (rule and chance >= REFUSE_UNDER)


def probability(x: Sequence[float], semantic: bool) -> float | None:
    """The fitted probability that the block holds the answer; None when no forest is shipped
    for the mode (recall.py's fixed floors then decide)."""
    return boosted.mode_probability(named_gate_trees, semantic, x)
