"""Which memory a new one replaces, from the agent's short pointer and the new text itself.

``save(content, replaces="Vault version")`` names the old memory in a few words. Those words
alone often fit several memories equally ("Vault version" fits the Vault runbook, the upgrade
plan and the note "Vault 1.15.6 runs on three nodes"), so the link was made only when the
pointer's search had one clear winner, and most corrections went unlinked. The new memory says
more: "Vault upgraded to 1.17.3 by Ana" shares its subject's rare words with the memory it
corrects. Each candidate the pointer finds is scored by both: how well it matches the pointer
(its search score, relative to the best) and how much of the new memory's weight it holds
(its rare words, idf-weighted). A stored document is reference text: a saved memory is what
an agent's correction points at, unless the document matches clearly better.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ..models import Hit
from ..text.tokenize import terms
from .answer_type import SHAPES

CONTENT_WEIGHT = 1.0  # how much the new memory's words count beside the pointer's
DOCUMENT_SHARE = 0.8  # a document piece's combined score counts this share
VALUE_WEIGHT = 0.3  # ... and the kinds of value both state
CLEAR_LEAD = 1.25  # the best combined score must lead the next by this factor (1.1 let a
# pointer that fits three memories alike link the shortest: BM25 length alone gave it 12 %;
# at 1.15, 39 of 1,083 links over the agent corpora marked the wrong memory OUTDATED, silently;
# at 1.25, 15 of 936 do, and the 147 closer calls list their candidates for the agent to pick)
MIN_CONTENT_SHARE = 0.1  # ... and hold at least this share of the new memory's weight
CONTENT_CHARS = 4000  # of a candidate's text read for the new memory's words


def content_share(new_terms: Mapping[str, float], text: str) -> float:
    """Share of the new memory's weight (term -> idf) that ``text`` holds."""
    total = math.fsum(new_terms.values())
    if total <= 0:
        return 0.0
    held = set(terms(text[:CONTENT_CHARS]))
    return math.fsum(w for t, w in new_terms.items() if t in held) / total


def value_shapes(text: str) -> frozenset[str]:
    """The kinds of value a text states (a version, a date, a time of day, a port...)."""
    text = text[:CONTENT_CHARS]
    return frozenset(
        shape.name
        for shape in SHAPES
        if shape.name not in _NOT_COMPARED and shape.holds.search(text)
    )


# a machine's memory or disk size is part of how a note describes the machine ("CX32, 4 vCPU,
# 8 GB RAM"), not the value a correction is about: compared, it moved a `replaces` pointer to
# an older note of the same machine. Answer shapes only for NOT FOUND (search/answer_type.py).
# Spans of time ("for 2 weeks"), rates ("every night") and people's names are as common in a
# note's telling and are not compared either (measured for spans: compared, they moved
# pointers both ways on the agent corpora); places neither, new with their answer shape
_NOT_COMPARED = frozenset({"size", "duration", "frequency", "person", "place"})


def choose_replaced(
    hits: Sequence[Hit], new_terms: Mapping[str, float], before: str = "", new_text: str = ""
) -> tuple[Hit | None, list[Hit]]:
    """The hit the new memory replaces, or None; and the candidates ranked best first (shown
    to the agent when none is clear). ``hits``: the pointer's search hits; ``new_terms``: the
    new memory's terms with their idf; ``before``: the new memory's date ("" = now): a memory
    saved later is no earlier value; ``new_text``: the new memory, for the kinds of value it
    states."""
    pool = [h for h in hits if not h.outdated] or list(hits)
    if before:
        pool = [h for h in pool if (h.timestamp or "") <= before]
    if not pool:
        return None, []
    top = max(h.score for h in pool) or 1.0
    # "Vault upgraded to 1.17.3" corrects a memory stating a version, not one about Vault's
    # certificates: the kinds of value both state count
    new_values = value_shapes(new_text)

    share = {h.leaf_id: content_share(new_terms, h.content) for h in pool}

    def combined(hit: Hit) -> float:
        score = hit.score / top + CONTENT_WEIGHT * share[hit.leaf_id]
        if new_values:
            score += VALUE_WEIGHT * len(new_values & value_shapes(hit.content)) / len(new_values)
        return score * (1.0 if _saved(hit) else DOCUMENT_SHARE)

    weight = {h.leaf_id: combined(h) for h in pool}
    scored = sorted(pool, key=lambda h: (-weight[h.leaf_id], h.leaf_id))
    first = scored[0]
    clear = (
        _saved(first)  # a stored document holds many words of anything: never linked unasked
        and share[first.leaf_id] >= MIN_CONTENT_SHARE
        and (len(scored) == 1 or weight[first.leaf_id] >= CLEAR_LEAD * weight[scored[1].leaf_id])
    )
    return (first if clear else None), scored


def _saved(hit: Hit) -> bool:
    return (hit.source or "memory") == "memory"
