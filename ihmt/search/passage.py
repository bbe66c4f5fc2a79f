"""The stretch of a long memory that answers: a runbook section, not its first 2,400 characters.

An agent asking "what's the replication lag alert threshold?" of a 3,000-word runbook needs the
few lines that hold the threshold. The passage is the window of whole lines, within a budget,
that holds the most of the question's words (rarer words of the memory weigh more), with the
memory's first line kept as its title so the agent knows where the lines come from.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from ..text.tokenize import terms
from .answer_type import holds_shape, shapes_asked

_SHAPE_MARK = "\x00shape"  # not a word: stands for "this line holds the shape of answer asked"

PASSAGE_MIN_CHARS = 1400  # shorter memories are shown whole
PASSAGE_CHARS = 1200  # the window's budget
DENSEST_LINE = 1.0  # weight of the window's best single line beside the words it gathers
# one line from outside the window holding the question's words it lacks is shown after it,
# when no longer than this (76 corpora and blind29: answer visible 5,426 -> 5,435 of 6,299,
# long-document answers' median 528 -> 532 tokens; a second such line: one more)
ALSO_LINE_CHARS = 400
SHAPE_LINE = 0.5  # what holding the shape of answer asked adds to such a line's weight
# the line outside the window that answers best on its own is shown after it instead, when it
# weighs more than this share of the window's best line: the window gathers the question's
# words from a section about the topic, the answer is one line further on ("- Gateways check
# the manifest every 6 hours, …"). 136 corpora, long-document answers whose best memory holds
# the answer: shown 1,003 -> 1,041 of 1,078, the passage 44 characters longer on average
LONE_LINE_SHARE = 0.5


@dataclass
class Passage:
    text: str
    first_line: int  # 1-based, inclusive
    last_line: int
    total_lines: int
    whole: bool
    also_line: int | None = None  # 1-based: one line from elsewhere, shown after the window


def best_passage(content: str, question: str, budget: int = PASSAGE_CHARS) -> Passage:
    """The window of lines of ``content`` that best answers ``question``; the whole text when
    it is short or nothing in it matches."""
    lines = content.strip("\n").split("\n")
    if len(content) <= max(budget, PASSAGE_MIN_CHARS) or len(lines) < 3:
        return Passage(content.strip(), 1, len(lines), len(lines), True)
    wanted = set(terms(question))
    # the first line is shown above any window as the memory's title: the question's words it
    # holds ("the lake migration" of "Data lake migration: ...") are on screen already, and
    # only the others say which stretch answers
    untitled = wanted - set(terms(lines[0]))
    if untitled:
        wanted = untitled
    line_terms = [set(terms(line)) & wanted for line in lines]
    shapes = shapes_asked(question)
    if shapes:
        # "how many", "what time", "which port", "what version": a line holding such a value
        # is likelier to be the answer than one that only repeats the question's words
        for found, line in zip(line_terms, lines, strict=True):
            if holds_shape(line, shapes):
                found.add(_SHAPE_MARK)
    spread = Counter(t for found in line_terms for t in found)
    # a word found on few lines says more about where the answer is than one found everywhere
    weight = {t: 1.0 + math.log(len(lines) / spread[t]) for t in spread}
    # the answer is usually one line holding several of the question's words together: a
    # window holding that line beats one that gathers the same words from scattered lines
    line_weight = [math.fsum(weight[t] for t in found) for found in line_terms]
    best: tuple[float, int, int] | None = None
    for start in range(len(lines)):
        # a window opens on a line holding a word of the question: a line holding only a value
        # of the shape asked ("Last updated: 2026-06-05" for "how big") says nothing of where
        if not line_terms[start] - {_SHAPE_MARK}:
            continue
        size, found, end, densest = 0, set(), start, 0.0
        while end < len(lines) and size + len(lines[end]) + 1 <= budget:
            size += len(lines[end]) + 1
            found |= line_terms[end]
            densest = max(densest, line_weight[end])
            end += 1
        end = max(end, start + 1)
        # exact sums: the same whatever the set order
        score = math.fsum(weight[t] for t in found) + DENSEST_LINE * densest
        if best is None or score > best[0]:
            best = (score, start, end)
    if best is None:
        best = (0.0, 0, _lines_within(lines, 0, budget))
    _, start, end = best
    # open the window a little earlier when it starts mid-section, to show the heading above
    for back in range(start - 1, max(start - 4, -1), -1):
        if lines[back].lstrip().startswith("#"):
            if sum(len(x) + 1 for x in lines[back:end]) <= budget * 1.3:
                start = back
            break
    shown = lines[start:end]
    if start > 0:
        shown = [lines[0].strip(), "…"] + shown
    also = _line_alone(lines, line_terms, line_weight, start, end, bool(shapes))
    if also is None:
        also = _line_for_the_rest(lines, line_terms, weight, start, end)
    if also is not None:
        shown += ["…", lines[also]]
    return Passage(
        "\n".join(shown).strip(),
        start + 1,
        end,
        len(lines),
        False,
        also + 1 if also is not None else None,
    )


def _line_for_the_rest(
    lines: list[str], line_terms: list[set[str]], weight: dict[str, float], start: int, end: int
) -> int | None:
    """The line outside the window holding most (by weight) of the question's words the window
    lacks, when it is short enough to show beside it: the window gathers "pau", "port" and
    "postgres" from a setup section, the line "ssh -L 5433:localhost:5432 … (the tunnel)" holds
    "tunnel". A line that also holds the shape of answer asked counts a little more."""
    inside = set().union(*line_terms[start:end])
    missing = {t for found in line_terms for t in found} - inside - {_SHAPE_MARK}
    if not missing:
        return None
    pick, pick_score = None, 0.0
    for i, found in enumerate(line_terms):
        held = found & missing
        if not held or start <= i < end or i == 0:
            continue
        score = math.fsum(weight[t] for t in held) + (SHAPE_LINE if _SHAPE_MARK in found else 0.0)
        if score > pick_score:
            pick, pick_score = i, score
    if pick is None or len(lines[pick]) > ALSO_LINE_CHARS:
        return None
    return pick


def _line_alone(
    lines: list[str],
    line_terms: list[set[str]],
    line_weight: list[float],
    start: int,
    end: int,
    shaped: bool,
) -> int | None:
    """The line outside the window holding the most of the question's words by weight (and,
    when a shape of answer is asked, holding one), when it is short enough to show and weighs
    more than ``LONE_LINE_SHARE`` of the best line inside: a value on a line of its own is what
    "how often …" asks, however many of the question's words the section around the window
    repeats."""
    inside = max(line_weight[start:end], default=0.0)
    pick, pick_weight = None, 0.0
    for i, found in enumerate(line_terms):
        if i == 0 or start <= i < end or len(lines[i]) > ALSO_LINE_CHARS:
            continue
        if not found - {_SHAPE_MARK} or (shaped and _SHAPE_MARK not in found):
            continue
        if line_weight[i] > pick_weight:
            pick, pick_weight = i, line_weight[i]
    return pick if pick is not None and pick_weight > inside * LONE_LINE_SHARE else None


def _lines_within(lines: list[str], start: int, budget: int) -> int:
    size, end = 0, start
    while end < len(lines) and size + len(lines[end]) + 1 <= budget:
        size += len(lines[end]) + 1
        end += 1
    return max(end, start + 1)


SNIPPET_CHARS = 140  # one line per other match in a compact answer
# the stretch opens this many words before the first word of the question it holds: a value
# often comes just before the word it counts ("214 refill-ready notifications", "5 % of bikes")
# and the subject before its verb. With the shape of answer asked counted as two words, on 136
# corpora the other matches that hold the answer show it 3,086 -> 3,118 times of 3,833 (77
# gained, 45 lost: the stretch ends three words sooner); answer visible on 139 corpora 9,644 ->
# 9,656 of 11,114 (28 gained, 16 lost)
SNIPPET_LEAD_WORDS = 3
SNIPPET_SHAPE_WORDS = 2  # what holding the shape of answer asked counts for, in words


def best_snippet(content: str, question: str, limit: int = SNIPPET_CHARS) -> str:
    """One line of at most ``limit`` characters of ``content``: all of it when it fits, else
    the stretch holding most of the question's words (and the shape of answer asked for),
    so the line under OTHER MATCHES shows why the memory matched, not only how it begins.
    As for a passage, the words of a long memory's first line (its title) do not say where
    the answer is: "checkout cache" of "# Runbook: checkout cache" is not what "what eviction
    policy is set on the checkout cache?" asks."""
    flat = " ".join(content.split())
    if len(flat) <= limit:
        return flat
    words = flat.split(" ")
    wanted = set(terms(question))
    title, _, rest = content.strip().partition("\n")
    untitled = wanted - set(terms(title))
    if rest.strip() and untitled:
        wanted = untitled
    shapes = shapes_asked(question)
    found = [set(terms(word)) & wanted for word in words]
    if shapes:
        for marks, word in zip(found, words, strict=True):
            if holds_shape(word, shapes):
                marks.add(_SHAPE_MARK)
    best_score, best_start, best_end = 0, 0, 0
    for first in range(len(words)):
        if not found[first] and first:
            continue
        start = max(first - SNIPPET_LEAD_WORDS, 0)
        size, seen, end = 0, set(), start
        while end < len(words) and size + len(words[end]) + 1 <= limit - 2:
            size += len(words[end]) + 1
            seen |= found[end]
            end += 1
        score = len(seen) + (SNIPPET_SHAPE_WORDS - 1 if _SHAPE_MARK in seen else 0)
        if score > best_score:
            best_score, best_start, best_end = score, start, end
    if best_score == 0 or best_start == 0:
        return flat[: limit - 1].rstrip() + "…"
    # start a few words early so the stretch reads as a phrase, within the limit
    start = best_start
    while start > 0 and sum(len(w) + 1 for w in words[start - 1 : best_end]) <= limit - 2:
        start -= 1
        if words[start].endswith((".", ";", ":")):
            start += 1
            break
    text = " ".join(words[start:best_end])
    tail = "…" if best_end < len(words) else ""
    return ("…" + text + tail)[:limit]
