"""Cheap, deterministic labels for tree nodes: keywords, summaries, excerpts, titles.

Everything here is extractive and model-free so a summary can be rebuilt at
any time from the stored text and always comes out the same.
"""

from __future__ import annotations

import math
from collections import Counter

from ihmt.text.tokenize import is_term, terms, token_groups

from .. import re_cache

ELLIPSIS = "…"

_WS_RE = re_cache.compile(r"\s+")
_SENTENCE_END_RE = re_cache.compile(r"(?<=[.!?])\s+")
_HEADING_RE = re_cache.compile(r"^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$")
_MARKER_RE = re_cache.compile(r"^(?:[>*+-]\s+|\d{1,3}[.)]\s+)+")
_FENCE_PREFIXES = ("```", "~~~")


def _collapse(text: str) -> str:
    return _WS_RE.sub(" ", text).strip()


def _truncate(text: str, max_chars: int) -> str:
    """Shorten to at most ``max_chars`` characters, ending on a word with "…"."""
    if max_chars <= 0:
        return ""
    if len(text) <= max_chars:
        return text
    if max_chars == 1:
        return ELLIPSIS
    cut = text[: max_chars - 1]
    if not text[max_chars - 1].isspace():
        space = cut.rfind(" ")
        # Only back off to a space when that keeps at least half the budget;
        # one enormous word is cut hard instead of vanishing.
        if space >= (max_chars - 1) // 2:
            cut = cut[:space]
    cut = cut.rstrip(" ,;:-") or text[: max_chars - 1].rstrip() or text[: max_chars - 1]
    return cut + ELLIPSIS


def _is_meaningful(line: str) -> bool:
    """A line with some letters or digits that is not a code-fence marker."""
    stripped = line.strip()
    if stripped.startswith(_FENCE_PREFIXES):
        return False
    return any(ch.isalnum() for ch in stripped)


def top_keywords(texts: list[str], n: int = 12) -> list[str]:
    """The ``n`` most frequent terms across ``texts``.

    Whole words and identifiers count fully; the parts of an identifier count
    half, and a part that never appears on its own is only eligible when it
    recurs in two different identifiers. So "reservestock" outranks "reserve"
    and "stock" unless those words matter independently. Terms of one or two
    characters come after the longer ones; ties go to the first seen.
    """
    if n <= 0:
        return []
    whole: Counter[str] = Counter()
    part: Counter[str] = Counter()
    sources: dict[str, set[str]] = {}
    first_seen: dict[str, int] = {}
    position = 0
    for text in texts:
        for head, parts in token_groups(text):
            if is_term(head):
                whole[head] += 1
                first_seen.setdefault(head, position)
            position += 1
            for token in parts:
                if is_term(token) and token != head:
                    part[token] += 1
                    sources.setdefault(token, set()).add(head)
                    first_seen.setdefault(token, position)
                position += 1
    eligible = [t for t in first_seen if whole[t] > 0 or len(sources.get(t, ())) >= 2]
    eligible.sort(key=lambda t: (len(t) <= 2, -(whole[t] + 0.5 * part[t]), first_seen[t]))
    return eligible[:n]


def _sentences(texts: list[str]) -> list[str]:
    """Sentences in reading order; lines inside code fences or indented code stay whole."""
    out: list[str] = []
    for text in texts:
        in_fence = False
        for line in text.splitlines():
            if line.strip().startswith(_FENCE_PREFIXES):
                in_fence = not in_fence
                continue
            if not line.strip():
                continue
            if in_fence or line.startswith(("    ", "\t")):
                pieces = [line]
            else:
                pieces = _SENTENCE_END_RE.split(line)
            out.extend(s for s in map(_collapse, pieces) if s)
    return out


def representative_sentences(texts: list[str], n: int = 2, max_chars: int = 300) -> str:
    """Extractive summary: the ``n`` sentences richest in frequent terms, in original order.

    A sentence scores the summed corpus frequency of its terms divided by the
    square root of its term count, so long sentences do not win by length
    alone. Repeated sentences are considered once.
    """
    if n <= 0 or max_chars <= 0:
        return ""
    sentences: list[str] = []
    sentence_terms: list[list[str]] = []
    seen: set[str] = set()
    for sentence in _sentences(texts):
        key = sentence.casefold()
        if key in seen:
            continue
        seen.add(key)
        sentences.append(sentence)
        sentence_terms.append(terms(sentence))
    if not sentences:
        return ""
    freq: Counter[str] = Counter()
    for found in sentence_terms:
        freq.update(found)
    scores = [
        sum(freq[t] for t in found) / math.sqrt(len(found)) if found else 0.0
        for found in sentence_terms
    ]
    best = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))[:n]
    return _truncate(" ".join(sentences[i] for i in sorted(best)), max_chars)


def _meaningful_lines(text: str) -> list[str]:
    """Lines from the first meaningful one up to the end of that paragraph."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if _is_meaningful(line)), None)
    if start is None:
        return []
    block: list[str] = []
    for line in lines[start:]:
        if not line.strip():
            break
        if _is_meaningful(line):
            block.append(line)
    return block


def excerpt(text: str, max_chars: int = 160) -> str:
    """The opening of ``text``: first meaningful paragraph, whitespace collapsed, cut with "…"."""
    block: list[str] = []
    size = 0
    for line in _meaningful_lines(text):
        block.append(line)
        size += len(line) + 1
        if size > max_chars:
            break
    return _truncate(_collapse(" ".join(block)), max_chars)


def title_of(text: str, max_chars: int = 80) -> str:
    """A short title: the leading markdown heading, else the first sentence of the first line."""
    block = _meaningful_lines(text)
    if not block:
        return ""
    line = block[0]
    heading = _HEADING_RE.match(line)
    if heading:
        title = heading.group(1)
    else:
        title = _SENTENCE_END_RE.split(_MARKER_RE.sub("", line.strip()), maxsplit=1)[0]
        if title.endswith(".") and not title.endswith(".."):
            title = title[:-1]
        if not _collapse(title):
            title = line
    return _truncate(_collapse(title), max_chars)
