"""Operations the GUI, the hooks, the project index and sync need beyond reading.

Locating and creating stores, small state files, replacing a source's documents, write
sessions. A mixin of :class:`ihmt.api.IHMT`.
"""

from __future__ import annotations

from pathlib import Path

from ..models import IngestReport, MemoryLeaf
from ..store.atomic import atomic_write_text
from ..store.layout import StoreLayout, holds_store, resolve_workspace

RESTATE_INPUT_CAP = 4000  # characters of text sent to the model to restate
RESTATE_OUTPUT_CAP = 1200  # characters of its reply kept


class ServiceOps:
    """Write operations and store housekeeping for presenters and services."""

    # --- added for the GUI and the hooks ---
    @staticmethod
    def locate(workspace=None) -> Path:
        """The workspace a user-given path names (W, or W for W/ihmt_memory; None: the
        default, $IHMT_HOME or ~/.ihmt), without opening anything."""
        return resolve_workspace(workspace)

    @staticmethod
    def store_folder(workspace) -> Path:
        """The store folder inside an already located workspace (W/ihmt_memory)."""
        return StoreLayout(Path(workspace)).root

    @staticmethod
    def store_exists(workspace) -> bool:
        """Whether an already located workspace holds a store (one that ``open`` accepts)."""
        return StoreLayout(Path(workspace)).exists()

    @staticmethod
    def holds_store(folder) -> bool:
        """Whether a user-given folder (a workspace or a store folder) holds a store: the same
        answer as ``store_exists(locate(folder))``, cheap enough to ask of every listed folder."""
        return holds_store(folder)

    @staticmethod
    def write_file(path: Path, data: bytes) -> None:
        """Replace a file whole (readers see the old bytes or the new, never a half), the way
        the store writes its own files; the GUI writes a project's ``.mcp.json`` with it."""
        from ..store.atomic import atomic_write_bytes

        atomic_write_bytes(path, data)

    def state_path(self, name: str) -> Path:
        """A file of the agent hooks' state (``state/hooks/<name>``; derived, not synced)."""
        return self.layout.state / "hooks" / name

    def write_state(self, name: str, text: str) -> None:
        """Replace one hooks state file whole (see ``state_path``)."""
        path = self.state_path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text)

    def restate(self, text: str, instruction: str, timeout: float | None = None) -> str:
        """``text`` rewritten by the configured LLM summarizer as ``instruction`` (the system
        prompt) asks; "" when only the heuristic summarizer is configured, or the backend
        cannot be asked directly. Raises when the model fails (no key, SDK missing, network,
        timeout, an empty reply): callers keep their own text then. ``timeout`` bounds the
        request, in seconds."""
        if self.config.summarizer_backend in ("", "heuristic"):
            return ""
        complete = getattr(self.backend, "complete", None)
        if complete is None:
            return ""
        reply = complete(instruction, text[:RESTATE_INPUT_CAP], timeout=timeout)
        restated = " ".join(str(reply or "").split()).strip()
        if not restated:
            raise ValueError("the model's reply was empty")
        return restated[:RESTATE_OUTPUT_CAP]

    # --- added for projects ---
    def replace_sources(
        self, docs: list[dict], report: IngestReport | None = None
    ) -> list[MemoryLeaf]:
        """Write documents, each replacing everything its ``source`` held before (leaves of an
        earlier version that are not in the new one are removed). Each dict holds ``text``,
        ``source`` and any of the ``prepare_document`` options. No trunk write: call
        ``finish_write`` once after the last batch. Returns the leaves, in document order."""
        with self.store.writing():
            report = report if report is not None else IngestReport()
            return self._store_documents(docs, report, track_notices=False)

    def remove_source(self, source: str) -> int:
        """Remove every leaf of one source (exact name); returns how many were removed."""
        ids = [row["id"] for row in self.catalog.leaves_of_source(source)]
        return self.remove_leaves(ids)

    def finish_write(self, consolidate: bool = True) -> None:
        """End a series of writes: consolidate the tree (when asked) and save the trunk."""
        with self.store.writing():
            self._finish_write(consolidate)

    def sources(self) -> list[str]:
        """The name of every source that has leaves."""
        return list(self.catalog.sources())

    def corpus_stats(self) -> tuple[int, float]:
        """(number of leaves, average leaf length in terms), as BM25 weighs them."""
        return self.catalog.corpus_stats()

    def document_frequencies(self, words) -> dict[str, int]:
        """How many leaves hold each of these (indexed) terms."""
        return self.catalog.document_frequencies(words)

    # --- added for sync ---
    def writing(self, recover: bool = True):
        """A write session: the store's write lock, re-entrant, held for the ``with`` block
        (other processes' writes wait; reads go on)."""
        return self.store.writing(recover=recover)

    def counts(self) -> dict:
        """Leaves, branches per layer and leaves per domain, as the catalog counts them."""
        return self.catalog.counts()

    def mark_incomplete(self, why: str) -> None:
        """Searches report that the index may lack files until a rebuild or a completed
        ``reconcile`` clears this mark (``why`` says what was interrupted)."""
        self.catalog.mark_incomplete(why)

    def remove_leaves(self, leaf_ids: list[str]) -> int:
        """Take leaves out of the store and every index; returns how many were removed."""
        with self.store.writing():
            return self.store.remove_leaves(leaf_ids)

    def indexed_path(self, leaf_id: str) -> str | None:
        """Where the catalog has this leaf's file (relative to the store), or None."""
        row = self.catalog.leaf_row(leaf_id)
        return None if row is None else str(row["path"])

    # --- the semantic layer (a feature the facade wires in) ---
    def semantic_source(self):
        """What the semantic index may read from this memory (see semantic/hook.py)."""
        from ..semantic.hook import SemanticSource

        return SemanticSource(
            self.layout.state,
            self.config,
            self.catalog,
            lambda leaf_id: self.store.read_leaf(leaf_id),
        )

    def semantic_sidecar(self) -> Path:
        """Where the semantic vectors of this memory are kept (a derived file in state/)."""
        from ..semantic.vectors import FILENAME

        return self.layout.state / FILENAME
