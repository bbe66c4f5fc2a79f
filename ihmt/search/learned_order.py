"""The last word on the order of the leading candidates: a fitted score over what the earlier
stages know of each one, fitted on the agent-question corpora.

The stages before this one are rules, each right on its own cases (a shape asked for, a name
held, a later memory restating a fact). Where they leave the answer second or third, what would
have told it apart is usually a combination: a little more of the question covered, a newer
date for a question about now, the words of the question close together. A score over those
signals, fitted to put the writers' answer first (benchmarks/fit_order.py; checked leave one
corpus out, and on corpora written after the fit), decides the order of the first ``WINDOW``
candidates.

The score is a small forest of gradient-boosted trees (order_trees.py, one forest for words
alone and one with the semantic extra's cosines), fitted by benchmarks/fit_order.py. Reading
it is standard library only; fitting needs scikit-learn and runs outside the package.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date as _date

from ..boosted import forest, tree_score
from ..text.tokenize import terms
from . import order_trees
from .restatement import tells_change

WINDOW = 5  # candidates reordered: the answer is rarely further down
SPAN_TERMS = 40  # the window of words in which the question's words are looked for together
LONG_TEXT = 3000  # words: a memory this long has the full length signal
LEAD_MARGIN = 0.0  # how far another candidate's fitted score must lead the first's to replace it

FEATURES = (
    "first",  # the earlier stages put it first
    "position",  # its place among the window, 0 (first) to 1 (last)
    "score",  # its adjusted score over the window's best
    "coverage",  # share of the question's idf mass it holds
    "coverage_gap",  # ... minus the best coverage in the window
    "document",  # a piece of a stored document
    "newer_now",  # how new it is among the window (1 newest), for a question not about before
    "newer_before",  # the same, for a question about before
    "corrected",  # a later memory corrects it by a link
    "restated",  # a later memory says it again (or changes it)
    "shape",  # holds the shape of answer asked for, when one is asked
    "no_shape",  # lacks it, when one is asked
    "names",  # share of the question's names it holds whole
    "length",  # its length in words, on a log scale
    "together",  # the question's words it holds, found close together (share of those held)
    "meaning",  # cosine over the window's best cosine (semantic extra; 0 without)
    "cosine",  # its cosine itself (semantic extra; 0 without)
    "rarest",  # holds the question's rarest word
    "rare_share",  # share of the idf mass of the question's three rarest words it holds
    "days_after_first",  # its date minus the first candidate's, in years (within -1..1)
    "heading",  # share of the question's idf mass in its first line (a title, a heading)
    "same_source",  # a piece of the same stored document as the first candidate
    "asks_now",  # the question says "now", "currently", "these days"...
    "asks_shape",  # the question asks for a shape of answer (a port, a version, a date...)
    "question_words",  # how many words the question has to match, over ten
    "own_coverage",  # the coverage of its own words, when it stands in for the first's fact
    "own_score",  # ... and its own score over the window's best
    "tight",  # the question's words it holds, over the shortest stretch holding them all
    "updates_older",  # tells of a change and shares its other rare words with an older one
    "updated_by_newer",  # ... a newer one in the window does that to it
)


@dataclass
class OrderContext:
    """What the features read beyond the candidates themselves."""

    question_terms: Sequence[str]
    idf: dict[str, float]
    about_before: bool = False
    corrected: frozenset[str] | set[str] = frozenset()
    holds_shape: Callable[[object], bool] | None = None
    names: Sequence[Sequence[str]] = ()
    content_of: Callable[[object], str] = lambda cand: ""
    cosine: dict[str, float] = field(default_factory=dict)
    about_now: bool = False
    asks_shape: bool = False
    word_idf: dict[str, float] = field(default_factory=dict)
    # set by reorder: the window in its new order, each candidate's features and fitted score,
    # so a later judgement of the answer (search/unanswered.py) reads them without recomputing
    scored: tuple[list, list[list[float]], list[float]] | None = None


def features(window: list, ctx: OrderContext) -> list[list[float]]:
    """One vector per candidate of the window, in FEATURES order."""
    count = len(window)
    top_score = max((getattr(c, "adjusted", 0.0) for c in window), default=0.0) or 1.0
    top_cov = max((getattr(c, "coverage", 0.0) for c in window), default=0.0)
    dates = [c.ref.get("date") or "" for c in window]
    order = sorted(set(dates))
    rank = {d: (i / (len(order) - 1) if len(order) > 1 else 1.0) for i, d in enumerate(order)}
    top_cos = max((ctx.cosine.get(c.ref["id"], 0.0) for c in window), default=0.0)
    asked = list(dict.fromkeys(ctx.question_terms))
    named = [n for n in ctx.names if n]
    total = math.fsum(ctx.idf.get(t, 0.0) for t in asked) or 1.0
    rare = sorted(asked, key=lambda t: (-ctx.idf.get(t, 0.0), t))[:3]
    rare_total = math.fsum(ctx.idf.get(t, 0.0) for t in rare) or 1.0
    first_day = _day(dates[0]) if dates else None
    first_source = window[0].ref.get("source") or "memory"
    updates, updated = _change_links(window, ctx, dates)
    rows = []
    for index, cand in enumerate(window):
        tf = cand.ref.get("tf") or {}
        matched = set(getattr(cand, "matched", set()))
        coverage = getattr(cand, "coverage", 0.0)
        newer = rank[dates[index]]
        shape = ctx.holds_shape(cand) if ctx.holds_shape is not None else None
        text = ctx.content_of(cand)
        held = sum(1 for n in named if set(n) <= matched) / len(named) if named else 0.0
        words = sum(tf.values()) if tf else 0
        cos = ctx.cosine.get(cand.ref["id"], 0.0)
        together, tight = _proximity(text, asked, ctx.idf) if len(asked) > 1 else (0.0, 0.0)
        rows.append(
            [
                1.0 if index == 0 else 0.0,
                index / (count - 1) if count > 1 else 0.0,
                max(0.0, getattr(cand, "adjusted", 0.0)) / top_score,
                coverage,
                coverage - top_cov,
                0.0 if (cand.ref.get("source") or "memory") == "memory" else 1.0,
                0.0 if ctx.about_before else newer,
                newer if ctx.about_before else 0.0,
                1.0 if cand.ref["id"] in ctx.corrected else 0.0,
                1.0 if getattr(cand, "restated", False) else 0.0,
                1.0 if shape is True else 0.0,
                1.0 if shape is False else 0.0,
                held,
                math.log1p(words) / math.log1p(LONG_TEXT),
                together,
                cos / top_cos if top_cos > 0 else 0.0,
                cos,
                1.0 if rare and rare[0] in tf else 0.0,
                math.fsum(ctx.idf.get(t, 0.0) for t in rare if t in tf) / rare_total,
                _years_apart(_day(dates[index]), first_day),
                _heading_share(text, ctx.idf, total),
                1.0
                if index
                and first_source != "memory"
                and (cand.ref.get("source") or "memory") == first_source
                else 0.0,
                1.0 if ctx.about_now else 0.0,
                1.0 if ctx.asks_shape else 0.0,
                min(len(asked), 20) / 10,
                getattr(cand, "own_coverage", coverage),
                max(0.0, getattr(cand, "own_adjusted", getattr(cand, "adjusted", 0.0))) / top_score,
                tight,
                updates[index],
                updated[index],
            ]
        )
    return rows


def _change_links(window: list, ctx: OrderContext, dates: list[str]) -> tuple[list, list]:
    """For each candidate, how strongly it reads as a new value of an older candidate, and
    how strongly a newer one reads as a new value of it. A memory that says something
    changed ("bff-db-prod is on PostgreSQL 16.3 after...") and whose other rare words
    (besides the question's) an older one holds ("...PostgreSQL 15.4 on RDS (instance
    bff-db-prod)") is likely its later value: the strength is the idf-weighted share of the
    newer memory's other words that the older holds, 0 when it tells of no change. Pieces
    of one stored document are never each other's values."""
    count = len(window)
    updates, updated = [0.0] * count, [0.0] * count
    if count < 2 or not ctx.word_idf:
        return updates, updated
    asked = set(ctx.question_terms)
    own = [set(c.ref.get("tf") or ()) - asked for c in window]
    changes = [tells_change(ctx.content_of(c)) for c in window]
    for new in range(count):
        weight = math.fsum(ctx.word_idf.get(t, 0.0) for t in own[new])
        if not changes[new] or weight <= 0:
            continue
        source = window[new].ref.get("source") or "memory"
        for old in range(count):
            if old == new or dates[old] >= dates[new]:
                continue
            if source != "memory" and (window[old].ref.get("source") or "memory") == source:
                continue
            held = own[new] & own[old]
            share = math.fsum(ctx.word_idf.get(t, 0.0) for t in held) / weight
            updates[new] = max(updates[new], share)
            updated[old] = max(updated[old], share)
    return updates, updated


