"""The IHMT facade: the one entry point the CLI, the MCP server and the GUI use.

memory = IHMT.initialize("./workspace")
memory.ingest_file("examples/journal_personal.txt")
memory.flush()
answer = memory.search("Luis vacaciones")
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .config import IHMTConfig, load_config
from .coordinator import WriteCoordinator
from .errors import (
    IHMTError,
    InputError,
    SecretDetectedError,
    StoreNotFoundError,
)
from .facade.checks import MEMORY_SOURCE, check_type, label
from .facade.ingesting import Ingesting
from .facade.reads import ReadModels
from .facade.services import ServiceOps
from .facade.upkeep import Upkeep
from .logs import get_logger
from .models import IngestReport, MemoryLeaf, SearchResult, TimeContext
from .search.engine import SearchEngine
from .search.replaced import choose_replaced
from .store.atomic import atomic_write_text
from .store.catalog import Catalog, read_only_error
from .store.layout import StoreLayout, resolve_workspace
from .store.leaf_files import store_size
from .store.records import (
    outdated_links,
    write_record,
)
from .text.bm25 import idf
from .text.clean import clean_surrogates
from .text.tokenize import terms
from .timeline.context import StoreTimeline
from .tree.builder import Tree
from .tree.heuristic import HeuristicSummarizer
from .tree.refs import ABOUT_CHARS
from .tree.summary import SummarizerBackend

if TYPE_CHECKING:
    pass

log = get_logger("ihmt")

MAX_SAVE_CHARS = 200_000
REPLACES_CANDIDATES = 10  # memories the `replaces` pointer's search offers to choose from


@dataclass
class SaveReport:
    leaf_ids: list[str] = field(default_factory=list)
    domain: str = ""
    data_type: str = ""
    new: bool = True
    notices: list[str] = field(default_factory=list)
    replaces_status: str = ""  # "", "linked", "candidates", "not_found"
    replaced_id: str = ""
    candidates: list[dict] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        from dataclasses import asdict

        return asdict(self)


class IHMT(Ingesting, Upkeep, ReadModels, ServiceOps):
    """A memory store in ``workspace/ihmt_memory``."""

    def __init__(
        self,
        workspace,
        *,
        config: IHMTConfig | None = None,
        backend: SummarizerBackend | None = None,
        extract_facts: bool = True,
    ) -> None:
        """``extract_facts=False`` stores no personal facts from what is indexed (a project's
        code index: code carries none, and the extractor would only cost time)."""
        self.layout = StoreLayout(resolve_workspace(workspace))
        self.config = config or load_config(self.layout.config)
        self.catalog = Catalog(self.layout.catalog)
        self.backend = backend or self._configured_backend()
        self.tree = Tree(self.layout, self.catalog, self.config, self.backend)
        self.timeline = StoreTimeline(self.catalog, self.layout.records, self.config)
        self.timeline.extract = extract_facts
        # optional semantic retrieval (ihmt/semantic): an index and the listeners that keep
        # its vectors in step; the model itself loads on the first search
        from .semantic.hook import wiring

        semantic = wiring(self.semantic_source())
        self.semantic = semantic.index
        # the write coordinator (kept under the name ``store``, which callers already use)
        self.store = WriteCoordinator(
            self.layout,
            self.config,
            self.tree,
            self.catalog,
            fact_extractor=self._facts_of_leaf if extract_facts else None,
            on_indexed=semantic.on_indexed,
            on_removed=semantic.on_removed,
        )
        self.engine = SearchEngine(
            self.tree, self.catalog, self.config, self.time_context, dense=self._dense_side()
        )
        catalog = self.layout.catalog
        if not catalog.exists() or catalog.stat().st_size == 0:
            self._recover_lost_catalog()
        else:
            self._refresh_vocabulary()

    def _dense_side(self):
        """What answers the engine's dense side: this process's semantic index, reached
        through the store's resident process while this process has not loaded the model
        itself (semantic/resident.py: ``ihmt search`` then answers in milliseconds, not the
        seconds a load costs); None without semantic search."""
        if self.semantic is None:
            return None
        from .semantic import resident

        if not resident.supported():
            return self.semantic
        return resident.SharedModel(self.semantic, self.layout.state, self.config)

    def _recover_lost_catalog(self) -> None:
        """The catalog is derived: a deleted (or empty) one is rebuilt from the leaves, never
        trusted empty (an empty catalog would answer NOT FOUND to everything)."""
        has_leaves = next(iter(self.layout.layer0.rglob("*.txt")), None) is not None
        if has_leaves:
            log.warning(
                "state/catalog.sqlite3 is missing or empty; rebuilding it from the leaf files"
            )
            self.rebuild()

    def _refresh_vocabulary(self) -> None:
        """Queries are read with today's vocabulary (text/vocabulary.py); a store indexed with
        an older one is re-indexed once from its leaves, or a query would miss what it holds."""
        try:
            if self.catalog.vocabulary_current() or self.catalog.read_only:
                return
        except IHMTError:
            return  # a damaged catalog is reported, with its fix, by whatever uses it next
        with self.store.writing():
            if not self.catalog.vocabulary_current():  # another process may have done it
                log.warning("re-indexing the memory once for the new search vocabulary")
                self._rebuild_locked()

    # -- opening -------------------------------------------------------------------------------
    @classmethod
    def initialize(
        cls,
        workspace=None,
        force: bool = False,
        backend=None,
        extract_facts: bool = True,
        **config,
    ) -> IHMT:
        """Create the store (or open it); force discards derived state, never a leaf."""
        layout = StoreLayout(resolve_workspace(workspace))
        try:
            layout.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot create {layout.root}: {exc.strerror or exc}") from None
        existing = load_config(layout.config) if layout.config.exists() else IHMTConfig()
        cfg = existing.with_overrides(**config)
        settings = json.dumps(cfg.to_dict(), indent=2, ensure_ascii=False) + "\n"
        try:
            for folder in (layout.layer0, layout.layers, layout.state, layout.records):
                folder.mkdir(parents=True, exist_ok=True)
            if not layout.config.exists() or layout.config.read_text("utf-8") != settings:
                atomic_write_text(layout.config, settings)
        except PermissionError as exc:
            raise read_only_error(layout.root, f"{exc.strerror or exc}") from None
        memory = cls(layout.workspace, config=cfg, backend=backend, extract_facts=extract_facts)
        if force:
            memory.rebuild()  # the derived state again from the leaves, the old catalog kept
            return memory  # until the new one is whole (a damaged one is moved aside)
        if layout.root_json.exists():
            return memory  # already a store, settings unchanged or just saved: nothing to do
        with memory.store.writing():
            if not layout.root_json.exists():
                memory.tree.save_root()
        return memory

    @classmethod
    def open(cls, workspace=None, backend=None, extract_facts: bool = True) -> IHMT:
        layout = StoreLayout(resolve_workspace(workspace))
        if not layout.exists():
            raise StoreNotFoundError(
                f"no IHMT store at {layout.root}; create one with `ihmt init --path {layout.workspace}`"
            )
        return cls(layout.workspace, backend=backend, extract_facts=extract_facts)

    def _configured_backend(self) -> SummarizerBackend:
        heuristic = HeuristicSummarizer()
        if self.config.summarizer_backend in ("", "heuristic"):
            return heuristic
        from .tree.llm_backends import make_backend

        return make_backend(
            self.config.summarizer_backend,
            model=self.config.summarizer_model,
            base_url=self.config.summarizer_base_url,
            fallback=heuristic,
        )

    @property
    def path(self) -> Path:
        return self.layout.root

    # -- ingestion -----------------------------------------------------------------------------
    def _finish_write(self, consolidate: bool) -> None:
        self.store.finish_write(consolidate)

    # -- saving (what save_memory calls) -------------------------------------------------------
    def save(
        self,
        content: str,
        domain: str | None = "general",
        content_type: str = "auto",
        replaces: str = "",
        allow_secrets: bool = False,
        timestamp: str | None = None,
        project: str = "",
        session: str = "",
    ) -> SaveReport:
        """Store one memory. ``project`` (a name from ``vcs.project``) files it under the
        project it was saved from ("" = global); ``session`` names the agent session that
        captured it, so ``forget(session=...)`` can take back what one session captured."""
        if not isinstance(content, str) or not content.strip():
            raise InputError("content is empty: give the text of the memory to save")
        if len(content) > MAX_SAVE_CHARS:
            raise InputError(
                f"content is {len(content):,} characters, above the {MAX_SAVE_CHARS:,} limit for one "
                "memory; save a summary, or ingest the file with `ihmt ingest`"
            )
        content = clean_surrogates(content)
        if not allow_secrets:
            from .privacy.secrets import describe, find_secrets

            findings = find_secrets(content)
            if findings:
                raise SecretDetectedError(f"nothing was stored: {describe(findings)}")
        data_type = None if content_type in (None, "", "auto") else check_type(content_type.upper())
        chosen_domain = None if domain in (None, "", "auto", "general") else domain
        report = SaveReport()
        old = None
        if replaces and replaces.strip():
            old = self._find_replaced(replaces, report, content, timestamp or "")
        ingest = IngestReport()
        with self.store.writing():
            leaves = self._store_documents(
                [
                    {
                        "text": content,
                        "source": MEMORY_SOURCE,
                        "timestamp": timestamp,
                        "domain": chosen_domain,
                        "data_type": data_type,
                        "project": label("project", project),
                        "session": label("session", session),
                        **_labelled(replaces),
                    }
                ],
                ingest,
                replace=False,
            )
            self._finish_write(True)
        report.leaf_ids = [leaf.leaf_id for leaf in leaves]
        report.new = ingest.new_leaves > 0
        report.domain = leaves[0].domain if leaves else ""
        report.data_type = leaves[0].data_type if leaves else ""
        report.notices = ingest.notices
        report.facts = [
            f"{f['subject']}::{f['attribute']} = {f['value']}"
            for leaf in leaves
            for f in self._facts_of_leaf(leaf)
        ]
        if old and report.leaf_ids and old != report.leaf_ids[0]:
            self.mark_outdated(old, report.leaf_ids[0])
            report.replaced_id = old
        return report

    def _find_replaced(
        self, replaces: str, report: SaveReport, content: str = "", timestamp: str = ""
    ) -> str | None:
        """The memory ``replaces`` points at, chosen by the pointer's words and the new
        memory's own (search/replaced.py); None with the candidates listed when none is clear."""
        result = self.search(replaces, top_k=REPLACES_CANDIDATES, as_question=False)
        # a stray or weak match still lists what the pointer found; no words found lists none
        if not result.hits or result.reason_code in ("no_match", "no_words", "unreadable"):
            report.replaces_status = "not_found"
            return None
        from .text.dates import normalize_timestamp  # here: the read path never needs it

        before = normalize_timestamp(timestamp) or "" if timestamp else ""
        chosen, ranked = choose_replaced(result.hits, self.term_weights(content), before, content)
        if chosen is not None:
            report.replaces_status = "linked"
            return chosen.leaf_id
        if not ranked:
            report.replaces_status = "not_found"
            return None
        report.replaces_status = "candidates"
        report.candidates = [
            {"id": h.leaf_id, "date": h.timestamp[:10], "excerpt": h.excerpt or h.title}
            for h in ranked[:5]
        ]
        return None

    def term_weights(self, text: str, min_df: int = 0) -> dict[str, float]:
        """The terms of ``text`` with their rarity in this memory (idf): a word most memories
        hold weighs little, one few hold weighs much. ``min_df``: count each word as held by at
        least that many memories (1: a word none holds weighs as one a single memory holds)."""
        words = set(terms(text))
        if not words:
            return {}
        n, _ = self.catalog.corpus_stats()
        dfs = self.catalog.document_frequencies(words)
        return {t: idf(max(dfs.get(t, 0), min_df), max(n, 1)) for t in words}

    def unknown_terms(self, text: str) -> set[str]:
        """The terms of ``text`` that no memory holds (in any inflection the index keeps)."""
        words = set(terms(text))
        dfs = self.catalog.document_frequencies(words) if words else {}
        return {t for t in words if not dfs.get(t)}

    def mark_outdated(self, old_id: str, new_id: str) -> str:
        """Flag ``old_id`` as corrected by ``new_id``; returns the notice."""
        old_id, new_id = (old_id or "").strip(), (new_id or "").strip()
        if not old_id or not new_id:
            raise InputError("mark_outdated needs two leaf ids: the old memory and its correction")
        if old_id == new_id:
            raise InputError("a memory cannot correct itself: give two different ids")
        for leaf_id in (old_id, new_id):
            if self.catalog.leaf_row(leaf_id) is None:
                raise InputError(f"no memory with id {leaf_id!r}")
        created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with self.store.writing():
            write_record(
                self.layout.records,
                "outdated",
                {"old_id": old_id, "new_id": new_id, "created": created},
            )
            with self.catalog.transaction() as conn:
                self.catalog.add_link(conn, old_id, new_id, created)
                self._bump_keeping_trunk(conn)
            self.tree.save_root()
        return self.timeline.link_notice(old_id, new_id)

    def _replay_records(self) -> None:
        """Mirror the durable OUTDATED records into the catalog, and drop links whose record
        or whose leaves are gone (a forget here or on a synced peer)."""
        self.tree.entries()
        wanted = outdated_links(self.layout.records)
        with self.catalog.transaction() as conn:
            for old_id, new_id, created in wanted:
                if self.catalog.leaf_row(old_id) and self.catalog.leaf_row(new_id):
                    self.catalog.add_link(conn, old_id, new_id, created)
            keep = {(o, n) for o, n, _ in wanted}
            self.catalog.remove_links(conn, self.catalog.stale_links(keep))
            self._bump_keeping_trunk(conn)

    def _bump_keeping_trunk(self, conn) -> None:
        """A new generation for a change that does not touch the tree (links, facts): the
        writer's trunk stays valid, so it is not rebuilt from the catalog."""
        self.store.bump_keeping_trunk(conn)

    # -- the tree --------------------------------------------------------------------------------
    def consolidate(self, force: bool = False) -> int:
        return self.store.consolidate(force=force)

    def flush(self) -> int:
        return self.consolidate(force=True)

    # -- search ----------------------------------------------------------------------------------
    def search(
        self,
        query: str,
        top_k: int = 5,
        clue: str | None = None,
        leaf_filter=None,
        boost=None,
        project: str | None = None,
        project_only: bool = False,
        as_question: bool = True,
    ) -> SearchResult:
        """``project`` ranks that project's memories and global ones above other projects'
        (``project_only`` drops the others); None searches everything alike. ``as_question``
        False reads the query as a phrase pointing at memories or code (a ``replaces``
        phrase, an identifier), so the shape of answer a question asks for does not apply."""
        if not isinstance(query, str):
            raise InputError("query must be a string")
        if clue is not None and not isinstance(clue, str):
            raise InputError("clue must be a string")
        if project:
            from .search.project_scope import project_boost, project_filter

            boost = project_boost(project, boost)
            if project_only:
                leaf_filter = project_filter(project, leaf_filter)
        return self.engine.search(
            query,
            clue=clue,
            top_k=top_k,
            leaf_filter=leaf_filter,
            boost=boost,
            as_question=as_question,
        )

    def ask(
        self,
        query: str,
        clue_provider: Callable[[SearchResult], str | None] | None = None,
        top_k: int = 5,
        clue: str | None = None,
        project: str | None = None,
    ) -> SearchResult:
        """Search; while the answer is AMBIGUOUS, ask ``clue_provider`` for a clue."""
        result = self.search(query, top_k=top_k, clue=clue, project=project)
        clues = [clue] if clue else []
        rounds = 0
        while (
            result.ambiguous and clue_provider is not None and rounds < self.config.max_clue_rounds
        ):
            answer = clue_provider(result)
            rounds += 1
            if not answer or not str(answer).strip():
                break
            clues.append(str(answer).strip())
            result = self.search(query, top_k=top_k, clue=" ".join(clues), project=project)
        return result

    # -- memory in the loop (what the agents' hooks call) --------------------------------------
    def session_brief(self, project: str = "") -> str:
        """A short dated brief for a session starting in ``project`` ("" when nothing)."""
        from .loop.recall import session_brief

        return session_brief(self, project)

    def prompt_recall(self, prompt: str, project: str = "", load_model: bool = True) -> str:
        """The memories that confidently answer a prompt, as a bounded block ("" when none).
        ``load_model`` False (the per-prompt hook, a new process each time): with semantic
        search on but its model not in this process, the dense side comes from the resident
        process that keeps it loaded (semantic/resident.py), or, when there is none yet, the
        prompt is answered on words alone (and one is started) rather than spend the seconds
        loading the model here (3-4 s, past the hook's time budget)."""
        from .loop.recall import prompt_recall

        if load_model or self.semantic is None or self.semantic.model_loaded():
            return prompt_recall(self, prompt, project)
        from .semantic import resident

        nearby = None
        if resident.wanted(self.config):
            nearby = resident.ResidentDense(
                self.layout.state, self.layout.workspace, self.semantic.fusion
            )
        dense, self.engine.dense = self.engine.dense, nearby
        try:
            return prompt_recall(self, prompt, project)
        finally:
            self.engine.dense = dense

    def start_resident_model(self) -> bool:
        """With semantic search on, start the process that keeps the model loaded for the
        per-prompt hook and for other processes' searches (semantic/resident.py), unless one
        runs: the session-start hook calls it so the model is loaded by the first prompt, the
        MCP server when it opens the store. False when nothing was started."""
        if self.semantic is None or self.semantic.model_loaded():
            return False  # this process searches with its own model (a server, a benchmark)
        from .semantic import resident

        if not resident.wanted(self.config):
            return False
        started = resident.start(self.layout.workspace, self.layout.state)
        if started and isinstance(self.engine.dense, resident.SharedModel):
            self.engine.dense.expect_resident()  # this process's next search waits for it
        return started

    def share_model(self) -> bool:
        """``start_resident_model`` for a process that serves a store for long (the MCP server,
        the GUI): a failure is logged, never raised, since its searches then load their own
        model."""
        try:
            started = self.start_resident_model()
        except Exception as exc:  # the process works without it
            log.warning("could not start the resident semantic model: %s", exc)
            return False
        if started:
            log.info("started the resident semantic model")
        return started

    def capture(
        self,
        transcript_path: str,
        *,
        session: str,
        agent: str = "claude",
        project: str = "",
        cwd: str | None = None,
    ):
        """Save what the unread part of a session transcript holds (``loop.capture``)."""
        from .loop.capture import capture_transcript

        return capture_transcript(
            self, transcript_path, session=session, agent=agent, project=project, cwd=cwd
        )

    # -- time (ihmt/timeline/context.py) -----------------------------------------------------
    def _facts_of_leaf(self, leaf: MemoryLeaf) -> list[dict]:
        return self.timeline.facts_of_leaf(leaf)

    def add_pattern(
        self, subject: str, attribute: str, regex: str, name: str | None = None
    ) -> None:
        self.timeline.extractor().add_pattern(subject, attribute, regex, name)

    @property
    def resolver(self):
        return self.timeline.resolver

    def record_fact(
        self,
        subject: str,
        attribute: str,
        value: str,
        timestamp: str | None = None,
        source_leaf: str | None = None,
    ) -> list[str]:
        from .timeline.resolver import ConflictResolver

        probe = ConflictResolver()
        probe.record_fact(subject, attribute, value, timestamp, source_leaf)
        fact = probe.facts()[0]
        before = set(self.resolver.notices())
        with self.store.writing():
            write_record(self.layout.records, "fact", {"fact": fact.to_dict()})
            with self.catalog.transaction() as conn:
                self._bump_keeping_trunk(conn)
            self.tree.save_root()
        return [n for n in self.resolver.notices() if n not in before]

    def notices(self, subject: str | None = None) -> list[str]:
        return self.resolver.notices(subject)

    def path_of(self, leaf_id: str) -> list[str]:
        """The tree path from the trunk down to a leaf (node ids), as search hits carry it."""
        return self.engine.path_of(leaf_id)

    def time_context(self) -> TimeContext:
        """What time says about the leaves (OUTDATED leaves and why, replacements); cached."""
        return self.timeline.time_context()

    # -- inspection ------------------------------------------------------------------------------
    def leaves(self, source: str | None = None) -> list[MemoryLeaf]:
        """Leaves in document order; ``source`` may be the path given at ingest."""
        if source is None:
            rows = self.catalog.all_leaves()
        else:
            rows = self.catalog.leaves_of_source(source)
            if not rows and Path(source).expanduser().exists():
                rows = self.catalog.leaves_of_source(str(Path(source).expanduser().resolve()))
        out = []
        for row in rows:
            leaf = self.store.read_leaf(row["id"])
            if leaf is not None:
                out.append(leaf)
        return out

    def stats(self) -> dict:
        counts = self.catalog.counts()
        files, size = store_size(self.layout.root)
        n, avgdl = self.catalog.corpus_stats()
        try:
            root = self.tree.read_root()
            top_entries = len(root.get("entries", []))
        except Exception:
            top_entries = None
        layers = max([0, *counts["branches_per_layer"].keys()])
        return {
            "path": str(self.layout.root),
            "leaves": counts["leaves"],
            "branches": sum(counts["branches_per_layer"].values()),
            "layers": layers,
            "depth": layers + 1,
            "branches_per_layer": {
                str(k): v for k, v in sorted(counts["branches_per_layer"].items())
            },
            "leaves_per_domain": dict(sorted(counts["leaves_per_domain"].items())),
            "trunk_entries": top_entries,
            "facts": len(self.resolver),
            "unreadable_leaves": self.store.unreadable_count(),
            "quarantined": len(self.quarantine()),
            "files": files,
            "disk_bytes": size,
            "avg_leaf_terms": round(avgdl, 1),
            "config": {k: v for k, v in self.config.to_dict().items() if k != "fact_patterns"},
        }

    def close(self) -> None:
        self.catalog.close()


def _labelled(replaces: str) -> dict:
    """The ``replaces`` phrase stays with the new memory as its label ("staging database
    version"): it names what the memory is about in the words a later question uses, and
    tree/refs.py indexes the words of it the text lacks."""
    phrase = " ".join((replaces or "").split())[:ABOUT_CHARS]
    return {"extra": {"about": phrase}} if phrase else {}
