"""Shared machinery for the prose splitters (narrative, temporal, process, generic).

Every splitter works on character offsets into the original text and only ever decides where
to cut, so the join of the chunks is the input byte for byte. The pieces here are small and
linear: lines, fenced-code masks, paragraphs, sentence cuts, greedy packing and the final
conversion of offset spans into ``Chunk`` objects with exact line numbers.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ihmt.ingest.chunk import Chunk
from ihmt.text.tokens import estimate_tokens

from ... import re_cache

# Longest line we run heading/boundary regexes on; longer lines are body text by definition.
MAX_HEADING_CHARS = 120

_FENCE_RE = re_cache.compile(r"[ ]{0,3}(`{3,}|~{3,})")
_SENTENCE_END_RE = re_cache.compile(r"(?<![.!?…])[.!?…]+[\"'”’»)\]]*\s+")
_MD_HEADING_RE = re_cache.compile(r"[ ]{0,3}(#{1,6})[ \t]+\S")
_WORD_RE = re_cache.compile(r"[^\s#*_>`|\-–—=~]+")


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` with their "\\n" kept ("\\r" stays inside the line); joins back exactly."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def line_offsets(lines: Sequence[str]) -> list[int]:
    """Start offset of every line, plus the total length as a final sentinel."""
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return offsets


def is_blank(line: str) -> bool:
    return not line.strip()


def md_heading_level(line: str) -> int:
    """Markdown ATX heading level (1-6), or 0 when the line is not a heading."""
    if len(line) > MAX_HEADING_CHARS * 4:
        return 0
    m = _MD_HEADING_RE.match(line.lstrip("\ufeff"))
    return len(m.group(1)) if m else 0


def fence_mask(lines: Sequence[str]) -> list[bool]:
    """True for lines inside a closed ``` or ~~~ code fence (fence lines included).

    An opening fence without a closing one is ordinary text, so a stray ``` cannot swallow the
    rest of a document. Which closers exist later is precomputed, keeping this linear.
    """
    n = len(lines)
    joined = "".join(lines)
    if "```" not in joined and "~~~" not in joined:
        return [False] * n
    kinds: list[tuple[str, int, bool] | None] = [None] * n  # (char, length, can_close)
    for i, line in enumerate(lines):
        if len(line) > MAX_HEADING_CHARS * 4:
            continue
        m = _FENCE_RE.match(line)
        if m:
            run = m.group(1)
            can_close = not line[m.end() :].strip()
            kinds[i] = (run[0], len(run), can_close)
    # best_close[c][i]: longest closing fence of char c at index >= i
    best_bt = [0] * (n + 1)
    best_td = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        best_bt[i], best_td[i] = best_bt[i + 1], best_td[i + 1]
        k = kinds[i]
        if k and k[2]:
            if k[0] == "`":
                best_bt[i] = max(best_bt[i], k[1])
            else:
                best_td[i] = max(best_td[i], k[1])
    mask = [False] * n
    i = 0
    while i < n:
        k = kinds[i]
        best = best_bt if k and k[0] == "`" else best_td
        if k is None or best[i + 1] < k[1]:
            i += 1
            continue
        j = i + 1
        while True:  # a closer exists, so this stops before n
            kj = kinds[j]
            if kj and kj[2] and kj[0] == k[0] and kj[1] >= k[1]:
                break
            j += 1
        for t in range(i, j + 1):
            mask[t] = True
        i = j + 1
    return mask


@dataclass
class Paragraph:
    """Lines [first, last) of a document: content lines then their trailing blank lines."""

    first: int
    last: int
    boundary: bool = False  # starts at a line the caller marked as a boundary
    fenced: bool = False  # contains fenced code: never cut inside
    content: int = 0  # number of non-blank lines


def paragraphs(
    lines: Sequence[str],
    fenced: Sequence[bool],
    is_boundary: Callable[[str], bool] = lambda _line: False,
    lo: int = 0,
    hi: int | None = None,
) -> list[Paragraph]:
    """Blank-line separated paragraphs of lines[lo:hi]; boundary lines always open one.

    Leading blank lines belong to the first paragraph and trailing ones to the paragraph they
    follow, so the paragraphs tile the range exactly.
    """
    hi = len(lines) if hi is None else hi
    out: list[Paragraph] = []
    seen_content = False
    prev_blank = False
    for i in range(lo, hi):
        line = lines[i]
        blank = not fenced[i] and is_blank(line)
        if blank:
            prev_blank = True
            if not out:
                out.append(Paragraph(i, i + 1))
            out[-1].last = i + 1
            continue
        boundary = not fenced[i] and is_boundary(line)
        if not out or (seen_content and (prev_blank or boundary)):
            out.append(Paragraph(i, i + 1, boundary=boundary))
        elif not seen_content:  # first content line after leading blank lines
            out[-1].boundary = boundary
        para = out[-1]
        para.last = i + 1
        para.fenced = para.fenced or fenced[i]
        para.content += 1
        seen_content = True
        prev_blank = False
    return out


@dataclass
class Unit:
    """An atomic slice [start, end) offered to the packer."""

    start: int
    end: int
    tokens: int
    hard: bool = False  # must open a new chunk
    soft: bool = False  # opens a new chunk if the current one is already substantial
    solo: bool = False  # stands alone: nothing is packed with it
    oversized: bool = False
    sticky: bool = False  # a lone heading: joins the next unit even past the target


@dataclass
class Group:
    """Consecutive units that become one chunk."""

    start: int
    end: int
    tokens: int
    oversized: bool = False
    solo: bool = False
    units: list[Unit] = field(default_factory=list)
    only_sticky: bool = False  # every unit so far is a sticky heading


def make_unit(text: str, start: int, end: int, max_tokens: int, **kw: object) -> Unit:
    tokens = estimate_tokens(text[start:end])
    return Unit(start, end, tokens, oversized=tokens > max_tokens, **kw)  # type: ignore[arg-type]


def pack(
    units: Sequence[Unit],
    target_tokens: int,
    soft_floor: int | None = None,
    max_tokens: int | None = None,
) -> list[Group]:
    """Greedy packing of consecutive units into groups of at most ``target_tokens``.

    A unit larger than the target simply gets a group of its own; hard units always open a
    group, soft ones only when the open group has at least ``soft_floor`` tokens. A group made
    only of sticky headings takes the next unit while the sum stays within ``max_tokens``, so a
    heading is not left alone in front of a large section.
    """
    groups: list[Group] = []
    cur: Group | None = None
    floor = target_tokens // 4 if soft_floor is None else soft_floor
    ceiling = target_tokens if max_tokens is None else max(target_tokens, max_tokens)
    for u in units:
        if cur is not None:
            if cur.only_sticky and not cur.solo and not u.hard:
                # A lone heading goes with what follows, even an oversized block.
                join = u.oversized or cur.tokens + u.tokens <= ceiling
            else:
                join = not (
                    u.hard
                    or u.solo
                    or u.oversized
                    or cur.solo
                    or cur.tokens + u.tokens > target_tokens
                    or (u.soft and cur.tokens >= floor)
                )
            if not join:
                groups.append(cur)
                cur = None
        if cur is None:
            cur = Group(u.start, u.end, u.tokens, u.oversized, u.solo or u.oversized, [u], u.sticky)
        else:
            cur.end = u.end
            cur.tokens += u.tokens
            cur.units.append(u)
            cur.oversized = cur.oversized or u.oversized
            cur.solo = cur.solo or u.solo or u.oversized
            cur.only_sticky = cur.only_sticky and u.sticky
    if cur is not None:
        groups.append(cur)
    return groups


def sentence_cuts(text: str, start: int, end: int) -> list[int]:
    """Offsets strictly inside (start, end) just after a sentence end (. ! ? … + whitespace).

    The dot of a list marker at a line start ("1. ", "a) ") is not a sentence end.
    """
    cuts = []
    for m in _SENTENCE_END_RE.finditer(text, start, end):
        if m.end() >= end:
            break
        if not _is_list_marker(text, start, m.start()):
            cuts.append(m.end())
    return cuts


def _is_list_marker(text: str, start: int, dot: int) -> bool:
    """True when only 1-3 digits or one letter stand between the line start and ``dot``."""
    lo = max(start, dot - 5)
    seg = text[lo:dot]
    nl = seg.rfind("\n")
    if nl >= 0:
        seg = seg[nl + 1 :]
    elif lo > start:
        return False  # the line started further back: ordinary text
    seg = seg.strip()
    return (seg.isdigit() and len(seg) <= 3) or (len(seg) == 1 and seg.isalpha())


def line_cuts(text: str, start: int, end: int) -> list[int]:
    """Offsets strictly inside (start, end) just after a newline."""
    cuts = []
    i = text.find("\n", start, end)
    while i != -1 and i + 1 < end:
        cuts.append(i + 1)
        i = text.find("\n", i + 1, end)
    return cuts


def split_at(
    text: str, start: int, end: int, cuts: Sequence[int], target_tokens: int, max_tokens: int
) -> list[Unit]:
    """Pieces of [start, end) cut only at ``cuts``, packed greedily up to the target.

    A stretch between two cuts that is larger than ``max_tokens`` is kept whole and marked
    oversized. Every returned unit is solo: it becomes a chunk by itself.
    """
    out: list[Unit] = []
    g_start, g_tokens = start, 0
    prev = start
    for b in [*cuts, end]:
        if b <= prev:
            continue
        tokens = estimate_tokens(text[prev:b])
        if g_tokens and g_tokens + tokens > target_tokens:
            out.append(Unit(g_start, prev, g_tokens, solo=True))
            g_start, g_tokens = prev, 0
        if tokens > max_tokens:
            out.append(Unit(prev, b, tokens, solo=True, oversized=True))
            g_start, g_tokens = b, 0
        else:
            g_tokens += tokens
        prev = b
    if g_start < end:
        out.append(Unit(g_start, end, g_tokens, solo=True))
    return out


def split_paragraph(
    text: str,
    start: int,
    end: int,
    target_tokens: int,
    max_tokens: int,
    *,
    line_fallback: bool = False,
) -> list[Unit]:
    """An over-long paragraph cut at sentence ends (then, optionally, at line ends)."""
    units = split_at(text, start, end, sentence_cuts(text, start, end), target_tokens, max_tokens)
    if not line_fallback or not text[start:end].strip():
        return units
    out: list[Unit] = []
    for u in units:
        if u.oversized:
            out.extend(
                split_at(
                    text, u.start, u.end, line_cuts(text, u.start, u.end), target_tokens, max_tokens
                )
            )
        else:
            out.append(u)
    return out


def paragraph_units(
    text: str,
    offsets: Sequence[int],
    paras: Sequence[Paragraph],
    target_tokens: int,
    max_tokens: int,
    *,
    split_sentences: bool = True,
    line_fallback: bool = False,
    soft_boundaries: bool = False,
) -> list[Unit]:
    """One unit per paragraph; paragraphs above ``max_tokens`` are cut at sentences if allowed.

    A boundary paragraph becomes a hard unit, or a soft one with ``soft_boundaries``; a
    boundary paragraph of a single line (a heading, a scene break) is sticky.
    """
    units: list[Unit] = []
    for p in paras:
        a, b = offsets[p.first], offsets[p.last]
        hard, soft = (False, p.boundary) if soft_boundaries else (p.boundary, False)
        sticky = p.boundary and p.content == 1
        u = make_unit(text, a, b, max_tokens, hard=hard, soft=soft, sticky=sticky)
        if u.oversized and split_sentences and not p.fenced:
            pieces = split_paragraph(
                text, a, b, target_tokens, max_tokens, line_fallback=line_fallback
            )
            if pieces:
                pieces[0].hard, pieces[0].soft = hard, soft
            units.extend(pieces)
        else:
            units.append(u)
    return units


class LineIndex:
    """Maps character offsets to 1-based line numbers."""

    def __init__(self, text: str) -> None:
        self._nl = [m.start() for m in re.finditer("\n", text)]

    def line_of(self, offset: int) -> int:
        return bisect_left(self._nl, offset) + 1


def first_words(text: str, start: int, end: int, limit: int = 8) -> str | None:
    """A short label: the first words of the first non-blank line of text[start:end]."""
    head = text[start : min(end, start + 400)]
    for line in head.split("\n"):
        words = _WORD_RE.findall(line)
        if words:
            label = " ".join(words[:limit])
            return label[:80]
    return None


def clean_heading(line: str) -> str:
    """A heading line without markdown marks, emphasis or trailing colon."""
    s = line.strip()[:MAX_HEADING_CHARS].strip()
    s = s.lstrip("#").strip().strip("*_").strip()
    return s.rstrip(":").strip()[:80] or s[:80]


def to_chunks(
    text: str,
    groups: Sequence[Group],
    title_of: Callable[[Group], str | None] | None = None,
    index: LineIndex | None = None,
) -> list[Chunk]:
    """Chunks for contiguous groups covering ``text``, with exact 1-based line spans."""
    index = index or LineIndex(text)
    chunks: list[Chunk] = []
    for g in groups:
        if g.end <= g.start:
            continue
        title = title_of(g) if title_of else first_words(text, g.start, g.end)
        chunks.append(
            Chunk(
                text=text[g.start : g.end],
                start_line=index.line_of(g.start),
                end_line=index.line_of(g.end - 1),
                oversized=g.oversized,
                title=title,
            )
        )
    return chunks


def whole(text: str, max_tokens: int) -> list[Chunk]:
    """Last-resort result: the entire text as one chunk (used if a splitter trips)."""
    if not text:
        return []
    index = LineIndex(text)
    return [
        Chunk(
            text=text,
            start_line=1,
            end_line=index.line_of(len(text) - 1),
            oversized=estimate_tokens(text) > max_tokens,
            title=first_words(text, 0, len(text)),
        )
    ]


def split_safely(
    split: Callable[[str, int, int], list[Chunk]],
    text: str,
    target_tokens: int,
    max_tokens: int,
) -> list[Chunk]:
    """Run a splitter ``split(text, target, hard_max)`` with sane budgets. A splitter must
    never fail ingestion: if it trips on text nobody foresaw, the text is kept whole."""
    if not isinstance(text, str) or not text:
        return []
    target, hard_max = clamp_budgets(target_tokens, max_tokens)
    try:
        return split(text, target, hard_max)
    except Exception:  # noqa: BLE001 - see the docstring
        return whole(text, hard_max)


def clamp_budgets(target_tokens: int, max_tokens: int) -> tuple[int, int]:
    """Sane budgets whatever the caller passed: target >= 1 and max >= target."""
    try:
        target = max(1, int(target_tokens))
    except (TypeError, ValueError):
        target = 2000
    try:
        hard = int(max_tokens)
    except (TypeError, ValueError):
        hard = 3000
    return target, max(target, hard)
