"""The unit every splitter produces.

Invariant shared by all splitters: ``"".join(c.text for c in chunks) == text`` — a document is
cut into consecutive slices and nothing is added, dropped or re-ordered. Context that helps a
reader (an enclosing class header) travels in ``extra``, never spliced into ``text``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Chunk:
    text: str
    start_line: int  # 1-based, first line of the slice
    end_line: int  # 1-based, last line of the slice (inclusive)
    tags: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)
    oversized: bool = False  # one logical block larger than max_tokens, stored whole
    timestamp: str | None = None  # ISO date the text itself talks about (temporal splitter)
    title: str | None = None  # short human label (heading, symbol name), if the splitter knows one
