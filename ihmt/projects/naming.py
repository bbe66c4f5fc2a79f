"""How the words of a question meet the name of a symbol.

A symbol's name is the best summary of what its code does, but names and questions spell
things differently: ``resolve_redirects`` for "how are redirects resolved", ``LazyFile`` for
"open a file lazily", ``progressbar`` for "progress bar", ``envvar`` for "environment
variable", ``get_environ_proxies`` for "proxies from the environment". The tokenizer does not
stem, so this module bridges the gap for names only (the full-text BM25 stays exact):

- a question word matches a name part through an inflection (``word_variants``);
- a name part may be a run of several question words written together (``progressbar``),
  each piece a word, an inflection or a prefix of at least 3 letters (``env`` + ``var``);
- a name part of at least 5 letters that begins a longer question word abbreviates it
  (``environ`` for "environment", ``param`` for "parameter").

All rules are about spelling habits of code, none about a particular project.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from .. import re_cache
from ..text.tokenize import fold, is_term

MIN_ABBREVIATION = 5  # a lone name part this long may stand for a longer question word
MIN_PIECE = 3  # a piece of a run-together name part ("env" in "envvar")
MAX_PIECES = 4

_WORD = re_cache.compile(r"\w+")
_CASE_PART = re_cache.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

_SUFFIXES = (
    "ations", "ation", "ings", "ing", "ers", "er", "ies", "ied", "ily", "ly", "ed", "es",
    "s", "ions", "ion", "ments", "ment", "able",
)  # fmt: skip
_ENDINGS = ("", "e", "s", "es", "ed", "ing", "er", "ers", "ion", "ation", "y", "ies")


@dataclass(frozen=True)
class Concept:
    """One word of the question and the inflections of it that the project uses."""

    word: str
    forms: frozenset[str]
    weight: float = 1.0  # how much holding this word says about a name (see query_words)


Groups = tuple[Concept, ...]


def word_variants(word: str) -> set[str]:
    """Other inflections of an English word: 'lazily' -> lazy, 'resolved' -> resolve,
    'iterating' -> iterate, iter... Only candidates: the caller keeps those the project uses.
    """
    if len(word) < 4 or not word.isalpha():
        return set()
    stems = {word}
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            stems.add(base)
            if suffix in ("ies", "ied", "ily"):
                stems.add(base + "y")
            if len(base) >= 4 and base[-1] == base[-2]:  # running -> run
                stems.add(base[:-1])
    forms = {stem + ending for stem in stems for ending in _ENDINGS}
    forms |= {stem[:-1] + ending for stem in stems if stem.endswith("e") for ending in _ENDINGS}
    forms.discard(word)
    return {f for f in forms if len(f) >= 3}


# British spellings -> the American ones most code uses (ending, replacement).
_SPELLINGS = (
    ("isation", "ization"), ("isations", "izations"), ("ise", "ize"), ("ised", "ized"),
    ("ises", "izes"), ("ising", "izing"), ("iser", "izer"), ("isers", "izers"),
    ("yse", "yze"), ("ysed", "yzed"), ("yses", "yzes"), ("ysing", "yzing"), ("yser", "yzer"),
    ("our", "or"), ("ours", "ors"), ("oured", "ored"), ("ouring", "oring"),
    ("tre", "ter"), ("tres", "ters"), ("ence", "ense"),
    ("lled", "led"), ("lling", "ling"), ("ller", "ler"),
)  # fmt: skip


def spelling_variants(word: str) -> set[str]:
    """The American spellings of a British word ('normalised' -> normalized, 'colour' ->
    color, 'cancelled' -> canceled); empty for other words."""
    out = set()
    if len(word) < 5 or not word.isalpha():
        return out
    for ending, american in _SPELLINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 2:
            out.add(word[: -len(ending)] + american)
    return out


def name_parts(text: str) -> tuple[str, ...]:
    """The words inside identifiers and prose, split at separators and case changes:
    'auto_envvar_prefix' -> auto, envvar, prefix; 'parseTRPCMessage' -> parse, trpc, message.
    Stop words and lone letters are dropped, as in the index."""
    out: list[str] = []
    for raw in _WORD.findall(text or ""):
        pieces = _CASE_PART.findall(raw) if raw.isascii() else [raw]
        for piece in pieces:
            token = fold(piece)
            if token and is_term(token) and token not in out:
                out.append(token)
    return tuple(out)


_name_parts_cached = lru_cache(maxsize=65536)(name_parts)


def query_words(
    query: str,
    known: Callable[[set[str]], dict[str, int] | set[str]] | None = None,
    total: int = 0,
) -> Groups:
    """The question's words in order, each with the variants the project uses and a weight.

    ``known(words)`` says which of the words the project uses, as a set or as
    {word: number of leaves holding it}; with those numbers and ``total`` (the number of
    leaves) each word weighs its inverse document frequency, so a name holding the rare word
    of a question ("lazily" -> LazyFile) counts for more than one holding a word every file
    uses ("file"). Without ``known`` all variants are kept and every word weighs 1."""
    words = name_parts(query)
    variants = {w: word_variants(w) for w in words}
    if known is None or not words:
        return tuple(Concept(w, frozenset({w} | variants[w])) for w in words)
    present = known(set(words).union(*variants.values()))
    counts = present if isinstance(present, dict) else {}
    out = []
    for w in words:
        forms = frozenset({w} | (variants[w] & set(present)))
        weight = 1.0
        if counts and total > 0:
            df = max((counts.get(f, 0) for f in forms), default=0)
            weight = math.log(1.0 + (total - df + 0.5) / (df + 0.5))
        out.append(Concept(w, forms, max(weight, 0.05)))
    return tuple(out)


def respelled(query: str, known: Callable[[set[str]], dict[str, int]]) -> str:
    """``query`` with each word the project never uses replaced by the spelling of it the
    project does use ('normalised' -> normalized, 'colour' -> color), or else by that
    spelling's most used inflection ('normalised' -> normalize). A word the code never
    holds matches nothing, so nothing is lost; words the project uses stay as they are.
    (Inflections of words that are not British spellings are not tried here: adding them
    to the full-text query measured worse, see benchmarks/RESULTS.md.)"""
    words = {fold(w) for w in _WORD.findall(query or "") if w.isalpha() and len(w) >= 5}
    options = {w: spelling_variants(w) for w in words}
    options = {w: forms for w, forms in options.items() if forms}
    if not options:
        return query
    counts = known(set(options))
    options = {w: forms for w, forms in options.items() if not counts.get(w)}
    inflected = {w: {v for f in forms for v in word_variants(f)} for w, forms in options.items()}
    present = known(set().union(*options.values(), *inflected.values()))
    swap = {}
    for w in options:
        for tier in (options[w], inflected[w]):
            used = [(present.get(f, 0), f) for f in tier if present.get(f)]
            if used:
                swap[w] = max(used)[1]
                break
    if not swap:
        return query
    return _WORD.sub(lambda m: swap.get(fold(m.group()), m.group()), query)


def _piece_matches(piece: str, concept: Concept) -> bool:
    return piece in concept.forms or (
        len(piece) >= MIN_PIECE
        and len(concept.word) > len(piece)
        and concept.word.startswith(piece)
    )


def _run_together(part: str, groups: Groups, start: int) -> int:
    """How many consecutive concepts from ``start`` spell ``part`` when written together
    (0 when they do not, or when only one does)."""

    def walk(pos: int, index: int, used: int) -> int:
        if pos == len(part):
            return used if used >= 2 else 0
        if index >= len(groups) or used >= MAX_PIECES:
            return 0
        concept = groups[index]
        candidates = sorted(
            {f for f in concept.forms if part.startswith(f, pos)}
            | {
                part[pos:end]
                for end in range(pos + MIN_PIECE, len(part) + 1)
                if concept.word.startswith(part[pos:end]) and end - pos < len(concept.word)
            },
            key=len,
            reverse=True,
        )
        for piece in candidates:
            if _piece_matches(piece, concept):
                found = walk(pos + len(piece), index + 1, used + 1)
                if found:
                    return found
        return 0

    return walk(0, start, 0)


@lru_cache(maxsize=4096)
def _openings(concept: Concept) -> tuple[str, ...]:
    """The first letters any piece matching ``concept`` can start with."""
    return tuple({f[:MIN_PIECE] for f in concept.forms | {concept.word}})


def covered(groups: Groups, name: str) -> frozenset[int]:
    """Indexes of the concepts that the symbol's name holds, by any of the rules above."""
    if not groups or not name:
        return frozenset()
    return _covered(groups, _name_parts_cached(name))


