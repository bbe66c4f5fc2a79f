"""How meaning joins BM25: the fused score and the NOT FOUND / AMBIGUOUS thresholds.

The dense score of a leaf is its cosine with the query plus ``context`` x the mean cosine of
its neighbours (the memories stored just before and after it on the same day, e.g. the turns
around it in a conversation): an answer often completes the turn that asked the question.

Fusion: BM25 divided by the best BM25 among the candidates (so the lexical part lies in
[0, 1] whatever the query length) plus ``weight`` x how far the dense score rises above the
query's background: the cosine of the ``pool``-th nearest leaf (none in a store smaller than
the pool). A query the model cannot read (a made-up word, a code) meets a flat field of
similar cosines, so nothing rises above the background and an exact lexical match keeps
the lead; a paraphrase stands out from it.

A question worded unlike every memory ("how big is the pilot client's fleet?" against "... a
produce distributor with 60 vans") leaves the answer chosen on words holding little of it
("Sofía agreed the new date with the pilot client"): when that answer covers less than
``lead_coverage`` of the question and one leaf stands clear of every other in meaning (its
cosine leads the runner-up by ``lead_gap``), that leaf leads, unless it is an old value (see
search/engine.py; never for a question about before or with a clue). Chosen on the 26
agent-question corpora seen by 2026-12-02 (benchmarks/agent_questions.py --semantic).

Judgement uses the raw cosine. A leaf answers on meaning alone when its cosine reaches
``high``, or reaches ``low`` and leads every other leaf by ``gap`` (a paraphrase stands out;
an unrelated query meets a flat field of small cosines). Below that the lexical rules of
search/engine.py decide, so a stray shared word stays NOT FOUND. Two leaves whose cosines
differ by less than ``tie`` are not told apart by meaning.

Chosen on LoCoMo conv-26, conv-30 and conv-41 only (benchmarks/locomo.py --semantic), for
all-MiniLM-L6-v2: on those stores ``low``/``high``/``gap`` accept 94% of real questions and
3% of 40 unrelated general-knowledge questions. Another model may need other numbers:
``semantic_weight``, ``semantic_context`` and ``semantic_high`` / ``semantic_low`` /
``semantic_gap`` in ihmt.config.json override them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Fusion:
    weight: float = 2.0  # dense score weight against max-normalized BM25
    context: float = 0.35  # share of the neighbours' mean cosine added to a leaf's own
    pool: int = 30  # nearest leaves taken from the whole store per query
    high: float = 0.5  # cosine that answers on its own
    low: float = 0.2  # cosine that answers when it also leads the store by ``gap``
    gap: float = 0.1
    tie: float = 0.05
    # a question in other words than the memory's: when the lexical leader holds less than
    # ``lead_coverage`` of the question and one leaf leads every other in meaning by
    # ``lead_gap``, that leaf leads (chosen on the agent-question corpora, see below)
    lead_coverage: float = 0.4
    lead_gap: float = 0.05


@dataclass
class DenseHits:
    """One query's dense side, as the search engine sees it (fuse, then judge)."""

    fusion: Fusion
    top: list[str]  # leaf ids, nearest first (by dense score)
    score: dict[str, float]  # leaf id -> dense score (cosine + neighbour context)
    cosine: dict[str, float]  # leaf id -> raw cosine
    best: list[tuple[str, float]] = field(default_factory=list)  # two highest raw cosines
    background: float = 0.0  # cosine of the pool-th nearest leaf

    def fuse(self, bm25: dict[str, float]) -> dict[str, float]:
        """Leaf id -> fused score for every id in ``bm25`` (the candidate pool)."""
        top = max(bm25.values(), default=0.0)
        weight, floor = self.fusion.weight, self.background
        return {
            leaf_id: (value / top if top > 0 else 0.0)
            + weight * max(0.0, self.score.get(leaf_id, 0.0) - floor)
            for leaf_id, value in bm25.items()
        }

    def runner_up(self, leaf_id: str) -> float:
        """The highest cosine of any other leaf in the store."""
        for other, cos in self.best:
            if other != leaf_id:
                return cos
        return 0.0

    def leader(self) -> str | None:
        """The leaf nearest in meaning when it stands clear of every other (by ``lead_gap``),
        else None."""
        if not self.best:
            return None
        leaf_id, cos = self.best[0]
        return leaf_id if cos - self.runner_up(leaf_id) >= self.fusion.lead_gap else None

    def answers(self, leaf_id: str) -> bool:
        cos = self.cosine.get(leaf_id)
        if cos is None:
            return False
        f = self.fusion
        return cos >= f.high or (cos >= f.low and cos - self.runner_up(leaf_id) >= f.gap)

    def coverage(self, leaf_id: str) -> float:
        """A cosine read as the share of the question a memory covers (for confidence)."""
        cos = self.cosine.get(leaf_id)
        if cos is None:
            return 0.0
        f = self.fusion
        return max(0.0, min(1.0, 0.8 * (cos - f.low) / max(f.high - f.low, 1e-6)))

    def tied(self, a: str, b: str) -> bool:
        ca, cb = self.cosine.get(a), self.cosine.get(b)
        if ca is None or cb is None:
            return True
        return abs(ca - cb) < self.fusion.tie
