"""Keeping a store whole: check and repair, quarantine, rebuild, reconcile, forget.

Part of the IHMT facade (a mixin of :class:`ihmt.api.IHMT`).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time

from ..errors import (
    CatalogDamagedError,
    IHMTError,
    InputError,
    StoreCorruptError,
)
from ..models import CheckReport, MemoryLeaf
from ..store.atomic import atomic_write_text
from ..store.leaf_files import read_leaf_file
from ..store.leaf_format import leaf_checksum
from ..store.quarantine import QuarantinedFile
from ..store.quarantine import entries as quarantine_entries
from ..store.records import (
    drop_outdated_records,
    tombstoned_ids,
    write_tombstones,
)
from .checks import MEMORY_SOURCE


class Upkeep:
    """The facade's maintenance operations."""

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
        from ..store.atomic import atomic_write_bytes
        from ..store.leaf_format import render_leaf
        from ..store.quarantine import forget_note

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
        result = self.search(match, top_k=50, as_question=False)
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
        from ..vcs.history import history_copies

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
