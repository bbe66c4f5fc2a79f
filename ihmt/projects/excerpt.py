"""Which lines of a symbol too long for max_tokens to show.

Cutting a long symbol at the budget shows its first lines, but a question about a 300-line
function is often about a stretch in its middle (the retry branch of a main loop, one hook
defined inside a factory). So the shown part is the symbol's head (its signature) plus the
window of lines that holds the most of the question's words, each word weighted by its
rarity in the project; the lines left out are marked where they were. When the best window
starts right after the head, this is the plain cut.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..text.tokenize import terms
from .naming import Groups

MAX_HEAD_LINES = 6  # the signature: up to the line that opens the body, at most this many
MAX_LEAD_LINES = 3  # leading comments and decorators shown with the head when this short
MARKER_CHARS = 48  # room kept for each "… lines a-b not shown …" line


@dataclass
class Excerpt:
    code: str  # the lines shown, a marker line where lines were left out
    hidden: list[tuple[int, int]]  # file line ranges (inclusive) left out
    last_shown: int  # file line number of the last line shown


def excerpt(code: str, start_line: int, limit_chars: int, wanted: Groups) -> Excerpt:
    """At most ``limit_chars`` of ``code`` (which begins at file line ``start_line``): its
    head, then the window of following lines that best matches ``wanted``."""
    lines = code.splitlines(keepends=True)
    sig, body = _signature(lines)
    head = [(0, body)] if sig <= MAX_LEAD_LINES else [(sig, body)]
    head_chars = sum(len(line) for a, b in head for line in lines[a:b])
    room = limit_chars - head_chars - 3 * MARKER_CHARS
    if body >= len(lines) or room <= 0:
        return _plain_cut(lines, start_line, limit_chars)
    scores = [_line_score(line, wanted) for line in lines[body:]]
    lo, hi = _best_window([len(line) for line in lines[body:]], scores, room)
    if lo == 0 and head[0][0] == 0:
        return _plain_cut(lines, start_line, limit_chars)
    if sum(scores[lo:hi]) <= sum(scores[: _fits(lines[body:], room)]):
        lo, hi = 0, _fits(lines[body:], room)
    lo, hi = body + lo, body + hi
    while lo < hi - 1 and not lines[lo].strip():  # a window opens and closes on code
        lo += 1
    while hi > lo + 1 and not lines[hi - 1].strip():
        hi -= 1
    return _assemble(lines, start_line, [*head, (lo, hi)])


def _assemble(lines: list[str], start_line: int, shown: list[tuple[int, int]]) -> Excerpt:
    """The lines of the ``shown`` index ranges, a marker line for each gap between them."""
    out: list[str] = []
    hidden: list[tuple[int, int]] = []
    pos = 0
    for lo, hi in shown + [(len(lines), len(lines))]:
        if lo > pos:
            near = next((x for x in lines[lo:hi] if x.strip()), lines[pos])
            out.append(_marker(near, start_line + pos, start_line + lo - 1))
            hidden.append((start_line + pos, start_line + lo - 1))
        out.extend(lines[lo:hi])
        pos = max(pos, hi)
    last = max(hi for _, hi in shown)
    return Excerpt("".join(out), hidden, start_line + last - 1)


def _signature(lines: list[str]) -> tuple[int, int]:
    """(first line of the declaration after its leading comments and decorators, the index
    after the line that opens its body: the first ending with ':' or '{', within
    MAX_HEAD_LINES)."""
    sig = 0
    while sig < len(lines) and _is_lead(lines[sig]):
        sig += 1
    if sig >= len(lines):
        return 0, 1
    for i in range(sig, min(len(lines), sig + MAX_HEAD_LINES)):
        if lines[i].rstrip().endswith((":", "{")):
            return sig, i + 1
    return sig, sig + 1


def _is_lead(line: str) -> bool:
    text = line.strip()
    return not text or text.startswith(("//", "/*", "*", "#", "@", "--"))


def _line_score(line: str, wanted: Groups) -> float:
    words = set(terms(line))
    return sum(c.weight for c in wanted if not words.isdisjoint(c.forms)) if words else 0.0


def _best_window(sizes: list[int], scores: list[float], room: int) -> tuple[int, int]:
    """[lo, hi) of the contiguous lines that fit ``room`` characters with the highest score
    (the earliest such window)."""
    best, best_lo, best_hi = -1.0, 0, 0
    lo, used, total = 0, 0, 0.0
    for hi, size in enumerate(sizes):
        used += size
        total += scores[hi]
        while used > room and lo <= hi:
            used -= sizes[lo]
            total -= scores[lo]
            lo += 1
        if lo <= hi and total > best:
            best, best_lo, best_hi = total, lo, hi + 1
    return best_lo, best_hi


def _fits(lines: list[str], room: int) -> int:
    used = 0
    for i, line in enumerate(lines):
        used += len(line)
        if used > room:
            return i
    return len(lines)


def _plain_cut(lines: list[str], start_line: int, limit: int) -> Excerpt:
    kept, size = [], 0
    for line in lines:
        if size + len(line) > limit and kept:
            break
        kept.append(line[:limit] if not kept else line)
        size += len(line)
    last = start_line + len(kept) - 1
    end = start_line + len(lines) - 1
    return Excerpt("".join(kept), [(last + 1, end)] if last < end else [], last)


def _marker(near: str, first: int, last: int) -> str:
    bare = near.rstrip("\r\n")  # a blank line's newline is not indentation
    indent = bare[: len(bare) - len(bare.lstrip(" \t"))][:12]
    return f"{indent}… lines {first}-{last} not shown …\n"