@lru_cache(maxsize=256)
def _form_index(groups: Groups) -> dict[str, tuple[int, ...]]:
    """form -> the concepts it belongs to, for the exact matches."""
    index: dict[str, list[int]] = {}
    for i, concept in enumerate(groups):
        for form in concept.forms:
            index.setdefault(form, []).append(i)
    return {form: tuple(ids) for form, ids in index.items()}


@lru_cache(maxsize=65536)
def _covered(groups: Groups, parts: tuple[str, ...]) -> frozenset[int]:
    index = _form_index(groups)
    hits: set[int] = set()
    for part in parts:
        hits.update(index.get(part, ()))
        if len(part) >= MIN_ABBREVIATION:
            for i, concept in enumerate(groups):
                if len(concept.word) > len(part) and concept.word.startswith(part):
                    hits.add(i)
        if len(part) >= 2 * MIN_PIECE:
            for i in range(len(groups) - 1):
                if not part.startswith(_openings(groups[i])):
                    continue  # cheap test first: no piece of this concept begins the part
                span = _run_together(part, groups, i)
                if span:
                    hits.update(range(i, i + span))
    return frozenset(hits)


def name_coverage(groups: Groups, name: str) -> float:
    """Share of the question's words (by weight, by any rule above) that the name holds."""
    total = sum(c.weight for c in groups)
    if total <= 0:
        return 0.0
    return sum(groups[i].weight for i in covered(groups, name)) / total
