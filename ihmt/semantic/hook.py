"""Wiring a SemanticIndex into an IHMT instance (called from IHMT.__init__; standard library only).

With ``semantic: true`` the index is attached as ``memory.semantic`` and ``memory.engine.dense``;
the model itself loads on the first search (or the first large ingest), so opening a store and
starting a server stay fast. The store's ``index_leaves`` / ``remove_leaves`` are wrapped on
this instance so every path that indexes or removes leaves (save, ingest, recovery, rebuild,
reconcile, forget) keeps the vectors in step without the store knowing about them.

With ``semantic: false`` but a sidecar left on disk (``ihmt semantic disable`` keeps it), only
removals are wired: a forgotten memory's vector is deleted even while semantic search is off.
"""

from __future__ import annotations

import functools

from .vectors import FILENAME


def model_setting(config) -> str:
    """``semantic_model`` from ihmt.config.json (a field of IHMTConfig or a kept extra key)."""
    value = getattr(config, "semantic_model", None) or config.extra.get("semantic_model", "")
    return str(value or "")


def fusion_setting(config):
    """Fusion weights, with any ``semantic_<name>`` override from ihmt.config.json."""
    from .fusion import Fusion

    overrides = {}
    for attr in ("weight", "context", "high", "low", "gap"):
        value = config.extra.get("semantic_" + attr)
        if isinstance(value, int | float) and not isinstance(value, bool):
            overrides[attr] = float(value)
    return Fusion(**overrides)


def attach(memory) -> None:
    memory.semantic = None
    sidecar = memory.layout.state / FILENAME
    if not memory.config.semantic and not sidecar.exists():
        return
    from .retriever import SemanticIndex

    index = SemanticIndex(memory, model_setting(memory.config), fusion_setting(memory.config))
    store = memory.store
    remove = store.remove_leaves

    @functools.wraps(remove)
    def remove_leaves(leaf_ids):
        removed = remove(leaf_ids)
        index.on_removed(list(leaf_ids))
        return removed

    store.remove_leaves = remove_leaves
    if not memory.config.semantic:
        return
    add = store.index_leaves

    @functools.wraps(add)
    def index_leaves(leaves):
        add(leaves)
        index.on_indexed(list(leaves))

    store.index_leaves = index_leaves
    memory.semantic = index
    memory.engine.dense = index
