"""Wiring a SemanticIndex into an IHMT instance (called from IHMT.__init__; standard library only).

With ``semantic: true`` the index becomes ``memory.semantic`` and the engine's dense retriever; the
model itself loads on the first search (or the first large ingest), so opening a store and
starting a server stay fast. The index registers as a listener of the write coordinator
(``on_indexed`` / ``on_removed``), so every path that indexes or removes leaves (save, ingest,
recovery, rebuild, reconcile, forget) keeps the vectors in step without the coordinator
knowing what listens.

With ``semantic: false`` but a sidecar left on disk (``ihmt semantic disable`` keeps it), only
removals are wired: a forgotten memory's vector is deleted even while semantic search is off.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from ..config import IHMTConfig
    from ..models import MemoryLeaf
    from ..store.catalog import Catalog
    from .retriever import SemanticIndex


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


@dataclass(frozen=True)
class SemanticSource:
    """What the semantic layer reads from a memory, given by the facade: where its sidecar
    lives, the settings, the catalog (leaf checksums, sizes, storage order) and a leaf reader.
    The index never reaches into the facade's other collaborators."""

    state_dir: Path
    config: IHMTConfig
    catalog: Catalog
    read_leaf: Callable[[str], MemoryLeaf | None]


@dataclass
class SemanticWiring:
    """What a memory gets from the semantic layer: the index searches use (None when semantic
    search is off) and the listeners its write coordinator is built with."""

    index: SemanticIndex | None = None
    on_indexed: list[Callable] = field(default_factory=list)
    on_removed: list[Callable] = field(default_factory=list)


def wiring(source: SemanticSource) -> SemanticWiring:
    """The index and listeners for one memory (its write coordinator is built from the result,
    so ``source.read_leaf`` must only be called later, never here)."""
    from .vectors import FILENAME  # here: a store without semantic search never loads it

    sidecar = source.state_dir / FILENAME
    if not source.config.semantic and not sidecar.exists():
        return SemanticWiring()
    from .retriever import SemanticIndex

    english_only = source.config.extra.get("semantic_english_only")
    index = SemanticIndex(
        source,
        model_setting(source.config),
        fusion_setting(source.config),
        english_only if isinstance(english_only, bool) else None,
    )
    if not source.config.semantic:
        return SemanticWiring(on_removed=[index.on_removed])
    return SemanticWiring(index, on_indexed=[index.on_indexed], on_removed=[index.on_removed])
