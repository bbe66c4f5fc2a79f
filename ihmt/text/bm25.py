"""The Okapi BM25 weights, shared by the memory search and the session scratch pad."""

from __future__ import annotations

import math

K1 = 1.2
B = 0.75


def idf(df: int, n: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def tf_weight(tf: float, dl: float, avgdl: float) -> float:
    if tf <= 0:
        return 0.0
    return tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * dl / avgdl))