def _day(date: str) -> int | None:
    """Days since 0001-01-01 of an ISO date, or None when it is not one."""
    try:
        return _date.fromisoformat(date[:10]).toordinal()
    except ValueError:
        return None


def _years_apart(day: int | None, first: int | None) -> float:
    if day is None or first is None:
        return 0.0
    return max(-1.0, min(1.0, (day - first) / 365.0))


def _heading_share(text: str, idf: dict[str, float], total: float) -> float:
    """The share of the question's idf mass in the text's first line."""
    first_line = text.lstrip().split("\n", 1)[0][:300]
    held = set(terms(first_line))
    return math.fsum(value for t, value in idf.items() if t in held) / total


def _proximity(text: str, asked: list[str], idf: dict[str, float]) -> tuple[float, float]:
    """How close together the text holds the question's words: (the idf mass of them found
    within one stretch of SPAN_TERMS words over the mass of those held anywhere, the number
    of distinct ones held over the length of the shortest stretch holding them all). Both
    are 1 for "the finance month-end contact" asked as "who's the finance contact for
    month-end", less when the words lie sentences apart."""
    wanted = set(asked)
    positions = [(i, t) for i, t in enumerate(terms(text)) if t in wanted]
    if not positions:
        return 0.0, 0.0
    held = {t for _, t in positions}
    anywhere = math.fsum(idf.get(t, 0.0) for t in held) or 1.0
    best, start, inside = 0.0, 0, {}
    for where, term in positions:
        inside[term] = inside.get(term, 0) + 1
        while where - positions[start][0] >= SPAN_TERMS:
            gone = positions[start][1]
            inside[gone] -= 1
            if not inside[gone]:
                del inside[gone]
            start += 1
        best = max(best, math.fsum(idf.get(t, 0.0) for t in inside))
    return best / anywhere, len(held) / _shortest_span(positions, len(held))


