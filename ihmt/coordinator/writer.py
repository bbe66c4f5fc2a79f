"""WriteCoordinator: the write lock, crash recovery, leaf writes, indexing and tree upkeep.

Every write goes through ``writing()``: it refuses at once on a store this process cannot
write (reads need no lock and replay nothing, so a read-only store still answers), takes the
store-wide OS lock and, before doing anything else, finishes whatever a killed writer left
announced in the catalog's ``pending`` table (a leaf written but not indexed is indexed; a
removal half done is completed).

Extension points are given to the constructor, never patched in: a fact extractor (called
for each newly indexed leaf; its facts go into the same catalog transaction) and listeners
told after leaves were indexed or removed (the semantic index keeps its vectors in step so).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..config import IHMTConfig
from ..errors import StoreCorruptError
from ..logs import get_logger
from ..models import CheckReport, MemoryLeaf
from ..store.atomic import atomic_write_bytes, remove_stale_temps
from ..store.catalog import (
    Catalog,
    catalog_writable,
    disk_full_error,
    disk_trouble,
    path_writable,
    read_only_error,
)
from ..store.layout import StoreLayout
from ..store.leaf_files import LeafFiles, read_leaf_file, unreadable_note
from ..store.leaf_format import leaf_checksum, render_leaf
from ..store.lock import StoreLock
from ..store.records import read_records
from ..tree.builder import Tree
from ..tree.refs import leaf_ref, leaf_terms
from .check import check_store

log = get_logger("ihmt.store")

FactExtractor = Callable[[MemoryLeaf], list[dict]]
IndexedListener = Callable[[list[MemoryLeaf]], None]
RemovedListener = Callable[[list[str]], None]


def leaf_row(layout: StoreLayout, leaf: MemoryLeaf, dl: int) -> dict:
    return {
        "id": leaf.leaf_id,
        "domain": leaf.domain,
        "source": leaf.source,
        "position": leaf.position,
        "path": layout.relative(layout.leaf_path(leaf.domain, leaf.leaf_id)),
        "timestamp": leaf.timestamp,
        "data_type": leaf.data_type,
        "checksum": leaf.checksum,
        "dl": dl,
    }


class WriteCoordinator:
    """Owns the write lock and every change to leaves, catalog and tree of one store."""

    def __init__(
        self,
        layout: StoreLayout,
        config: IHMTConfig,
        tree: Tree,
        catalog: Catalog,
        *,
        fact_extractor: FactExtractor | None = None,
        on_indexed: Iterable[IndexedListener] = (),
        on_removed: Iterable[RemovedListener] = (),
    ) -> None:
        self.layout = layout
        self.config = config
        self.tree = tree
        self.catalog = catalog
        self.files = LeafFiles(layout)
        self.lock = StoreLock(layout.lock)
        self.fact_extractor = fact_extractor
        self.on_indexed = tuple(on_indexed)
        self.on_removed = tuple(on_removed)
        self.last_facts: list[dict] = []  # facts extracted by the last index_leaves call

    # -- locking and recovery ----------------------------------------------------------------
    @contextlib.contextmanager
    def writing(self, recover: bool = True) -> Iterator[None]:
        """The write lock, after finishing what a killed writer left (unless ``recover`` is
        False: a rebuild re-derives everything and must not need the old catalog). A full
        disk met anywhere inside is named as such, with the store's path."""
        if not self.lock.held:
            self.refuse_if_read_only()
        try:
            with self.lock:
                if self.lock.depth == 1 and recover:
                    self.recover()
                    self.tree.entries()  # start every write from the trunk other writers left
                yield
        except OSError as exc:
            if disk_trouble(exc, self.layout.catalog) != "full":
                raise
            raise disk_full_error(self.layout.root, exc.strerror or str(exc)) from None

    def refuse_if_read_only(self) -> None:
        """Refuse a write up front on a store this process cannot write, so that nothing is
        half done (no lock file, no pending replay, no leaf file) and the message is one line."""
        root = self.layout.root
        for path in (root, self.layout.state, self.layout.layer0):
            if path.exists() and not path_writable(path, folder=True):
                where = "its folder" if path == root else f"{path.relative_to(root)}/"
                raise read_only_error(root, f"{where} cannot be written")
        if not catalog_writable(self.layout.catalog):
            raise read_only_error(root, "state/catalog.sqlite3 cannot be written")
        if self.catalog.read_only and not self.catalog.reopen_if_writable():
            if self.catalog.full:
                raise self.catalog.refusal()
            raise read_only_error(root, "its catalog could only be opened for reading")

    def recover(self) -> list[str]:
        """Finish writes a killed process announced; returns what was done, in words."""
        done = []
        pending = self.catalog.pending()
        if not pending:
            return done
        for rel, leaf_id in pending:
            path = self.layout.root / rel
            if leaf_id.startswith("-"):
                self.remove_leaves([leaf_id[1:]])
                done.append(f"completed the removal of {leaf_id[1:]}")
                continue
            if self.catalog.leaf_row(leaf_id) is None and path.exists():
                try:
                    leaf = read_leaf_file(path)
                except PermissionError:
                    done.append(unreadable_note(rel))
                    continue
                except StoreCorruptError:
                    path.unlink(missing_ok=True)
                    done.append(f"discarded a half-written leaf {path.name}")
                else:
                    self.index_leaves([leaf])
                    done.append(f"indexed leaf {leaf_id} written before an interruption")
        with self.catalog.transaction() as conn:
            self.catalog.clear_pending(conn, [p for p, _ in pending])
        remove_stale_temps(self.layout.root)
        if done:
            log.warning("recovered an interrupted write: %s", "; ".join(done))
        return done

    # -- leaves --------------------------------------------------------------------------------
    def read_leaf(self, leaf_id: str) -> MemoryLeaf | None:
        row = self.catalog.leaf_row(leaf_id)
        if row is None:
            return None
        try:
            return read_leaf_file(self.layout.root / row["path"])
        except (OSError, StoreCorruptError):
            return None

    def write_leaves(self, leaves: list[MemoryLeaf]) -> list[MemoryLeaf]:
        """Write new leaves and index them; returns the ones that were not stored before.

        Order: announce (pending), write the files, make them durable, then index them in one
        transaction. A single leaf is fsynced on its own; a batch is written first and made
        durable with one os.sync(), which costs one flush instead of one per file.
        """
        seen: set[str] = set()
        fresh = []
        for leaf in leaves:
            if leaf.leaf_id in seen or self.catalog.leaf_row(leaf.leaf_id) is not None:
                continue
            seen.add(leaf.leaf_id)
            fresh.append(leaf)
        if not fresh:
            return []
        self.catalog.announce(
            [
                (
                    self.layout.relative(self.layout.leaf_path(leaf.domain, leaf.leaf_id)),
                    leaf.leaf_id,
                )
                for leaf in fresh
            ]
        )
        bulk = len(fresh) > 8 and hasattr(os, "sync")
        for leaf in fresh:
            path = self.layout.leaf_path(leaf.domain, leaf.leaf_id)
            atomic_write_bytes(path, render_leaf(leaf.header(), leaf.content), durable=not bulk)
        if bulk:
            os.sync()
        self.index_leaves(fresh)
        return fresh

    def index_leaves(self, leaves: list[MemoryLeaf]) -> None:
        """Index leaf files already on disk (catalog rows, terms, facts, trunk references),
        then tell the ``on_indexed`` listeners."""
        counted = [(leaf, leaf_terms(leaf)) for leaf in leaves]
        # the trunk as of the catalog's current generation (another process may have written
        # since this one last did); only then is it safe to stamp it with our new generation
        self.tree.entries()
        with self.catalog.transaction() as conn:
            fresh = self.catalog.add_leaves(
                conn,
                [
                    (leaf_row(self.layout, leaf, sum(counts.values())), counts.keys())
                    for leaf, counts in counted
                ],
            )
            refs = []
            facts = []
            for leaf, counts in counted:
                if leaf.leaf_id in fresh:
                    fresh.discard(leaf.leaf_id)
                    refs.append(leaf_ref(leaf, counts))
                    if self.fact_extractor is not None:
                        facts += self.fact_extractor(leaf)
            if facts:
                self.catalog.add_facts(conn, facts)
            paths = [
                self.layout.relative(self.layout.leaf_path(x.domain, x.leaf_id)) for x in leaves
            ]
            self.catalog.clear_pending(conn, paths)
            generation = self.catalog.bump_generation(conn)
        self.tree.adopt_generation(generation)
        self.tree.add_entries(refs)
        self.last_facts = facts
        for listener in self.on_indexed:
            listener(list(leaves))

    def remove_leaves(self, leaf_ids: list[str]) -> int:
        """Take leaves out of the tree, the catalog and the disk (announced first), then tell
        the ``on_removed`` listeners about every id asked for (known here or not)."""
        removed = self._remove(leaf_ids)
        for listener in self.on_removed:
            listener(list(leaf_ids))
        return removed

    def _remove(self, leaf_ids: list[str]) -> int:
        rows = [r for r in (self.catalog.leaf_row(i) for i in leaf_ids) if r is not None]
        if not rows:
            return 0
        self.catalog.announce([(r["path"], "-" + r["id"]) for r in rows])
        # the terms to un-count come from the file, or — when it is already gone (a merge,
        # a hand deletion) — from the reference its parent branch or the trunk keeps
        terms_by_id = {}
        for row in rows:
            try:
                terms_by_id[row["id"]] = list(
                    leaf_terms(read_leaf_file(self.layout.root / row["path"])).keys()
                )
            except (OSError, StoreCorruptError):
                terms_by_id[row["id"]] = self._terms_from_tree(row["id"])
        self.tree.entries()
        self.tree.detach([r["id"] for r in rows])
        with self.catalog.transaction() as conn:
            for row in rows:
                self.catalog.remove_leaf(conn, row["id"], terms_by_id[row["id"]])
            self.catalog.clear_pending(conn, [r["path"] for r in rows])
            self.tree.adopt_generation(self.catalog.bump_generation(conn))
        for row in rows:
            (self.layout.root / row["path"]).unlink(missing_ok=True)
        return len(rows)

    def _terms_from_tree(self, leaf_id: str) -> list[str]:
        parent = self.catalog.parent_of(leaf_id)
        try:
            refs = self.tree.read_branch(parent)["children"] if parent else self.tree.entries()
        except StoreCorruptError:
            return []
        for ref in refs:
            if ref["id"] == leaf_id:
                return list(ref.get("tf", {}))
        return []

    # -- tree upkeep ----------------------------------------------------------------------------
    def finish_write(self, consolidate: bool = True) -> None:
        """End a write (under the lock): run the summarization events it made due, then write
        the trunk for the new generation."""
        if consolidate:
            self.tree.consolidate(force=False)
        self.tree.save_root()

    def consolidate(self, force: bool = False) -> int:
        """Every due summarization event (with ``force``, close each domain to one top) and
        the trunk, under the lock; returns how many events ran."""
        with self.writing():
            events = self.tree.consolidate(force=force)
            self.tree.save_root()
        return events

    def bump_keeping_trunk(self, conn: sqlite3.Connection) -> int:
        """A new catalog generation, inside ``conn``'s transaction, for a change that does not
        touch the tree (links, facts): this writer's trunk stays valid and is not rebuilt."""
        generation = self.catalog.bump_generation(conn)
        self.tree.adopt_generation(generation)
        return generation

    # -- the files under layer_0 (store.leaf_files.LeafFiles does the work) -------------------
    def leaf_files(self, notes: list[str] | None = None, quarantine: bool = False) -> list[Path]:
        return self.files.leaf_files(notes, quarantine)

    def load_leaf(self, path: Path, notes: list[str], quarantine: bool = True) -> MemoryLeaf | None:
        return self.files.load_leaf(path, notes, quarantine)

    def place(self, path: Path, leaf: MemoryLeaf, notes: list[str], quarantine: bool) -> bool:
        """``LeafFiles.place``, and refused for a second file carrying the id of a leaf the
        catalog already holds elsewhere (a header whose domain was changed names another
        folder): that copy would sit in layer_0 unindexed, so it is set aside instead."""
        row = self.catalog.leaf_row(leaf.leaf_id)
        if row is not None and row["path"] != self.layout.relative(
            self.layout.leaf_path(leaf.domain, leaf.leaf_id)
        ):
            reason = f"a second copy of {leaf.leaf_id} (the one at {row['path']} is kept)"
            self.files.set_aside(path, reason, notes, quarantine)
            return False
        return self.files.place(path, leaf, notes, quarantine)

    def unreadable_count(self) -> int:
        return self.files.unreadable_count()

    # -- check ---------------------------------------------------------------------------------
    def check(self) -> CheckReport:
        return check_store(self.layout, self.catalog, self.tree, self.files)

    # -- rebuild -------------------------------------------------------------------------------
    def forget_derived(self) -> None:
        """Drop this process's cached tree state before a rebuild (the files stay: the live
        catalog, the trunk and the branches keep serving readers until the swap)."""
        self.tree.forget_cached()
        self.layout.layers.mkdir(parents=True, exist_ok=True)

    def remove_stray_branches(self) -> int:
        """After a rebuild was swapped in and the trunk written: branch files the new catalog
        does not know belonged to the old tree; they are derived, so they go."""
        known = {b["path"] for b in self.catalog.all_branches()}
        removed = 0
        if not self.layout.layers.is_dir():
            return 0
        for path in self.layout.layers.rglob("*.json"):
            if self.layout.relative(path) not in known:
                path.unlink(missing_ok=True)
                self.tree.cache.forget(path)
                removed += 1
        return removed

    def reindex_from_leaves(self, quarantine: bool = True) -> list[str]:
        """Index every readable leaf file. A damaged header over an intact body is rewritten;
        a file that cannot be trusted is moved aside with its reason, never deleted; a file
        this process may not read is left where it is and named (it is not damage)."""
        notes: list[str] = []
        tombstones = {r.get("leaf_id") for r in read_records(self.layout.records, "tombstone")}
        leaves = []
        placed: dict[str, str] = {}  # leaf id -> where its file now is
        for path in self.files.leaf_files(notes, quarantine=quarantine):
            leaf = self.files.load_leaf(path, notes, quarantine=quarantine)
            if leaf is None:
                continue
            if leaf.leaf_id in tombstones:
                path.unlink(missing_ok=True)
                notes.append(f"removed forgotten leaf {leaf.leaf_id}")
                continue
            digest = leaf_checksum(leaf.content)
            if leaf.checksum != digest:
                # the text was edited by hand: the file is the truth, so accept the edit
                leaf.checksum = digest
                atomic_write_bytes(path, render_leaf(leaf.header(), leaf.content))
                notes.append(f"accepted a hand edit of {leaf.leaf_id} (checksum updated)")
            kept = placed.get(leaf.leaf_id)
            if kept is not None:  # the same id twice (another domain in a header): keep one
                reason = f"a second copy of {leaf.leaf_id} (the one at {kept} is kept)"
                self.files.set_aside(path, reason, notes, quarantine)
                continue
            if self.files.place(path, leaf, notes, quarantine):
                placed[leaf.leaf_id] = self.layout.relative(
                    self.layout.leaf_path(leaf.domain, leaf.leaf_id)
                )
                leaves.append(leaf)
        leaves.sort(key=lambda x: (x.ingested_at, x.source, x.position))
        for start in range(0, len(leaves), 500):
            self.index_leaves(leaves[start : start + 500])
        return notes
