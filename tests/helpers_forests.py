"""Hand-written trees and a recorder of a learned judge's inputs, for the tests of the fitted
forests (the NOT FOUND judge, the per-prompt gate): each test says which signal it hangs on."""

from __future__ import annotations


def split_on(features: tuple, feature: str, below: float, above: float, at: float = 0.5) -> str:
    """One tree as text: ``feature`` <= ``at`` adds ``below``, else ``above``."""
    index = features.index(feature)
    return f"{index},{at},1,2,0.0 -1,0,0,0,{below} -1,0,0,0,{above}"


def recorded_inputs(monkeypatch, module) -> list[list[float]]:
    """Every input ``module.features`` computes from now on, in order; the features are still
    returned, so the judge decides as it would."""
    seen: list[list[float]] = []
    original = module.features

    def spy(*args, **kwargs):
        x = original(*args, **kwargs)
        seen.append(x)
        return x

    monkeypatch.setattr(module, "features", spy)
    return seen


def use_forest(monkeypatch, gate, trees_module, trees, base: float = 0.0, min_memories: int = 0):
    """Hand-written ``trees`` as the lexical forest of a per-prompt gate (``gate``, reading
    ``trees_module``); a store of ``min_memories`` counts as large enough for it."""
    monkeypatch.setattr(trees_module, "LEXICAL", trees)
    monkeypatch.setattr(trees_module, "LEXICAL_BASE", base)
    monkeypatch.setattr(gate, "MIN_MEMORIES", min_memories)
