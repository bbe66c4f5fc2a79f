"""Okapi BM25 with the bounds the lossless descent needs.

A leaf is scored exactly from the term counts its parent stores. A branch gets an upper bound:
every query term that its subtree sketch may contain, weighted as if it occurred with the
subtree's largest frequency in its shortest leaf. The weight grows with frequency and shrinks
with length, so no leaf below can score higher than the bound.
"""

from __future__ import annotations

from ..text.bm25 import K1, B, idf, tf_weight


def score_counts(tf: dict[str, int], dl: int, weights: dict[str, float], avgdl: float) -> float:
    total = 0.0
    for term, w in weights.items():
        count = tf.get(term)
        if count:
            total += w * tf_weight(count, dl, avgdl)
    return total


__all__ = ["B", "K1", "idf", "score_counts", "tf_weight"]