def _shortest_span(positions: list[tuple[int, str]], distinct: int) -> int:
    """The length in words of the shortest stretch holding ``distinct`` different words of
    ``positions`` (word index, word), found in one pass with two pointers."""
    shortest, start, inside = positions[-1][0] - positions[0][0] + 1, 0, {}
    for where, term in positions:
        inside[term] = inside.get(term, 0) + 1
        while len(inside) == distinct:
            first, gone = positions[start]
            shortest = min(shortest, where - first + 1)
            inside[gone] -= 1
            if not inside[gone]:
                del inside[gone]
            start += 1
    return max(shortest, distinct)


def model_input(rows: list[list[float]]) -> list[list[float]]:
    """Each candidate's features followed by their difference from the first candidate's:
    the model judges a candidate against the one the earlier stages put first."""
    lead = rows[0]
    return [row + [a - b for a, b in zip(row, lead, strict=True)] for row in rows]


def reorder(ranked: list, ctx: OrderContext, trees: Sequence | None = None) -> list:
    """The ranked candidates with the first WINDOW put in order of the fitted score (the
    earlier stages' order breaks ties). A pinned first candidate (a tracked fact answering)
    keeps its place. With no fitted trees the order is left as it is."""
    if trees is None:
        trees = forest(order_trees.SEMANTIC if ctx.cosine else order_trees.LEXICAL)
    if len(ranked) < 2 or getattr(ranked[0], "pinned", False) or not trees:
        return ranked
    window = ranked[:WINDOW]
    rows = features(window, ctx)
    inputs = model_input(rows)
    scores = [tree_score(trees, x) for x in inputs]
    picked = window_order(scores, rows, inputs, _changed_since(window))
    ctx.scored = (
        [window[i] for i in picked],
        [rows[i] for i in picked],
        [scores[i] for i in picked],
    )
    return [window[i] for i in picked] + ranked[WINDOW:]


