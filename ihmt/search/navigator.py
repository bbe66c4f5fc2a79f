"""The descent: root -> branches -> leaves, best-first on score bounds.

Each trunk entry and each child of an opened branch is either a leaf (scored exactly from the
term counts its parent stores) or a branch (given an upper bound from its subtree sketch, see
bm25.py). Branches wait in a priority queue ordered by bound; the best one is opened next. The
walk stops when the k-th best exact score already beats every unopened bound (so the result is
exactly what a flat BM25 over all leaves would return) or when the read budget — beam_width
branches per level, with some slack — is spent. Branches whose bound is zero are never opened,
and a domain with no query word below it is pruned at the trunk without a read.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from ..tree.builder import Tree
from ..tree.refs import ref_bounds, ref_sketch
from .bm25 import idf, score_counts, tf_weight
from .query import Query


@dataclass
class Candidate:
    ref: dict
    path: list[str]
    score: float
    matched: set[str] = field(default_factory=set)


def stand_in(chosen, lead, take_words: bool = True) -> None:
    """``chosen`` answers in ``lead``'s place (a later restatement, a change, the state
    before one): it takes the lead's score and coverage (``take_words``: its matched words
    too) so that rivals are measured against the fact, and keeps its own score and coverage
    apart (own_adjusted, own_coverage) for the fitted ordering, which judges the stand-in."""
    if not hasattr(chosen, "own_coverage"):
        chosen.own_coverage = getattr(chosen, "coverage", 0.0)
        chosen.own_adjusted = getattr(chosen, "adjusted", 0.0)
    chosen.adjusted = max(getattr(chosen, "adjusted", 0.0), lead.adjusted)
    chosen.coverage = max(getattr(chosen, "coverage", 0.0), lead.coverage)
    if take_words:
        chosen.matched = set(getattr(chosen, "matched", set())) | lead.matched


@dataclass
class Descent:
    candidates: list[Candidate]
    node_reads: int
    depth: int
    exhausted: bool  # True when the bound proved the top-k exact


class _Tie:
    """Orders leaves with equal scores the same way in every tree shape: the newer date wins,
    then the smaller id. Greater means better (the k-best heap pops the worst first)."""

    __slots__ = ("date", "leaf_id")

    def __init__(self, date: str, leaf_id: str) -> None:
        self.date = date
        self.leaf_id = leaf_id

    def __lt__(self, other: _Tie) -> bool:
        if self.date != other.date:
            return self.date < other.date
        return self.leaf_id > other.leaf_id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Tie) and (self.date, self.leaf_id) == (other.date, other.leaf_id)

    def __gt__(self, other: _Tie) -> bool:
        return other < self


class Navigator:
    def __init__(self, tree: Tree, beam_width: int = 3) -> None:
        self.tree = tree
        self.beam_width = beam_width

    def weights(self, query: Query, n: int, dfs: dict[str, int]) -> dict[str, float]:
        return {t: idf(dfs.get(t, 0), n) for t in query.all_terms if dfs.get(t, 0) > 0}

    def descend(
        self,
        weights: dict[str, float],
        avgdl: float,
        k: int,
        root: dict,
        leaf_filter: Callable[[dict], bool] | None = None,
    ) -> Descent:
        counter = itertools.count()
        heap: list[tuple[float, int, dict, list[str]]] = []
        best: list[tuple[float, int, Candidate]] = []  # min-heap of the k best exact scores
        depth = int(root.get("counters", {}).get("layers", 0)) + 1
        budget = max(self.beam_width * depth * 4, 24)
        node_reads = 0

        seen: set[str] = set()

        def consider(ref: dict, path: list[str]) -> None:
            if ref["kind"] == "leaf":
                if ref["id"] in seen:  # a damaged tree may list a leaf twice
                    return
                seen.add(ref["id"])
                if leaf_filter is not None and not leaf_filter(ref):
                    return
                score = score_counts(ref["tf"], ref["dl"], weights, avgdl)
                if score <= 0:
                    return
                cand = Candidate(ref, path + [ref["id"]], score)
                entry = (score, _Tie(ref.get("date") or "", ref["id"]), cand)
                if len(best) < k:
                    heapq.heappush(best, entry)
                elif entry[:2] > best[0][:2]:
                    heapq.heapreplace(best, entry)
                return
            bound = self.bound(ref, weights, avgdl)
            if bound > 0:
                heapq.heappush(heap, (-bound, next(counter), ref, path + [ref["id"]]))

        for ref in root["entries"]:
            consider(ref, ["root"])
        exhausted = True
        while heap:
            neg_bound, _, ref, path = heap[0]
            # a bound equal to the k-th score may still hide a leaf that wins the tie
            if len(best) >= k and -neg_bound < best[0][0]:
                break
            if node_reads >= budget:
                exhausted = False
                break
            heapq.heappop(heap)
            branch = self.tree.read_branch(ref["id"])
            node_reads += 1
            for child in branch["children"]:
                consider(child, path)
        ranked = sorted(best, key=lambda e: (e[0], e[1]), reverse=True)
        return Descent([c for _, _, c in ranked], node_reads, depth, exhausted)

    @staticmethod
    def bound(ref: dict, weights: dict[str, float], avgdl: float) -> float:
        exact = ref.get("terms")
        if exact is not None:
            total = 0.0
            for term, w in weights.items():
                entry = exact.get(term)
                if entry is not None:
                    total += w * tf_weight(entry[0], entry[1], avgdl)
            return total
        sketch = ref_sketch(ref)
        hi, rest, min_dl = ref_bounds(ref)
        total = 0.0
        for term, w in weights.items():
            if sketch.may_contain(term):
                total += w * tf_weight(hi.get(term, rest), min_dl, avgdl)
        return total
