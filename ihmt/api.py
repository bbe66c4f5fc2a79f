"""The IHMT facade: the one entry point the CLI, the MCP server and the GUI use.

memory = IHMT.initialize("./workspace")
memory.ingest_file("examples/journal_personal.txt")
memory.flush()
answer = memory.search("Luis vacaciones")
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .config import IHMTConfig, load_config
from .coordinator import WriteCoordinator
from .errors import (
    CatalogDamagedError,
    IHMTError,
    InputError,
    SecretDetectedError,
    StoreCorruptError,
    StoreNotFoundError,
)
from .models import CheckReport, IngestReport, MemoryLeaf, SearchResult, TimeContext
from .search.engine import SearchEngine
from .store.atomic import atomic_write_text
from .store.catalog import Catalog, read_only_error
from .store.layout import StoreLayout, resolve_workspace
from .store.leaf_files import read_leaf_file, store_size
from .store.leaf_format import leaf_checksum
from .store.quarantine import QuarantinedFile
from .store.quarantine import entries as quarantine_entries
from .store.records import (
    drop_outdated_records,
    lift_tombstones,
    outdated_links,
    tombstoned_ids,
    write_record,
    write_tombstones,
)
from .text.clean import clean_surrogates
from .timeline.context import StoreTimeline
from .tree.builder import Tree
from .tree.heuristic import HeuristicSummarizer
from .tree.summary import SummarizerBackend

if TYPE_CHECKING:
    from .timeline.facts import Fact

log = logging.getLogger("ihmt")

MAX_SAVE_CHARS = 200_000
MEMORY_SOURCE = "memory"
BATCH_DOCS = 500
REPLACES_LEAD = 1.25  # score lead that makes one `replaces` candidate a clear match


@dataclass(frozen=True)
class Correction:
    """One explicit correction: ``old_id`` was replaced by ``new_id`` (dates of both)."""

    old_id: str
    new_id: str
    created: str
    old_date: str
    new_date: str


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


class IHMT:
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

        semantic = wiring(self)
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
            self.tree, self.catalog, self.config, self.time_context, dense=self.semantic
        )
        catalog = self.layout.catalog
        if not catalog.exists() or catalog.stat().st_size == 0:
            self._recover_lost_catalog()
        else:
            self._refresh_vocabulary()

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
    def ingest_text(
        self,
        text: str,
        source: str | None = None,
        timestamp: str | None = None,
        domain: str | None = None,
        data_type: str | None = None,
        tags: list[str] | None = None,
        consolidate: bool = True,
        redact_secrets: bool = True,
        filename: str | None = None,
    ) -> IngestReport:
        if not isinstance(text, str):
            raise InputError("text must be a string")
        if not text.strip():
            raise InputError("nothing to ingest: the text is empty")
        text = clean_surrogates(text)
        report = IngestReport(files=1)
        if redact_secrets:
            text = _redact(text, source or "text", report)
        if source is None:
            source = "text-" + _short_hash(text)
        with self.store.writing():
            self._store_document(
                text,
                source=source,
                report=report,
                timestamp=timestamp,
                domain=domain,
                data_type=_check_type(data_type),
                tags=tags,
                filename=filename or source,
            )
            self._finish_write(consolidate)
        return report

    def ingest_batch(
        self, documents: Iterable[dict], consolidate: bool = True, redact_secrets: bool = True
    ) -> IngestReport:
        """Many texts under one lock and one trunk write: each dict holds ``text`` and any of
        ``source``, ``timestamp``, ``domain``, ``data_type``, ``tags``."""
        report = IngestReport()
        batch: list[dict] = []
        with self.store.writing():
            for doc in documents:
                text = doc.get("text")
                if not isinstance(text, str) or not text.strip():
                    report.skipped.append((str(doc.get("source", "?")), "empty text"))
                    continue
                text = clean_surrogates(text)
                source = doc.get("source") or "text-" + _short_hash(text)
                if redact_secrets:
                    text = _redact(text, source, report)
                report.files += 1
                batch.append(
                    {
                        "text": text,
                        "source": source,
                        "timestamp": doc.get("timestamp"),
                        "domain": doc.get("domain"),
                        "data_type": _check_type(doc.get("data_type")),
                        "tags": doc.get("tags"),
                        "filename": doc.get("filename") or source,
                    }
                )
                if len(batch) >= BATCH_DOCS:
                    self._store_documents(batch, report, track_notices=False)
                    batch = []
            if batch:
                self._store_documents(batch, report, track_notices=False)
            self._finish_write(consolidate)
        return report

    def ingest_file(
        self,
        path,
        domain=None,
        data_type=None,
        tags=None,
        consolidate=True,
        redact_secrets: bool = True,
    ) -> IngestReport:
        return self.ingest_paths(
            [path],
            domain=domain,
            data_type=data_type,
            tags=tags,
            consolidate=consolidate,
            redact_secrets=redact_secrets,
        )

    def ingest_paths(
        self,
        paths: Iterable,
        domain: str | None = None,
        data_type: str | None = None,
        tags: list[str] | None = None,
        consolidate: bool = True,
        redact_secrets: bool = True,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> IngestReport:
        """Ingest files and folders; bad files are skipped with a reason, never raised."""
        data_type = _check_type(data_type)
        report = IngestReport()
        files: list[Path] = []
        for raw in paths:
            path = Path(raw).expanduser()
            if not path.exists():
                report.skipped.append((str(path), "no such file or folder"))
            elif path.is_dir():
                for file, reason in _reader().walk_files(path):
                    if reason:
                        report.skipped.append((str(file), reason))
                    else:
                        files.append(file)
            else:
                files.append(path)
        batch: list[dict] = []
        batch_chars = 0
        with self.store.writing():
            for index, file in enumerate(files):
                if progress:
                    progress(index, len(files), str(file))
                outcome = _reader().read_text_file(file, self.config.max_file_bytes)
                if outcome.skipped:
                    report.skipped.append((str(file), outcome.skipped))
                    continue
                if outcome.warning:
                    report.warnings.append(f"{file}: {outcome.warning}")
                text = clean_surrogates(outcome.text or "")
                if redact_secrets:
                    text = _redact(text, str(file), report)
                report.files += 1
                try:
                    mtime = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(file.stat().st_mtime))
                except OSError:
                    mtime = None
                batch.append(
                    {
                        "text": text,
                        "source": str(file.resolve()),
                        "domain": domain,
                        "data_type": data_type,
                        "tags": tags,
                        "filename": file.name,
                        "fallback_timestamp": mtime,
                    }
                )
                batch_chars += len(text)
                # bounded memory: flush the batch every few hundred files or ~32 MB of text
                if len(batch) >= BATCH_DOCS or batch_chars > 32_000_000:
                    self._store_documents(batch, report)
                    batch, batch_chars = [], 0
            if batch:
                self._store_documents(batch, report)
            if progress:
                progress(len(files), len(files), "")
            self._finish_write(consolidate)
        return report

    def ingest_stdin_bytes(self, data: bytes, **kwargs) -> IngestReport:
        outcome = _reader().decode_bytes(Path("<stdin>"), data)
        if outcome.skipped:
            raise InputError(f"standard input: {outcome.skipped}")
        return self.ingest_text(
            outcome.text or "", source=kwargs.pop("source", "<stdin>"), **kwargs
        )

    def _store_document(self, text: str, *, source: str, report: IngestReport, **kwargs) -> list:
        return self._store_documents([dict(kwargs, text=text, source=source)], report)

    def _store_documents(
        self,
        docs: list[dict],
        report: IngestReport,
        replace: bool = True,
        track_notices: bool = True,
    ) -> list[MemoryLeaf]:
        """Prepare every document, then write all new leaves in one batch and drop stale ones.

        ``replace`` makes a source behave like a document: leaves of an earlier version that
        are not in the new one are removed. Saved memories pass replace=False.
        """
        all_leaves: list[MemoryLeaf] = []
        stale: list[str] = []
        for doc in docs:
            doc = dict(doc)
            text, source = doc.pop("text"), doc.pop("source")
            prepared = _ingestor().prepare_document(text, source=source, config=self.config, **doc)
            leaves = prepared.leaves
            if replace:
                new_ids = {leaf.leaf_id for leaf in leaves}
                stale += [
                    r["id"] for r in self.catalog.leaves_of_source(source) if r["id"] not in new_ids
                ]
            all_leaves += leaves
            domain = prepared.detection.domain
            report.domains[domain] = report.domains.get(domain, 0) + len(leaves)
        resolver = self.resolver if track_notices else None
        before = set(resolver.notices()) if resolver is not None else set()
        lift_tombstones(self.layout.records, {leaf.leaf_id for leaf in all_leaves})
        fresh = self.store.write_leaves(all_leaves)
        new_facts = list(self.store.last_facts) if fresh else []
        if stale:
            report.removed_leaves += self.store.remove_leaves(stale)
        if resolver is not None:
            # keep the timeline current without re-reading every fact from the catalog
            from .timeline.facts import Fact

            resolver.add_many(Fact.from_dict(f) for f in new_facts)
            for leaf_id in stale:
                resolver.remove_leaf(leaf_id)
            self.timeline.adopt(resolver)
        report.leaves += len(all_leaves)
        report.new_leaves += len(fresh)
        report.unchanged_leaves += len(all_leaves) - len(fresh)
        report.oversized += sum(1 for leaf in all_leaves if leaf.oversized)
        report.leaf_ids += [leaf.leaf_id for leaf in all_leaves]
        if resolver is not None and fresh:
            report.notices += [n for n in resolver.notices() if n not in before]
        return all_leaves

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
        data_type = (
            None if content_type in (None, "", "auto") else _check_type(content_type.upper())
        )
        chosen_domain = None if domain in (None, "", "auto", "general") else domain
        report = SaveReport()
        old = None
        if replaces and replaces.strip():
            old = self._find_replaced(replaces, report)
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
                        "project": _label("project", project),
                        "session": _label("session", session),
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

    def _find_replaced(self, replaces: str, report: SaveReport) -> str | None:
        result = self.search(replaces, top_k=5)
        if result.not_found or not result.hits:
            report.replaces_status = "not_found"
            return None
        current = [h for h in result.hits if not h.outdated] or result.hits
        # one clear match: nothing else comes close, or it alone holds more of the words given
        clear = not result.ambiguous and (
            len(current) == 1
            or current[0].score >= REPLACES_LEAD * current[1].score
            or current[0].coverage - current[1].coverage >= 0.2
        )
        if clear:
            report.replaces_status = "linked"
            return current[0].leaf_id
        report.replaces_status = "candidates"
        report.candidates = [
            {"id": h.leaf_id, "date": h.timestamp[:10], "excerpt": h.excerpt or h.title}
            for h in current[:5]
        ]
        return None

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
    ) -> SearchResult:
        """``project`` ranks that project's memories and global ones above other projects'
        (``project_only`` drops the others); None searches everything alike."""
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
            query, clue=clue, top_k=top_k, leaf_filter=leaf_filter, boost=boost
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

    def prompt_recall(self, prompt: str, project: str = "") -> str:
        """The memories that confidently answer a prompt, as a bounded block ("" when none)."""
        from .loop.recall import prompt_recall

        return prompt_recall(self, prompt, project)

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

    def check(self, repair: bool = False) -> CheckReport:
        try:
            report = self.store.check()
        except CatalogDamagedError as exc:
            report = CheckReport(problems=[str(exc)])
        else:
            self._note_unreadable(len(set(report.unreadable)))
        why = self.catalog.incomplete()
        if why:
            report.problems.append(f"the index is incomplete ({why}); run `ihmt rebuild`")
        if repair and not report.ok:
            with self.store.writing(recover=False):
                notes = self._rebuild_locked()
            report = self.store.check()
            report.repaired = notes + [
                "rebuilt the catalog, the tree and the trunk from the leaves"
            ]
        return report

    def _note_unreadable(self, count: int) -> None:
        """Keep the catalog's unreadable count (what searches report) in line with what check
        just found. Best effort: a store this process may not write keeps the old count."""
        if count == self.catalog.unreadable():
            return
        with contextlib.suppress(IHMTError, sqlite3.Error), self.catalog.transaction() as conn:
            self.catalog.set_unreadable(conn, count)

    def quarantine(self) -> list[QuarantinedFile]:
        """What quarantine/ holds: each file's name, original place and why it was moved."""
        return quarantine_entries(self.layout.root)

    def restore_quarantined(self, name: str) -> str:
        """Put a quarantined leaf back where it belongs after the user fixed it, and index it.

        Refused (InputError, one line) when the file is still not a valid leaf, when its
        place is taken or when the memory was forgotten. Returns what was done, in words.
        """
        if not isinstance(name, str) or not name or "/" in name or "\\" in name:
            raise InputError("give the name of a file in quarantine/ (see `ihmt quarantine list`)")
        entry = next((e for e in self.quarantine() if e.name == name), None)
        path = self.layout.root / "quarantine" / name
        if entry is None or path.is_symlink():
            raise InputError(f"quarantine/ holds no file named {name!r}")
        try:
            leaf = read_leaf_file(path)
        except PermissionError:
            raise InputError(f"cannot read quarantine/{name}: permission denied") from None
        except (OSError, StoreCorruptError) as exc:
            reason = str(exc).removeprefix(name + ": ")
            raise InputError(f"quarantine/{name} is still not a valid leaf: {reason}") from None
        target = self.layout.leaf_path(leaf.domain, leaf.leaf_id)
        rel = self.layout.relative(target)
        from .store.atomic import atomic_write_bytes
        from .store.leaf_format import render_leaf
        from .store.quarantine import forget_note

        digest = leaf_checksum(leaf.content)
        with self.store.writing():  # checked under the lock: no writer can take the place
            if leaf.leaf_id in tombstoned_ids(self.layout.records):
                raise InputError(f"{leaf.leaf_id} was forgotten; save its text again to keep it")
            if target.exists() or self.catalog.leaf_row(leaf.leaf_id) is not None:
                raise InputError(f"{rel} already exists; compare it with quarantine/{name} by hand")
            if leaf.checksum != digest:
                leaf.checksum = digest  # the user edited the text: the file is the truth
            atomic_write_bytes(target, render_leaf(leaf.header(), leaf.content))
            path.unlink()
            forget_note(self.layout.root, name)
            self.store.index_leaves([leaf])
            self._finish_write(True)
        return f"restored quarantine/{name} to {rel} and indexed {leaf.leaf_id}"

    def rebuild(self) -> list[str]:
        """The catalog, tree and trunk again from the leaf files. The new catalog is built
        beside the live one and swapped in at the end: readers keep the old index meanwhile,
        a killed rebuild leaves it in place, and a damaged one is moved aside, not deleted."""
        with self.store.writing(recover=False):
            return self._rebuild_locked()

    def _rebuild_locked(self) -> list[str]:
        self.store.forget_derived()
        with self.catalog.staged() as swapped:
            notes = self.store.reindex_from_leaves()
            self._replay_records()
            self.tree.consolidate(force=False)
            with self.catalog.transaction() as conn:  # searches report what they cannot see
                self.catalog.set_unreadable(conn, self.store.unreadable_count())
        notes += swapped
        self.tree.save_root()
        self.store.remove_stray_branches()
        self._export_facts()
        if self.semantic is not None:  # re-embed what the vector sidecar lacks (ihmt/semantic)
            self.semantic.rebuild()
        return notes

    def reconcile(self) -> list[str]:
        """Bring the derived state in line with the files on disk, incrementally.

        Used after something other than this library changed the store folder (a git merge,
        a copy): leaf files the catalog does not know are indexed, catalog entries whose file
        vanished are dropped, forget tombstones are applied and records are replayed.
        """
        notes: list[str] = []
        with self.store.writing():
            # a kill before the end leaves this mark, which searches report until a rebuild
            # or a completed reconcile clears it
            self.catalog.mark_incomplete("indexing files changed on disk was interrupted")
            tombstones = tombstoned_ids(self.layout.records)
            known = {r["path"]: r["id"] for r in self.catalog.all_leaves()}
            on_disk = {
                self.layout.relative(p): p for p in self.store.leaf_files(notes, quarantine=True)
            }
            gone = [leaf_id for path, leaf_id in known.items() if path not in on_disk]
            gone += [leaf_id for leaf_id in known.values() if leaf_id in tombstones]
            if gone:
                self.store.remove_leaves(sorted(set(gone)))
                notes.append(f"dropped {len(set(gone))} leaf/leaves removed on disk or forgotten")
            fresh = []
            for rel, path in on_disk.items():
                if rel in known:
                    continue
                leaf = self.store.load_leaf(path, notes)
                if leaf is None or not self.store.place(path, leaf, notes, quarantine=True):
                    continue
                if leaf.leaf_id in tombstones:
                    path.unlink(missing_ok=True)
                    notes.append(f"deleted forgotten leaf {leaf.leaf_id} that came back")
                    continue
                fresh.append(leaf)
            for start in range(0, len(fresh), 500):
                self.store.index_leaves(fresh[start : start + 500])
            if fresh:
                notes.append(f"indexed {len(fresh)} new leaf/leaves")
            self._replay_records()
            self.tree.consolidate(force=False)
            unreadable = self.store.unreadable_count()
            with self.catalog.transaction() as conn:
                self.catalog.clear_incomplete(conn)
                self.catalog.set_unreadable(conn, unreadable)
                self._bump_keeping_trunk(conn)
            self.tree.save_root()
        return notes

    def forget_targets(
        self,
        leaf_id: str | None = None,
        source: str | None = None,
        match: str | None = None,
        session: str | None = None,
    ) -> list[MemoryLeaf]:
        """The leaves a forget would remove (for a preview)."""
        chosen = [x for x in (leaf_id, source, match, session) if x]
        if len(chosen) != 1:
            raise InputError(
                "forget needs exactly one of: a leaf id, --source PATH, --match TEXT, --session ID"
            )
        if session:
            found = [leaf for leaf in self.leaves(MEMORY_SOURCE) if leaf.session == session]
            if not found:
                raise InputError(f"no memory was captured by session {session!r}")
            return found
        if leaf_id:
            leaf = self.store.read_leaf(leaf_id.strip())
            if leaf is None:
                raise InputError(f"no memory with id {leaf_id!r}")
            return [leaf]
        if source:
            leaves = self.leaves(source)
            if not leaves:
                raise InputError(f"no memory came from {source!r}")
            return leaves
        needle = " ".join(match.split()).casefold()
        if len(needle) < 3:
            raise InputError("--match needs at least 3 characters")
        result = self.search(match, top_k=50)
        found = []
        for hit in result.hits:
            if needle in " ".join(hit.content.split()).casefold():
                leaf = self.store.read_leaf(hit.leaf_id)
                if leaf is not None:
                    found.append(leaf)
        if not found:
            raise InputError(f"no memory contains {match!r}")
        return found

    def history_copies(self, leaf_ids: list[str]):
        """For a synced store: which of these memories stay in its git history after a
        forget, with the commands that purge them (``vcs.history.HistoryCopies``)."""
        from .vcs.history import history_copies

        paths = []
        for lid in leaf_ids:
            row = self.catalog.leaf_row(lid)
            if row is not None:
                paths.append(str(row["path"]))
        return history_copies(self.layout.root, paths)

    def forget(
        self,
        leaf_id: str | None = None,
        source: str | None = None,
        match: str | None = None,
        session: str | None = None,
    ) -> list[str]:
        """Remove memories for good: the leaf file, every summary and index that mentioned it,
        its facts and links; a tombstone keeps rebuilds and syncs from resurrecting it. In a
        synced store the git history keeps older copies: ask ``history_copies`` first."""
        targets = self.forget_targets(leaf_id, source, match, session)
        ids = [leaf.leaf_id for leaf in targets]
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with self.store.writing():
            write_tombstones(self.layout.records, ids, stamp)
            self.store.remove_leaves(ids)
            with self.catalog.transaction() as conn:
                self.catalog.remove_links_of(conn, ids)
                self.store.bump_keeping_trunk(conn)
            drop_outdated_records(self.layout.records, ids)
            self.tree.save_root()
            self.catalog.checkpoint()
            if self.layout.facts_json.exists():
                self._export_facts()  # the readable export must not keep forgotten facts
        return ids

    def _export_facts(self) -> None:
        data = self.resolver.to_list()
        atomic_write_text(self.layout.facts_json, json.dumps(data, ensure_ascii=False, indent=2))

    def close(self) -> None:
        self.catalog.close()

    # -- Read models for presenters and services ----------------------------------------------
    # Presenters (CLI, MCP, GUI, hooks) and services (sync, projects) read the memory through
    # these, never through ``tree``, ``catalog``, ``store``, ``resolver`` or ``layout``: those
    # are this class's own collaborators and may change shape.
    def exists(self) -> bool:
        """Whether the store's folder is still on disk (a server may outlive a deleted store)."""
        return self.layout.exists()

    def generation(self) -> int:
        """A number that changes whenever anything in the store changes (for presenter caches)."""
        return self.catalog.generation()

    def trunk(self) -> dict:
        """The trunk record: ``entries`` (top references), ``domains``, ``counters``,
        ``updated_at``."""
        return self.tree.read_root()

    def node(self, node_id: str) -> dict | None:
        """One branch (``self`` and ``children`` references), or None when no such branch."""
        if self.catalog.branch_row(node_id) is None:
            return None
        return self.tree.read_branch(node_id)

    def outline(self, depth: int) -> dict:
        """The trunk with each branch reference's child references under ``expanded``, down to
        ``depth`` levels (1 = the top entries only)."""
        root = self.tree.read_root()

        def expand(ref: dict, level: int) -> dict:
            if ref.get("kind") != "branch" or level >= depth:
                return ref
            children = self.tree.read_branch(ref["id"]).get("children", [])
            return {**ref, "expanded": [expand(c, level + 1) for c in children]}

        return {**root, "entries": [expand(r, 1) for r in root.get("entries", [])]}

    def leaf(self, leaf_id: str) -> MemoryLeaf | None:
        """One memory by id, or None when it does not exist (or cannot be read)."""
        return self.store.read_leaf(leaf_id)

    def recent_memories(self, limit: int) -> list[MemoryLeaf]:
        """The newest memories saved with ``save`` (not ingested documents), newest first."""
        rows = sorted(
            self.catalog.leaves_of_source("memory"),
            key=lambda r: r.get("timestamp") or "",
            reverse=True,
        )[: max(0, limit)]
        return [leaf for leaf in (self.store.read_leaf(r["id"]) for r in rows) if leaf]

    def corrections(self) -> list[Correction]:
        """Every explicit correction (``replaces`` / ``mark_outdated``), oldest first."""
        out = []
        for old_id, new_id, created in sorted(self.catalog.links(), key=lambda x: x[2]):
            old = self.catalog.leaf_row(old_id) or {}
            new = self.catalog.leaf_row(new_id) or {}
            out.append(
                Correction(
                    old_id,
                    new_id,
                    created,
                    old.get("timestamp", "") or "",
                    new.get("timestamp", "") or "",
                )
            )
        return out

    def facts(self, subject: str | None = None) -> list[Fact]:
        """Every tracked fact (of one subject, or all), with its status."""
        return self.resolver.facts(subject)

    def current_facts(self) -> dict[str, Fact]:
        """The value in force for each fact key (``subject::attribute``)."""
        return self.resolver.active_state()

    def facts_as_of(self, date: str) -> dict[str, Fact]:
        """The value each fact key had on ``date`` (YYYY-MM-DD)."""
        return self.resolver.state_at(date)

    def fact_timeline(self, key: str) -> list[Fact]:
        """Every value one fact key has had, oldest first."""
        return self.resolver.timeline(key)

    def contradictions(self, subject: str | None = None) -> list:
        """Each change of a fact's value over time (old, new, dates, source memories)."""
        return self.resolver.contradictions(subject)

    def superseded_changes(self) -> dict[str, list]:
        """Leaf id -> the fact changes that make it OUTDATED."""
        return self.resolver.superseded_changes()

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
    def write_file(path: Path, data: bytes) -> None:
        """Replace a file whole (readers see the old bytes or the new, never a half), the way
        the store writes its own files; the GUI writes a project's ``.mcp.json`` with it."""
        from .store.atomic import atomic_write_bytes

        atomic_write_bytes(path, data)

    def state_path(self, name: str) -> Path:
        """A file of the agent hooks' state (``state/hooks/<name>``; derived, not synced)."""
        return self.layout.state / "hooks" / name

    def write_state(self, name: str, text: str) -> None:
        """Replace one hooks state file whole (see ``state_path``)."""
        path = self.state_path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text)

    def restate(self, text: str) -> str:
        """``text`` restated as one self-contained sentence by the configured LLM summarizer;
        "" when only the heuristic one is configured (it would add nothing). May raise
        whatever the model's client raises: callers keep their own text then."""
        if self.config.summarizer_backend in ("", "heuristic"):
            return ""
        from .tree.summary import ChildDigest

        digest = ChildDigest(title="", excerpt=text[:300], text=text)
        summary = self.backend.summarize([digest], domain="general", layer=1)
        return (getattr(summary, "summary", "") or "").strip()[:1200]

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


def _reader():
    """The file reader, imported when a file is ingested: searches and the agent hooks, which
    start a process per call, do not pay for the ingest stack (~0.1 s of imports)."""
    from .ingest import reader

    return reader


def _ingestor():
    """The ingest pipeline (detector, chunkers), imported on the first write; see _reader."""
    from .ingest import ingestor

    return ingestor


def _short_hash(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def _check_type(data_type: str | None) -> str | None:
    if data_type is None:
        return None
    value = str(data_type).upper()
    valid = ("CODE", "NARRATIVE", "CLINICAL", "PERSONAL", "PROCESS", "GENERIC")
    if value not in valid:
        raise InputError(f"unknown type {data_type!r}; use one of {', '.join(valid)}")
    return value


def _label(name: str, value) -> str:
    """A project or session name as stored in a leaf header (one line, bounded)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError(f"{name} must be text")
    text = " ".join(value.split())
    if len(text) > 300:
        raise InputError(f"{name} is longer than 300 characters")
    return text


def _redact(text: str, where: str, report: IngestReport) -> str:
    from .privacy.secrets import redact_reporting

    return redact_reporting(text, where, report.redactions)