_CORRECTED = FEATURES.index("corrected")
_NEWER_NOW = FEATURES.index("newer_now")
_NAMES = FEATURES.index("names")
_SHAPE = FEATURES.index("shape")
_NO_SHAPE = FEATURES.index("no_shape")


def window_order(
    scores: list[float], rows: list[list[float]], inputs: list[list[float]], held: set[int]
) -> list[int]:
    """Window positions in the order the stage gives them: the fitted order with corrected
    memories (and ``held``, those a later one was found telling the change of) kept from the
    lead, then the named answer's turn (``named_answer_first``). The fitting script scores
    recorded windows through this same function."""
    kept = kept_back(inputs) | held
    return named_answer_first(fitted_order(scores, kept), rows, kept)


def named_answer_first(picked: list[int], rows: list[list[float]], kept: set[int]) -> list[int]:
    """The fitted order, unless its leader names none of what the question names and lacks
    the shape of answer it asks for while another candidate names all of it and holds that
    shape ("which host is Grafana on these days?": "The bastion host only accepts SSH keys"
    against "Grafana and Prometheus now run on mon-03.faena.internal"); that one leads. On
    the 139 agent-question corpora the leader was such a memory for 4 questions, never an
    answer; the candidate put first instead answered one. A candidate in ``kept`` (an old value)
    may not lead."""
    lead = rows[picked[0]]
    if lead[_NAMES] > 0 or lead[_NO_SHAPE] < 1:
        return picked
    for place, i in enumerate(picked[1:], 1):
        if i not in kept and rows[i][_NAMES] >= 1 and rows[i][_SHAPE] >= 1:
            return [i, *picked[:place], *picked[place + 1 :]]
    return picked


def kept_back(rows: list[list[float]]) -> set[int]:
    """Window positions that may not be put first, for a question not about before: a memory
    a later one corrects by a link (replaces, mark_outdated) is an old value, which answers
    only what was true earlier. A memory a later one merely restates may lead: the
    restatement is found by shared words and is sometimes about something else. (For a
    question about before "newer_now" is 0 for every candidate; otherwise the newest has 1.)"""
    if all(row[_NEWER_NOW] == 0 for row in rows):
        return set()
    return {i for i, row in enumerate(rows) if i and row[_CORRECTED] > 0}


def _changed_since(window: list) -> set[int]:
    """Window positions of memories the change judge found a later one telling the change of
    (``changed_by``, engine._follow_change): they are answered as OUTDATED with "it is listed
    first", so the fitted order may not put them back ahead of the change."""
    return {
        i
        for i, cand in enumerate(window)
        if i and any(other is getattr(cand, "changed_by", None) for other in window)
    }


def fitted_order(
    scores: list[float], kept: set[int] = frozenset(), margin: float | None = None
) -> list[int]:
    """Window positions in the fitted order. The earlier stages' first candidate keeps its
    place unless another that may lead (not in ``kept``) scores at least ``margin`` above it."""
    margin = LEAD_MARGIN if margin is None else margin
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    lead = next((i for i in order if i not in kept), 0)
    if lead != 0 and scores[lead] - scores[0] < margin:
        lead = 0
    order.remove(lead)
    return [lead, *order]
