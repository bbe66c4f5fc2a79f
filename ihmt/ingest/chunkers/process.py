"""Split recipes, protocols and runbooks so every heading keeps its list of steps.

A step list read without its heading ("Ingredientes:", "Rollback:") loses its meaning, and a
procedure cut mid-list is dangerous to follow. So the whole procedure (title, ingredients,
steps) is one chunk when it fits the target; otherwise it is cut at the highest-level headings
first, then lower ones, each heading staying with what follows it. A list is cut between its
items only when it alone exceeds ``max_tokens``, and an item is never cut.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from ihmt.ingest.chunk import Chunk
from ihmt.ingest.chunkers import prose
from ihmt.text.tokens import estimate_tokens

from ... import re_cache

__all__ = ["heading_level", "is_list_item", "split_process"]

_LIST_ITEM_RE = re_cache.compile(r"([ \t]*)(?:[-*+•]|\d{1,3}[.)]|[a-z][.)])[ \t]+\S")
_STEP_RE = re_cache.compile(r"(?:step|paso|etapa|fase|phase|stage)[ \t]+\d{1,3}\b", re.IGNORECASE)
_BOLD_LINE_RE = re_cache.compile(r"(\*\*|__)[^*_]{1,70}\1:?")
_CAPS_LEVEL, _COLON_LEVEL, _STEP_LEVEL = 7, 8, 9


def is_list_item(line: str) -> bool:
    """A list item line: "- x", "* x", "1. x", "2) x", "a) x" (any indentation)."""
    return bool(_LIST_ITEM_RE.match(line[:40]))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def heading_level(line: str, prev_is_list_item: bool = False) -> int:
    """Heading rank of a line (1 = highest) or 0 when it is not a heading.

    Markdown "#" headings rank 1-6, then ALL-CAPS lines, then "Label:" lines and bold lines,
    then "Step 3"/"Paso 3" lines that are not inside a list.
    """
    md = prose.md_heading_level(line)
    if md:
        return md
    line = line.lstrip("\ufeff")
    s = line.strip()
    if not s or len(s) > 80 or _indent(line) > 0 or is_list_item(line):
        return 0
    if _STEP_RE.match(s):
        return 0 if prev_is_list_item else _STEP_LEVEL
    letters = [c for c in s if c.isalpha()]
    if len(letters) >= 3 and all(c.isupper() for c in letters):
        return _CAPS_LEVEL
    core = s.strip("*_ ").strip()
    if s.endswith(":") or core.endswith(":"):
        if len(core.split()) <= 8 and core[:1].isalnum():
            return _COLON_LEVEL
    if _BOLD_LINE_RE.fullmatch(s):
        return _COLON_LEVEL
    return 0


@dataclass
class _Section:
    first: int  # line index of the heading (or of the preamble)
    level: int  # 0 for a preamble without heading
    title: str | None


def split_process(text: str, *, target_tokens: int = 2000, max_tokens: int = 3000) -> list[Chunk]:
    """Procedure-aware chunks: headings stay with their lists, lists are not cut if possible."""
    return prose.split_safely(
        lambda body, target, hard_max: _Splitter(body, target, hard_max).run(),
        text,
        target_tokens,
        max_tokens,
    )


class _Splitter:
    def __init__(self, text: str, target: int, hard_max: int) -> None:
        self.text = text
        self.target = target
        self.max = hard_max
        self.lines = prose.split_lines(text)
        self.offsets = prose.line_offsets(self.lines)
        self.fenced = prose.fence_mask(self.lines)
        self.list_item = [
            not self.fenced[i] and is_list_item(line) for i, line in enumerate(self.lines)
        ]
        self.sections = self._sections()
        self.starts = [self.offsets[sec.first] for sec in self.sections]

    # -- structure ------------------------------------------------------------------------

    def _sections(self) -> list[_Section]:
        """Sections start at headings; text before the first heading is a level-0 section."""
        secs: list[_Section] = []
        prev_item = False
        for i, line in enumerate(self.lines):
            if not self.fenced[i] and prose.is_blank(line):
                continue
            level = 0 if self.fenced[i] else heading_level(line, prev_item)
            if level:
                secs.append(_Section(i, level, prose.clean_heading(line)))
            elif not secs:
                secs.append(_Section(i, 0, None))
            prev_item = self.list_item[i]
        if not secs:
            secs.append(_Section(0, 0, None))
        secs[0].first = 0  # leading blank lines belong to the first section
        return secs

    def _sec_start(self, k: int) -> int:
        if k >= len(self.sections):
            return len(self.text)
        return self.offsets[self.sections[k].first]

    def _sec_last_line(self, k: int) -> int:
        return self.sections[k + 1].first if k + 1 < len(self.sections) else len(self.lines)

    # -- splitting ------------------------------------------------------------------------

    def run(self) -> list[Chunk]:
        groups = self._split_range(0, len(self.sections))
        return prose.to_chunks(self.text, groups, self._title)

    def _tokens(self, a: int, b: int) -> int:
        return estimate_tokens(self.text[a:b])

    def _split_range(self, lo: int, hi: int) -> list[prose.Group]:
        """Groups for sections[lo:hi]: whole if it fits, else cut at its top-level headings."""
        a, b = self._sec_start(lo), self._sec_start(hi)
        tokens = self._tokens(a, b)
        if tokens <= self.target:
            return [prose.Group(a, b, tokens)]
        if hi - lo == 1:
            return self._split_section(lo)
        top = min(self.sections[j].level for j in range(lo + 1, hi))
        cuts = [lo, *(j for j in range(lo + 1, hi) if self.sections[j].level == top), hi]
        out: list[prose.Group] = []
        cur: prose.Group | None = None
        cur_lone = False
        for g_lo, g_hi in zip(cuts, cuts[1:], strict=False):
            ga, gb = self._sec_start(g_lo), self._sec_start(g_hi)
            gt = self._tokens(ga, gb)
            if cur is not None and cur.tokens + gt <= self.target:
                cur.end, cur.tokens = gb, cur.tokens + gt
                cur_lone = False
                continue
            if gt <= self.target and cur is not None:
                out.append(cur)
                cur = None
            if gt > self.target:
                parts = self._split_range(g_lo, g_hi)
                # A lone title in front of a large procedure joins its first part if it can.
                if cur is not None and cur_lone and parts and not parts[0].oversized:
                    if cur.tokens + parts[0].tokens <= self.max:
                        parts[0] = prose.Group(
                            cur.start, parts[0].end, cur.tokens + parts[0].tokens
                        )
                        cur = None
                if cur is not None:
                    out.append(cur)
                    cur = None
                out.extend(parts)
            else:
                cur = prose.Group(ga, gb, gt)
                cur_lone = g_hi - g_lo == 1 and self._heading_only(g_lo)
        if cur is not None:
            out.append(cur)
        return out

    def _heading_only(self, k: int) -> bool:
        """True when section k is just its heading line (plus blank lines)."""
        if not self.sections[k].level:
            return False
        first, last = self.sections[k].first, self._sec_last_line(k)
        return all(prose.is_blank(self.lines[t]) for t in range(first + 1, last))

    def _split_section(self, k: int) -> list[prose.Group]:
        """One section: whole up to ``max_tokens``, else cut between blocks, then list items."""
        first, last = self.sections[k].first, self._sec_last_line(k)
        a, b = self.offsets[first], self.offsets[last]
        tokens = self._tokens(a, b)
        if tokens <= self.max:
            return [prose.Group(a, b, tokens)]
        units: list[prose.Unit] = []
        has_heading = self.sections[k].level > 0
        for n, (bf, bl, is_list, is_fenced) in enumerate(self._blocks(first, last)):
            ba, bb = self.offsets[bf], self.offsets[bl]
            unit = prose.make_unit(self.text, ba, bb, self.max)
            content = sum(1 for t in range(bf, bl) if not prose.is_blank(self.lines[t]))
            unit.sticky = n == 0 and has_heading and content == 1 and not is_list
            if not unit.oversized:
                units.append(unit)
            elif is_list:
                units.extend(self._item_units(bf, bl))
            elif is_fenced:
                units.append(unit)
            else:
                units.extend(prose.split_paragraph(self.text, ba, bb, self.target, self.max))
        return prose.pack(units, self.target, max_tokens=self.max)

    def _blocks(self, first: int, last: int) -> list[tuple[int, int, bool, bool]]:
        """Lines [first, last) as (first, last, is_list, has_fence) paragraph or list blocks."""
        lines, fenced, item = self.lines, self.fenced, self.list_item
        blocks: list[tuple[int, int, bool, bool]] = []
        i = first
        while i < last:
            j = i + 1
            is_list = item[i]
            has_fence = fenced[i]
            if is_list:
                while j < last:
                    if (
                        item[j]
                        or fenced[j]
                        or (_indent(lines[j]) > 0 and not prose.is_blank(lines[j]))
                    ):
                        has_fence = has_fence or fenced[j]
                        j += 1
                        continue
                    if prose.is_blank(lines[j]):
                        n = j
                        while n < last and prose.is_blank(lines[n]) and not fenced[n]:
                            n += 1
                        if n < last and (item[n] or _indent(lines[n]) > 0 or fenced[n]):
                            j = n
                            continue
                    break
            else:
                while j < last and not item[j] and (fenced[j] or not prose.is_blank(lines[j])):
                    has_fence = has_fence or fenced[j]
                    j += 1
            while j < last and prose.is_blank(lines[j]) and not fenced[j]:
                j += 1
            if blocks and all(prose.is_blank(lines[t]) for t in range(i, j)):
                pf, _, pl, pfz = blocks[-1]
                blocks[-1] = (pf, j, pl, pfz)
            else:
                blocks.append((i, j, is_list, has_fence))
            i = j
        return blocks

    def _item_units(self, first: int, last: int) -> list[prose.Unit]:
        """A list too large for one chunk, as one unit per top-level item (items are atomic)."""
        base = _indent(self.lines[first])
        starts = [
            i
            for i in range(first, last)
            if self.list_item[i] and _indent(self.lines[i]) <= base or i == first
        ]
        bounds = [*starts, last]
        return [
            prose.make_unit(self.text, self.offsets[s], self.offsets[e], self.max)
            for s, e in zip(bounds, bounds[1:], strict=False)
        ]

    # -- titles ---------------------------------------------------------------------------

    def _title(self, g: prose.Group) -> str | None:
        starts = self.starts
        k = max(0, bisect_right(starts, g.start) - 1)
        best: _Section | None = self.sections[k] if self.sections[k].level else None
        j = k + 1
        while j < len(self.sections) and starts[j] < g.end:
            sec = self.sections[j]
            if best is None or sec.level < best.level:
                best = sec
            j += 1
        if best is not None and best.title:
            return best.title
        return prose.first_words(self.text, g.start, g.end)
