"""The default summarizer: offline and deterministic, so tests can assert on tree shape.

It works from what the children already carry (their keywords and excerpts) instead of
re-tokenizing their text: a branch event costs microseconds, which is what keeps a flush of
50,000 leaves in the tens of seconds. Term ranking: a keyword's weight is the number of
children that list it, earlier positions weighing more; ties keep first appearance. The
representative sentences are the child excerpts that share the most weight with the
branch's own keywords, in child order.
"""

from __future__ import annotations

from .summary import ChildDigest, NodeSummary

KEYWORDS = 12
SUMMARY_CHARS = 300


class HeuristicSummarizer:
    name = "heuristic"

    def summarize(self, children: list[ChildDigest], *, domain: str, layer: int) -> NodeSummary:
        weights: dict[str, float] = {}
        for child in children:
            for rank, word in enumerate(child.keywords[:KEYWORDS]):
                weights[word] = weights.get(word, 0.0) + 1.0 / (1.0 + 0.15 * rank)
        order = {w: i for i, w in enumerate(weights)}
        keywords = sorted(weights, key=lambda w: (len(w) <= 2, -weights[w], order[w]))[:KEYWORDS]
        top = set(keywords)
        scored = []
        for index, child in enumerate(children):
            text = (child.excerpt or child.title or "").strip()
            if not text:
                continue
            score = sum(weights[w] for w in child.keywords if w in top)
            scored.append((score, index, text))
        best = sorted(scored, key=lambda s: (-s[0], s[1]))[:2]
        summary = " ".join(text for _, _, text in sorted(best, key=lambda s: s[1]))
        if len(summary) > SUMMARY_CHARS:
            cut = summary[: SUMMARY_CHARS - 1].rsplit(" ", 1)[0]
            summary = cut + "…"
        head = ", ".join(keywords[:4]) if keywords else domain
        return NodeSummary(title=f"{domain}: {head}"[:120], summary=summary, keywords=keywords)
