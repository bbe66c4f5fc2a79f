"""Split fiction and long prose into paragraph-atomic chunks that respect chapters and scenes.

A reader remembers a story by chapter and scene, so a chunk never straddles a chapter heading
or a scene break ("***", "---", "* * *"): the boundary line opens the next chunk. Inside those
limits whole paragraphs are packed up to the target; only a paragraph too large on its own is
cut, and then only between sentences.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ihmt.ingest.chunk import Chunk
from ihmt.ingest.chunkers import prose

from ... import re_cache

__all__ = ["is_chapter_heading", "is_scene_break", "split_narrative"]

_SCENE_BREAK_RE = re_cache.compile(r"(?:\*{3,}|-{3,}|_{3,}|\*(?:[ \t]+\*){2,})")
_CHAPTER_RE = re_cache.compile(
    r"(?:#{1,6}[ \t]*)?(?:chapter|cap[ií]tulo)"
    r"(?:[ \t]+(?:\d{1,4}|[ivxlcdm]{1,8}|[a-záéíóúñ]{2,12}))?"
    r"[ \t]*(?:[.:\-–—][ \t]*.*)?",
    re.IGNORECASE,
)
_BOOKEND_RE = re_cache.compile(r"(?:pr[oó]logo|ep[ií]logo|prologue|epilogue)[.:]?", re.IGNORECASE)


def is_scene_break(line: str) -> bool:
    """A line that is only a scene-break mark such as ***, --- or * * *."""
    s = line.strip().lstrip("\ufeff")
    return len(s) <= prose.MAX_HEADING_CHARS and bool(_SCENE_BREAK_RE.fullmatch(s))


def is_chapter_heading(line: str) -> bool:
    """A chapter heading: "Chapter 3", "CAPÍTULO II: El faro", "Prólogo" or a markdown heading."""
    s = line.strip().lstrip("\ufeff")
    if not s or len(s) > prose.MAX_HEADING_CHARS:
        return False
    if prose.md_heading_level(s):
        return True
    return bool(_CHAPTER_RE.fullmatch(s) or _BOOKEND_RE.fullmatch(s))


def _is_boundary(line: str) -> bool:
    return is_scene_break(line) or is_chapter_heading(line)


def split_narrative(text: str, *, target_tokens: int = 2000, max_tokens: int = 3000) -> list[Chunk]:
    """Paragraph-packed chunks that never cross a chapter heading or scene break."""
    return prose.split_safely(_split, text, target_tokens, max_tokens)


def _split(text: str, target: int, hard_max: int) -> list[Chunk]:
    lines = prose.split_lines(text)
    offsets = prose.line_offsets(lines)
    fenced = prose.fence_mask(lines)
    paras = prose.paragraphs(lines, fenced, _is_boundary)
    units = prose.paragraph_units(text, offsets, paras, target, hard_max)
    groups = prose.pack(units, target, max_tokens=hard_max)

    # Chapter headings by offset, for titles: a chunk inside a chapter is named after it.
    chapters: list[tuple[int, str]] = []
    for p in paras:
        if not p.boundary:
            continue
        line = next((lines[i] for i in range(p.first, p.last) if not prose.is_blank(lines[i])), "")
        if is_chapter_heading(line):
            chapters.append((offsets[p.first], prose.clean_heading(line)))
    return prose.to_chunks(text, groups, _titler(text, chapters))


def _titler(text: str, chapters: list[tuple[int, str]]) -> Callable[[prose.Group], str | None]:
    """Title function for groups visited in order; walks the chapter list once (linear)."""
    pos = 0
    current: str | None = None

    def title_of(g: prose.Group) -> str | None:
        nonlocal pos, current
        while pos < len(chapters) and chapters[pos][0] < g.end:
            current = chapters[pos][1]
            pos += 1
        return current or prose.first_words(text, g.start, g.end)

    return title_of
