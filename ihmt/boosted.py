"""Gradient-boosted trees as the package ships and scores them: packed, decoded once, summed.

The forests fitted by the benchmarks (the ordering trees of search/learned_order.py, the
learned NOT FOUND of search/unanswered.py, the per-prompt gate of loop/prompt_gate.py) are
plain data, read by whichever layer needs them; this module is the one place that reads them.

Written as text (one "feature,threshold,left,right,value" per node), the two ordering forests took
10–15 ms to parse on every start of a hook, a good tenth of what a prompt costs. Packed, a
forest is zlib-compressed little-endian arrays in base64: the node count of each tree (int32),
each node's feature, left and right child (int16), its threshold and its value (float64). The
floats are the fitted ones bit for bit, so the order the trees give does not change.
"""

from __future__ import annotations

import base64
import math
import sys
import zlib
from array import array
from collections.abc import Sequence

Node = tuple[int, float, int, int, float]
_INT16 = 1 << 15


def _little_endian(values: array) -> array:
    if sys.byteorder == "big":
        values.byteswap()
    return values


def pack(trees: Sequence[Sequence[Node]]) -> str:
    """The trees as one ASCII string (the inverse of ``unpack``)."""
    nodes = [node for tree in trees for node in tree]
    links = [int(x) for node in nodes for x in (node[0], node[2], node[3])]
    if any(not -_INT16 <= x < _INT16 for x in links):
        raise ValueError("a feature or a child index does not fit 16 bits")
    parts = (
        array("i", [len(trees), *(len(tree) for tree in trees)]),
        array("h", links),
        array("d", [float(node[1]) for node in nodes]),
        array("d", [float(node[4]) for node in nodes]),
    )
    raw = b"".join(_little_endian(part).tobytes() for part in parts)
    return base64.b64encode(zlib.compress(raw, 9)).decode("ascii")


def unpack(text: str) -> tuple[tuple[Node, ...], ...]:
    """The trees ``pack`` wrote, as tuples of (feature, threshold, left, right, value)."""
    raw = zlib.decompress(base64.b64decode(text))
    count = array("i")
    count.frombytes(raw[: count.itemsize])
    count = _little_endian(count)
    sizes = array("i")
    end = count.itemsize * (1 + count[0])
    sizes.frombytes(raw[count.itemsize : end])
    sizes = _little_endian(sizes).tolist()
    total = sum(sizes)
    links, thresholds, values = array("h"), array("d"), array("d")
    for part in (links, thresholds, values):
        length = part.itemsize * total * (3 if part is links else 1)
        part.frombytes(raw[end : end + length])
        _little_endian(part)
        end += length
    if end != len(raw):
        raise ValueError("packed trees of an unexpected length")
    flat = links.tolist()
    nodes = list(
        zip(flat[0::3], thresholds.tolist(), flat[1::3], flat[2::3], values.tolist(), strict=True)
    )
    trees, start = [], 0
    for size in sizes:
        trees.append(tuple(nodes[start : start + size]))
        start += size
    return tuple(trees)


_PARSED: dict[int, tuple] = {}


def forest(trees: Sequence | str) -> tuple:
    """Trees as tree_score reads them, decoded once per process. The trees modules ship each
    forest packed (``pack``); a tree may also be one line of text, nodes
    "feature,threshold,left,right,value" apart by spaces (tests write them so)."""
    key = id(trees)
    cached = _PARSED.get(key)
    if cached is not None and cached[0] is trees:
        return cached[1]
    if isinstance(trees, str):
        parsed = unpack(trees) if trees else ()
    else:
        parsed = tuple(
            tuple(
                (int(f), float(t), int(a), int(b), float(v))
                for f, t, a, b, v in (node.split(",") for node in tree.split())
            )
            if isinstance(tree, str)
            else tuple(tree)
            for tree in trees
        )
    _PARSED[key] = (trees, parsed)
    return parsed


def tree_score(trees: Sequence[Sequence[tuple]], x: list[float]) -> float:
    """The sum of the trees' leaf values for one input. A node is (feature, threshold, left,
    right, value): a leaf has feature -1; x[feature] <= threshold goes left."""
    total = 0.0
    for nodes in trees:
        node = nodes[0]
        while node[0] >= 0:
            node = nodes[node[2] if x[node[0]] <= node[1] else node[3]]
        total += node[4]
    return total


def probability(trees: Sequence | str, base: float, x: Sequence[float]) -> float:
    """The fitted probability of a forest's positive class for one input: the trees' values
    added to their ``base`` log-odds, through the logistic (clamped: no input overflows)."""
    raw = base + tree_score(forest(trees), list(x))
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, raw))))


def mode_probability(trees_module, semantic: bool, x: Sequence[float]) -> float | None:
    """The fitted probability from the forest a module of trees holds for the search's mode
    (its LEXICAL or SEMANTIC forest and base); None when none is shipped for that mode."""
    mode = "SEMANTIC" if semantic else "LEXICAL"
    packed = getattr(trees_module, mode)
    if not packed:
        return None
    return probability(packed, getattr(trees_module, f"{mode}_BASE"), x)
