"""The default summarizer: offline and deterministic, so tests can assert on tree shape."""

from __future__ import annotations

from ..text.keywords import representative_sentences, top_keywords
from .summary import ChildDigest, NodeSummary


class HeuristicSummarizer:
    """Term ranking plus representative-sentence selection over the children's text."""

    name = "heuristic"

    def summarize(self, children: list[ChildDigest], *, domain: str, layer: int) -> NodeSummary:
        texts = [c.text or f"{c.title}. {c.excerpt}" for c in children]
        keyword_texts = texts + [" ".join(c.keywords) for c in children]
        keywords = top_keywords(keyword_texts, 12)
        summary = representative_sentences(texts, 2, 300)
        head = ", ".join(keywords[:4]) if keywords else domain
        title = f"{domain}: {head}"
        return NodeSummary(title=title[:120], summary=summary, keywords=keywords)
