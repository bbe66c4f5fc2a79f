"""What a summarizer backend receives and returns.

Every backend (the offline heuristic, an LLM) implements one protocol, so a consolidation can
fall back from a model to the heuristic per node without the tree noticing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass
class ChildDigest:
    """A child as a summarizer sees it: enough text to summarize, bounded in size."""

    title: str
    excerpt: str
    keywords: list[str] = field(default_factory=list)
    text: str = ""  # representative text (the leaf body, or a child branch's summary), bounded


@dataclass
class NodeSummary:
    title: str
    summary: str
    keywords: list[str] = field(default_factory=list)


class SummarizerBackend(Protocol):
    name: str

    def summarize(self, children: list[ChildDigest], *, domain: str, layer: int) -> NodeSummary:
        """Condense ``children`` into one branch summary. Must not raise for content reasons."""
        ...
