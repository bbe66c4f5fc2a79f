"""Split dated records (journals, chat logs, clinical histories) into one-date chunks.

Questions about such text are about *when* ("where did I live in 2024?"), so every chunk
carries the date its entry was written under, and a chunk never mixes two dates. An entry
starts at a line that begins with a date, optionally behind list or heading marks, a label
("Fecha:", "Date:", "Fecha de consulta:") or a weekday name. Entries are atomic; several
entries of the same day share a chunk while they fit the target.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ihmt.ingest.chunk import Chunk
from ihmt.ingest.chunkers import prose
from ihmt.text.dates import match_date_at

from ... import re_cache

__all__ = ["entry_date", "split_temporal"]

_WEEKDAYS = (
    "lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo|"
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    "mon|tues|tue|wed|thurs|thur|thu|fri|sat|sun|lun|mar|mi[eé]|jue|vie|s[aá]b|dom"
)
_LABELS = (
    "fecha|date|entry|entrada|d[ií]a|day|consulta|visita|visit|revisi[oó]n|"
    "sesi[oó]n|session|registro|log|nota|note"
)
_LABEL_PREFIX = (
    r"[ \t]{0,8}(?:[#>*\-–—•+|]{1,6}[ \t]{0,3}|[\[(][ \t]{0,2}){0,4}"
    rf"(?:(?:{_LABELS})(?![a-záéíóúñ])"
    r"(?:[ \t]{1,3}(?:de|del|of)[ \t]{1,3}[a-záéíóúñ]{3,12})?"
    r"[ \t]{0,3}(?:(?:del?|of|on)(?![a-záéíóúñ]))?[ \t]{0,3}[:\-–—]?[ \t]{0,3})?"
    r"[*_]{0,2}"
)
_WEEKDAY_PREFIX = (
    rf"(?:(?:{_WEEKDAYS})(?![a-záéíóúñ])\.?,?[ \t]{{1,3}}(?:el[ \t]{{1,3}})?)?[*_]{{0,2}}"
)
_DIGIT_RE = re_cache.compile(r"\d")
# Dated header fields that are not entries: a birth date must not start a "1966" entry.
_NOT_ENTRY_RE = re_cache.compile(
    r"[^\w]{0,6}(?:fecha de nacimiento|f\.\s?nac\w*|date of birth|birth ?date|d\.?o\.?b\b|born)",
    re.IGNORECASE,
)
_PREFIX_RES = (
    re_cache.compile(_LABEL_PREFIX + _WEEKDAY_PREFIX, re.IGNORECASE),
    re_cache.compile(_LABEL_PREFIX, re.IGNORECASE),
)


def entry_date(line: str) -> str | None:
    """The ISO day a line opens an entry for ("## 22/07/2024", "Fecha: 2024-07-22"), or None."""
    line = line.lstrip("\ufeff")
    # Cheap rejections first: every header has a digit near the start of the line.
    if not line or not _DIGIT_RE.search(line, 0, 80) or _NOT_ENTRY_RE.match(line):
        return None
    # "Mar 3, 2024" reads as weekday + "3, 2024" first, so fall back to shorter prefixes.
    tried: set[int] = set()
    for pos in [*(m.end() for r in _PREFIX_RES if (m := r.match(line))), 0]:
        if pos in tried:
            continue
        tried.add(pos)
        found = match_date_at(line, pos)
        if found is not None:
            return found[2]
    return None


@dataclass
class _Piece:
    start: int
    end: int
    tokens: int
    day: str | None
    title: str | None
    oversized: bool = False
    part: int | None = None


def split_temporal(text: str, *, target_tokens: int = 2000, max_tokens: int = 3000) -> list[Chunk]:
    """Chunks of dated entries, one date per chunk, each stamped with that date."""
    return prose.split_safely(_split, text, target_tokens, max_tokens)


def _split(text: str, target: int, hard_max: int) -> list[Chunk]:
    lines = prose.split_lines(text)
    offsets = prose.line_offsets(lines)
    fenced = prose.fence_mask(lines)

    # Entry boundaries: (first line index, ISO day or None for the preamble).
    bounds: list[tuple[int, str | None]] = []
    for i, line in enumerate(lines):
        if fenced[i]:
            continue
        day = entry_date(line)
        if day is not None:
            bounds.append((i, day))
    if not bounds or bounds[0][0] > 0:
        bounds.insert(0, (0, None))

    pieces: list[_Piece] = []
    run: _Piece | None = None
    for k, (first, day) in enumerate(bounds):
        last = bounds[k + 1][0] if k + 1 < len(bounds) else len(lines)
        a, b = offsets[first], offsets[last]
        tokens = prose.estimate_tokens(text[a:b])
        title = prose.clean_heading(lines[first]) or prose.first_words(text, a, b)
        if tokens > hard_max:
            if run is not None:
                pieces.append(run)
                run = None
            pieces.extend(
                _split_entry(
                    text, lines, offsets, fenced, first, last, day, title, target, hard_max
                )
            )
            continue
        if run is not None and day is not None and run.day == day and run.tokens + tokens <= target:
            run.end = b
            run.tokens += tokens
            continue
        if run is not None:
            pieces.append(run)
        run = _Piece(a, b, tokens, day, title)
    if run is not None:
        pieces.append(run)

    index = prose.LineIndex(text)
    chunks: list[Chunk] = []
    for p in pieces:
        if p.end <= p.start:
            continue
        chunk = Chunk(
            text=text[p.start : p.end],
            start_line=index.line_of(p.start),
            end_line=index.line_of(p.end - 1),
            oversized=p.oversized,
            timestamp=f"{p.day}T00:00:00Z" if p.day else None,
            title=p.title,
        )
        if p.part is not None:
            chunk.extra["part"] = p.part
        chunks.append(chunk)
    return chunks


def _split_entry(
    text: str,
    lines: list[str],
    offsets: list[int],
    fenced: list[bool],
    first: int,
    last: int,
    day: str | None,
    title: str | None,
    target: int,
    hard_max: int,
) -> list[_Piece]:
    """An entry above ``max_tokens`` cut between its paragraphs; each piece keeps the date."""
    paras = prose.paragraphs(lines, fenced, lo=first, hi=last)
    units = prose.paragraph_units(text, offsets, paras, target, hard_max, split_sentences=False)
    groups = prose.pack(units, target)
    return [
        _Piece(g.start, g.end, g.tokens, day, title, oversized=g.oversized, part=k)
        for k, g in enumerate(groups, start=1)
    ]
