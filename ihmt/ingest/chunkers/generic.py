"""Split text of no particular shape (notes, READMEs, emails) into paragraph-packed chunks.

Paragraphs are the smallest unit a reader quotes, so they are never cut unless one alone is
larger than ``max_tokens``; then the cut falls between sentences, and for text with no
sentence punctuation (logs, tables) between lines. A markdown heading opens a new chunk once
the current one holds a meaningful amount (a quarter of the target), so sections stay apart
without scattering tiny headed fragments.
"""

from __future__ import annotations

from ihmt.ingest.chunk import Chunk
from ihmt.ingest.chunkers import prose

__all__ = ["split_generic"]


def _is_heading(line: str) -> bool:
    return prose.md_heading_level(line) > 0


def split_generic(text: str, *, target_tokens: int = 2000, max_tokens: int = 3000) -> list[Chunk]:
    """Paragraph-atomic chunks of about ``target_tokens``; never raises."""
    return prose.split_safely(_split, text, target_tokens, max_tokens)


def _split(text: str, target: int, hard_max: int) -> list[Chunk]:
    lines = prose.split_lines(text)
    offsets = prose.line_offsets(lines)
    fenced = prose.fence_mask(lines)
    paras = prose.paragraphs(lines, fenced, _is_heading)
    units = prose.paragraph_units(
        text, offsets, paras, target, hard_max, line_fallback=True, soft_boundaries=True
    )
    groups = prose.pack(units, target, max_tokens=hard_max)

    headings: dict[int, str] = {}
    for p in paras:
        if p.boundary:
            line = next(
                (lines[i] for i in range(p.first, p.last) if not prose.is_blank(lines[i])), ""
            )
            headings[offsets[p.first]] = prose.clean_heading(line)

    def title_of(g: prose.Group) -> str | None:
        for u in g.units:
            if u.start in headings:
                return headings[u.start]
        return prose.first_words(text, g.start, g.end)

    return prose.to_chunks(text, groups, title_of)
