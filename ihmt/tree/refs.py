"""Child references: what a branch (or the trunk) knows about each child without opening it.

A leaf reference carries the leaf's exact term counts and length, so a leaf is scored exactly
from its parent. A branch reference carries the subtree's vocabulary sketch and the largest
term frequencies below it, so the navigator can compute an upper bound of any leaf's score in
that subtree (see search/navigator.py).
"""

from __future__ import annotations

from ..models import MemoryLeaf
from ..text.keywords import excerpt as make_excerpt
from ..text.keywords import title_of
from ..text.tokenize import term_counts
from .sketch import Sketch

HI_TERMS = 64  # per-subtree terms whose largest frequency is kept exactly
EXACT_TERMS = 2048  # subtrees with at most this many distinct terms keep an exact term map


ABOUT_CHARS = 200  # a saved memory's label (the ``replaces`` phrase it was saved with)


def leaf_terms(leaf: MemoryLeaf) -> dict[str, int]:
    """Indexed terms of a leaf: its text, its tags, the name of its source file and the label
    a correction was saved with (``replaces="staging database version"`` names what the new
    memory is about, in the words a later question uses)."""
    counts = term_counts(leaf.content)
    extra_text = " ".join(leaf.tags) + " " + _source_name(leaf.source)
    for term in term_counts(extra_text):
        counts[term] = counts.get(term, 0) + 1
    about = leaf.extra.get("about") if isinstance(leaf.extra, dict) else None
    label = about[:ABOUT_CHARS] if isinstance(about, str) else ""
    for term in term_counts(label):  # only the words the text lacks: it says what it is about
        counts.setdefault(term, 1)
    # what its products are ("Fedora": a Linux distro), once, and only the words the text
    # lacks: a note naming three databases is no more about databases than one saying so
    for term in term_counts(leaf.content + " " + extra_text, kinds=True):
        counts.setdefault(term, 1)
    return counts


def _source_name(source: str) -> str:
    name = source.replace("\\", "/").rsplit("/", 1)[-1]
    return name if not name.startswith("<") else ""


def leaf_ref(leaf: MemoryLeaf, counts: dict[str, int] | None = None) -> dict:
    counts = counts if counts is not None else leaf_terms(leaf)
    return {
        "id": leaf.leaf_id,
        "kind": "leaf",
        "layer": 0,
        "domain": leaf.domain,
        "title": leaf.title or title_of(leaf.content),
        "excerpt": make_excerpt(leaf.content),
        "keywords": _keywords_from_counts(counts, 8),
        "tags": leaf.tags[:12],
        "date": leaf.timestamp,
        "source": leaf.source,
        "span": leaf.span,
        "dl": sum(counts.values()),
        "tf": counts,
        **({"rank": leaf.extra["rank"]} if isinstance(leaf.extra.get("rank"), int) else {}),
        **({"project": leaf.project} if leaf.project else {}),
    }


def _keywords_from_counts(counts: dict[str, int], n: int) -> list[str]:
    """Most frequent terms (first appearance breaks ties; longer than 2 chars first): the
    same ranking top_keywords applies, without tokenizing the text a second time."""
    order = {t: i for i, t in enumerate(counts)}
    ranked = sorted(counts, key=lambda t: (len(t) <= 2, -counts[t], order[t]))
    return ranked[:n]


def ref_bounds(ref: dict) -> tuple[dict[str, int], int, int]:
    """(largest frequencies by term, largest frequency of any other term, shortest length)."""
    if ref["kind"] == "leaf":
        tf = ref["tf"]
        hi = {t: c for t, c in tf.items() if c >= 2}
        if len(hi) > HI_TERMS:
            kept = sorted(hi.items(), key=lambda kv: (-kv[1], kv[0]))[:HI_TERMS]
            rest = kept[-1][1]
            hi = dict(kept)
        else:
            rest = 1 if tf else 0
        return hi, rest, ref["dl"]
    return ref["hi"], ref["rest_tf"], ref["min_dl"]


def exact_terms(children: list[dict]) -> dict[str, list[int]] | None:
    """term -> [largest frequency, shortest length of a leaf holding it] for a small subtree.

    Much tighter than the sketch bound (each term keeps its own frequency and length), and
    exact: a term is present iff it occurs in some leaf below. None when the subtree is too
    large (or a child only has a sketch), in which case the sketch is used.
    """
    merged: dict[str, list[int]] = {}
    for child in children:
        if child["kind"] == "leaf":
            dl = child["dl"]
            items = ((t, c, dl) for t, c in child["tf"].items())
        elif "terms" in child:
            items = ((t, v[0], v[1]) for t, v in child["terms"].items())
        else:
            return None
        for term, tf, dl in items:
            cur = merged.get(term)
            if cur is None:
                merged[term] = [tf, dl]
            else:
                if tf > cur[0]:
                    cur[0] = tf
                if dl < cur[1]:
                    cur[1] = dl
        if len(merged) > EXACT_TERMS:
            return None
    return merged


def ref_sketch(ref: dict) -> Sketch:
    if ref["kind"] == "leaf":
        return Sketch.from_terms(ref["tf"].keys())
    if "terms" in ref:
        cached = ref.get("_sketch")
        if cached is None:
            cached = Sketch.from_terms(ref["terms"].keys())
            ref["_sketch"] = cached
        return cached
    cached = ref.get("_sketch")
    if cached is None:
        cached = Sketch.from_json(ref["vocab"])
        ref["_sketch"] = cached
    return cached


def merge_bounds(children: list[dict]) -> tuple[dict[str, int], int, int]:
    merged: dict[str, int] = {}
    rest = 0
    min_dl = None
    for child in children:
        hi, child_rest, child_min = ref_bounds(child)
        rest = max(rest, child_rest)
        min_dl = child_min if min_dl is None else min(min_dl, child_min)
        for term, count in hi.items():
            if count > merged.get(term, 0):
                merged[term] = count
    if len(merged) > HI_TERMS:
        ordered = sorted(merged.items(), key=lambda kv: (-kv[1], kv[0]))
        rest = max(rest, ordered[HI_TERMS][1])
        merged = dict(ordered[:HI_TERMS])
    return merged, rest, min_dl or 0


def date_range(children: list[dict]) -> tuple[str, str]:
    lows = [c.get("date_from") or c.get("date") or "" for c in children]
    highs = [c.get("date_to") or c.get("date") or "" for c in children]
    lows = [d for d in lows if d]
    highs = [d for d in highs if d]
    return (min(lows) if lows else "", max(highs) if highs else "")


def leaf_count(ref: dict) -> int:
    return 1 if ref["kind"] == "leaf" else ref["leaves"]


def public_ref(ref: dict) -> dict:
    """A reference as stored on disk (drops in-memory caches)."""
    return {k: v for k, v in ref.items() if not k.startswith("_")}
